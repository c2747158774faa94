/**
 * GET /snippets and GET /admin/index/entries at 1,000,000 snippets over real HTTP (not a test:
 * prints figures, asserts nothing).
 *
 *   npm run bench -w @adam/server -- list
 *
 * Data: a data dir cached under the temporary directory (DATA_DIR; rebuilt when its marker's
 * version differs), filled once with the benches' generated snippets (bench/snippet-data.ts,
 * written through insertMany with every trigger a real ingestion fires), without vectors:
 * listing never reads them. 98% of the
 * rows are then marked indexed, as after a normal ingestion, so the index's entry list has rows.
 * Building it takes a few minutes; later runs reuse it (the migrations of newer code apply to it).
 *
 * The app is started on that dir with its start-up reconciliation stubbed out: the rows have no
 * vectors and would otherwise all be re-embedded. Then each kind of listing is timed, one
 * request at a time (the client runs in the same process, so its time is in the figures), next
 * to the reference: the same listing through SnippetRepository.listPage on the app's connection
 * (the bare SQL, no HTTP, no JSON), and, for a few samples, the query listing ran before this
 * version (ORDER BY created_at with OFFSET, and a COUNT(*) of every match).
 *
 * Deep pages: page 1,001 (offset 50,000) of several listings, read by its page number (OFFSET
 * walks the 50,000 rows before it) and by the cursor of a neighbouring page (next_cursor of page
 * 1,000, prev_cursor of page 1,002: a keyset seek), side by side. LIST_BENCH_KINDS=deep runs
 * only the listings whose name holds that text.
 *
 * Rows: as bench/snippet-data.ts makes them; jobs of ~5,000 consecutive rows
 * (10% of rows with none); a source per page, except one page in ten that comes from one of
 * two large feeds (feed0 and feed10, ~50,000 rows each).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { SnippetListQuery } from '@adam/contracts';
import { buildApp, type Adam } from '../src/app.js';
import { loadConfig } from '../src/config.js';
import { LiveIndex } from '../src/services/index/live-index.js';
import { ftsMatch } from '../src/services/hybrid-search.js';
import { listSort } from '../src/services/snippet.service.js';
import { openDatabase } from '../src/store/db.js';
import {
  SnippetRepository,
  type SnippetFilter,
  type SnippetPosition,
} from '../src/store/snippet.repository.js';
import { fixed, footer, header, mib, seconds, sharedModel, summarize, table } from './common.js';
import { benchSnippets, writeBenchSnippets } from './snippet-data.js';

/** LIST_BENCH_ROWS=200000 runs a smaller store (its own cached dir). */
const ROWS = Number(process.env.LIST_BENCH_ROWS ?? 1_000_000);
/** Bump when the generated rows change: the cached dir is then rebuilt. */
const DATA_VERSION = 'list-v1';
const DATA_DIR = path.join(
  os.tmpdir(),
  ROWS === 1_000_000 ? 'adam-bench-list-1m' : `adam-bench-list-${ROWS}`,
);
const MARKER = path.join(DATA_DIR, 'bench-data.json');
const REQUESTS = 200;
const WARMUP = 5;
/** Samples of the query before this version: it takes up to a second or more at 1M. */
const OLD_SAMPLES = 3;
/** A kind of listing stops early past this, so one slow query cannot hold the run. */
const KIND_BUDGET_MS = 30_000;
const PAGES_PER_JOB = 2_000;
const FEEDS = 20;
const feedUrl = (i: number) => `https://feed${i}.bench.example/all`;

header(`list: GET /api/v1/snippets at ${ROWS.toLocaleString('en')} snippets over HTTP`);
const benchStarted = performance.now();

/**
 * Jobs of ~5,000 consecutive rows (10% of rows with none); a source per page, except one page in
 * ten that comes from one of two large feeds. n is a multiple of 10 there, so n % 20 names feed 0
 * or feed 10.
 */
const listRows = () =>
  benchSnippets(7, ({ n }) => {
    const feed = n % 10 === 0;
    return {
      source_title: feed ? `Feed ${n % FEEDS}` : `Article ${n}`,
      source_url: feed ? feedUrl(n % FEEDS) : `https://bench.example/articles/${n}`,
      job_id: n % 10 === 3 ? null : 1 + Math.floor(n / PAGES_PER_JOB),
      metadata: '{}',
    };
  });

/** Fills DATA_DIR unless its marker says it holds this version's rows. */
function prepareData(): void {
  const marker = fs.existsSync(MARKER)
    ? (JSON.parse(fs.readFileSync(MARKER, 'utf8')) as { version: string; rows: number })
    : null;
  if (marker?.version === DATA_VERSION && marker.rows === ROWS) {
    console.log(`data: reusing ${DATA_DIR} (${marker.rows.toLocaleString('en')} rows)`);
    return;
  }
  const started = performance.now();
  const inserted = writeBenchSnippets(DATA_DIR, listRows(), ROWS, 100_000);
  const db = openDatabase(DATA_DIR);
  try {
    db.prepare(
      `UPDATE snippets SET index_pending = 0, faiss_id = id, indexed_at = created_at WHERE id % 50 <> 0`,
    ).run();
    db.pragma('wal_checkpoint(TRUNCATE)');
    console.log(`data: ${inserted} rows written in ${seconds(performance.now() - started)}`);
  } finally {
    db.close();
  }
  fs.writeFileSync(MARKER, JSON.stringify({ version: DATA_VERSION, rows: ROWS }));
}

interface Kind {
  name: string;
  path: '/snippets' | '/admin/index/entries';
  query: string;
  /** Read by the cursor of the page before (next_cursor) or after (prev_cursor) `page`. */
  cursor?: 'next' | 'prev';
}

/** The deep page read three ways: its page number, and the cursors of its two neighbours. */
const DEEP_PAGE = 1001;
const deep = (name: string, path: Kind['path'], query: string): Kind[] => {
  const q = `${query ? `${query}&` : ''}page=${DEEP_PAGE}`;
  return [
    { name: `deep ${name}: page ${DEEP_PAGE} by OFFSET`, path, query: q },
    { name: `deep ${name}: by next_cursor`, path, query: q, cursor: 'next' },
    { name: `deep ${name}: by prev_cursor`, path, query: q, cursor: 'prev' },
  ];
};

const bigJob = 1 + Math.floor(200_000 / PAGES_PER_JOB);
const KINDS: Kind[] = [
  ['plain, page 1', ''],
  ['page 500 (offset 24,950)', 'page=500'],
  ['sort_by=quality_score', 'sort_by=quality_score'],
  ['sort_by=word_count asc', 'sort_by=word_count&order=asc'],
  ['theme=technology', 'theme=technology'],
  ['min_quality=0.5', 'min_quality=0.5'],
  ['min_quality=0.97', 'min_quality=0.97'],
  ['theme=science, min_quality=0.5', 'theme=science&min_quality=0.5'],
  ['theme=philosophy, min_quality=0.73', 'theme=philosophy&min_quality=0.73'],
  ['theme=science, sort_by=quality_score', 'theme=science&sort_by=quality_score'],
  ['job_id=<5k rows>', `job_id=${bigJob}`],
  ['job_id, sort_by=quality_score', `job_id=${bigJob}&sort_by=quality_score`],
  ['job_id, theme=technology', `job_id=${bigJob}&theme=technology`],
  ['source_url=<feed, ~50k rows>', `source_url=${encodeURIComponent(feedUrl(10))}`],
  [
    'source_url, sort_by=quality_score',
    `source_url=${encodeURIComponent(feedUrl(10))}&sort_by=quality_score`,
  ],
  [
    'source_url=<article>',
    `source_url=${encodeURIComponent('https://bench.example/articles/777')}`,
  ],
  ['search, common word "local"', 'search=local'],
  ['search "local", by relevance', 'search=local&sort_by=relevance'],
  ['search "local", browser filter (all words)', 'search=local&match=all'],
  [
    'search, a question',
    `search=${encodeURIComponent('how do local councils plan railway stations?')}`,
  ],
  ['search, rare word "garbage"', 'search=garbage'],
  ['search "local", theme=technology', 'search=local&theme=technology'],
  ['search "garbage", theme=science', 'search=garbage&theme=science'],
  ['search "local", sort_by=quality_score', 'search=local&sort_by=quality_score'],
  ['search "local", min_quality=0.5', 'search=local&min_quality=0.5'],
].map(([name, query]) => ({ name: name!, path: '/snippets' as const, query: query! }));
KINDS.push(
  ...deep('plain', '/snippets', ''),
  ...deep('sort_by=quality_score', '/snippets', 'sort_by=quality_score'),
  ...deep('sort_by=word_count asc (ties)', '/snippets', 'sort_by=word_count&order=asc'),
  ...deep('theme=science', '/snippets', 'theme=science'),
  ...deep(
    'theme=science, sort_by=quality_score',
    '/snippets',
    'theme=science&sort_by=quality_score',
  ),
  ...deep('search "local"', '/snippets', 'search=local'),
  ...deep('index entries', '/admin/index/entries', ''),
  { name: 'index entries, page 1', path: '/admin/index/entries', query: '' },
  { name: 'index entries, theme=general', path: '/admin/index/entries', query: 'theme=general' },
  { name: 'index entries, search "local"', path: '/admin/index/entries', query: 'search=local' },
);

const only = process.env.LIST_BENCH_KINDS;
const RUN = only ? KINDS.filter((k) => k.name.includes(only)) : KINDS;

/** The filter the service builds from a query string (index entries: indexed rows only). */
function filterOf(kind: Kind, cursor?: string) {
  const q = SnippetListQuery.parse({
    ...Object.fromEntries(new URLSearchParams(kind.query)),
    cursor,
  });
  const f: SnippetFilter = {
    theme: q.theme,
    min_quality: q.min_quality,
    job_id: q.job_id,
    source_url: q.source_url || undefined,
    indexed_only: kind.path === '/admin/index/entries' || undefined,
    match: q.search ? (ftsMatch(q.search, q.match) ?? undefined) : undefined,
  };
  return { f, q };
}

/** The listing as this version's predecessor ran it: rows with OFFSET, then COUNT(*) of all. */
function oldQuery(adam: Adam, kind: Kind): void {
  const { f, q } = filterOf(kind);
  const parts: string[] = [];
  const params: unknown[] = [];
  const add = (sql: string, ...values: unknown[]) => {
    parts.push(sql);
    params.push(...values);
  };
  if (f.theme) add('s.theme = ?', f.theme);
  if (f.min_quality !== undefined) add('s.quality_score >= ?', f.min_quality);
  if (f.job_id !== undefined) add('s.job_id = ?', f.job_id);
  if (f.source_url) add('s.source_url = ?', f.source_url);
  if (f.indexed_only) add('s.index_pending = 0');
  if (f.match) add('snippets_fts MATCH ?', f.match);
  const from = f.match ? 'snippets s JOIN snippets_fts ON snippets_fts.rowid = s.id' : 'snippets s';
  const where = parts.length ? `WHERE ${parts.join(' AND ')}` : '';
  const dir = q.order === 'asc' ? 'ASC' : 'DESC';
  const sort = kind.path === '/snippets' ? listSort(q) : 'created_at';
  const order =
    sort !== 'relevance'
      ? `s.${sort} ${dir}, s.id ${dir}`
      : f.match
        ? 'bm25(snippets_fts), s.id DESC'
        : `s.id ${dir}`;
  adam.db
    .prepare(`SELECT s.* FROM ${from} ${where} ORDER BY ${order} LIMIT ? OFFSET ?`)
    .all(...params, q.per_page, (q.page - 1) * q.per_page);
  adam.db
    .prepare(`SELECT COUNT(*) FROM ${from} ${where}`)
    .pluck()
    .get(...params);
}

await sharedModel();
prepareData();
// The rows have no vectors: start-up reconciliation would embed all of them.
LiveIndex.prototype.reconcile = () =>
  Promise.resolve({
    total_disk: 0,
    total_index: 0,
    marked_pending: 0,
    reindexed: 0,
    index_only: 0,
  });

let adam: Adam | null = null;
try {
  adam = await buildApp(
    loadConfig({ ADAM_DATA_DIR: DATA_DIR, ADAM_WEB_DIST: '', ADAM_LOG_LEVEL: 'warn' }),
  );
  await adam.reconciled;
  await adam.app.listen({ port: 0, host: '127.0.0.1' });
  const addr = adam.app.server.address();
  if (!addr || typeof addr === 'string') throw new Error('no address');
  const base = `http://127.0.0.1:${addr.port}/api/v1`;
  // Relevance listings answer from the keyword engine once it has loaded or built.
  const keyword = adam.services.keyword;
  const building = performance.now();
  while (!keyword.ready) await new Promise((r) => setTimeout(r, 200));
  console.log(`keyword engine ready after ${seconds(performance.now() - building)}`);
  const dbBytes = ['adam.db', 'adam.db-wal']
    .map((f) => fs.statSync(path.join(DATA_DIR, f), { throwIfNoEntry: false })?.size ?? 0)
    .reduce((a, b) => a + b, 0);
  console.log(`database ${mib(dbBytes)}`);

  const login = await fetch(`${base}/auth/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ email: 'admin@example.com', password: 'admin' }),
  });
  const { api_key: key } = (await login.json()) as { api_key: string };
  if (login.status !== 200 || !key) throw new Error(`login failed: ${login.status}`);

  const call = async (kind: Kind, query: string) => {
    const res = await fetch(`${base}${kind.path}${query ? `?${query}` : ''}`, {
      headers: { 'x-api-key': key },
    });
    const body = await res.text();
    if (res.status !== 200) throw new Error(`GET ${kind.path}?${query}: ${res.status} ${body}`);
    return JSON.parse(body) as {
      total: number;
      total_exact: boolean;
      snippets: { id: number }[];
      next_cursor: string | null;
      prev_cursor: string | null;
    };
  };
  /**
   * The query a kind sends: its own, or for a cursor kind the neighbouring page's cursor in
   * place of the page number (checked to lead to the same rows as the number).
   */
  const requestOf = async (kind: Kind): Promise<{ query: string; cursor?: string }> => {
    if (!kind.cursor) return { query: kind.query };
    const params = new URLSearchParams(kind.query);
    const page = Number(params.get('page'));
    params.set('page', String(kind.cursor === 'next' ? page - 1 : page + 1));
    const from = await call(kind, params.toString());
    const cursor = kind.cursor === 'next' ? from.next_cursor : from.prev_cursor;
    if (!cursor) throw new Error(`${kind.name}: no ${kind.cursor}_cursor`);
    params.delete('page');
    params.set('cursor', cursor);
    const query = params.toString();
    const [byCursor, byNumber] = [await call(kind, query), await call(kind, kind.query)];
    const ids = (l: { snippets: { id: number }[] }) => l.snippets.map((r) => r.id).join();
    if (ids(byCursor) !== ids(byNumber)) throw new Error(`${kind.name}: not the page's rows`);
    return { query, cursor };
  };
  const get = async (kind: Kind, query: string) => {
    const list = await call(kind, query);
    return { total: list.total, exact: list.total_exact, count: list.snippets.length };
  };

  const repo = new SnippetRepository(adam.db);
  const timed = async (fn: () => unknown, n: number) => {
    const samples: number[] = [];
    const started = performance.now();
    while (samples.length < n && performance.now() - started < KIND_BUDGET_MS) {
      const t = performance.now();
      await fn();
      samples.push(performance.now() - t);
    }
    return summarize(samples);
  };

  const out: (string | number)[][] = [];
  for (const kind of RUN) {
    const request = await requestOf(kind);
    let last = { total: 0, exact: true, count: 0 };
    for (let i = 0; i < WARMUP; i++) last = await get(kind, request.query);
    const http = await timed(() => get(kind, request.query), REQUESTS);
    const { f, q } = filterOf(kind, request.cursor);
    const sort = kind.path === '/snippets' ? listSort(q) : 'created_at';
    const order = kind.path === '/snippets' ? q.order : 'desc';
    const at = q.cursor?.at;
    const position: SnippetPosition =
      at && at.way !== 'offset'
        ? ({ [at.way]: { value: at.value, id: at.id } } as SnippetPosition)
        : (q.page - 1) * q.per_page;
    const sql = await timed(() => repo.listPage(f, sort, order, q.per_page, position), REQUESTS);
    const old = await timed(() => oldQuery(adam!, kind), OLD_SAMPLES);
    out.push([
      kind.name,
      fixed(http.p50, 2),
      fixed(http.p95, 2),
      fixed(sql.p50, 2),
      fixed(sql.p95, 2),
      fixed(old.p50, 0),
      `${last.exact ? '' : '≈ '}${last.total.toLocaleString('en')}`,
      last.count,
    ]);
    // Progress, for a run that is stopped before its table.
    console.log(`  ${out[out.length - 1]!.join(' | ')}`);
    if (sort === 'relevance') {
      // The same listing with the engine paused: FTS5 answers, as before the engine.
      await keyword.pause();
      try {
        for (let i = 0; i < WARMUP; i++) last = await get(kind, request.query);
        const fts = await timed(() => get(kind, request.query), REQUESTS);
        out.push([
          `${kind.name} (FTS5)`,
          fixed(fts.p50, 2),
          fixed(fts.p95, 2),
          '',
          '',
          '',
          `${last.exact ? '' : '≈ '}${last.total.toLocaleString('en')}`,
          last.count,
        ]);
        console.log(`  ${out[out.length - 1]!.join(' | ')}`);
      } finally {
        await keyword.resume(false);
      }
    }
  }

  console.log(
    `\nper_page 50; ${WARMUP} warm-up requests then up to ${REQUESTS} per kind; ` +
      `"SQL" = SnippetRepository.listPage in-process (reference); "before" = the previous query, ${OLD_SAMPLES} samples; ` +
      `a deep page "by next_cursor"/"by prev_cursor" is page ${DEEP_PAGE} read by its neighbour's cursor (a keyset seek), its "before" the OFFSET query`,
  );
  table(
    [
      'listing',
      'HTTP p50 ms',
      'HTTP p95 ms',
      'SQL p50 ms',
      'SQL p95 ms',
      'before p50 ms',
      'total',
      'rows',
    ],
    out,
  );
} finally {
  await adam?.app.close();
}
console.log();
footer(benchStarted);
