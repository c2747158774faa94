/**
 * Benchmark of the built-in embedder (not a test: nothing here asserts on time).
 *
 *   cd packages/server && npx tsx --conditions=adam-source bench/embedder.bench.ts [--data-dir DIR]
 *
 * Without --data-dir it converts the model into a fresh temporary directory (so the conversion
 * is measured too) and removes it at the end. Prints conversion time and peak memory, load
 * time, embedding throughput on one thread and through the pool, and MRR@10 / recall@10 on
 * our evaluation set next to a BM25 keyword baseline computed here over the same documents.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { loadBuiltinEmbedderSync, prepareBuiltinModel } from '../src/embedding/builtin-embedder.js';
import { dot, embedInBatches, type Embedder } from '../src/embedding/embedder.js';
import { createEmbedderPool } from '../src/embedding/embedder-pool.js';
import {
  EVAL_SET,
  evaluateMrr,
  scoreRankings,
  type EvalResult,
  type EvalSet,
} from './eval/evaluate.js';
import { tokenize } from '../src/embedding/text-features.js';

const { values } = parseArgs({
  options: { 'data-dir': { type: 'string' }, 'load-only': { type: 'boolean' } },
});
const dataDir = values['data-dir'] ?? fs.mkdtempSync(path.join(os.tmpdir(), 'adam-embed-bench-'));
const temporary = values['data-dir'] === undefined;

const mb = (bytes: number): string => `${(bytes / 1024 / 1024).toFixed(0)} MB`;
const ms = (t: number): string => `${t.toFixed(0)} ms`;
const fmt = (r: EvalResult): string =>
  `MRR@10 ${r.mrr10.toFixed(3)}  recall@10 ${r.recall10.toFixed(3)}`;

/** Okapi BM25 (k1 1.2, b 0.75) over the same tokens as the embedder: FTS5's unicode61 rules. */
function bm25Scores(set: EvalSet): number[][] {
  const docs = set.docs.map((d) => tokenize(d.text));
  const df = new Map<string, number>();
  for (const d of docs) for (const t of new Set(d)) df.set(t, (df.get(t) ?? 0) + 1);
  const n = docs.length;
  const avgLen = docs.reduce((s, d) => s + d.length, 0) / n;
  const k1 = 1.2;
  const b = 0.75;
  return set.queries.map((q) => {
    const terms = new Set(tokenize(q.text));
    return docs.map((tokens) => {
      let score = 0;
      for (const term of terms) {
        const f = df.get(term);
        if (f === undefined) continue;
        const tf = tokens.filter((t) => t === term).length;
        if (tf === 0) continue;
        const idf = Math.log(1 + (n - f + 0.5) / (f + 0.5));
        score += (idf * tf * (k1 + 1)) / (tf + k1 * (1 - b + (b * tokens.length) / avgLen));
      }
      return score;
    });
  });
}

function rankBy(set: EvalSet, scores: readonly number[]): string[] {
  return set.docs
    .map((d, i) => ({ id: d.id, s: scores[i]! }))
    .filter((x) => x.s > 0)
    .sort((a, c) => c.s - a.s)
    .map((x) => x.id);
}

/** Texts per second: the best of 3 runs, after one full warm-up run (JIT, model loads). */
async function throughput(
  embedder: Embedder,
  texts: string[],
  batch: number,
  concurrency: number,
): Promise<number> {
  await run(embedder, texts, batch, concurrency);
  let best = 0;
  for (let i = 0; i < 3; i++) best = Math.max(best, await run(embedder, texts, batch, concurrency));
  return best;
}

async function run(
  embedder: Embedder,
  texts: string[],
  batch: number,
  concurrency: number,
): Promise<number> {
  const batches: string[][] = [];
  for (let i = 0; i < texts.length; i += batch) batches.push(texts.slice(i, i + batch));
  const started = performance.now();
  let next = 0;
  const lane = async (): Promise<void> => {
    while (next < batches.length) await embedder.embed(batches[next++]!);
  };
  await Promise.all(Array.from({ length: concurrency }, lane));
  return texts.length / ((performance.now() - started) / 1000);
}

if (values['load-only']) {
  // Child mode: a fresh process measures the load alone, with nothing else in its heap.
  const rss = process.memoryUsage().rss;
  const t0 = performance.now();
  const { loadMs, embedder } = loadBuiltinEmbedderSync(dataDir);
  const readyMs = performance.now() - t0;
  await embedder.embed(['warm']);
  const after = process.memoryUsage().rss;
  console.log(JSON.stringify({ loadMs, readyMs, rssBefore: rss, rssAfter: after }));
  process.exit(0);
}

console.log(`data dir: ${dataDir}${temporary ? ' (temporary)' : ''}`);
console.log(`node ${process.version}, ${os.cpus().length} CPUs\n`);

// 1. Conversion (only if the data dir has no valid model file yet).
const rssBefore = process.memoryUsage().rss;
const prepared = await prepareBuiltinModel(dataDir);
const peak = process.resourceUsage().maxRSS * 1024;
if (prepared.converted) {
  console.log(
    `conversion: ${ms(prepared.ms)}, process RSS ${mb(rssBefore)} before, peak ${mb(peak)} (+${mb(peak - rssBefore)})`,
  );
} else {
  console.log('conversion: not needed (valid model file found)');
}
console.log(`model file: ${mb(fs.statSync(prepared.path).size)} at ${prepared.path}`);

// 2. Load from the binary file, in a fresh process (same flags, same script, --load-only).
const child = spawnSync(
  process.execPath,
  [...process.execArgv, fileURLToPath(import.meta.url), '--data-dir', dataDir, '--load-only'],
  { encoding: 'utf8' },
);
const line = child.stdout.trim().split('\n').pop() ?? '';
try {
  const r = JSON.parse(line) as {
    loadMs: number;
    readyMs: number;
    rssBefore: number;
    rssAfter: number;
  };
  console.log(
    `load (fresh process): ${ms(r.loadMs)} to read and check the file, ${ms(r.readyMs)} until ready; RSS ${mb(r.rssBefore)} → ${mb(r.rssAfter)} (+${mb(r.rssAfter - r.rssBefore)})`,
  );
} catch {
  console.log(`load (fresh process): could not measure (${child.stderr.trim().slice(0, 200)})`);
}
const loaded = loadBuiltinEmbedderSync(dataDir);
console.log(`load (this process): ${ms(loaded.loadMs)}`);
const embedder = loaded.embedder;

// 3. Throughput on the evaluation documents (2–4 sentences, ~200 characters each).
const texts = Array.from({ length: 20 }, () => EVAL_SET.docs.map((d) => d.text)).flat();
const chars = texts.reduce((s, t) => s + t.length, 0) / texts.length;
const single = await throughput(embedder, texts, 64, 1);
console.log(
  `\nthroughput, ${texts.length} texts of ~${chars.toFixed(0)} chars, batches of 64 (best of 3):`,
);
console.log(`  this thread:      ${single.toFixed(0)} texts/s`);
for (const threads of [1, 2]) {
  const pool = await createEmbedderPool({ dataDir, threads });
  const rate = await throughput(pool, texts, 64, threads * 2);
  console.log(`  pool, ${threads} worker${threads > 1 ? 's' : ' '}: ${rate.toFixed(0)} texts/s`);
  await pool.close();
}

// 4. Retrieval quality on our evaluation set.
const set = EVAL_SET;
console.log(`\nevaluation set: ${set.docs.length} documents, ${set.queries.length} queries`);
const bm25 = bm25Scores(set);
console.log(
  `  BM25 keyword baseline        ${fmt(scoreRankings(set, (_q, i) => rankBy(set, bm25[i]!)))}`,
);
console.log(`  builtin-384                  ${fmt(await evaluateMrr(embedder))}`);
const wordOnly = loadBuiltinEmbedderSync(dataDir, { recipe: { lexicalWeight: 0 } }).embedder;
const lexicalOnly = loadBuiltinEmbedderSync(dataDir, { recipe: { wordWeight: 0 } }).embedder;
console.log(`    word-vector part alone     ${fmt(await evaluateMrr(wordOnly))}`);
console.log(`    char-n-gram part alone     ${fmt(await evaluateMrr(lexicalOnly))}`);

// What a hybrid search could do: cosine fused with max-normalised BM25 by weight.
const docVectors = await embedInBatches(
  embedder,
  set.docs.map((d) => d.text),
  64,
);
const queryVectors = await embedInBatches(
  embedder,
  set.queries.map((q) => q.text),
  64,
);
for (const w of [0.2, 0.3, 0.5]) {
  const fused = scoreRankings(set, (_q, qi) => {
    const kw = bm25[qi]!;
    const max = Math.max(...kw) || 1;
    return rankBy(
      set,
      docVectors.map((dv, di) => (1 - w) * (dot(queryVectors[qi]!, dv) + 1) + (w * kw[di]!) / max),
    );
  });
  console.log(`  hybrid, BM25 weight ${w.toFixed(1)}      ${fmt(fused)}`);
}

if (temporary) fs.rmSync(dataDir, { recursive: true, force: true });
