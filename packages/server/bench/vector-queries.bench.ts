/**
 * Vector search for the queries people type (not a test: prints figures, asserts nothing).
 *
 *   npx tsx --conditions=adam-source bench/vector-queries.bench.ts [rows] [dir] [grid|refine|main|mapping]   (default 1M)
 *
 * `dir`: a copy of the data dir to run on (the app writes to the one it opens).
 *
 * Data: bench/data-1m.ts (real snippets, their vectors, the saved index; built once under /tmp).
 * The real app is started on that directory. Five kinds of query, none cut from a row (fixture
 * pages past the data's): one rare word, two common words, three words, a 10–14-word question,
 * a whole sentence. For each, recall@10 against the exact scan over every stored vector
 * (usearch.exactSearch, same run), and queries/s on one thread:
 * - old path: the index's search alone (k 10, the query vector given: the graph, and for an i8
 *   graph the exact rerank of its top 20 from the stored vectors);
 * - new path: SnippetService.search mode vector in process (the query embedded there; short
 *   queries also ask the keyword engine and rerank by exact cosine);
 * then POST /snippets/search mode vector over HTTP (other queries of the same kind: the query
 * cache never answers) beside the same search in process, the index's own search for the same
 * query (embedded beforehand) and GET /health (an HTTP call that does nothing), each p50.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { IndexStorage } from '@adam/contracts';
import usearch from 'usearch';
import { buildApp } from '../src/app.js';
import { ftsMatch, queryWords } from '../src/services/hybrid-search.js';
import { loadConfig } from '../src/config.js';
import {
  benchLogin,
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
import { ensureMillion } from './data-1m.js';
import { indexFileName } from '../src/vector/index-files.js';
import { SavedVectorReader } from '../src/vector/saved-vectors.js';
import { isSparseQuery, VectorColumns } from '../src/vector/vector-columns.js';
import { indexConfig } from '../src/vector/vector-index.js';

const ROWS = Number(process.argv[2]) || undefined;
const DIR = process.argv[3] || undefined;
/** `grid` as the third argument: only the short path's candidate table. */
const GRID_ONLY = process.argv[4] === 'grid' || process.argv[4] === 'refine';
/** `refine`: only the second graph search from the first answer's centroid (below). */
const REFINE_ONLY = process.argv[4] === 'refine';
/** `main`: only the first two tables (recall and q/s, HTTP). */
const MAIN_ONLY = process.argv[4] === 'main';
/** `mapping`: only the tables of the index thread's own work (columns, the mapped file). */
const MAPPING_ONLY = process.argv[4] === 'mapping';
const K = 10;
/** Queries of each kind for recall and queries/s, and others for HTTP. */
const PER_KIND = 100;
const HTTP_PER_KIND = 40;

const benchStarted = performance.now();
header('vector-queries: vector search for the queries people type');
const data = await ensureMillion({ ...(ROWS && { rows: ROWS }), ...(DIR && { dir: DIR }) });
console.log(`data: ${data.rows.toLocaleString('en')} snippets in ${data.dir}`);

const STOP = new Set(
  `a an and are as at be been but by can could did do does for from had has have how i if in into is it its
  me my no not of on or our so such than that the their them then there these they this to too was we were
  what when where which while who whom why will with would you your also more most some any each other`.split(
    /\s+/,
  ),
);
const wordsOf = (s: string) =>
  s
    .replace(/[^\p{L}\p{N}\s'-]/gu, ' ')
    .split(/\s+/)
    .filter(Boolean);

// Word frequencies over the data's own pages (a sample): what is rare and what is common.
const freq = new Map<string, number>();
for (let page = 1; page <= Math.min(data.lastPage, 1_000); page++)
  for (const s of pageSentences(page).sentences)
    for (const w of new Set(wordsOf(s.toLowerCase()))) freq.set(w, (freq.get(w) ?? 0) + 1);
const isContent = (w: string) => w.length > 2 && !STOP.has(w) && !/\d/.test(w);
const commonWords = new Set(
  [...freq.entries()]
    .filter(([w]) => isContent(w))
    .sort((a, b) => b[1] - a[1])
    .slice(0, 400)
    .map(([w]) => w),
);
/** Rare: in 1–20 of the data's snippets by the keyword engine's count (rareWords, below). */
const rareWords = new Set<string>();
const isRare = (w: string) => rareWords.has(w);

type Kind = 'one rare word' | 'two common words' | 'three words' | 'question' | 'sentence';
const KINDS: Kind[] = ['one rare word', 'two common words', 'three words', 'question', 'sentence'];

/** Queries of each kind from the sentences of pages past the data's. */
function queries(n: number, firstPage: number): Record<Kind, string[]> {
  const rand = rng(31);
  const out = Object.fromEntries(KINDS.map((k) => [k, [] as string[]])) as Record<Kind, string[]>;
  const pick = <T>(xs: T[]) => xs[Math.floor(rand() * xs.length)]!;
  // Bounded: a kind the pages rarely give (long sentences) ends with fewer queries.
  for (
    let page = firstPage;
    page < firstPage + 5_000 && KINDS.some((k) => out[k].length < n);
    page++
  ) {
    for (const s of pageSentences(page).sentences) {
      const words = wordsOf(s);
      const lower = words.map((w) => w.toLowerCase());
      const rare = lower.filter(isRare);
      const common = [...new Set(lower.filter((w) => commonWords.has(w)))];
      const content = [...new Set(lower.filter(isContent))];
      if (rare.length && out['one rare word'].length < n) out['one rare word'].push(pick(rare));
      else if (common.length >= 2 && out['two common words'].length < n) {
        const a = pick(common);
        const b = pick(common.filter((w) => w !== a));
        out['two common words'].push(`${a} ${b}`);
      } else if (content.length >= 3 && out['three words'].length < n) {
        const start = Math.floor(rand() * (content.length - 2));
        out['three words'].push(content.slice(start, start + 3).join(' '));
      } else if (words.length >= 12 && out.question.length < n) {
        const lead = pick(['What', 'How', 'Why', 'When']);
        const len = 9 + Math.floor(rand() * 4);
        out.question.push(`${lead} ${lower.slice(0, len).join(' ')}?`);
      } else if (words.length >= 16 && out.sentence.length < n) out.sentence.push(s);
    }
  }
  return out;
}

const adam = await buildApp(
  loadConfig({ ADAM_DATA_DIR: data.dir, ADAM_WEB_DIST: '', ADAM_LOG_LEVEL: 'warn' }),
);
await adam.app.listen({ port: 0, host: '127.0.0.1' });
await adam.services.index.ready;
await adam.reconciled;
const keyword = adam.services.keyword;
// Sparse queries are answered by the index's columns once they are filled (~6 s after a load at
// 1M): before, one rare word read 0.530 where the filled columns give 1.000.
await serverWarm(adam);
const { base, key: apiKey } = await benchLogin(adam);

console.log(
  `server up, keyword engine ready, index columns filled, ${seconds(performance.now() - benchStarted)}`,
);
// The fixture's vocabulary is small: its words are common or absent, so a rare word is found by
// asking the keyword engine how many snippets hold each word of the query pages (names, numbers).
{
  const seen = new Set<string>();
  for (let page = data.lastPage + 20_000; page < data.lastPage + 20_400; page++)
    for (const s of pageSentences(page).sentences)
      for (const w of wordsOf(s.toLowerCase()))
        if (w.length >= 4 && !STOP.has(w) && !commonWords.has(w)) seen.add(w);
  // How many snippets hold each word (up to 201); at 1M no word of the query pages is in 20 or
  // fewer, so then the 100 rarest stand for "rare".
  const counts = new Map<string, number>();
  for (const w of seen) {
    const match = ftsMatch(w, 'any');
    if (!match) continue;
    const n = (await keyword.keywordSearch(match, 201, {})).length;
    if (n >= 1) counts.set(w, n);
    if (n >= 1 && n <= 20) rareWords.add(w);
  }
  if (rareWords.size < 20)
    for (const [w] of [...counts]
      .sort((a, b) => a[1] - b[1] || (a[0] < b[0] ? -1 : 1))
      .slice(0, 100))
      rareWords.add(w);
  // Words of letters when there are enough of them: a number is a rarer thing to type.
  const letters = [...rareWords].filter((w) => /^\p{L}+$/u.test(w));
  if (letters.length >= 20)
    for (const w of rareWords) if (!letters.includes(w)) rareWords.delete(w);
  console.log(
    `rare words (1–20 snippets hold them, else the 100 rarest): ${rareWords.size} of ${seen.size} tried, in at most ${Math.max(...[...rareWords].map((w) => counts.get(w) ?? 0))} snippets`,
  );
}
const vectors = data.readVectors();
const dim = data.dimension;
const all = queries(PER_KIND + HTTP_PER_KIND, data.lastPage + 20_000);
console.log(KINDS.map((k) => `${k}: ${all[k].length}`).join(', '));
const rows: (string | number)[][] = [];
const httpRows: (string | number)[][] = [];
const engine = adam.services.engine;
const service = adam.services.snippets;
// Warm-up: embedder, keyword engine, index thread.
for (const q of all.sentence.slice(-5))
  await service.search({ query: `${q} warm`, k: K, mode: 'vector' });

for (const kind of GRID_ONLY || MAPPING_ONLY ? [] : KINDS) {
  const qs = all[kind].slice(0, PER_KIND);
  if (qs.length === 0) continue;
  const vecs = await engine.embed(qs);
  const flat = new Float32Array(qs.length * dim);
  vecs.forEach((v, i) => flat.set(v, i * dim));
  const exact = usearch.exactSearch(
    vectors,
    flat,
    dim,
    K,
    usearch.MetricKind.Cos,
    0,
  ) as InstanceType<typeof usearch.BatchMatches>;
  // Row r of vectors.f32 is snippet id r + 1.
  const truth = qs.map((_, i) => new Set(Array.from(exact.get(i).keys, (r) => Number(r) + 1)));
  const recall = (i: number, ids: number[]) => ids.filter((id) => truth[i]!.has(id)).length / K;

  let oldRecall = 0;
  let t = performance.now();
  for (const [i, v] of vecs.entries()) {
    const { hits } = await adam.services.index.search(v, K, `bench-old-${kind}-${i}`);
    oldRecall += recall(
      i,
      hits.map((h) => h.key),
    );
  }
  const oldQps = qs.length / ((performance.now() - t) / 1000);

  let newRecall = 0;
  const inProcess: number[] = [];
  t = performance.now();
  for (const [i, q] of qs.entries()) {
    const t0 = performance.now();
    const r = await service.search({ query: q, k: K, mode: 'vector' });
    inProcess.push(performance.now() - t0);
    newRecall += recall(
      i,
      r.results.map((x) => x.snippet_id),
    );
  }
  const newQps = qs.length / ((performance.now() - t) / 1000);
  const words = qs.map((q) => wordsOf(q).length);
  rows.push([
    kind,
    `${Math.min(...words)}–${Math.max(...words)}`,
    fixed(oldRecall / qs.length, 3),
    fixed(newRecall / qs.length, 3),
    fixed(oldQps, 0),
    fixed(newQps, 0),
  ]);

  const http: number[] = [];
  const own: number[] = [];
  const health: number[] = [];
  const indexAlone: number[] = [];
  for (const [i, q] of all[kind].slice(PER_KIND).entries()) {
    // The same run's floors: an HTTP call that does nothing (/health), and the index's own
    // search for this query (its thread hop included), the query embedded beforehand.
    let t0 = performance.now();
    await (await fetch(`${base}/health`)).text();
    health.push(performance.now() - t0);
    const [v] = await engine.embed([q]);
    t0 = performance.now();
    await adam.services.index.search(v!, K, `bench-http-${kind}-${i}`);
    indexAlone.push(performance.now() - t0);
    t0 = performance.now();
    const r = await fetch(`${base}/snippets/search`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': apiKey },
      body: JSON.stringify({ query: q, k: K, mode: 'vector' }),
    });
    http.push(performance.now() - t0);
    if (r.status !== 200) throw new Error(`search: ${r.status} ${await r.text()}`);
    own.push(((await r.json()) as { latency_ms: number }).latency_ms);
  }
  const h = summarize(http);
  const o = summarize(own);
  const p = summarize(inProcess);
  const x = summarize(indexAlone);
  const hh = summarize(health);
  httpRows.push([
    kind,
    fixed(h.p50, 1),
    fixed(h.p95, 1),
    fixed(o.p50, 1),
    fixed(p.p50, 1),
    fixed(x.p50, 2),
    fixed(hh.p50, 2),
    fixed(h.p50 - x.p50, 2),
    fixed(h.p50 - hh.p50 - x.p50, 2),
  ]);
}

if (rows.length > 0) {
  console.log(
    `\nrecall@${K} vs the exact scan over all ${data.rows.toLocaleString('en')} vectors, ${PER_KIND} queries a kind; queries/s on one thread:`,
  );
  table(
    ['queries', 'words', 'old: index.search', 'new: search()', 'old q/s', 'new q/s (embedding in)'],
    rows,
  );
  console.log(`\nmode vector over HTTP (${HTTP_PER_KIND} other queries a kind), ms:`);
  table(
    [
      'queries',
      'HTTP p50',
      'HTTP p95',
      'latency_ms p50 (server)',
      'in process p50',
      'index alone p50',
      '/health p50',
      'HTTP − index',
      'HTTP − /health − index',
    ],
    httpRows,
  );
}

// The short path's candidates, tuned here: recall@10 of the exact rerank over the graph's top G
// ∪ the keyword engine's top N (match any), and what each side costs on one thread.
const GRAPH_DEPTHS = [0, 50, 100, 200];
const KEYWORD_DEPTHS = [0, 50, 100, 200, 300];
const norm = (v: Float32Array, at = 0) => {
  let s = 0;
  for (let i = 0; i < dim; i++) s += v[at + i]! * v[at + i]!;
  return Math.sqrt(s);
};
const cosine = (q: Float32Array, qn: number, id: number) => {
  const at = (id - 1) * dim;
  let s = 0;
  for (let i = 0; i < dim; i++) s += q[i]! * vectors[at + i]!;
  return s / (qn * norm(vectors, at) || 1);
};
const gridRows: (string | number)[][] = [];
const costRows: (string | number)[][] = [];
for (const kind of REFINE_ONLY || MAIN_ONLY || MAPPING_ONLY
  ? []
  : KINDS.filter((k) => k !== 'sentence')) {
  const qs = all[kind].slice(0, PER_KIND);
  if (qs.length === 0) continue;
  const vecs = await engine.embed(qs);
  const flat = new Float32Array(qs.length * dim);
  vecs.forEach((v, i) => flat.set(v, i * dim));
  const exact = usearch.exactSearch(
    vectors,
    flat,
    dim,
    K,
    usearch.MetricKind.Cos,
    0,
  ) as InstanceType<typeof usearch.BatchMatches>;
  const truth = qs.map((_, i) => new Set(Array.from(exact.get(i).keys, (r) => Number(r) + 1)));
  const graphMs = new Map<number, number>();
  const keywordMs = new Map<number, number>();
  const graphTop: number[][] = [];
  const keywordTop: number[][] = [];
  const allTop: number[][] = [];
  for (const g of GRAPH_DEPTHS.filter((g) => g > 0)) {
    const t = performance.now();
    for (const [i, v] of vecs.entries()) {
      const { hits } = await adam.services.index.search(v, g, `grid-${kind}-${g}-${i}`);
      if (g === Math.max(...GRAPH_DEPTHS)) graphTop[i] = hits.map((h) => h.key);
    }
    graphMs.set(g, (performance.now() - t) / qs.length);
  }
  for (const n of KEYWORD_DEPTHS.filter((n) => n > 0)) {
    const t = performance.now();
    for (const [i, q] of qs.entries()) {
      const match = ftsMatch(q, 'any');
      const hits = match ? await keyword.keywordSearch(match, n, {}) : [];
      if (n === Math.max(...KEYWORD_DEPTHS)) keywordTop[i] = hits.map((h) => h.id);
    }
    keywordMs.set(n, (performance.now() - t) / qs.length);
  }
  for (const [i, q] of qs.entries()) {
    const match = queryWords(q).length > 1 ? ftsMatch(q, 'all') : null;
    allTop[i] = match ? (await keyword.keywordSearch(match, 300, {})).map((h) => h.id) : [];
  }
  const variants: [number, number, number][] = [];
  for (const g of GRAPH_DEPTHS)
    for (const n of KEYWORD_DEPTHS) if (g || n) variants.push([g, n, 0]);
  for (const a of [100, 300]) for (const n of [0, 100, 300]) variants.push([50, n, a]);
  for (const [g, n, a] of variants) {
    let recall = 0;
    for (const [i, q] of vecs.entries()) {
      const ids = new Set([
        ...graphTop[i]!.slice(0, g),
        ...keywordTop[i]!.slice(0, n),
        ...allTop[i]!.slice(0, a),
      ]);
      const qn = norm(q);
      const top = [...ids]
        .map((id) => ({ id, s: cosine(q, qn, id) }))
        .sort((a, b) => b.s - a.s || a.id - b.id)
        .slice(0, K);
      recall += top.filter((x) => truth[i]!.has(x.id)).length / K;
    }
    gridRows.push([kind, g, n, a, fixed(recall / qs.length, 3)]);
  }
  costRows.push([
    kind,
    ...GRAPH_DEPTHS.filter((g) => g > 0).map((g) => fixed(graphMs.get(g)!, 2)),
    ...KEYWORD_DEPTHS.filter((n) => n > 0).map((n) => fixed(keywordMs.get(n)!, 2)),
  ]);
}
if (gridRows.length > 0) {
  console.log(
    `\nshort path candidates: recall@${K} of the exact rerank over graph top G ∪ keyword top N:`,
  );
  table(['queries', 'G', 'N (any)', 'N (all words)', 'recall'], gridRows);
  console.log('\nms a query on one thread, graph top G / keyword top N:');
  table(
    [
      'queries',
      ...GRAPH_DEPTHS.filter((g) => g > 0).map((g) => `graph ${g}`),
      ...KEYWORD_DEPTHS.filter((n) => n > 0).map((n) => `keyword ${n}`),
    ],
    costRows,
  );
}

// The short path's second look (snippet.service.ts, SHORT_GRAPH_BREADTH and SHIFT_TOWARD_QUERY):
// the first graph search's top 50 from a walk at expansion B (0: the index's own), ∪ the keyword
// top by the query's words, exact rerank; then a second graph search from inside that answer:
// from the centroid of its top 3 (top 50), or towards the query, the point t of the way from
// that centroid to the query (top 100).
const refineRows: (string | number)[][] = [];
const keywordDepth = (words: number) => (words <= 2 ? 300 : words === 3 ? 100 : 50);
const BREADTHS = [0, 300, 700, 1000];
const SHIFTS = [0.5, 0.7, 0.9];
const unit = (v: Float32Array) => {
  const n = norm(v) || 1;
  return Float32Array.from(v, (x) => x / n);
};
for (const kind of MAIN_ONLY || MAPPING_ONLY ? [] : KINDS.filter((k) => k !== 'sentence')) {
  const qs = all[kind].slice(0, PER_KIND);
  if (qs.length === 0) continue;
  const vecs = await engine.embed(qs);
  const flat = new Float32Array(qs.length * dim);
  vecs.forEach((v, i) => flat.set(v, i * dim));
  const exact = usearch.exactSearch(
    vectors,
    flat,
    dim,
    K,
    usearch.MetricKind.Cos,
    0,
  ) as InstanceType<typeof usearch.BatchMatches>;
  const truth = qs.map((_, i) => new Set(Array.from(exact.get(i).keys, (r) => Number(r) + 1)));
  const rerank = (q: Float32Array, ids: Iterable<number>) => {
    const qn = norm(q);
    return [...new Set(ids)]
      .map((id) => ({ id, s: cosine(q, qn, id) }))
      .sort((a, b) => b.s - a.s || a.id - b.id)
      .slice(0, K);
  };
  const kws: number[][] = [];
  for (const q of qs) {
    const match = ftsMatch(q, 'any');
    kws.push(
      match
        ? (await keyword.keywordSearch(match, keywordDepth(queryWords(q).length), {})).map(
            (h) => h.id,
          )
        : [],
    );
  }
  for (const breadth of BREADTHS) {
    const sums: Record<string, number> = { first: 0, centroid: 0 };
    for (const t of SHIFTS) sums[t] = 0;
    let firstMs = 0;
    let shiftedMs = 0;
    for (const [i, v] of vecs.entries()) {
      const t0 = performance.now();
      const { hits } = await adam.services.index.search(
        v,
        50,
        `rf-${kind}-${i}`,
        undefined,
        breadth,
      );
      firstMs += performance.now() - t0;
      const graph = hits.map((h) => h.key);
      const first = rerank(v, [...graph, ...kws[i]!]);
      const hit = (top: { id: number }[]) => top.filter((x) => truth[i]!.has(x.id)).length / K;
      sums.first! += hit(first);
      const c = new Float32Array(dim);
      for (const { id } of first.slice(0, 3)) {
        const at = (id - 1) * dim;
        const n = norm(vectors, at) || 1;
        for (let d = 0; d < dim; d++) c[d]! += vectors[at + d]! / n;
      }
      const fromCentroid = (await adam.services.index.search(c, 50, `rf2-${kind}-${i}`)).hits;
      sums.centroid! += hit(rerank(v, [...graph, ...kws[i]!, ...fromCentroid.map((h) => h.key)]));
      const [cu, vu] = [unit(c), unit(v)];
      for (const t of SHIFTS) {
        const point = Float32Array.from(cu, (x, d) => (1 - t) * x + t * vu[d]!);
        const t1 = performance.now();
        const near = (await adam.services.index.search(point, 100, `rf3-${kind}-${t}-${i}`)).hits;
        if (t === 0.7) shiftedMs += performance.now() - t1;
        sums[t]! += hit(rerank(v, [...graph, ...kws[i]!, ...near.map((h) => h.key)]));
      }
    }
    const n = qs.length;
    refineRows.push([
      kind,
      breadth || 'index',
      fixed(sums.first! / n, 3),
      fixed(sums.centroid! / n, 3),
      ...SHIFTS.map((t) => fixed(sums[t]! / n, 3)),
      fixed(firstMs / n, 2),
      fixed(shiftedMs / n, 2),
    ]);
  }
}
if (refineRows.length > 0) {
  console.log(
    `\nrecall@${K}: graph top 50 from a walk at expansion B ∪ keyword, then a second graph search (one thread, ms a query):`,
  );
  table(
    [
      'queries',
      'B',
      'first',
      'from the centroid',
      ...SHIFTS.map((t) => `towards the query ${t}`),
      'ms first',
      'ms second (0.7)',
    ],
    refineRows,
  );
}
// The rare words' vectors for the columns' table below (the app's engine closes with it).
const rareVectors = await engine.embed(all['one rare word'].slice(0, 40));
const twoWordVectors = await engine.embed(all['two common words'].slice(0, PER_KIND));
await adam.app.close();
// The saved index's file and storage, for the two tables of the index thread's own work below.
const savedManifest = JSON.parse(
  fs.readFileSync(path.join(data.dir, 'index', 'manifest.json'), 'utf8'),
) as { generation: number; quantization?: IndexStorage };
const savedStorage = savedManifest.quantization ?? 'f32';
const savedFile = path.join(data.dir, 'index', indexFileName(savedManifest.generation, 'usearch'));
// What the index's thread does for sparse queries (vector-columns.ts), timed here on one thread:
// the saved index's rows read into the columns after a load, and a scan for each rare word
// beside the exact scan of the same query over every vector (usearch, one thread).
{
  const columns = new VectorColumns(dim);
  const cpu = process.cpuUsage();
  let t = performance.now();
  const reader = new SavedVectorReader(savedFile, savedStorage, dim);
  for (;;) {
    const { done, keys, flat } = reader.step(1024);
    columns.add(keys, flat);
    if (done) break;
  }
  const fillMs = performance.now() - t;
  const fillCpu = process.cpuUsage(cpu);
  const rare = rareVectors;
  const scanMs: number[] = [];
  const exactMs: number[] = [];
  for (const v of rare) {
    t = performance.now();
    columns.scan(v, 100);
    scanMs.push(performance.now() - t);
    t = performance.now();
    usearch.exactSearch(vectors, v, dim, K, usearch.MetricKind.Cos, 1);
    exactMs.push(performance.now() - t);
  }
  const sparse = rare.filter(isSparseQuery).length;
  console.log(
    `\ncolumns for sparse queries (${sparse} of ${rare.length} rare words have a sparse vector):`,
  );
  table(
    ['step', 'rows', 'wall', 'CPU', 'scan p50', 'scan p95', 'exact scan p50 (same query)'],
    [
      [
        'read the saved index into the columns',
        columns.size.toLocaleString('en'),
        seconds(fillMs),
        seconds((fillCpu.user + fillCpu.system) / 1000),
        `${fixed(summarize(scanMs).p50, 2)} ms`,
        `${fixed(summarize(scanMs).p95, 2)} ms`,
        `${fixed(summarize(exactMs).p50, 1)} ms`,
      ],
    ],
  );
}

// The saved index is mapped, not read (a start answers at once): each page of the mapping is read
// from the page cache on its first touch, at a cost a search pays when it walks there first. The
// index thread's columns fill also walks the graph once a step, towards one of the step's rows
// (index-worker.ts): here, two-word searches (top 50, one thread) on a fresh mapping of the same
// file, cold, after those walks, and once more (every page they need mapped: the reference).
{
  const ms = (index: InstanceType<typeof usearch.Index>) =>
    twoWordVectors.map((v) => {
      const t = performance.now();
      index.search(v, 50, 1);
      return performance.now() - t;
    });
  const mappingRows: (string | number)[][] = [];
  const row = (name: string, times: number[], before = '') => {
    const s = summarize(times);
    mappingRows.push([
      name,
      before,
      fixed(s.p50, 2),
      fixed(s.p95, 2),
      fixed(Math.max(...times), 1),
    ]);
  };
  const cold = new usearch.Index(indexConfig(dim, savedStorage));
  cold.view(savedFile);
  row('cold mapping', ms(cold));
  row('mapped (the same again)', ms(cold));
  const walked = new usearch.Index(indexConfig(dim, savedStorage));
  walked.view(savedFile);
  const reader = new SavedVectorReader(savedFile, savedStorage, dim);
  let walks = 0;
  const t = performance.now();
  for (;;) {
    const { done, keys, flat } = reader.step(1024);
    if (keys.length > 0) {
      walked.search(flat.subarray(0, dim), 1, 1);
      walks++;
    }
    if (done) break;
  }
  row(
    'after the columns fill’s walks',
    ms(walked),
    `${walks} walks, ${seconds(performance.now() - t)} with the reads`,
  );
  console.log(`\nthe mapped index file: ${twoWordVectors.length} two-word searches, top 50, ms:`);
  table(['mapping', 'before', 'p50', 'p95', 'max'], mappingRows);
}

footer(benchStarted);
