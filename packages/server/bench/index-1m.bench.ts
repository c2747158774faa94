/**
 * The vector index at 1,000,000 × 384 built-in vectors (not a test: prints figures, asserts
 * nothing).
 *
 *   npm run bench -w @adam/server -- index-1m
 *
 * Data: bench/data-1m.ts (1M real snippets, their vectors and the saved index, built once under
 * /tmp and reused). Then, each figure next to its reference from the same run:
 * 1. Start-up: the real app on that data dir, from buildApp to the first /health answer, to the
 *    index loaded on its thread, and to the end of start-up reconciliation; reference: opening the
 *    SQLite file and reading the index's keys file alone.
 * 2. A save of the 1M index on the index's thread, and the longest the event loop went without
 *    a turn meanwhile (a 5 ms timer's worst lateness); reference: the same timer with nothing
 *    running.
 * 3. Search over HTTP in each mode (hybrid, vector, keyword) on short queries, p50 and p95, once
 *    the keyword engine answers (its load or build from the store is timed in step 1);
 *    references: the index's search alone, the keyword engine's top 50 alone and the FTS5 bm25
 *    query it replaced, in process.
 * 4. HNSW settings: the saved graph (connectivity and expansion_add as built) mapped (view) with
 *    each expansion_search, its pages mapped by the walks a server's columns fill makes;
 *    recall@10 against exact search (usearch.exactSearch over all 1M) on 1,000 queries (on the
 *    first 200 alone ef 152 read 0.951, on all 1,000 0.947: fewer do not decide 0.95), and
 *    single-thread queries/s over the same 1,000; reference: the exact scan's own queries/s on
 *    one thread (also per CPU second: the machine is shared). Queries are sentences of fixture
 *    pages past the ones in the data.
 */
import Database from 'better-sqlite3';
import fs from 'node:fs';
import path from 'node:path';
import usearch from 'usearch';
import { buildApp } from '../src/app.js';
import { loadConfig } from '../src/config.js';
import { ftsMatch } from '../src/services/hybrid-search.js';
import { SnippetRepository } from '../src/store/snippet.repository.js';
import { EXPANSION_SEARCH, HNSW, indexConfig, VectorIndex } from '../src/vector/vector-index.js';
import {
  fixed,
  footer,
  header,
  pageSentences,
  rng,
  seconds,
  serverWarm,
  summarize,
  table,
} from './common.js';
import { ensureMillion, exactNeighbours, unseenQueries } from './data-1m.js';
import { indexFileName } from '../src/vector/index-files.js';

/** `n` short queries: the first 3–8 words of a sentence of fixture pages from `firstPage` on. */
function searchQueries(firstPage: number, n: number): string[] {
  const rand = rng(7);
  const out: string[] = [];
  for (let page = firstPage; out.length < n; page++) {
    const { sentences } = pageSentences(page);
    const s = sentences[Math.floor(rand() * sentences.length)];
    if (!s) continue;
    const words = s
      .replace(/[^\p{L}\p{N}\s'-]/gu, ' ')
      .split(/\s+/)
      .filter(Boolean);
    out.push(words.slice(0, 3 + Math.floor(rand() * 6)).join(' '));
  }
  return out;
}

type Matches = InstanceType<typeof usearch.Matches>;

const ROWS = Number(process.argv[2]) || undefined;
const K = 10;
const QUERIES = 1_000;
const RECALL_QUERIES = 1_000;
const EXACT_TIMED = 10;
const SEARCH_QUERIES = 300;
const SEARCH_WARMUP = 30;
const EXPANSIONS = [64, 96, 128, 160, 176, 192, 256];

header('index-1m: the vector index at 1M × 384');
const benchStarted = performance.now();
const data = await ensureMillion(ROWS ? { rows: ROWS } : {});
const dim = data.dimension;
console.log(`data: ${data.rows.toLocaleString('en')} snippets in ${data.dir}`);

// 1. Start-up.
{
  let t = performance.now();
  const db = new Database(path.join(data.dir, 'adam.db'), { readonly: true });
  db.prepare('SELECT COUNT(*) FROM snippets WHERE id = 1').get();
  db.close();
  const saved = VectorIndex.readSaved(data.indexDir);
  const refMs = performance.now() - t;
  if (!saved) throw new Error('no saved index');

  t = performance.now();
  const adam = await buildApp(
    loadConfig({ ADAM_DATA_DIR: data.dir, ADAM_WEB_DIST: '', ADAM_LOG_LEVEL: 'warn' }),
  );
  await adam.app.listen({ port: 0, host: '127.0.0.1' });
  const addr = adam.app.server.address();
  if (!addr || typeof addr === 'string') throw new Error('no address');
  const res = await fetch(`http://127.0.0.1:${addr.port}/api/v1/health`);
  const healthMs = performance.now() - t;
  if (res.status !== 200) throw new Error(`/health: ${res.status}`);
  await adam.services.index.ready;
  const loadedMs = performance.now() - t;
  const report = await adam.reconciled;
  const reconciledMs = performance.now() - t;
  // The keyword engine loads its file or builds from the store on its thread (FTS5 answers
  // meanwhile): searches are timed once it answers.
  const keyword = adam.services.keyword;
  while (!keyword.ready) {
    if (keyword.health().status === 'degraded') throw new Error('keyword engine failed');
    await new Promise((r) => setTimeout(r, 200));
  }
  const keywordReadyMs = performance.now() - t;

  // 2. A save of the whole index, on the index's thread, while a timer measures the loop.
  const lateness = async (during: Promise<unknown>): Promise<number> => {
    let worst = 0;
    let last = performance.now();
    const timer = setInterval(() => {
      const now = performance.now();
      worst = Math.max(worst, now - last - 5);
      last = now;
    }, 5);
    await during;
    clearInterval(timer);
    return worst;
  };
  const idle = await lateness(new Promise((r) => setTimeout(r, 2_000)));
  // One vector re-added (same key, same vector): the index is dirty and the save is a full one.
  const v = data.readVectors().slice(0, dim);
  adam.services.index.addDeferred([{ key: 1, vector: v }]);
  t = performance.now();
  const worst = await lateness(adam.services.index.flush());
  const saveMs = performance.now() - t;

  // 3. Search over HTTP in each mode, on short queries none of the rows was cut from, once the
  // index's columns are filled (a sparse query is answered by their scan, the graph before).
  await serverWarm(adam);
  const addr2 = adam.app.server.address();
  if (!addr2 || typeof addr2 === 'string') throw new Error('no address');
  const base = `http://127.0.0.1:${addr2.port}/api/v1`;
  const login = await fetch(`${base}/auth/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ email: 'admin@example.com', password: 'admin' }),
  });
  const { api_key: apiKey } = (await login.json()) as { api_key: string };
  const questions = searchQueries(data.lastPage + 5_000, SEARCH_QUERIES + SEARCH_WARMUP);
  const searchOnce = async (query: string, mode: string) => {
    const r = await fetch(`${base}/snippets/search`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': apiKey },
      body: JSON.stringify({ query, k: 10, mode }),
    });
    if (r.status !== 200) throw new Error(`search: ${r.status} ${await r.text()}`);
    return (await r.json()) as { results: unknown[] };
  };
  const searchRows: (string | number)[][] = [];
  const repo = new SnippetRepository(adam.db);
  for (const mode of ['hybrid', 'vector', 'keyword']) {
    // Each mode its own queries: the index's query cache never answers.
    const offset = mode === 'hybrid' ? 0 : mode === 'vector' ? 1 : 2;
    const mine = questions.filter((_, i) => i % 3 === offset);
    for (const q of mine.slice(0, SEARCH_WARMUP / 3)) await searchOnce(q, mode);
    const samples: number[] = [];
    let found = 0;
    for (const q of mine.slice(SEARCH_WARMUP / 3)) {
      const t0 = performance.now();
      found += (await searchOnce(q, mode)).results.length;
      samples.push(performance.now() - t0);
    }
    const http = summarize(samples);
    searchRows.push([
      `POST /snippets/search, mode ${mode}`,
      fixed(http.p50, 1),
      fixed(http.p95, 1),
      fixed(found / samples.length, 1),
    ]);
  }
  // References, in process: the index's search alone (embedded query, one thread) and the
  // keyword side's FTS5 query alone (bm25 top 50 of the OR of the words).
  {
    const refQueries = questions.slice(0, SEARCH_QUERIES);
    const vecs = await adam.services.engine.embed(refQueries);
    const idx: number[] = [];
    for (const [i, v] of vecs.entries()) {
      const t0 = performance.now();
      await adam.services.index.search(v, 10, `bench-reference-${i}`);
      idx.push(performance.now() - t0);
    }
    const fts: number[] = [];
    const engine: number[] = [];
    for (const q of refQueries) {
      const match = ftsMatch(q, 'any');
      if (!match) continue;
      let t0 = performance.now();
      repo.keywordSearch(match, 50, {});
      fts.push(performance.now() - t0);
      t0 = performance.now();
      await keyword.keywordSearch(match, 50, {});
      engine.push(performance.now() - t0);
    }
    const a = summarize(idx);
    const b = summarize(fts);
    const e = summarize(engine);
    searchRows.push([
      'reference: index search alone (query embedded)',
      fixed(a.p50, 1),
      fixed(a.p95, 1),
      '10.0',
    ]);
    searchRows.push([
      'keyword engine top 50 alone (its thread, from the main thread)',
      fixed(e.p50, 1),
      fixed(e.p95, 1),
      '',
    ]);
    searchRows.push([
      'reference: FTS5 bm25 top 50 alone (SQL)',
      fixed(b.p50, 1),
      fixed(b.p95, 1),
      '',
    ]);
  }
  await adam.app.close();

  console.log(`\nstart-up at ${data.rows.toLocaleString('en')} snippets (real app, saved index):`);
  table(
    ['step', 'ms', 'reference'],
    [
      [
        'buildApp → listening → first /health 200',
        fixed(healthMs, 0),
        `open SQLite + read keys file alone: ${fixed(refMs, 0)} ms`,
      ],
      ['… → index loaded on its thread', fixed(loadedMs, 0), ''],
      [
        '… → start-up reconciliation done',
        fixed(reconciledMs, 0),
        `reindexed ${report?.reindexed ?? '?'}, marked pending ${report?.marked_pending ?? '?'}`,
      ],
      [
        '… → keyword engine answering (file loaded, or built from the store)',
        fixed(keywordReadyMs, 0),
        `${keyword.health().details?.state ?? ''}`,
      ],
    ],
  );
  console.log(
    `\nsearch at ${data.rows.toLocaleString('en')} snippets: ${SEARCH_QUERIES / 3} queries per mode of 3–8 words (the start of a sentence of an unseen fixture page), k=10, one at a time:`,
  );
  table(['call', 'p50 ms', 'p95 ms', 'results per query'], searchRows);
  console.log(
    `\nsave of the ${data.rows.toLocaleString('en')}-vector index (on the index's thread):`,
  );
  table(
    ['figure', 'ms'],
    [
      ['save (flush: save, then mark rows)', fixed(saveMs, 0)],
      ['event loop: worst timer lateness during the save', fixed(worst, 1)],
      ['event loop: worst timer lateness, idle (reference)', fixed(idle, 1)],
    ],
  );
}

// 3. HNSW settings against exact search.
const vectors = data.readVectors();
const queryVectors = await unseenQueries(data, QUERIES);
let t = performance.now();
// The index's keys are snippet ids: row + 1.
const truth = exactNeighbours(vectors, queryVectors, RECALL_QUERIES, dim, K).map(
  (rows) => new Set([...rows].map((row) => row + 1)),
);
const exactAllMs = performance.now() - t;
t = performance.now();
for (let i = 0; i < EXACT_TIMED; i++) {
  usearch.exactSearch(vectors, queryVectors[i]!, dim, K, usearch.MetricKind.Cos, 1) as Matches;
}
const exactQps = EXACT_TIMED / ((performance.now() - t) / 1000);
// On a shared machine the wall-clock rate moves with the neighbours' load; the rate per CPU
// second of this process (one thread searching) much less.
console.log(
  `\nexact search: ${RECALL_QUERIES} queries in ${seconds(exactAllMs)} (all threads) for the truth; ` +
    `one thread: ${fixed(exactQps, 1)} queries/s`,
);

const saved = VectorIndex.readSaved(data.indexDir)!;
const indexFile = path.join(data.indexDir, indexFileName(saved.manifest.generation, 'usearch'));
const storage = saved.manifest.quantization ?? 'f32';
const rows: (string | number)[][] = [];
for (const ef of EXPANSIONS) {
  const index = new usearch.Index(indexConfig(dim, storage, { expansionSearch: ef }));
  t = performance.now();
  index.view(indexFile);
  const loadMs = performance.now() - t;
  // The server's columns fill walks the graph once every 1,024 rows while it maps the file
  // (index-worker.ts): the same walks here, so the queries below find its pages mapped as a
  // server's searches do once its columns are filled.
  t = performance.now();
  for (let row = 0; row < data.rows; row += 1024)
    index.search(vectors.subarray(row * dim, (row + 1) * dim), 1, 1);
  const walksMs = performance.now() - t;
  for (let i = 0; i < 100; i++) index.search(queryVectors[i]!, K, 1);
  const cpu = process.cpuUsage();
  t = performance.now();
  for (const q of queryVectors) index.search(q, K, 1);
  const qps = QUERIES / ((performance.now() - t) / 1000);
  const used = process.cpuUsage(cpu);
  const cpuQps = QUERIES / ((used.user + used.system) / 1e6);
  let found = 0;
  for (let i = 0; i < RECALL_QUERIES; i++) {
    const m = index.search(queryVectors[i]!, K, 1) as Matches;
    for (const key of m.keys) if (truth[i]!.has(Number(key))) found++;
  }
  rows.push([
    `M=${HNSW.connectivity}, add=${HNSW.expansion_add}, search=${ef}${ef === EXPANSION_SEARCH[storage] ? ' (default)' : ''}`,
    fixed(found / (RECALL_QUERIES * K), 4),
    fixed(qps, 0),
    fixed(cpuQps, 0),
    fixed(exactQps, 1),
    fixed(loadMs, 0),
    fixed(walksMs, 0),
  ]);
}
console.log(
  `\nHNSW ${storage} (as saved), recall@${K} vs exact on ${RECALL_QUERIES} queries; queries/s on one thread over ${QUERIES}:`,
);
table(
  [
    'settings',
    'recall@10',
    'queries/s',
    'queries per CPU s',
    'exact scan queries/s',
    'open (view) ms',
    "the fill's walks ms",
  ],
  rows,
);
console.log(`files: ${(fs.statSync(indexFile).size / 1024 ** 2).toFixed(0)} MiB index`);
console.log();
footer(benchStarted);
