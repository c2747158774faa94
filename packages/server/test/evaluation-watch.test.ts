/**
 * Continuous evaluation (issue 27): watched sets are run on their own after a rebuild, a change
 * of the search settings, a switch of the embedding model and on a schedule (a fake clock), never
 * twice at once; a fall of nDCG@10 beyond the threshold raises an alert seen in
 * /evaluation/alerts, the logs, the activity feed and on the bus, until dismissed.
 */
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeTinyEmbeddingModel } from './fixtures/tiny-models.js';
import { saveText, startServer, tempDir, type TestServer } from './helpers.js';
import { createRoleUser } from './role-users.js';
import { until } from './until.js';

let s: TestServer;
let key: string;
let viewer: string;
let watched: { id: number; name: string };
let unwatched: { id: number };
/** Snippet ids of each subject's article. */
const ids: Record<string, number[]> = {};

const ARTICLES = {
  volcano:
    'A volcano erupts when magma rises through the crust and escapes as lava, ash and gas. Basaltic lava flows far from the vent, while sticky rhyolite magma traps gas and explodes.',
  sourdough:
    'Sourdough bread rises with a starter of wild yeast and lactic bacteria fed on flour and water. Bakers fold the dough, let it ferment overnight and bake it in a hot covered pot.',
  chess:
    'A chess opening is the first moves of a game. The Sicilian defence answers the king pawn with the c-pawn, and the Queen gambit offers a pawn for control of the centre.',
};
const QUERIES = {
  volcano: 'how does lava erupt from a volcano',
  sourdough: 'sourdough starter yeast fermentation',
  chess: 'sicilian defence chess opening',
};

type Run = { id: number; set_id: number; trigger: string; status: string; job_id: number };

async function jobEnd(jobId: number) {
  return until(
    async () => {
      const r = await s.api(`/api/v1/sources/jobs/${jobId}`, { key });
      return ['completed', 'failed', 'cancelled'].includes(r.body.status) ? r.body : null;
    },
    { timeout: 90_000, what: `job ${jobId} to end` },
  );
}

async function runsOf(setId: number): Promise<Run[]> {
  const r = await s.api(`/api/v1/evaluation/runs?set_id=${setId}`, { key });
  expect(r.status).toBe(200);
  return r.body.runs as Run[];
}

/** Waits for every run of the set to end (each completed). */
async function settle(setId: number) {
  for (const run of await runsOf(setId)) {
    if (run.job_id !== null) expect((await jobEnd(run.job_id)).status).toBe('completed');
  }
}

async function manualRun(setId: number): Promise<Run> {
  const started = await s.api('/api/v1/evaluation/runs', {
    method: 'POST',
    key,
    body: { set_id: setId },
  });
  expect(started.status).toBe(202);
  expect(started.body.trigger).toBe('manual');
  expect((await jobEnd(started.body.job_id)).status).toBe('completed');
  return (await s.api(`/api/v1/evaluation/runs/${started.body.id}`, { key })).body as Run;
}

const newRuns = (before: Run[], after: Run[]) =>
  after.filter((r) => !before.some((b) => b.id === r.id));

async function createSet(name: string) {
  const r = await s.api('/api/v1/evaluation/sets', {
    method: 'POST',
    key,
    body: {
      name,
      queries: (Object.keys(QUERIES) as (keyof typeof QUERIES)[]).map((k) => ({
        text: QUERIES[k],
        judgments: ids[k]!.map((id) => ({ snippet_id: id, grade: 2 })),
      })),
    },
  });
  expect(r.status, JSON.stringify(r.body)).toBe(201);
  expect(r.body.watched).toBe(false);
  return r.body as { id: number; name: string };
}

async function putSettings(section: string, settings: Record<string, unknown>) {
  const r = await s.api(`/api/v1/admin/settings/${section}`, {
    method: 'PUT',
    key,
    body: { settings },
  });
  expect(r.status, JSON.stringify(r.body)).toBe(200);
  return r.body;
}

beforeAll(async () => {
  s = await startServer();
  key = await s.login();
  viewer = (await createRoleUser(s, key, 'viewer')).key;
  for (const [k, text] of Object.entries(ARTICLES)) {
    ids[k] = (await saveText(s, key, text, `About ${k}`)).snippet_ids;
  }
  watched = await createSet('Watched subjects');
  unwatched = await createSet('Unwatched subjects');
  // No run is scheduled while the triggers are tested: the schedule has its own test.
  await putSettings('quality', { evaluation_schedule_hours: 0 });
}, 120_000);
afterAll(async () => {
  await s?.close();
});

describe('watching a set', () => {
  it('PATCH /evaluation/sets/{id} sets and clears watched', async () => {
    const on = await s.api(`/api/v1/evaluation/sets/${watched.id}`, {
      method: 'PATCH',
      key,
      body: { watched: true },
    });
    expect(on.status).toBe(200);
    expect(on.body).toMatchObject({ id: watched.id, name: 'Watched subjects', watched: true });
    const list = await s.api('/api/v1/evaluation/sets', { key: viewer });
    expect(list.body.sets.map((x: { id: number; watched: boolean }) => [x.id, x.watched])).toEqual([
      [watched.id, true],
      [unwatched.id, false],
    ]);
  });

  it('answers 422 for a watched that is not a boolean, 404 for a missing set, 403 for a viewer', async () => {
    const bad = await s.api(`/api/v1/evaluation/sets/${watched.id}`, {
      method: 'PATCH',
      key,
      body: { watched: 'yes' },
    });
    expect(bad.status).toBe(422);
    expect(bad.body.detail).toMatch(/watched/);
    const missing = await s.api('/api/v1/evaluation/sets/999999', {
      method: 'PATCH',
      key,
      body: { watched: true },
    });
    expect(missing.status).toBe(404);
    expect(missing.body.detail).toMatch(/999999/);
    const refused = await s.api(`/api/v1/evaluation/sets/${unwatched.id}`, {
      method: 'PATCH',
      key: viewer,
      body: { watched: true },
    });
    expect(refused.status).toBe(403);
    expect((await s.api(`/api/v1/evaluation/sets/${unwatched.id}`, { key })).body.set.watched).toBe(
      false,
    );
  });
});

describe('triggers', () => {
  it('queues one run of the watched set, and none of the other, after a rebuild', async () => {
    const before = await runsOf(watched.id);
    const r = await s.api('/api/v1/admin/maintenance/execute', {
      method: 'POST',
      key,
      body: { action: 'rebuild_index', params: { reembed: false } },
    });
    expect(r.status, JSON.stringify(r.body)).toBeLessThan(300);
    expect((await jobEnd(r.body.job_id)).status).toBe('completed');
    const added = newRuns(before, await runsOf(watched.id));
    expect(added.map((x) => x.trigger)).toEqual(['rebuild']);
    expect(await runsOf(unwatched.id)).toEqual([]);
    await settle(watched.id);
  });

  it('never queues a second run of a set while one is waiting or running', async () => {
    const watch = s.adam.services.evaluationWatch;
    const first = watch.queueWatched('rebuild', 'a test');
    expect(first).toHaveLength(1);
    expect(watch.queueWatched('rebuild', 'a test')).toEqual([]);
    expect(watch.queueWatched('model_switch', 'a test')).toEqual([]);
    await settle(watched.id);
    // Once it ended, the next change queues again.
    const again = watch.queueWatched('rebuild', 'a test');
    expect(again).toHaveLength(1);
    await settle(watched.id);
  });

  it('queues after a change of the search settings, not after another processing change', async () => {
    const processing = (await s.api('/api/v1/admin/settings/processing', { key })).body;
    let before = await runsOf(watched.id);
    await putSettings('processing', {
      embedding_batch_size: processing.embedding_batch_size === 32 ? 16 : 32,
    });
    expect(newRuns(before, await runsOf(watched.id))).toEqual([]);

    await putSettings('processing', {
      search_vector_weight: processing.search_vector_weight === 0.5 ? 0.6 : 0.5,
    });
    const added = newRuns(before, await runsOf(watched.id));
    expect(added.map((x) => x.trigger)).toEqual(['settings']);
    expect(await runsOf(unwatched.id)).toEqual([]);
    await settle(watched.id);

    // index_storage rebuilds the index: one run, after that rebuild.
    before = await runsOf(watched.id);
    await putSettings('processing', {
      index_storage: processing.index_storage === 'f16' ? 'f32' : 'f16',
    });
    expect(newRuns(before, await runsOf(watched.id))).toEqual([]);
    const rebuild = s.adam.db
      .prepare(
        `SELECT id FROM jobs WHERE type = 'rebuild_index'
         AND json_extract(metadata, '$.action') = 'change_storage'`,
      )
      .get() as { id: number };
    expect(rebuild).toBeDefined();
    expect((await jobEnd(rebuild.id)).status).toBe('completed');
    expect(newRuns(before, await runsOf(watched.id)).map((x) => x.trigger)).toEqual(['settings']);
    await settle(watched.id);
  });

  it('queues nothing on a change while evaluation_on_change is off', async () => {
    await putSettings('quality', { evaluation_on_change: false });
    const before = await runsOf(watched.id);
    const r = await s.api('/api/v1/admin/maintenance/execute', {
      method: 'POST',
      key,
      body: { action: 'rebuild_index', params: { reembed: false } },
    });
    expect((await jobEnd(r.body.job_id)).status).toBe('completed');
    expect(newRuns(before, await runsOf(watched.id))).toEqual([]);
    await putSettings('quality', { evaluation_on_change: true });
  });
});

describe('drop alerts', () => {
  it('raises one alert per mode that fell, naming the set and the lost query, in every place', async () => {
    const raised: { set_name: string; mode: string; lost_count: number }[] = [];
    const off = s.adam.bus.on('quality_alert', (e) => raised.push(e));
    const base = await manualRun(watched.id);
    expect(base.status).toBe('completed');
    await manualRun(unwatched.id);
    expect((await s.api('/api/v1/evaluation/alerts', { key })).body.alerts).toEqual([]);

    // The volcano query's only relevant snippets go: its nDCG@10 falls to 0 in every mode.
    for (const id of ids.volcano!) {
      expect((await s.api(`/api/v1/snippets/${id}`, { method: 'DELETE', key })).status).toBe(200);
    }
    const head = await manualRun(watched.id);
    await manualRun(unwatched.id);
    off();

    const alerts = (await s.api('/api/v1/evaluation/alerts', { key: viewer })).body.alerts;
    expect(alerts.map((a: { mode: string }) => a.mode).sort()).toEqual([
      'hybrid',
      'keyword',
      'vector',
    ]);
    for (const a of alerts) {
      expect(a).toMatchObject({
        set_id: watched.id,
        set_name: 'Watched subjects',
        run_id: head.id,
        base_run_id: base.id,
        trigger: 'manual',
        threshold: 0.05,
        lost_count: 1,
        lost_queries: [{ text: QUERIES.volcano, head_ndcg_10: 0 }],
        dismissed_at: null,
      });
      expect(a.fall).toBeGreaterThan(0.05);
      expect(a.base_ndcg_10 - a.head_ndcg_10).toBeCloseTo(a.fall, 3);
    }
    expect(raised.map((e) => e.set_name)).toEqual(Array(3).fill('Watched subjects'));

    // Log lines are written in batches: waited for.
    const lines = await until(
      async () => {
        const logs = await s.api(
          `/api/v1/admin/logs?level=warning&range=24h&page_size=200&q=${encodeURIComponent('Search quality fell')}`,
          { key },
        );
        const found = (logs.body.logs as { message: string }[]).map((l) => l.message);
        return found.length >= 3 ? found : null;
      },
      { what: 'the three warning lines' },
    );
    expect(lines).toHaveLength(3);
    for (const line of lines) {
      expect(line).toContain('"Watched subjects"');
      expect(line).toContain(QUERIES.volcano);
    }
    const activity = await s.api('/api/v1/analytics/activity/recent?limit=50', { key });
    const items = (
      activity.body.items as { kind: string; level: string; message: string }[]
    ).filter((i) => i.kind === 'quality_alert');
    expect(items).toHaveLength(3);
    expect(items[0]!.level).toBe('warning');
    expect(items[0]!.message).toContain('Watched subjects');
    expect(items[0]!.message).toContain(QUERIES.volcano);
  });

  it('raises none when the fall stays within the threshold', async () => {
    await putSettings('quality', { evaluation_drop_threshold: 1 });
    const before = (await s.api('/api/v1/evaluation/alerts?all=true', { key })).body.alerts;
    for (const id of ids.sourdough!)
      await s.api(`/api/v1/snippets/${id}`, { method: 'DELETE', key });
    await manualRun(watched.id);
    expect((await s.api('/api/v1/evaluation/alerts?all=true', { key })).body.alerts).toEqual(
      before,
    );
    await putSettings('quality', { evaluation_drop_threshold: 0.05 });
  });

  it('dismisses an alert (operator+): gone from the open list, kept with all=true', async () => {
    const [alert] = (await s.api('/api/v1/evaluation/alerts', { key })).body.alerts;
    const refused = await s.api(`/api/v1/evaluation/alerts/${alert.id}/dismiss`, {
      method: 'POST',
      key: viewer,
    });
    expect(refused.status).toBe(403);
    const dismissed: number[] = [];
    const off = s.adam.bus.on('quality_alert_dismissed', (e) => dismissed.push(e.alert_id));
    const r = await s.api(`/api/v1/evaluation/alerts/${alert.id}/dismiss`, {
      method: 'POST',
      key,
    });
    off();
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ id: alert.id, dismissed_by: 'admin@example.com' });
    expect(r.body.dismissed_at).toEqual(expect.any(String));
    expect(dismissed).toEqual([alert.id]);
    const open = (await s.api('/api/v1/evaluation/alerts', { key })).body.alerts;
    expect(open.map((a: { id: number }) => a.id)).not.toContain(alert.id);
    expect(open).toHaveLength(2);
    const all = (await s.api('/api/v1/evaluation/alerts?all=true', { key })).body.alerts;
    expect(all.map((a: { id: number }) => a.id)).toContain(alert.id);
    // Newest first.
    const listed = all.map((a: { id: number }) => a.id);
    expect(listed).toEqual([...listed].sort((a, b) => b - a));
    // Again: nothing changes, the first dismissal stays.
    const again = await s.api(`/api/v1/evaluation/alerts/${alert.id}/dismiss`, {
      method: 'POST',
      key,
    });
    expect(again.status).toBe(200);
    expect(again.body.dismissed_at).toBe(r.body.dismissed_at);
  });

  it('answers 404 for a missing alert and 400/422 for bad parameters', async () => {
    const missing = await s.api('/api/v1/evaluation/alerts/999999/dismiss', {
      method: 'POST',
      key,
    });
    expect(missing.status).toBe(404);
    expect(missing.body.detail).toMatch(/999999/);
    const badId = await s.api('/api/v1/evaluation/alerts/abc/dismiss', { method: 'POST', key });
    expect([400, 422]).toContain(badId.status);
    expect(badId.body.detail).toEqual(expect.any(String));
    const badAll = await s.api('/api/v1/evaluation/alerts?all=maybe', { key });
    expect([400, 422]).toContain(badAll.status);
    expect(badAll.body.detail).toMatch(/all/);
  });
});

describe('schedule', () => {
  it('queues a watched set once its last run is older than the period, on the fake clock', async () => {
    const watch = s.adam.services.evaluationWatch;
    expect(watch.tick()).toEqual([]); // schedule off (0 hours)
    await putSettings('quality', { evaluation_schedule_hours: 2 });
    expect(watch.tick()).toEqual([]); // the last run is minutes old
    s.clock.advance(2 * 3_600_000 - 60_000);
    expect(watch.tick()).toEqual([]);
    s.clock.advance(60_000);
    const due = watch.tick();
    expect(due).toHaveLength(1);
    expect(watch.tick()).toEqual([]); // it is pending: not twice
    const run = (await runsOf(watched.id)).find((r) => r.id === due[0]);
    expect(run?.trigger).toBe('schedule');
    expect((await runsOf(unwatched.id)).some((r) => r.trigger === 'schedule')).toBe(false);
    await settle(watched.id);
    expect(watch.tick()).toEqual([]); // counted again from that run
    s.clock.advance(2 * 3_600_000);
    expect(watch.tick()).toHaveLength(1);
    await settle(watched.id);
    await putSettings('quality', { evaluation_schedule_hours: 0 });
  });
});

describe('model switch', () => {
  it('queues a run of the watched set once a switch of the embedding model completes', async () => {
    const dir = path.join(tempDir('adam-tiny-'), 'tiny-embedder');
    await writeTinyEmbeddingModel(dir, { dimension: 64 });
    const before = await runsOf(watched.id);
    const { job_id } = s.adam.services.embeddingSwitch.switchTo({
      id: 'onnx:tiny/embedder@main',
      dimension: 64,
      dir,
    });
    expect((await jobEnd(job_id)).status).toBe('completed');
    expect(newRuns(before, await runsOf(watched.id)).map((x) => x.trigger)).toEqual([
      'model_switch',
    ]);
    expect((await runsOf(unwatched.id)).some((r) => r.trigger === 'model_switch')).toBe(false);
    await settle(watched.id);
  });
});
