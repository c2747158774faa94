/**
 * Vector search at 100,000 vectors (not a test: prints figures, asserts nothing).
 *
 *   cd packages/server && npx tsx --conditions=adam-source bench/search.bench.ts
 *
 * Builds a VectorIndex (HNSW, usearch, cosine) of 100k built-in-embedder vectors of short texts,
 * saves and reopens it, then times 1,000 `index.search(v, 10)` calls with queries that are not
 * in the index, and measures recall@10 against exact search (usearch.exactSearch) on 200 of them.
 *
 * Texts: windows of 1–3 consecutive sentences of the fixture pages (test/fixtures/fixture-pages.ts;
 * 10 topics, 110 sentence templates with varied names, places, numbers), plus the evaluation
 * documents and their sentences. That is a clustered corpus, like many pages of a few sites.
 * Queries: the 60 evaluation queries, then single sentences of fixture pages past the ones indexed.
 * If embedding 100k texts would take over a minute, 20k are embedded and 80k more made from them
 * with gaussian noise (sigma 0.025 per dimension, then renormalised: cosine ~0.9 to the source).
 */
import path from 'node:path';
import usearch from 'usearch';
import { loadBuiltinEmbedderSync } from '../src/embedding/builtin-embedder.js';
import { normalizeInPlace } from '../src/embedding/embedder.js';
import { EVAL_SET } from './eval/evaluate.js';
import { VectorIndex } from '../src/vector/vector-index.js';
import {
  BENCH_MODEL_ROOT,
  fixed,
  footer,
  header,
  mib,
  pageSentences,
  removeDir,
  rng,
  seconds,
  sharedModel,
  splitSentences,
  summarize,
  table,
  tempDataDir,
} from './common.js';

type Matches = InstanceType<typeof usearch.Matches>;

const VECTORS = 100_000;
const REAL_FALLBACK = 20_000;
const EMBED_BUDGET_MS = 60_000;
const NOISE_SIGMA = 0.025;
const QUERIES = 1_000;
const WARMUP_QUERIES = 100;
const RECALL_SAMPLE = 200;
const K = 10;
const ADD_CHUNK = 10_000;
const EMBED_BATCH = 256;

header(`search: VectorIndex (HNSW) at ${VECTORS.toLocaleString('en')} vectors`);
const benchStarted = performance.now();

/** usearch.exactSearch answers row indices of the flat dataset: checked on a tiny example. */
function checkExactSearchKeys(): void {
  const dim = 4;
  const data = new Float32Array([1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 1, 1, 0, 0]);
  const query = new Float32Array([0, 0.1, 1, 0]);
  const m = usearch.exactSearch(data, query, dim, 2, usearch.MetricKind.Cos) as Matches;
  const keys = Array.from(m.keys, Number);
  if (keys[0] !== 2 || keys[1] !== 1) {
    throw new Error(`exactSearch keys are not row indices: ${keys.join(', ')}`);
  }
  console.log(
    `exactSearch check: keys are row indices (got [${keys.join(', ')}], expected [2, 1])`,
  );
}
checkExactSearchKeys();

// Texts to index and queries, deterministic.
const seen = new Set<string>();
const texts: string[] = [];
const add = (t: string) => {
  if (texts.length < VECTORS && !seen.has(t)) {
    seen.add(t);
    texts.push(t);
  }
};
for (const d of EVAL_SET.docs) {
  add(d.text);
  for (const s of splitSentences(d.text)) add(s);
}
let page = 0;
while (texts.length < VECTORS) {
  const { sentences } = pageSentences(++page);
  for (let i = 0; i < sentences.length; i++)
    for (let w = 1; w <= 3 && i + w <= sentences.length; w++)
      add(sentences.slice(i, i + w).join(' '));
}
const lastIndexedPage = page;
const queries: string[] = EVAL_SET.queries.map((q) => q.text);
const rand = rng(2024);
while (queries.length < QUERIES) {
  const { sentences } = pageSentences(++page);
  const s = sentences[Math.floor(rand() * sentences.length)];
  if (s && !seen.has(s)) {
    seen.add(s);
    queries.push(s);
  }
}
const avgWords = texts.reduce((n, t) => n + t.split(/\s+/).length, 0) / texts.length;
console.log(
  `texts: ${texts.length} (eval docs + 1–3-sentence windows of fixture pages 1..${lastIndexedPage}, ` +
    `~${avgWords.toFixed(0)} words each); queries: ${QUERIES} (${EVAL_SET.queries.length} eval queries + ` +
    `sentences of pages ${lastIndexedPage + 1}..${page}, none indexed)`,
);

// Embedding, in this thread.
await sharedModel();
const { embedder } = loadBuiltinEmbedderSync(BENCH_MODEL_ROOT);
const dim = embedder.dimension;
const vectors: Float32Array[] = [];
const embedStarted = performance.now();
let mode = 'real';
for (let i = 0; i < texts.length; i += EMBED_BATCH) {
  vectors.push(...(await embedder.embed(texts.slice(i, i + EMBED_BATCH))));
  if (vectors.length === 10_240) {
    const projected = ((performance.now() - embedStarted) / vectors.length) * texts.length;
    if (projected > EMBED_BUDGET_MS) {
      mode = `noise: projected ${seconds(projected)} for all, over the ${seconds(EMBED_BUDGET_MS)} budget`;
      break;
    }
  }
}
if (mode !== 'real') {
  while (vectors.length < REAL_FALLBACK) {
    vectors.push(
      ...(await embedder.embed(texts.slice(vectors.length, vectors.length + EMBED_BATCH))),
    );
  }
  vectors.length = REAL_FALLBACK;
}
const embedMs = performance.now() - embedStarted;
const realCount = vectors.length;
console.log(
  `embedded ${realCount} texts in ${seconds(embedMs)} (${fixed(realCount / (embedMs / 1000), 0)} texts/s, one thread)`,
);
if (mode !== 'real') {
  // Gaussian noise (Box–Muller) on a real vector, renormalised.
  const gauss = () => Math.sqrt(-2 * Math.log(1 - rand())) * Math.cos(2 * Math.PI * rand());
  for (let i = realCount; i < VECTORS; i++) {
    const v = Float32Array.from(vectors[i % realCount]!, (x) => x + NOISE_SIGMA * gauss());
    normalizeInPlace(v);
    vectors.push(v);
  }
  console.log(`vectors: ${realCount} real + ${VECTORS - realCount} noisy copies (${mode})`);
} else {
  console.log(`vectors: all ${VECTORS} real`);
}
const queryVectors = await embedder.embed(queries);

// Build, save, reopen.
const dataDir = tempDataDir('adam-bench-search-');
const dir = path.join(dataDir, 'index');
const { index } = VectorIndex.open(dir, dim);
let t = performance.now();
for (let i = 0; i < VECTORS; i += ADD_CHUNK) {
  index.add(
    vectors.slice(i, i + ADD_CHUNK).map((vector, j) => ({ key: i + j + 1, vector })), // key = row + 1
  );
}
const buildMs = performance.now() - t;
t = performance.now();
index.save();
const saveMs = performance.now() - t;
const bytes = index.diskBytes();
t = performance.now();
const { index: reopened, reset } = VectorIndex.open(dir, dim);
const loadMs = performance.now() - t;
if (reset || reopened.size !== VECTORS) throw new Error(`reopen failed: ${reset ?? reopened.size}`);

// Latency: warm up, then 1,000 timed searches, each alone.
for (let i = 0; i < WARMUP_QUERIES; i++) index.search(queryVectors[i]!, K);
const latencies: number[] = [];
const results: number[][] = [];
for (const q of queryVectors) {
  const s = performance.now();
  const hits = index.search(q, K);
  latencies.push(performance.now() - s);
  results.push(hits.map((h) => h.key));
}
const lat = summarize(latencies);
const latReopened = summarize(
  queryVectors.map((q) => {
    const s = performance.now();
    reopened.search(q, K);
    return performance.now() - s;
  }),
);

// Recall@10 against exact cosine search on every 5th query.
const flat = new Float32Array(VECTORS * dim);
vectors.forEach((v, i) => flat.set(v, i * dim));
const step = Math.floor(QUERIES / RECALL_SAMPLE);
let found = 0;
let wanted = 0;
let exactMs = 0;
for (let qi = 0; qi < QUERIES && qi / step < RECALL_SAMPLE; qi += step) {
  const s = performance.now();
  const exact = usearch.exactSearch(
    flat,
    queryVectors[qi]!,
    dim,
    K,
    usearch.MetricKind.Cos,
  ) as Matches;
  exactMs += performance.now() - s;
  const truth = new Set(Array.from(exact.keys, (row) => Number(row) + 1));
  for (const key of results[qi]!) if (truth.has(key)) found++;
  wanted += truth.size;
}
const sampled = Math.min(RECALL_SAMPLE, Math.ceil(QUERIES / step));

console.log('\nindex (usearch HNSW, cosine, f32, M=16, expansion add 128 / search 64):');
table(
  ['step', 'figure'],
  [
    [
      'build (add in chunks of 10k)',
      `${seconds(buildMs)} (${fixed(VECTORS / (buildMs / 1000), 0)} vectors/s)`,
    ],
    ['save', `${fixed(saveMs, 0)} ms`],
    ['files on disk', mib(bytes)],
    ['load (VectorIndex.open)', `${fixed(loadMs, 0)} ms`],
  ],
);

console.log(`\nindex.search(v, ${K}), ${QUERIES} queries after ${WARMUP_QUERIES} warm-up:`);
table(
  ['index', 'mean ms', 'p50 ms', 'p95 ms', 'p99 ms', 'max ms'],
  [
    ['built in memory', ...[lat.mean, lat.p50, lat.p95, lat.p99, lat.max].map((x) => fixed(x, 3))],
    [
      'reopened from disk',
      ...[latReopened.mean, latReopened.p50, latReopened.p95, latReopened.p99, latReopened.max].map(
        (x) => fixed(x, 3),
      ),
    ],
  ],
);

console.log(
  `\nrecall@${K} vs usearch.exactSearch (cosine, flat): ${(found / wanted).toFixed(4)} ` +
    `over ${sampled} queries (every ${step}th); exact search ${fixed(exactMs / sampled, 1)} ms/query`,
);

removeDir(dataDir);
console.log();
footer(benchStarted);
