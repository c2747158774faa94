import fs from 'node:fs';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { startFixtureSite, type FixtureSite } from '../fixtures/fixture-site.js';
import { tempDir } from '../helpers.js';
import {
  HAS_REDIS,
  REDIS_SKIP_REASON,
  startPersistentRedis,
  startRedis,
} from '../redis-helpers.js';
import { until } from '../until.js';
import { pageUrls, queueRig, workersRunning, type QueueRig } from './queue-harness.js';
import { report } from './report.js';

// The fast Queue checks in Redis mode: Redis restarts. queue.long.ts kills and pauses workers.
if (!HAS_REDIS) console.warn(`Queue checks skipped: ${REDIS_SKIP_REASON}`);

describe.skipIf(!HAS_REDIS)(
  `queue in Redis mode${HAS_REDIS ? '' : ` (skipped: ${REDIS_SKIP_REASON})`}`,
  () => {
    let redis: Awaited<ReturnType<typeof startPersistentRedis>>;
    let site: FixtureSite;
    let rig: QueueRig | undefined;

    let redisDir: string;

    beforeAll(async () => {
      redisDir = tempDir('adam-redis-');
      redis = await startPersistentRedis(redisDir);
      site = await startFixtureSite();
    });
    afterAll(async () => {
      await site.close();
      await redis.stop();
    });
    afterEach(async () => {
      if (!redis.running()) await redis.start();
      await rig?.close();
      rig = undefined;
    });

    const logged = async (q: string) =>
      (await rig!.api(`/admin/logs?q=${encodeURIComponent(q)}`)).body.logs.length > 0;

    it('keeps waiting jobs across a Redis restart and reconnects on its own, saying so in /health', async () => {
      rig = await queueRig(redis.url, site);
      const health = async () => {
        const t0 = performance.now();
        const r = await rig!.api('/health');
        return { ...r, ms: performance.now() - t0 };
      };
      expect((await health()).body.components.redis.details.persistence).toBe('aof');
      // No worker yet: the jobs wait in Redis.
      const before = [
        (await rig.api('/sources/process', 'POST', { urls: pageUrls(site, 101, 2) })).body.job_id,
        (await rig.api('/sources/process', 'POST', { urls: pageUrls(site, 111, 2) })).body.job_id,
      ] as number[];

      await redis.stop();
      const down = await until(
        async () => {
          const h = await health();
          return h.body.components.redis.status === 'unhealthy' && h;
        },
        { what: '/health to say Redis is down' },
      );
      // A clear answer, quickly: not a 5xx, not a hang on the queue's own Redis connection.
      const downHealth = await health();
      const workersDown = await rig.api('/admin/maintenance/workers/status');
      // A job asked for meanwhile is kept in the database and queued once Redis is back.
      const during = (await rig.api('/sources/process', 'POST', { urls: pageUrls(site, 121, 2) }))
        .body.job_id as number;
      // The console's socket still opens and gets its counts, workers unknown.
      const initial = await new Promise<Record<string, unknown>>((resolve, reject) => {
        const ws = new WebSocket(`${rig!.s.url.replace('http', 'ws')}/api/v1/ws`, {
          headers: { 'x-api-key': rig!.key },
        });
        const t = setTimeout(() => reject(new Error('no initial_state while Redis is down')), 5000);
        ws.once('message', (d) => {
          clearTimeout(t);
          ws.close();
          resolve(JSON.parse(String(d)) as Record<string, unknown>);
        });
        ws.once('error', reject);
      });

      const t0 = performance.now();
      await redis.start();
      await until(
        async () => {
          const h = await health();
          return (
            h.body.components.redis.status === 'healthy' &&
            h.body.components.queue.status !== 'unhealthy'
          );
        },
        { interval: 50, what: '/health to say Redis is back' },
      );
      const reconnectMs = performance.now() - t0;
      await until(() => logged('Reconnected to Redis'), { what: 'the reconnect in the log' });

      rig.worker();
      await workersRunning(rig, 1);
      const ends = await Promise.all(
        [...before, during].map((id) => rig!.s.adam.services.jobs.waitForEnd(id, 60_000)),
      );
      const failures =
        ends.filter((j) => j.status !== 'completed').length +
        (down.status === 200 && downHealth.status === 200 ? 0 : 1) +
        (downHealth.ms < 1000 ? 0 : 1);
      report({
        check: 'queue: Redis restart (AOF) with waiting jobs',
        runs: ends.length,
        failures,
        figure: `reconnected ${Math.round(reconnectMs)} ms after Redis was back; ${ends.filter((j) => j.status === 'completed').length}/${ends.length} waiting jobs completed; /health while down ${downHealth.status} in ${Math.round(downHealth.ms)} ms`,
      });
      expect(down.status).toBe(200);
      expect(downHealth.body.components.redis.error).toMatch(/Redis is unreachable/);
      expect(downHealth.body.components.queue).toMatchObject({ status: 'unhealthy' });
      expect(downHealth.ms).toBeLessThan(1000);
      expect(workersDown.status).toBe(503);
      expect(workersDown.body.detail).toMatch(/Redis is unreachable/);
      expect(initial).toMatchObject({ type: 'initial_state' });
      expect((initial.stats as { workers: { running: unknown } }).workers.running).toBeNull();
      expect(ends.map((j) => j.status)).toEqual(['completed', 'completed', 'completed']);
    }, 120_000);

    it('requeues from the database the jobs a Redis restart without its data lost', async () => {
      rig = await queueRig(redis.url, site);
      const ids = [
        (await rig.api('/sources/process', 'POST', { urls: pageUrls(site, 131, 2) })).body.job_id,
        (await rig.api('/sources/process', 'POST', { urls: pageUrls(site, 141, 2) })).body.job_id,
      ] as number[];
      // The operator's Redis comes back empty (no AOF, no snapshot): BullMQ's queue is gone.
      await redis.stop();
      for (const f of fs.readdirSync(redisDir))
        fs.rmSync(path.join(redisDir, f), { recursive: true });
      await redis.start();
      await until(() => logged('Reconnected to Redis'), { what: 'the reconnect in the log' });
      rig.worker();
      await workersRunning(rig, 1);
      const ends = await Promise.all(
        ids.map((id) => rig!.s.adam.services.jobs.waitForEnd(id, 60_000)),
      );
      const done = ends.filter((j) => j.status === 'completed').length;
      report({
        check: 'queue: Redis restart that lost its data',
        runs: ends.length,
        failures: ends.length - done,
        figure: `${done}/${ends.length} jobs requeued from the database and completed`,
      });
      expect(ends.map((j) => j.status)).toEqual(['completed', 'completed']);
    });

    it('says in /health and the log when Redis keeps nothing across a restart', async () => {
      const bare = await startRedis();
      try {
        rig = await queueRig(bare.url, site);
        await until(
          async () =>
            (await rig!.api('/health')).body.components.redis.details?.persistence === 'none',
          { what: 'persistence none in /health' },
        );
        await until(() => logged('no persistence'), { what: 'the warning in the log' });
      } finally {
        await rig?.close();
        rig = undefined;
        await bare.stop();
      }
    });
  },
);
