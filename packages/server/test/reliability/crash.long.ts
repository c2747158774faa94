import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFixtureSite, type FixtureSite } from '../fixtures/fixture-site.js';
import { linkSharedModel, tempDir } from '../helpers.js';
import { crashRun, INDEX_CRASH_STATES, runIndexCrashStates } from './crash-harness.js';
import { report } from './report.js';

let site: FixtureSite;
beforeAll(async () => {
  site = await startFixtureSite();
});
afterAll(async () => {
  await site.close();
});

describe('crash (long): 50 × kill -9 under concurrent writes', () => {
  it('keeps every acknowledged write, ends every acknowledged job, leaves no orphan', async () => {
    const dataDir = tempDir();
    linkSharedModel(dataDir);
    const started = performance.now();
    const r = await crashRun({
      dataDir,
      siteUrl: site.url,
      env: { ADAM_FETCH_ALLOW: `127.0.0.1:${site.port}` },
      kills: 50,
      // From just after the start (the start's reconcile, resumed jobs) to well into the writes.
      killAfterMs: [50, 3000],
      savers: 3,
      jobTimeoutMs: 120_000,
    });
    const jobs = Object.entries(r.jobs)
      .map(([status, n]) => `${n} ${status}`)
      .join(', ');
    report({
      check: 'crash: 50 × kill -9 under concurrent writes',
      runs: r.kills,
      failures: r.problems.length + r.integrity.length,
      figure:
        `${r.kills} kills, ${r.acked} acknowledged writes, ${r.lost} lost, ${r.orphans} orphans, ` +
        `integrity ${r.integrity.length ? 'FAILED' : 'ok'}; jobs ${jobs} ` +
        `(${Math.round((performance.now() - started) / 1000)} s)`,
    });
    expect(r.problems).toEqual([]);
    expect(r.integrity).toEqual([]);
    // ~10 s a round (a restart from the sources is most of it): beyond the suite's 600 s.
  }, 1_800_000);
});

describe('crash (long): between every step of an index save', () => {
  it('starts on what a crash after each step leaves, and answers every row', async () => {
    const r = await runIndexCrashStates(INDEX_CRASH_STATES);
    report({
      check: 'crash: between index save steps, truncated and mixed files',
      runs: INDEX_CRASH_STATES.length,
      failures: r.failures.length,
      figure: r.figure,
    });
    expect(r.failures).toEqual([]);
  });
});
