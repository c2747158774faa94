import net from 'node:net';
import os from 'node:os';
import { Redis } from 'ioredis';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { DatabaseMetrics, RealtimeMetrics } from '@adam/contracts';
import { ARTICLES } from './corpus.js';
import { saveText, startServer, type TestServer } from './helpers.js';
import { HAS_REDIS, REDIS_SKIP_REASON, startRedis } from './redis-helpers.js';
import { until } from './until.js';

let s: TestServer | undefined;
let key: string;
afterEach(async () => {
  await s?.close();
  s = undefined;
});

async function metrics(): Promise<DatabaseMetrics> {
  const r = await s!.api('/api/v1/admin/database/metrics', { key });
  expect(r.status).toBe(200);
  return DatabaseMetrics.parse(r.body);
}

async function realtime(): Promise<RealtimeMetrics> {
  const r = await s!.api('/api/v1/metrics/realtime', { key });
  expect(r.status).toBe(200);
  return RealtimeMetrics.parse(r.body);
}

describe('GET /admin/database/metrics without Redis', () => {
  it('answers 401 without a key', async () => {
    s = await startServer();
    expect((await s.api('/api/v1/admin/database/metrics')).status).toBe(401);
  });

  it('reports the index and the store as they are, and follows what is stored and searched', async () => {
    s = await startServer();
    key = await s.login();
    const empty = await metrics();
    expect(empty.redis).toBeNull();
    expect(empty.faiss).toMatchObject({
      total_vectors: 0,
      searches_per_sec: 0,
      build_time: null,
      dimensions: 384,
      accuracy: null,
    });
    expect(empty.faiss.engine).toMatch(/HNSW \(usearch/);
    expect(empty.lmdb).toMatchObject({ entries: 0, compression: null });
    expect(empty.lmdb.engine).toMatch(/^SQLite 3\.\d+\.\d+ \(WAL\)$/);

    let stored = 0;
    for (const name of ['photosynthesis', 'volcanoes'] as const)
      stored += (await saveText(s, key, ARTICLES[name], name)).snippet_ids.length;
    expect(stored).toBeGreaterThan(2);
    // Saved to disk at the job's end: then the file has a size.
    const m = await until(
      async () => {
        const x = await metrics();
        return x.faiss.total_vectors === stored && x.faiss.index_size_mb! > 0 && x;
      },
      { what: 'the stored vectors in the index panel' },
    );
    expect(m.lmdb.entries).toBe(stored);
    expect(m.faiss.max_size_mb).toBeGreaterThan(m.faiss.index_size_mb!);
    expect(m.lmdb.size_mb).toBeGreaterThan(0);
    expect(m.lmdb.max_size_mb).toBeGreaterThan(m.lmdb.size_mb!);
    // Rows written since start: the snippets and their side rows (and the log lines) at least.
    expect(m.lmdb.transactions).toBeGreaterThan(empty.lmdb.transactions! + stored);
    expect(m.lmdb.read_latency).toBeGreaterThanOrEqual(0);
    expect(m.lmdb.write_latency).toBeGreaterThan(0);

    // Measured off the request: shown once the first measure is done.
    const acc = await until(async () => (await metrics()).faiss.accuracy, {
      what: 'the measured recall',
    });
    expect(acc).toBeGreaterThan(0.9);
    expect(acc).toBeLessThanOrEqual(1);
    const compression = await until(async () => (await metrics()).lmdb.compression, {
      what: 'the snippets storage measure',
    });
    // SQLite keeps the text as it is, in pages that hold the rows' other columns too.
    const text = s.adam.db
      .prepare('SELECT SUM(octet_length(text)) FROM snippets')
      .pluck()
      .get() as number;
    const pages = s.adam.db
      .prepare("SELECT pgsize FROM dbstat WHERE name = 'snippets' AND aggregate = TRUE")
      .pluck()
      .get() as number;
    expect(compression).toBeCloseTo(pages / text, 2);
    expect(compression).toBeGreaterThan(1);

    // Six searches in the last minute: 0.1 per second, on both panels.
    for (let i = 0; i < 6; i++) {
      const r = await s.api('/api/v1/snippets/search', {
        method: 'POST',
        key,
        body: { query: i % 2 ? 'magma eruption' : 'chlorophyll light' },
      });
      expect(r.status).toBe(200);
    }
    expect((await metrics()).faiss.searches_per_sec).toBe(0.1);
    // Two jobs finished in the last five minutes: 0.4 per minute; none running.
    expect(await realtime()).toMatchObject({
      searchesPerSecond: 0.1,
      jobsPerMinute: 0.4,
      activeJobs: 0,
    });

    const r = await s.api('/api/v1/admin/maintenance/execute', {
      method: 'POST',
      key,
      body: { action: 'rebuild_index', params: { reembed: false } },
    });
    const job = await s.adam.services.jobs.waitForEnd(r.body.job_id, 60_000);
    expect(job.status).toBe('completed');
    const built = (await metrics()).faiss.build_time;
    expect(built).toBeGreaterThan(0);
    expect((await realtime()).jobsPerMinute).toBe(0.6);

    // Kept with the index: the same after a restart.
    const dataDir = s.dataDir;
    await s.close();
    s = await startServer({ dataDir });
    key = await s.login();
    expect((await metrics()).faiss.build_time).toBe(built);
  });
});

describe('the Redis panel', () => {
  it('says Redis is unreachable, without failing, when REDIS_URL points at nothing', async () => {
    const closed = net.createServer();
    await new Promise<void>((r) => closed.listen(0, '127.0.0.1', () => r()));
    const deadPort = (closed.address() as net.AddressInfo).port;
    await new Promise((r) => closed.close(r));
    s = await startServer({
      env: { REDIS_URL: `redis://127.0.0.1:${deadPort}`, ADAM_WORKERS: '0' },
    });
    key = await s.login();
    for (let i = 0; i < 2; i++) {
      const m = await metrics();
      expect(m.redis!.engine).toMatch(/^redis \(unreachable: .+\)$/);
      expect(m.redis).toMatchObject({
        memory_usage_mb: null,
        max_memory_mb: null,
        connections: null,
        ops_per_sec: null,
        hit_rate: null,
        evicted_keys: null,
        expired_keys: null,
      });
      expect(m.faiss.dimensions).toBe(384);
    }
  });

  describe.skipIf(!HAS_REDIS)(
    `with a real Redis${HAS_REDIS ? '' : ` (skipped: ${REDIS_SKIP_REASON})`}`,
    () => {
      let redis: Awaited<ReturnType<typeof startRedis>>;
      let client: Redis;
      beforeAll(async () => {
        redis = await startRedis();
        client = new Redis(redis.url);
      });
      afterAll(async () => {
        client.disconnect();
        await redis.stop();
      });

      it('reports what INFO says', async () => {
        s = await startServer({ env: { REDIS_URL: redis.url, ADAM_WORKERS: '0' } });
        key = await s.login();
        await client.config('SET', 'maxmemory', String(100 * 1024 * 1024));
        await client.set('adam-test-key', 'x');
        await client.get('adam-test-key');
        await client.get('adam-test-missing');
        const m = (await metrics()).redis!;
        const version = ((await client.info('server')).match(/redis_version:(\S+)/) ?? [])[1];
        expect(m.engine).toBe(`redis ${version}`);
        expect(m.max_memory_mb).toBe(100);
        expect(m.memory_usage_mb).toBeGreaterThan(0);
        expect(m.memory_usage_mb).toBeLessThan(100);
        // This test's client, the server's queue connections and the panel's own.
        expect(m.connections).toBeGreaterThanOrEqual(3);
        expect(m.ops_per_sec).toBeGreaterThanOrEqual(0);
        expect(m.hit_rate).toBeGreaterThan(0);
        expect(m.hit_rate).toBeLessThan(1);
        expect(m.evicted_keys).toBe(0);
        expect(m.expired_keys).toBeGreaterThanOrEqual(0);

        // No limit of its own: the machine's memory is the bound.
        await client.config('SET', 'maxmemory', '0');
        const unlimited = (await metrics()).redis!;
        expect(unlimited.max_memory_mb).toBeCloseTo(os.totalmem() / 1024 / 1024, -2);
      });
    },
  );
});
