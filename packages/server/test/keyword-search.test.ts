import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ftsMatch } from '../src/services/hybrid-search.js';
import { SnippetRepository, type SnippetFilter } from '../src/store/snippet.repository.js';
import { ARTICLES } from './corpus.js';
import { saveText, startServer, tempDir, type TestServer } from './helpers.js';
import { until } from './until.js';

/**
 * Keyword search answered by the keyword engine (src/keyword/keyword.service.ts) on its own
 * thread, kept in step with the store through the change log, compared with FTS5's own bm25 on
 * the same store after every kind of change.
 */
const QUERIES = [
  'chlorophyll light',
  'plants sugars carbon',
  'volcano magma eruption ash',
  'SQL query planner indexes rows',
  'virtue reason nature',
  'the energy of the tables and plates',
];

interface Hit {
  id: number;
  keyword_score: number | null;
}

let servers: TestServer[] = [];
afterEach(async () => {
  for (const s of servers) await s.close();
  servers = [];
});

async function start(dataDir?: string) {
  const s = await startServer({ dataDir });
  servers.push(s);
  const key = await s.login();
  await until(async () => (await keywordHealth(s)).details.state === 'ready', {
    timeout: 60_000,
    what: 'the keyword index ready',
  });
  return { s, key };
}

async function keywordHealth(s: TestServer) {
  const r = await s.api('/api/v1/health');
  return r.body.components.keyword_index as {
    status: string;
    details: { answered: { engine: number; fts5: number }; state: string };
  };
}

/** FTS5's ranking, as the API shows it: score desc, then id asc; filter as SQL. */
function fts5(s: TestServer, query: string, k: number, where = '', params: unknown[] = []): Hit[] {
  const match = ftsMatch(query, 'any')!;
  const rows = s.adam.db
    .prepare(
      `SELECT f.rowid AS id, bm25(snippets_fts) AS bm25 FROM snippets_fts f
       JOIN snippets s ON s.id = f.rowid WHERE snippets_fts MATCH ? ${where}`,
    )
    .all(match, ...params) as { id: number; bm25: number }[];
  return rows
    .sort((a, b) => a.bm25 - b.bm25 || a.id - b.id)
    .slice(0, k)
    .map((r) => ({ id: r.id, keyword_score: Math.round(-r.bm25 * 1e4) / 1e4 }));
}

async function search(s: TestServer, key: string, query: string, k: number, filters?: object) {
  const r = await s.api('/api/v1/snippets/search', {
    method: 'POST',
    key,
    body: { query, k, mode: 'keyword', ...(filters && { filters }) },
  });
  expect(r.status).toBe(200);
  return (r.body.results as Hit[]).map((h) => ({ id: h.id, keyword_score: h.keyword_score }));
}

/** Every query through HTTP equals FTS5, and the engine (not FTS5) answered them. */
async function expectSameAsFts5(s: TestServer, key: string) {
  const before = (await keywordHealth(s)).details.answered.engine;
  for (const q of QUERIES) {
    const want = fts5(s, q, 50);
    expect(await search(s, key, q, 50), q).toEqual(want);
  }
  expect((await keywordHealth(s)).details.answered.engine).toBe(before + QUERIES.length);
}

function snippetCount(s: TestServer): number {
  return s.adam.db.prepare('SELECT COUNT(*) FROM snippets').pluck().get() as number;
}

/**
 * The relevance listing as FTS5 answers it (the store's listing, what the API served before the
 * engine): ids of every page of `per`, and its total.
 */
function fts5Listing(
  s: TestServer,
  search: string,
  match: 'any' | 'all',
  f: SnippetFilter,
  per: number,
) {
  const repo = new SnippetRepository(s.adam.db);
  const filter = { ...f, match: ftsMatch(search, match)! };
  const pages: number[][] = [];
  let total = -1;
  for (let at = 0; ; at += per) {
    const p = repo.listPage(filter, 'relevance', 'desc', per, at);
    expect(p.exact).toBe(true);
    total = p.total;
    if (p.rows.length > 0) pages.push(p.rows.map((r) => r.id));
    if (!p.more) break;
  }
  return { pages, total };
}

/** Every page of GET /snippets sorted by relevance, by next_cursor and by page number. */
async function apiListing(s: TestServer, key: string, query: Record<string, string>, per: number) {
  const base = new URLSearchParams({ ...query, sort_by: 'relevance', per_page: String(per) });
  const pages: number[][] = [];
  const totals = new Set<string>();
  let cursor: string | null = null;
  for (let n = 1; ; n++) {
    const byCursor = new URLSearchParams(base);
    if (cursor) byCursor.set('cursor', cursor);
    const r = await s.api(`/api/v1/snippets?${byCursor}`, { key });
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    const byNumber = new URLSearchParams(base);
    byNumber.set('page', String(n));
    const numbered = await s.api(`/api/v1/snippets?${byNumber}`, { key });
    const ids = (r.body.snippets as { id: number }[]).map((x) => x.id);
    expect((numbered.body.snippets as { id: number }[]).map((x) => x.id)).toEqual(ids);
    totals.add(`${r.body.total}/${r.body.total_exact}`);
    if (ids.length > 0) pages.push(ids);
    cursor = r.body.next_cursor as string | null;
    if (!cursor) break;
  }
  expect(totals.size).toBe(1);
  const [total, exact] = [...totals][0]!.split('/');
  expect(exact).toBe('true');
  return { pages, total: Number(total) };
}

const LISTINGS: { search: string; match: 'any' | 'all'; f?: 'job' | 'quality' }[] = [
  { search: 'chlorophyll light', match: 'any' },
  { search: 'plants sugars carbon', match: 'all' },
  { search: 'the energy of the tables and plates', match: 'any' },
  { search: 'light rows magma', match: 'any', f: 'job' },
  { search: 'rows the', match: 'all', f: 'quality' },
  { search: 'volcano magma eruption ash', match: 'any', f: 'quality' },
  { search: 'nosuchwordanywhere light', match: 'all' },
];

/** Every listing of LISTINGS through HTTP equals FTS5's, page by page, and the engine answered. */
async function expectListingsAsFts5(s: TestServer, key: string, jobId: number) {
  const before = (await keywordHealth(s)).details.answered.engine;
  let asked = 0;
  for (const l of LISTINGS) {
    const f: SnippetFilter =
      l.f === 'job' ? { job_id: jobId } : l.f === 'quality' ? { min_quality: 0.5 } : {};
    const query: Record<string, string> = { search: l.search, match: l.match };
    if (f.job_id !== undefined) query.job_id = String(f.job_id);
    if (f.min_quality !== undefined) query.min_quality = String(f.min_quality);
    for (const per of [1, 4]) {
      const want = fts5Listing(s, l.search, l.match, f, per);
      const got = await apiListing(s, key, query, per);
      expect(got, `${l.search} ${l.match} ${l.f ?? ''} per ${per}`).toEqual(want);
      asked += 2 * Math.max(1, want.pages.length);
    }
  }
  expect((await keywordHealth(s)).details.answered.engine).toBeGreaterThanOrEqual(before + asked);
}

describe('keyword search from the keyword engine', { timeout: 180_000 }, () => {
  it('lists by relevance as FTS5 does (every page, filters, any/all, totals), after changes', async () => {
    const dataDir = tempDir();
    let { s, key } = await start(dataDir);
    await saveText(s, key, ARTICLES.photosynthesis, 'photosynthesis');
    const b = await saveText(s, key, ARTICLES.volcanoes, 'volcanoes');
    const c = await saveText(s, key, ARTICLES.databases, 'databases');
    // Spread the quality scores so a threshold leaves part of the rows.
    s.adam.db.prepare('UPDATE snippets SET quality_score = (id % 4) / 4.0').run();
    await expectListingsAsFts5(s, key, c.job_id);
    // Saved and loaded again: the rows are now in the engine's immutable part, not its log part.
    await s.close();
    servers = [];
    ({ s, key } = await start(dataDir));
    await expectListingsAsFts5(s, key, c.job_id);

    s.adam.db
      .prepare('UPDATE snippets SET text = ? WHERE id = ?')
      .run('Magma and ash: chlorophyll light in a volcano of SQL rows', c.snippet_ids[1]);
    expect(
      (await s.api(`/api/v1/snippets/${c.snippet_ids[0]}`, { method: 'DELETE', key })).status,
    ).toBe(200);
    s.adam.db.prepare('DELETE FROM snippets WHERE job_id = ?').run(b.job_id);
    await saveText(s, key, ARTICLES.stoicism, 'stoicism');
    await expectListingsAsFts5(s, key, c.job_id);

    // A phrase: FTS5 answers, the same listing as before.
    const phrase = await s.api(
      `/api/v1/snippets?search=${encodeURIComponent('carbon dioxide')}&match=phrase&sort_by=relevance&per_page=50`,
      { key },
    );
    expect(phrase.status).toBe(200);
    expect((phrase.body.snippets as { id: number }[]).map((x) => x.id)).toEqual(
      fts5Listing(s, 'carbon dioxide', 'phrase' as 'any', {}, 50).pages[0] ?? [],
    );
  });

  it('equals FTS5 after inserts, text updates, deletes by id and by job, and a restore', async () => {
    const { s, key } = await start();
    const a = await saveText(s, key, ARTICLES.photosynthesis, 'photosynthesis');
    const b = await saveText(s, key, ARTICLES.volcanoes, 'volcanoes');
    const c = await saveText(s, key, ARTICLES.databases, 'databases');
    await expectSameAsFts5(s, key);

    const backup = await s.api('/api/v1/admin/maintenance/backup', { method: 'POST', key });
    expect(backup.status).toBe(200);

    // A text update (what a re-segmentation writes), through the store's triggers.
    s.adam.db
      .prepare('UPDATE snippets SET text = ? WHERE id = ?')
      .run('Magma and ash: chlorophyll in a volcano of SQL rows', a.snippet_ids[0]);
    await expectSameAsFts5(s, key);

    expect(
      (await s.api(`/api/v1/snippets/${c.snippet_ids[0]}`, { method: 'DELETE', key })).status,
    ).toBe(200);
    await expectSameAsFts5(s, key);

    // Filtered: one job's rows only.
    const q = 'light rows magma';
    expect(await search(s, key, q, 20, { job_id: c.job_id })).toEqual(
      fts5(s, q, 20, 'AND s.job_id = ?', [c.job_id]),
    );

    // A whole job's rows at once (what deleting a job's or a source's snippets runs).
    const before = snippetCount(s);
    s.adam.db.prepare('DELETE FROM snippets WHERE job_id = ?').run(b.job_id);
    expect(snippetCount(s)).toBeLessThan(before);
    await expectSameAsFts5(s, key);

    await saveText(s, key, ARTICLES.stoicism, 'stoicism');
    const restored = await s.api(`/api/v1/admin/maintenance/restore/${backup.body.id}`, {
      method: 'POST',
      key,
    });
    expect(restored.status).toBe(200);
    await until(async () => (await keywordHealth(s)).details.state === 'ready', {
      timeout: 60_000,
      what: 'the keyword index rebuilt after the restore',
    });
    await expectSameAsFts5(s, key);
  });

  it('loads its saved file, and rebuilds it when missing or damaged (with a log line)', async () => {
    const dataDir = tempDir();
    let { s, key } = await start(dataDir);
    await saveText(s, key, ARTICLES.photosynthesis, 'photosynthesis');
    await saveText(s, key, ARTICLES.databases, 'databases');
    await expectSameAsFts5(s, key);
    await s.close();
    servers = [];
    const file = path.join(dataDir, 'keyword', 'keyword.idx');
    expect(fs.existsSync(file)).toBe(true);

    const rebuilt = (t: TestServer) =>
      t.adam.db
        .prepare(
          "SELECT COUNT(*) FROM logs WHERE message LIKE 'Keyword index rebuilt from the store%'",
        )
        .pluck()
        .get() as number;

    // Saved: loaded as it is; changes made while it was closed come from the log.
    ({ s, key } = await start(dataDir));
    await expectSameAsFts5(s, key);
    await saveText(s, key, ARTICLES.volcanoes, 'volcanoes');
    await expectSameAsFts5(s, key);
    const seenBefore = rebuilt(s);
    await s.close();
    servers = [];

    fs.rmSync(file);
    ({ s, key } = await start(dataDir));
    await until(() => rebuilt(s) > seenBefore, { what: 'the rebuild logged' });
    await expectSameAsFts5(s, key);
    const afterMissing = rebuilt(s);
    await s.close();
    servers = [];

    const bytes = fs.readFileSync(file);
    bytes[20] = bytes[20]! ^ 0xff; // inside the header's checksum
    fs.writeFileSync(file, bytes);
    ({ s, key } = await start(dataDir));
    await until(() => rebuilt(s) > afterMissing, { what: 'the damaged file logged' });
    const line = s.adam.db
      .prepare(
        "SELECT message FROM logs WHERE message LIKE 'Keyword index rebuilt%' ORDER BY id DESC",
      )
      .pluck()
      .get() as string;
    expect(line).toContain('damaged');
    await expectSameAsFts5(s, key);
  });

  it('hybrid results carry the bm25 FTS5 gives the same rows', async () => {
    const { s, key } = await start();
    await saveText(s, key, ARTICLES.photosynthesis, 'photosynthesis');
    await saveText(s, key, ARTICLES.databases, 'databases');
    const q = 'how do plants store the energy of light';
    const r = await s.api('/api/v1/snippets/search', {
      method: 'POST',
      key,
      body: { query: q, k: 5, mode: 'hybrid' },
    });
    expect(r.status).toBe(200);
    const want = new Map(fts5(s, q, 1000).map((h) => [h.id, h.keyword_score]));
    for (const h of r.body.results as Hit[]) expect(h.keyword_score).toBe(want.get(h.id) ?? null);
    expect((await keywordHealth(s)).details.answered.engine).toBeGreaterThan(0);
  });
  it('answers from FTS5 until the engine is ready, then from the engine', async () => {
    let open!: () => void;
    const gate = new Promise<void>((r) => (open = r));
    const s = await startServer({ build: { startGates: { keyword: gate } } });
    servers.push(s);
    const key = await s.login();
    await saveText(s, key, ARTICLES.photosynthesis, 'photosynthesis');
    await saveText(s, key, ARTICLES.volcanoes, 'volcanoes');
    expect((await keywordHealth(s)).details.state).toBe('loading; FTS5 answers');
    for (const q of QUERIES) expect(await search(s, key, q, 50), q).toEqual(fts5(s, q, 50));
    const held = (await keywordHealth(s)).details.answered;
    expect(held).toEqual({ engine: 0, fts5: QUERIES.length });
    open();
    await until(async () => (await keywordHealth(s)).details.state === 'ready', {
      timeout: 60_000,
      what: 'the keyword index ready',
    });
    await expectSameAsFts5(s, key);
  });
});
