import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startFixtureSite, type FixtureSite } from '../fixtures/fixture-site.js';
import { tempDir } from '../helpers.js';
import { HAS_REDIS, REDIS_SKIP_REASON, startPersistentRedis } from '../redis-helpers.js';
import { until } from '../until.js';
import { percentile } from './load-harness.js';
import {
  accountJob,
  holder,
  killWorkersMidJob,
  LOCK_MS,
  pageUrls,
  queueRig,
  workersRunning,
  type QueueRig,
} from './queue-harness.js';
import { report } from './report.js';

// The long Queue checks: workers SIGKILLed and SIGSTOPped mid-job (queue.test.ts: Redis restarts).
if (!HAS_REDIS) console.warn(`Queue checks skipped: ${REDIS_SKIP_REASON}`);

/** Kills of the worker holding one job, each after the job moved on. */
const KILLS = 5;

describe.skipIf(!HAS_REDIS)(
  `queue workers killed and paused${HAS_REDIS ? '' : ` (skipped: ${REDIS_SKIP_REASON})`}`,
  () => {
    let redis: Awaited<ReturnType<typeof startPersistentRedis>>;
    let site: FixtureSite;
    let rig: QueueRig | undefined;

    beforeAll(async () => {
      redis = await startPersistentRedis(tempDir('adam-redis-'));
      site = await startFixtureSite();
    });
    afterAll(async () => {
      await site.close();
      await redis.stop();
    });
    afterEach(async () => {
      await rig?.close();
      rig = undefined;
    });

    const logged = async (q: string) =>
      (await rig!.api(`/admin/logs?q=${encodeURIComponent(q)}`)).body.logs.length > 0;

    it('finishes the job of a killed worker exactly once on another worker', async () => {
      rig = await queueRig(redis.url, site);
      const urls = pageUrls(site, 1, 6 + 3 * KILLS);
      const run = await killWorkersMidJob(rig, site, urls, KILLS);
      const { account: a } = run;
      const failures = a.recordedTwice + a.lost + a.duplicateSnippets;
      report({
        check: 'queue: worker SIGKILLed mid-job',
        runs: run.kills,
        failures,
        figure: `${run.kills} kills, ${a.recordedTwice + a.duplicateSnippets} duplicates, ${a.lost} lost; ${a.snippets} snippets, ${a.refetches} URLs fetched again; takeover p50 ${percentile(run.takeoverMs, 50).toFixed(0)} ms (lock ${LOCK_MS} ms)`,
      });
      expect(run.job.status).toBe('completed');
      expect(a).toMatchObject({ recordedTwice: 0, lost: 0, duplicateSnippets: 0 });
      expect(run.job.attempts).toBeGreaterThanOrEqual(KILLS + 1);
    });

    it('reports a job whose worker is paused past its lock as stalled, and finishes it on another worker', async () => {
      rig = await queueRig(redis.url, site);
      rig.worker();
      rig.worker();
      await workersRunning(rig, 2);
      const urls = pageUrls(site, 201, 10);
      const id = (await rig.api('/sources/process', 'POST', { urls })).body.job_id as number;
      const get = () => rig!.s.adam.services.jobs.get(id);
      const events: { type: string; stage?: string }[] = [];
      rig.s.adam.bus.onAny((e) =>
        events.push({ type: e.type, stage: (e.payload as { stage?: string }).stage }),
      );
      const paused = await until(
        () => {
          const j = get();
          return (j.stats.urls_done ?? 0) >= 2 && holder(rig!, j);
        },
        { timeout: 60_000, what: 'the job under way on a worker' },
      );
      const pausedId = get().worker_id;
      paused.kill('SIGSTOP');
      const t0 = performance.now();
      const stalled = await until(() => get().errors.find((e) => e.type === 'worker_stalled'), {
        interval: 50,
        what: () => `the stall reported (${JSON.stringify(get())})`,
      });
      const reportedMs = performance.now() - t0;
      await until(() => get().worker_id !== pausedId, {
        what: 'the other worker to take the job',
      });
      // The paused worker comes back and goes on: its late results count once, its end not at all.
      paused.kill('SIGCONT');
      const job = await rig.s.adam.services.jobs.waitForEnd(id, 90_000);
      const a = accountJob(rig, job, site, urls);
      const said = await logged('stalled');
      const failures = a.recordedTwice + a.lost + a.duplicateSnippets + (said ? 0 : 1);
      report({
        check: 'queue: worker paused past its lock',
        runs: 1,
        failures,
        figure: `stall reported ${Math.round(reportedMs)} ms after SIGSTOP (lock ${LOCK_MS} ms), job ${job.status} on the other worker; ${a.recordedTwice + a.duplicateSnippets} duplicates, ${a.lost} lost`,
      });
      expect(stalled.message).toMatch(/past its lock/);
      expect(said).toBe(true);
      expect(events.some((e) => e.type === 'job_progress' && /Stalled/.test(e.stage ?? ''))).toBe(
        true,
      );
      expect(job.status).toBe('completed');
      expect(job.attempts).toBeGreaterThanOrEqual(2);
      expect(a).toMatchObject({ recordedTwice: 0, lost: 0, duplicateSnippets: 0 });
    });
  },
);
