/**
 * End-to-end ingestion of 500 local pages (not a test: prints figures, asserts nothing).
 *
 *   cd packages/server && npx tsx --conditions=adam-source bench/pipeline.bench.ts
 *
 * The whole path: a real server on a temporary data dir, the fixture site on loopback, 500 URLs
 * submitted through POST /api/v1/sources/process as 10 jobs of 50 (one job's URLs go to one
 * worker, so 2 workers need 2 jobs at a time), until every job has ended. Embedded mode with 1
 * and 2 workers; Redis mode (a throwaway redis-server) with 1 and 2 `adam worker` processes.
 * Every 50th fixture page answers 500, so 10 pages fail on purpose.
 */
import type { AddressInfo } from 'node:net';
import { buildApp } from '../src/app.js';
import { loadConfig } from '../src/config.js';
import { startFixtureSite } from '../test/fixtures/fixture-site.js';
import { HAS_REDIS, REDIS_SKIP_REASON, startRedis } from '../test/redis-helpers.js';
import { fixed, footer, header, removeDir, sharedModel, table, tempDataDir } from './common.js';

const PAGES = 500;
const JOBS = 10;
const LIMIT_MS = 240_000;

interface Row {
  mode: string;
  workers: number;
  pages: number;
  failed: number;
  segments: number;
  ms: number;
  cpuMs: number | null;
}

async function run(
  mode: 'embedded' | 'redis',
  workers: number,
  siteUrl: string,
  sitePort: number,
  redisUrl?: string,
): Promise<Row> {
  const dataDir = tempDataDir(`adam-bench-pipeline-${mode}-`);
  const adam = await buildApp(
    loadConfig({
      ADAM_DATA_DIR: dataDir,
      ADAM_WEB_DIST: '',
      ADAM_WORKERS: String(workers),
      ADAM_FETCH_ALLOW: `127.0.0.1:${sitePort}`,
      ADAM_LOG_LEVEL: 'warn',
      ...(redisUrl ? { REDIS_URL: redisUrl } : {}),
    }),
  );
  try {
    await adam.app.listen({ port: 0, host: '127.0.0.1' });
    await adam.queueStarted;
    const base = `http://127.0.0.1:${(adam.app.server.address() as AddressInfo).port}/api/v1`;
    const login = await fetch(`${base}/auth/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email: 'admin@example.com', password: 'admin' }),
    });
    const key = ((await login.json()) as { api_key: string }).api_key;
    // Warm the engine (model load, worker threads) so the figure is about steady ingestion.
    await adam.services.engine.embed(['warm up']);

    const urls = Array.from({ length: PAGES }, (_, i) => `${siteUrl}/pages/${i + 1}`);
    const perJob = Math.ceil(PAGES / JOBS);
    const cpu0 = process.cpuUsage();
    const t0 = performance.now();
    const ids: number[] = [];
    for (let j = 0; j < JOBS; j++) {
      const r = await fetch(`${base}/sources/process`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-api-key': key },
        body: JSON.stringify({ urls: urls.slice(j * perJob, (j + 1) * perJob) }),
      });
      ids.push(((await r.json()) as { job_id: number }).job_id);
    }
    const jobs = await Promise.all(ids.map((id) => adam.services.jobs.waitForEnd(id, LIMIT_MS)));
    const ms = performance.now() - t0;
    const cpu = process.cpuUsage(cpu0);
    const unfinished = jobs.filter(
      (j) => j.status === 'pending' || j.status === 'processing',
    ).length;
    if (unfinished)
      console.log(
        `  ${mode}/${workers}: ${unfinished} job(s) still running after ${LIMIT_MS / 1000} s`,
      );
    return {
      mode,
      workers,
      pages: jobs.reduce((n, j) => n + (j.stats.urls_done ?? 0), 0),
      failed: jobs.reduce((n, j) => n + (j.stats.urls_failed ?? 0), 0),
      segments: jobs.reduce((n, j) => n + (j.stats.segments_created ?? 0), 0),
      ms,
      // In the Redis mode the work runs in the worker processes: the server's CPU says little.
      cpuMs: mode === 'embedded' ? (cpu.user + cpu.system) / 1000 : null,
    };
  } finally {
    await adam.app.close();
    removeDir(dataDir);
  }
}

const started = performance.now();
header(
  `pipeline: end-to-end ingestion of ${PAGES} local pages (${JOBS} jobs of ${PAGES / JOBS} URLs)`,
);
await sharedModel();
const site = await startFixtureSite();
const rows: Row[] = [];
try {
  for (const workers of [1, 2]) rows.push(await run('embedded', workers, site.url, site.port));
  if (HAS_REDIS) {
    for (const workers of [1, 2]) {
      const redis = await startRedis();
      try {
        rows.push(await run('redis', workers, site.url, site.port, redis.url));
      } finally {
        await redis.stop();
      }
    }
  } else {
    console.log(`Redis rows skipped: ${REDIS_SKIP_REASON}`);
  }
} finally {
  await site.close();
}
table(
  [
    'mode',
    'workers',
    'pages ok',
    'failed',
    'segments',
    'seconds',
    'pages/s',
    'segments/s',
    'server CPU s',
  ],
  rows.map((r) => [
    r.mode,
    r.workers,
    r.pages,
    r.failed,
    r.segments,
    fixed(r.ms / 1000),
    fixed(((r.pages + r.failed) * 1000) / r.ms),
    fixed((r.segments * 1000) / r.ms),
    r.cpuMs === null ? '-' : fixed(r.cpuMs / 1000),
  ]),
);
footer(started);
