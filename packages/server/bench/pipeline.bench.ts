/**
 * End-to-end ingestion of 500 local pages (not a test: prints figures, asserts nothing).
 *
 *   cd packages/server && npx tsx --conditions=adam-source bench/pipeline.bench.ts
 *
 * The whole path: a real server (buildApp + listen) on a temporary data dir, login, then
 * POST /api/v1/sources/process for the fixture site's /pages/1..500 (every 50th answers 500),
 * fetched over HTTP, extracted, analysed, embedded, stored and indexed; timed from the first
 * submit until waitForEnd answered for every job. Four configurations: the embedded queue with
 * ADAM_WORKERS=1 and 2, and the Redis mode (a throwaway redis-server per run) with 1 and 2
 * `adam worker` processes started by the server.
 *
 * One job's URLs go to one worker, so the 500 URLs are split into 10 jobs of 50 in every
 * configuration; max_concurrent_scrapes stays at its default. Before the timed part each worker
 * gets one small warm-up job (an /articles/ page), so the model load in its threads or process
 * is not in the figures; the warm-up time is printed apart.
 */
import fs from 'node:fs';
import { spawnSync } from 'node:child_process';
import type { Job } from '@adam/contracts';
import { buildApp, type Adam } from '../src/app.js';
import { loadConfig } from '../src/config.js';
import { startFixtureSite } from '../test/fixtures/fixture-site.js';
import { FIXTURE_PAGE_COUNT } from '../test/fixtures/fixture-pages.js';
import { HAS_REDIS, startRedis } from '../test/redis-helpers.js';
import {
  fixed,
  footer,
  header,
  removeDir,
  seconds,
  sharedModel,
  table,
  tempDataDir,
} from './common.js';

const PAGES = FIXTURE_PAGE_COUNT; // 500
const JOBS = 10;
const WORKERS = [1, 2];
/** A configuration still running after this is stopped; what it finished is printed. */
const CONFIG_LIMIT_MS = 4 * 60_000;
const WARMUP_LIMIT_MS = 60_000;
const WARMUP_PAGES = [
  '/articles/honeybees',
  '/articles/lighthouse-lenses',
  '/articles/tidal-power',
  '/articles/comte',
];

type Mode = 'embedded' | 'redis';

interface Outcome {
  mode: Mode;
  workers: number;
  warmupMs: number;
  wallMs: number;
  /** This process (the server, its engine threads and the fixture site). */
  serverCpuMs: number;
  /** The `adam worker` child processes (Redis mode, Linux /proc); null when not measured. */
  workerCpuMs: number | null;
  pages: number;
  failed: number;
  segments: number;
  duplicates: number;
  jobsDone: number;
  timedOut: boolean;
}

header('pipeline: end-to-end ingestion of 500 local pages through the HTTP API');
const benchStarted = performance.now();
await sharedModel();

const site = await startFixtureSite();
const pagePaths = Array.from({ length: PAGES }, (_, i) => `/pages/${i + 1}`);
const perJob = Math.ceil(PAGES / JOBS);
const jobUrls = Array.from({ length: JOBS }, (_, j) =>
  pagePaths.slice(j * perJob, (j + 1) * perJob).map((p) => `${site.url}${p}`),
);
console.log(
  `corpus: fixture site /pages/1..${PAGES} (every 50th answers 500), ${JOBS} jobs of ${perJob} URLs, ` +
    `max_concurrent_scrapes at its default; limit ${seconds(CONFIG_LIMIT_MS)} per configuration\n`,
);

/** Clock ticks per second for /proc/<pid>/stat (100 nearly everywhere). */
const CLK_TCK = (() => {
  const r = spawnSync('getconf', ['CLK_TCK'], { encoding: 'utf8' });
  const n = Number(r.stdout?.trim());
  return Number.isFinite(n) && n > 0 ? n : 100;
})();

/** utime + stime in ms of this process's `adam worker` children, by pid; null without /proc. */
function workerChildrenCpu(): Map<number, number> | null {
  if (!fs.existsSync('/proc/self/stat')) return null;
  const out = new Map<number, number>();
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = fs.readFileSync(`/proc/${entry}/stat`, 'utf8');
      // Fields after "(comm)": state ppid ... utime(14) stime(15), counted from 1 overall.
      const rest = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      if (Number(rest[1]) !== process.pid) continue;
      const cmd = fs.readFileSync(`/proc/${entry}/cmdline`, 'utf8').split('\0');
      if (!cmd.includes('worker') || !cmd.some((a) => /cli\.[jt]s$/.test(a))) continue;
      out.set(Number(entry), ((Number(rest[11]) + Number(rest[12])) * 1000) / CLK_TCK);
    } catch {
      // the process ended while being read
    }
  }
  return out;
}

function cpuDelta(before: Map<number, number> | null, after: Map<number, number> | null) {
  if (!before || !after || after.size === 0) return null;
  let ms = 0;
  for (const [pid, t] of after) ms += t - (before.get(pid) ?? 0);
  return ms;
}

const isFinal = (j: Job) => ['completed', 'failed', 'cancelled'].includes(j.status);

async function runConfig(mode: Mode, workers: number): Promise<Outcome> {
  const dataDir = tempDataDir(`adam-bench-pipeline-${mode}-${workers}-`);
  const redis = mode === 'redis' ? await startRedis() : null;
  let adam: Adam | null = null;
  try {
    adam = await buildApp(
      loadConfig({
        ADAM_DATA_DIR: dataDir,
        ADAM_WEB_DIST: '',
        ADAM_WORKERS: String(workers),
        ADAM_FETCH_ALLOW: `127.0.0.1:${site.port}`,
        ...(redis ? { REDIS_URL: redis.url } : {}),
      }),
    );
    await adam.app.listen({ port: 0, host: '127.0.0.1' });
    await adam.queueStarted;
    await adam.reconciled;
    const addr = adam.app.server.address();
    if (!addr || typeof addr === 'string') throw new Error('no address');
    const base = `http://127.0.0.1:${addr.port}/api/v1`;
    const { jobs } = adam.services;

    const post = async (p: string, body: unknown, key?: string) => {
      const res = await fetch(`${base}${p}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...(key ? { 'x-api-key': key } : {}) },
        body: JSON.stringify(body),
      });
      const json = (await res.json()) as Record<string, unknown>;
      if (res.status !== 200) throw new Error(`POST ${p}: ${res.status} ${JSON.stringify(json)}`);
      return json;
    };
    const login = await post('/auth/login', { email: 'admin@example.com', password: 'admin' });
    const key = String(login.api_key);
    const submit = async (urls: string[]) =>
      Number((await post('/sources/process', { urls }, key)).job_id);

    // One small job per worker, all in flight together, so each worker loads its model now.
    let t = performance.now();
    const warmIds = await Promise.all(
      Array.from({ length: workers }, (_, i) =>
        submit([`${site.url}${WARMUP_PAGES[i % WARMUP_PAGES.length]}`]),
      ),
    );
    const warm = await Promise.all(warmIds.map((id) => jobs.waitForEnd(id, WARMUP_LIMIT_MS)));
    const warmupMs = performance.now() - t;
    const badWarm = warm.find((j) => j.status !== 'completed');
    if (badWarm) throw new Error(`warm-up job ${badWarm.id} ended ${badWarm.status}`);

    const cpuBefore = process.cpuUsage();
    const childrenBefore = mode === 'redis' ? workerChildrenCpu() : null;
    t = performance.now();
    const ids: number[] = [];
    for (const urls of jobUrls) ids.push(await submit(urls));
    const ended = await Promise.all(
      ids.map((id) => jobs.waitForEnd(id, Math.max(1, CONFIG_LIMIT_MS - (performance.now() - t)))),
    );
    const wallMs = performance.now() - t;
    const cpu = process.cpuUsage(cpuBefore);
    const workerCpuMs = mode === 'redis' ? cpuDelta(childrenBefore, workerChildrenCpu()) : null;

    const timedOut = ended.some((j) => !isFinal(j));
    if (timedOut) {
      // Stop it: pending jobs are cancelled, the running ones stop at close.
      await post('/sources/jobs/cancel_pending', {}, key).catch(() => undefined);
    }
    const sum = (f: (j: Job) => number | undefined) => ended.reduce((s, j) => s + (f(j) ?? 0), 0);
    const failed = sum((j) => j.stats.urls_failed);
    return {
      mode,
      workers,
      warmupMs,
      wallMs,
      serverCpuMs: (cpu.user + cpu.system) / 1000,
      workerCpuMs,
      pages: sum((j) => j.stats.urls_done) + failed,
      failed,
      segments: sum((j) => j.stats.segments_created),
      duplicates: sum((j) => j.stats.duplicates),
      jobsDone: ended.filter((j) => j.status === 'completed').length,
      timedOut,
    };
  } finally {
    await adam?.app.close();
    await redis?.stop();
    removeDir(dataDir);
  }
}

const configs: [Mode, number][] = WORKERS.map((w): [Mode, number] => ['embedded', w]);
if (HAS_REDIS) configs.push(...WORKERS.map((w): [Mode, number] => ['redis', w]));
else
  console.log(
    'redis-server not found: the Redis rows are skipped (apt-get install redis-server)\n',
  );

const outcomes: Outcome[] = [];
try {
  for (const [mode, workers] of configs) {
    const t = performance.now();
    try {
      const o = await runConfig(mode, workers);
      outcomes.push(o);
      console.log(
        `  ${mode}, ${workers} worker${workers > 1 ? 's' : ''}: ${o.timedOut ? 'STOPPED at the limit' : 'done'} ` +
          `in ${seconds(performance.now() - t)} (warm-up ${seconds(o.warmupMs)}, ${o.jobsDone}/${JOBS} jobs completed)`,
      );
    } catch (e) {
      console.log(`  ${mode}, ${workers} worker(s): failed: ${(e as Error).message}`);
    }
  }
} finally {
  await site.close();
}

console.log('\nend to end (submit of the first job until every job ended):');
table(
  ['mode', 'workers', 'pages', 'failed', 'segments', 'seconds', 'pages/s', 'segments/s', 'jobs'],
  outcomes.map((o) => [
    o.mode,
    o.workers,
    o.pages,
    o.failed,
    o.segments,
    fixed(o.wallMs / 1000),
    fixed(o.pages / (o.wallMs / 1000)),
    fixed(o.segments / (o.wallMs / 1000)),
    `${o.jobsDone}/${JOBS}${o.timedOut ? ' (stopped)' : ''}`,
  ]),
);

console.log('\nCPU time over the same span, and the warm-up before it:');
table(
  ['mode', 'workers', 'server CPU', 'worker processes CPU', 'CPU / page', 'duplicates', 'warm-up'],
  outcomes.map((o) => {
    const total = o.serverCpuMs + (o.workerCpuMs ?? 0);
    return [
      o.mode,
      o.workers,
      seconds(o.serverCpuMs),
      o.workerCpuMs === null ? (o.mode === 'redis' ? 'n/a' : '-') : seconds(o.workerCpuMs),
      `${fixed(total / Math.max(1, o.pages), 0)} ms`,
      o.duplicates,
      seconds(o.warmupMs),
    ];
  }),
);
console.log(
  '\npages counts done + failed URLs; failed are the fixture pages answering 500. Server CPU is' +
    ' this process (HTTP API, engine threads, storage, index and the fixture site itself); in' +
    ' Redis mode the fetching, analysis and embedding run in the `adam worker` processes, read' +
    ' from /proc.',
);
footer(benchStarted);
