/**
 * Search history over the API (issue 27): searches recorded through HTTP (a session and an API
 * key), the per-request and the global opt-out, the summary's figures on known rows, the list's
 * filters and pages, the retention prune, clearing, bad parameters and roles.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SearchHistoryRepository } from '../src/store/search-history.repository.js';
import type { SearchHistoryRecord } from '../src/store/search-history.repository.js';
import { saveText, startServer, testClock, type TestServer } from './helpers.js';
import { createRoleUser } from './role-users.js';
import { until } from './until.js';

let s: TestServer;
let admin: string;
let viewer: string;
let operator: string;
let viewerId: number;

const DAY = 86400_000;

beforeAll(async () => {
  s = await startServer({ clock: testClock(Date.UTC(2026, 10, 27, 12, 0, 0)) });
  admin = await s.login();
  const v = await createRoleUser(s, admin, 'viewer');
  viewer = v.key;
  viewerId = v.id;
  operator = (await createRoleUser(s, admin, 'operator')).key;
  await saveText(
    s,
    admin,
    'A volcano erupts when magma rises through the crust and escapes as lava, ash and gas. ' +
      'Basaltic lava flows far from the vent, while sticky rhyolite magma traps gas and explodes.\n\n' +
      'Sourdough bread rises with a starter of wild yeast and lactic bacteria fed on flour and water. ' +
      'Bakers fold the dough, let it ferment overnight and bake it in a hot covered pot.',
    'Volcanoes and bread',
  );
});
afterAll(async () => {
  await s?.close();
});

const search = (key: string, body: object) =>
  s.api('/api/v1/snippets/search', { method: 'POST', key, body });
const history = (key: string, qs = '') => s.api(`/api/v1/search-history${qs}`, { key });
const clear = (key = admin) => s.api('/api/v1/search-history', { method: 'DELETE', key });
const setQuality = (settings: object) =>
  s.api('/api/v1/admin/settings/quality', { method: 'PUT', key: admin, body: { settings } });

/** Waits until the recorded history holds an entry whose query is `query`. */
async function recorded(query: string) {
  return until(
    async () => {
      const page = await history(admin, `?q=${encodeURIComponent(query)}&limit=200`);
      return (page.body.entries as { query: string }[]).find((e) => e.query === query);
    },
    { what: `"${query}" recorded` },
  );
}

function row(over: Partial<SearchHistoryRecord>): SearchHistoryRecord {
  return {
    at: new Date(s.clock.now()).toISOString(),
    user_id: null,
    query: 'q',
    query_norm: 'q',
    mode: 'hybrid',
    filters: null,
    k: 10,
    result_count: 3,
    top_score: 0.8,
    best_similarity: 0.7,
    keyword_matches: 1,
    result_ids: [1, 2, 3],
    latency_ms: 5,
    rerank: null,
    ...over,
  };
}

describe('recording', () => {
  it('records a console search with its user, mode, filters, k, results and latency', async () => {
    await clear();
    const r = await search(viewer, {
      query: 'How does lava  erupt?',
      k: 7,
      mode: 'hybrid',
      filters: { min_quality: 0 },
    });
    expect(r.status).toBe(200);
    const e = await recorded('How does lava  erupt?');
    const ids = (r.body.results as { id: number }[]).map((x) => x.id);
    expect(ids.length).toBeGreaterThan(0);
    expect(e).toMatchObject({
      user_id: viewerId,
      mode: 'hybrid',
      k: 7,
      filters: { min_quality: 0 },
      result_count: ids.length,
      result_ids: ids,
      top_score: r.body.results[0].score,
      latency_ms: r.body.latency_ms,
      rerank: null,
    });
    const best = Math.max(...(r.body.results as { similarity: number }[]).map((x) => x.similarity));
    expect((e as unknown as { best_similarity: number }).best_similarity).toBeCloseTo(best, 6);
  });

  it("records an API key's search as the key's user, and the index search too", async () => {
    const created = await s.api('/api/v1/auth/api-keys', {
      method: 'POST',
      key: viewer,
      body: { name: 'history key', scope: 'read' },
    });
    expect(created.status).toBe(201);
    const r = await search(created.body.secret, { query: 'sourdough starter', mode: 'keyword' });
    expect(r.status).toBe(200);
    const e = await recorded('sourdough starter');
    expect(e).toMatchObject({ mode: 'keyword', user_id: viewerId });
    const idx = await s.api('/api/v1/admin/index/search', {
      method: 'POST',
      key: admin,
      body: { query: 'rhyolite magma index', mode: 'vector' },
    });
    expect(idx.status).toBe(200);
    expect(await recorded('rhyolite magma index')).toMatchObject({ mode: 'vector' });
  });

  it('does not record a search that asks history: false', async () => {
    expect((await search(admin, { query: 'private lava question', history: false })).status).toBe(
      200,
    );
    await search(admin, { query: 'marker after private' });
    await recorded('marker after private');
    const page = await history(admin, '?q=private%20lava');
    expect(page.body.entries).toEqual([]);
  });

  it('records nothing while the setting is off, and again once it is on', async () => {
    expect((await setQuality({ search_history_enabled: false })).status).toBe(200);
    await search(admin, { query: 'while switched off' });
    // The record is made once the answer has gone out: a further round trip lets that happen.
    await history(admin);
    s.adam.services.searchHistory.flush();
    expect((await setQuality({ search_history_enabled: true })).status).toBe(200);
    await search(admin, { query: 'switched on again' });
    await recorded('switched on again');
    expect((await history(admin, '?q=switched%20off')).body.entries).toEqual([]);
  });

  it('does not record a refused search', async () => {
    const r = await search(admin, { query: '', k: 5 });
    expect(r.status).toBe(422);
    s.adam.services.searchHistory.flush();
    expect(s.adam.services.searchHistory.pending).toBe(0);
  });
});

describe('listing and summary', () => {
  const repo = () => new SearchHistoryRepository(s.adam.db);

  it('sums up known searches: top queries with avg and p95 latency, slowest, empty and weak', async () => {
    await clear();
    const now = s.clock.now();
    const at = (msAgo: number) => new Date(now - msAgo).toISOString();
    // "old search" is outside the 7 days asked for. "Bee pollination" three times in different spellings: latencies 10, 20, 30.
    // In time order, as the recorder writes them: pages go by id.
    repo().insertMany([
      row({ query: 'old search', query_norm: 'old search', latency_ms: 500, at: at(8 * DAY) }),
      row({
        query: 'Bee pollination',
        query_norm: 'bee pollination',
        latency_ms: 10,
        at: at(5000),
      }),
      row({
        query: ' bee   POLLINATION ',
        query_norm: 'bee pollination',
        latency_ms: 20,
        at: at(4000),
        result_count: 5,
      }),
      row({
        query: 'bee pollination',
        query_norm: 'bee pollination',
        latency_ms: 30,
        at: at(3000),
        mode: 'keyword',
      }),
      row({
        query: 'nothing here',
        query_norm: 'nothing here',
        result_count: 0,
        top_score: null,
        best_similarity: null,
        keyword_matches: 0,
        result_ids: [],
        latency_ms: 90,
        at: at(2000),
      }),
      row({
        query: 'vague thing',
        query_norm: 'vague thing',
        best_similarity: 0.12,
        keyword_matches: 0,
        latency_ms: 4,
        at: at(1000),
      }),
      // Close in meaning (0.5): not weak although no word matched.
      row({
        query: 'close meaning',
        query_norm: 'close meaning',
        best_similarity: 0.5,
        keyword_matches: 0,
        latency_ms: 3,
        at: at(900),
      }),
    ]);
    const r = await s.api('/api/v1/search-history/summary?days=7', { key: viewer });
    expect(r.status).toBe(200);
    const sum = r.body;
    expect(sum).toMatchObject({ days: 7, searches: 6, empty: 1, weak: 1 });
    expect(sum.top_queries[0]).toMatchObject({
      normalized: 'bee pollination',
      query: 'bee pollination',
      mode: 'keyword',
      count: 3,
      avg_latency_ms: 20,
      p95_latency_ms: 30,
    });
    expect(sum.top_queries[0].avg_results).toBeCloseTo(11 / 3, 6);
    expect(sum.slowest.map((e: { query: string }) => e.query).slice(0, 2)).toEqual([
      'nothing here',
      'bee pollination',
    ]);
    expect(sum.found_nothing.map((g: { normalized: string }) => g.normalized)).toEqual([
      'nothing here',
    ]);
    expect(sum.weak_matches.map((g: { normalized: string }) => g.normalized)).toEqual([
      'vague thing',
    ]);
    expect(sum.recording).toMatchObject({ enabled: true, retention_days: 30, dropped: 0 });
  });

  it('filters by text (plain, case-insensitive), mode, outcome and time, newest first', async () => {
    const q = async (qs: string) =>
      ((await history(viewer, qs)).body.entries as { query: string }[]).map((e) => e.query);
    expect(await q('?q=POLLINATION')).toEqual([
      'bee pollination',
      ' bee   POLLINATION ',
      'Bee pollination',
    ]);
    // Not a pattern: % and . are plain characters.
    expect(await q('?q=%25')).toEqual([]);
    expect(await q('?q=b.e')).toEqual([]);
    expect(await q('?mode=keyword')).toEqual(['bee pollination']);
    expect(await q('?outcome=empty')).toEqual(['nothing here']);
    expect(await q('?outcome=weak')).toEqual(['vague thing']);
    const from = new Date(s.clock.now() - 2500).toISOString();
    expect(await q(`?from=${from}`)).toEqual(['close meaning', 'vague thing', 'nothing here']);
    const to = new Date(s.clock.now() - 7 * DAY).toISOString();
    expect(await q(`?to=${to}`)).toEqual(['old search']);
  });

  it('pages by cursor without repeating or skipping an entry', async () => {
    const seen: string[] = [];
    let cursor: string | null = '';
    let pages = 0;
    while (cursor !== null) {
      const r = await history(viewer, `?limit=3${cursor ? `&cursor=${cursor}` : ''}`);
      expect(r.status).toBe(200);
      seen.push(...(r.body.entries as { query: string }[]).map((e) => e.query));
      cursor = r.body.next_cursor;
      pages++;
    }
    expect(pages).toBe(3);
    expect(seen).toHaveLength(7);
    expect(new Set(seen).size).toBe(7);
    expect(seen[seen.length - 1]).toBe('old search');
  });

  it('answers 422 for bad parameters and 404 for an unknown entry', async () => {
    for (const qs of [
      '?limit=0',
      '?limit=1000',
      '?cursor=abc',
      '?outcome=bad',
      '?mode=fuzzy',
      '?from=yesterday',
      `?q=${'x'.repeat(201)}`,
    ]) {
      const r = await history(viewer, qs);
      expect(r.status, qs).toBe(422);
      expect(typeof r.body.detail).toBe('string');
    }
    for (const days of ['0', '3651', 'week']) {
      const r = await s.api(`/api/v1/search-history/summary?days=${days}`, { key: viewer });
      expect(r.status, days).toBe(422);
    }
    const gone = await s.api('/api/v1/search-history/999999', { method: 'DELETE', key: operator });
    expect(gone.status).toBe(404);
    expect(gone.body.detail).toMatch(/not found/);
    const bad = await s.api('/api/v1/search-history/abc', { method: 'DELETE', key: operator });
    expect(bad.status).toBe(422);
  });

  it('deletes one entry (operator) and clears all (administrator only)', async () => {
    const [first] = (await history(viewer, '?limit=1')).body.entries as { id: number }[];
    expect(
      (await s.api(`/api/v1/search-history/${first!.id}`, { method: 'DELETE', key: viewer }))
        .status,
    ).toBe(403);
    const del = await s.api(`/api/v1/search-history/${first!.id}`, {
      method: 'DELETE',
      key: operator,
    });
    expect(del.status).toBe(200);
    expect((await history(viewer)).body.entries).toHaveLength(6);
    const refused = await clear(operator);
    expect(refused.status).toBe(403);
    expect(refused.body.detail).toMatch(/administrator/);
    const cleared = await clear(admin);
    expect(cleared.status).toBe(200);
    expect(cleared.body.deleted).toBe(6);
    expect((await history(viewer)).body.entries).toEqual([]);
  });
});

describe('retention', () => {
  it('prunes the searches older than the retention days, in batches, and keeps the rest', async () => {
    await clear();
    const now = s.clock.now();
    const old = Array.from({ length: 12_000 }, (_, i) =>
      row({
        query: `old ${i}`,
        query_norm: `old ${i}`,
        at: new Date(now - 11 * DAY - i).toISOString(),
      }),
    );
    new SearchHistoryRepository(s.adam.db).insertMany([
      ...old,
      row({ query: 'recent', query_norm: 'recent', at: new Date(now - 9 * DAY).toISOString() }),
    ]);
    expect((await setQuality({ search_history_retention_days: 10 })).status).toBe(200);
    const deleted = await s.adam.services.searchHistory.prune();
    expect(deleted).toBe(12_000);
    const left = (await history(viewer)).body.entries as { query: string }[];
    expect(left.map((e) => e.query)).toEqual(['recent']);
    expect((await setQuality({ search_history_retention_days: 0 })).status).toBe(422);
  });
});
