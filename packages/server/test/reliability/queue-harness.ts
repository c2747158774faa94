import type { ChildProcess } from 'node:child_process';
import type { Job } from '@adam/contracts';
import type { FixtureSite } from '../fixtures/fixture-site.js';
import { linkSharedModel, startServer, tempDir, type TestServer } from '../helpers.js';
import { spawnCli } from '../redis-helpers.js';
import { until } from '../until.js';

/**
 * What the Queue checks share: a server in Redis mode with no worker of its own, `adam worker`
 * processes the test starts, stops and kills, and the accounting of a job's URLs and snippets.
 */

/** Short locks so a dead or paused worker's job moves on within seconds (default 30 s). */
export const LOCK_MS = 2000;

export type WorkerChild = ChildProcess & { output: () => string };

export interface QueueRig {
  s: TestServer;
  key: string;
  /** Starts one `adam worker` on the rig's Redis and a data directory of its own. */
  worker: () => WorkerChild;
  /** Every worker started, for the cleanup. */
  workers: WorkerChild[];
  api: (p: string, method?: string, body?: unknown) => ReturnType<TestServer['api']>;
  close: () => Promise<void>;
}

export async function queueRig(redisUrl: string, site: FixtureSite): Promise<QueueRig> {
  const env = {
    REDIS_URL: redisUrl,
    ADAM_FETCH_ALLOW: `127.0.0.1:${site.port}`,
    ADAM_WORKER_LOCK_MS: String(LOCK_MS),
  };
  const s = await startServer({ env: { ...env, ADAM_WORKERS: '0' } });
  await s.adam.queueStarted;
  const key = await s.login();
  const workerDir = tempDir();
  linkSharedModel(workerDir);
  const workers: WorkerChild[] = [];
  const worker = () => {
    const w = spawnCli(['worker'], { ...env, ADAM_DATA_DIR: workerDir, ADAM_WORKERS: '1' });
    workers.push(w);
    return w;
  };
  const api = (p: string, method = 'GET', body?: unknown) =>
    s.api(`/api/v1${p}`, { method, key, body });
  // One URL at a time: the job stays mid-way long enough to be interrupted.
  await api('/admin/settings/processing', 'PUT', { settings: { max_concurrent_scrapes: 1 } });
  return {
    s,
    key,
    worker,
    workers,
    api,
    close: async () => {
      for (const w of workers) {
        if (w.exitCode === null && w.signalCode === null) {
          w.kill('SIGCONT');
          w.kill('SIGKILL');
        }
      }
      await s.close();
    },
  };
}

/** The `adam worker` child whose id (host-pid-random) is the job's worker_id. */
export function holder(rig: QueueRig, job: Job): WorkerChild | undefined {
  return rig.workers.find((w) => job.worker_id?.includes(`-${w.pid}-`));
}

/** Waits until `ids` are all registered as running workers. */
export async function workersRunning(rig: QueueRig, n: number): Promise<void> {
  await until(async () => (await rig.api('/admin/maintenance/workers/status')).body.running >= n, {
    interval: 100,
    what: `${n} workers registered`,
  });
}

export interface JobAccount {
  /** URLs whose result was recorded more than once (sources row counted again, stats over). */
  recordedTwice: number;
  /** URLs never recorded. */
  lost: number;
  /** Snippets sharing a text, or more snippets than the sources rows account for. */
  duplicateSnippets: number;
  snippets: number;
  /** Fetches beyond one per URL (the URL in flight when a worker died is fetched again). */
  refetches: number;
}

/**
 * Every URL of the job recorded exactly once: its sources row, the job's counts and its
 * snippets agree, and no snippet text is stored twice.
 */
export function accountJob(rig: QueueRig, job: Job, site: FixtureSite, urls: string[]): JobAccount {
  const db = rig.s.adam.db;
  const done = job.stats.urls_done ?? 0;
  const failed = job.stats.urls_failed ?? 0;
  const counted = done + failed;
  const recorded = db
    .prepare(
      `SELECT url, segments_count AS n FROM sources WHERE last_job_id = ? AND url IN (${urls.map(() => '?').join(',')})`,
    )
    .all(job.id, ...urls) as { url: string; n: number }[];
  const snippetsByUrl = new Map(
    (
      db
        .prepare(
          'SELECT source_url AS url, COUNT(*) AS n FROM snippets WHERE job_id = ? GROUP BY source_url',
        )
        .all(job.id) as { url: string; n: number }[]
    ).map((r) => [r.url, r.n]),
  );
  const totals = db
    .prepare('SELECT COUNT(*) AS n, COUNT(DISTINCT text_hash) AS d FROM snippets WHERE job_id = ?')
    .get(job.id) as { n: number; d: number };
  const mismatched = recorded.filter((r) => (snippetsByUrl.get(r.url) ?? 0) !== r.n).length;
  const doneUrls = new Set(
    JSON.parse(
      (db.prepare('SELECT done_urls FROM jobs WHERE id = ?').get(job.id) as { done_urls: string })
        .done_urls,
    ) as string[],
  );
  const fetches = (u: string) => site.hits.filter((h) => u.endsWith(h)).length;
  return {
    recordedTwice: Math.max(0, counted - urls.length) + (job.stats.duplicates ?? 0),
    lost: urls.filter((u) => !doneUrls.has(u)).length + Math.max(0, urls.length - counted),
    duplicateSnippets:
      totals.n -
      totals.d +
      mismatched +
      Math.max(0, totals.n - (job.stats.segments_created ?? totals.n)),
    snippets: totals.n,
    refetches: urls.reduce((sum, u) => sum + Math.max(0, fetches(u) - 1), 0),
  };
}

/** Distinct generated pages of the fixture site (each 50th answers 500: skipped). */
export function pageUrls(site: FixtureSite, from: number, count: number): string[] {
  const out: string[] = [];
  for (let n = from; out.length < count; n++) if (n % 50 !== 0) out.push(`${site.url}/pages/${n}`);
  return out;
}

export interface KillRun {
  job: Job;
  kills: number;
  account: JobAccount;
  /** From each kill to the next worker's start on the job. */
  takeoverMs: number[];
}

/**
 * One job of `urls` on two workers; `kills` times, the worker holding it is SIGKILLed (it has no
 * child process: its engine runs in threads) once the job moved on by two URLs since the last
 * takeover, and a fresh worker is started so two stay up.
 */
export async function killWorkersMidJob(
  rig: QueueRig,
  site: FixtureSite,
  urls: string[],
  kills: number,
): Promise<KillRun> {
  rig.worker();
  rig.worker();
  await workersRunning(rig, 2);
  const id = (await rig.api('/sources/process', 'POST', { urls })).body.job_id as number;
  const get = () => rig.s.adam.services.jobs.get(id);
  const progressed = (j: Job) => (j.stats.urls_done ?? 0) + (j.stats.urls_failed ?? 0);
  const takeoverMs: number[] = [];
  let killed = 0;
  for (let k = 0; k < kills; k++) {
    const from = progressed(get());
    const victim = await until(
      () => {
        const j = get();
        const w = holder(rig, j);
        return j.status === 'processing' && progressed(j) >= from + 2 && w?.exitCode === null && w;
      },
      {
        timeout: 60_000,
        interval: 20,
        what: () => `the job to move on (${JSON.stringify(get())})`,
      },
    );
    const before = get().worker_id;
    victim.kill('SIGKILL');
    const t0 = performance.now();
    killed++;
    rig.worker();
    await until(
      () => get().worker_id !== before || !['pending', 'processing'].includes(get().status),
      {
        timeout: 60_000,
        interval: 20,
        what: 'another worker to take the job over',
      },
    );
    takeoverMs.push(performance.now() - t0);
  }
  const job = await rig.s.adam.services.jobs.waitForEnd(id, 120_000);
  return { job, kills: killed, account: accountJob(rig, job, site, urls), takeoverMs };
}
