import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ARTICLES } from './corpus.js';
import { startFixtureSite, type FixtureSite } from './fixtures/fixture-site.js';
import { linkSharedModel, startServer, tempDir, type TestServer } from './helpers.js';
import { HAS_REDIS, REDIS_SKIP_REASON, spawnCli, startRedis } from './redis-helpers.js';
import { until } from './until.js';

// The default reporter names a skipped file but not why: say it once, on stderr.
if (!HAS_REDIS) console.warn(`Redis-mode tests skipped: ${REDIS_SKIP_REASON}`);

describe.skipIf(!HAS_REDIS)(
  `Redis mode${HAS_REDIS ? '' : ` (skipped: ${REDIS_SKIP_REASON})`}`,
  () => {
    let redis: Awaited<ReturnType<typeof startRedis>>;
    let site: FixtureSite;
    let s: TestServer | undefined;
    let key: string;
    const kids: { kill: (s: NodeJS.Signals) => boolean; exitCode: number | null }[] = [];

    beforeAll(async () => {
      redis = await startRedis();
      site = await startFixtureSite();
    });
    afterAll(async () => {
      await site.close();
      await redis.stop();
    });
    afterEach(async () => {
      await s?.close();
      s = undefined;
      for (const k of kids.splice(0)) if (k.exitCode === null) k.kill('SIGKILL');
    });

    const env = (extra: Record<string, string> = {}) => ({
      REDIS_URL: redis.url,
      ADAM_FETCH_ALLOW: `127.0.0.1:${site.port}`,
      ...extra,
    });
    async function boot(workers: number, extra: Record<string, string> = {}) {
      s = await startServer({ env: env({ ADAM_WORKERS: String(workers), ...extra }) });
      await s.adam.queueStarted;
      key = await s.login();
      return s;
    }
    const post = (p: string, body?: unknown) =>
      s!.api(`/api/v1${p}`, { method: 'POST', key, body });
    const page = (p: string) => `${site.url}${p}`;

    it('processes URLs on an `adam worker` process and stores the results on the server', async () => {
      await boot(1);
      const st = await s!.api('/api/v1/admin/maintenance/workers/status', { key });
      expect(st.body.mode).toBe('redis');
      expect(st.body.running).toBe(1);
      const events: string[] = [];
      s!.adam.bus.onAny((e) => events.push(e.type));
      const urls = [
        page('/articles/honeybees'),
        page('/articles/tidal-power'),
        page('/status/404'),
      ];
      const r = await post('/sources/process', { urls });
      const job = await s!.adam.services.jobs.waitForEnd(r.body.job_id, 60_000);
      expect(job.status).toBe('completed');
      expect(job.worker_id).toBe(st.body.workers[0].id);
      expect(job.stats.urls_done).toBe(2);
      expect(job.stats.urls_failed).toBe(1);
      expect(job.errors[0]).toMatchObject({ url: urls[2], type: 'fetch_http_status' });
      const list = await s!.api(`/api/v1/snippets?job_id=${job.id}`, { key });
      expect(list.body.total).toBe(job.stats.segments_created);
      expect(s!.adam.services.index.size).toBe(list.body.total);
      expect(events).toEqual(
        expect.arrayContaining(['job_created', 'job_progress', 'job_completed']),
      );
      const health = (await s!.api('/api/v1/health')).body;
      expect(health.components.redis.status).toBe('healthy');
      expect(health.components.queue.details.mode).toBe('redis');

      const saved = await post('/playground/save-segments', {
        title: 'Stoicism',
        text: ARTICLES.stoicism,
        wait: true,
      });
      expect(saved.body.status).toBe('completed');
      expect(saved.body.snippet_ids.length).toBeGreaterThan(0);
    });

    it('keeps jobs queued while no worker runs, cancels them out of Redis, and starts workers on demand', async () => {
      await boot(0);
      const a = (await post('/sources/process', { urls: [page('/articles/comte')] })).body.job_id;
      const b = (await post('/sources/process', { urls: [page('/articles/canal-du-midi')] })).body
        .job_id;
      await new Promise((r) => setTimeout(r, 300));
      expect(s!.adam.services.jobs.get(a).status).toBe('pending');
      expect((await post(`/sources/jobs/${a}/cancel`)).body.status).toBe('cancelled');
      const started = await post('/admin/maintenance/workers/start', { count: 1 });
      expect(started.body.running).toBe(1);
      const jb = await s!.adam.services.jobs.waitForEnd(b, 60_000);
      expect(jb.status).toBe('completed');
      await new Promise((r) => setTimeout(r, 500));
      expect(s!.adam.services.jobs.get(a).status).toBe('cancelled');
      expect((await s!.api(`/api/v1/snippets?job_id=${a}`, { key })).body.total).toBe(0);
      const stopped = await post('/admin/maintenance/workers/stop');
      expect(stopped.body.running).toBe(0);
    });

    it('runs index rebuilds on the server itself', async () => {
      await boot(1);
      await post('/playground/save-segments', { title: 'v', text: ARTICLES.volcanoes, wait: true });
      const r = await post('/admin/maintenance/execute', { action: 'rebuild_index' });
      const job = await s!.adam.services.jobs.waitForEnd(r.body.job_id, 60_000);
      expect(job.status).toBe('completed');
      expect(job.worker_id).toMatch(/^embedded-/);
    });

    it('hands the job of a killed worker to another worker, which goes on after the finished URLs', async () => {
      const dataDir = tempDir();
      linkSharedModel(dataDir);
      await boot(0);
      await s!.api('/api/v1/admin/settings/processing', {
        method: 'PUT',
        key,
        body: { settings: { max_concurrent_scrapes: 1 } },
      });
      const workerEnv = env({
        ADAM_DATA_DIR: dataDir,
        ADAM_WORKER_LOCK_MS: '2000',
        ADAM_WORKERS: '1',
      });
      const first = spawnCli(['worker'], workerEnv);
      kids.push(first);
      const urls = [1, 2, 3, 4, 5, 6]
        .map((n) => page(`/slow?ms=400&n=${n}`))
        .concat(page('/articles/honeybees'));
      const id = (await post('/sources/process', { urls })).body.job_id;
      await until(
        () => {
          const { stats } = s!.adam.services.jobs.get(id);
          return (stats.urls_done ?? 0) + (stats.urls_failed ?? 0) >= 2;
        },
        { what: 'two URLs of the job done by the first worker' },
      );
      first.kill('SIGKILL');
      const hitsAtKill = site.hits.length;
      const second = spawnCli(['worker'], workerEnv);
      kids.push(second);
      const job = await s!.adam.services.jobs.waitForEnd(id, 90_000);
      expect(job.status).toBe('completed');
      expect((job.stats.urls_done ?? 0) + (job.stats.urls_failed ?? 0)).toBe(urls.length);
      expect(job.attempts).toBeGreaterThanOrEqual(2);
      // The second worker did not fetch again what the first had finished.
      const refetched = site.hits.slice(hitsAtKill).filter((h) => /n=1\b/.test(h));
      expect(refetched).toHaveLength(0);
      const check = (await s!.api('/api/v1/snippets/consistency-check', { key })).body.summary;
      expect(check).toMatchObject({ index_only: 0, disk_only: 0 });
    }, 120_000);
  },
);
