/**
 * The built-in embedder next to the ONNX path (not a test: prints figures, asserts nothing).
 *
 *   cd packages/server && npx tsx --conditions=adam-source bench/model-embedders.bench.ts
 *
 * Same texts, same batches, same worker-thread pools: the built-in embedder (EmbedderPool,
 * the shared converted model) and an OnnxEmbedder running the tiny BERT-style model our tests
 * use (test/fixtures/tiny-models.ts, written to a temporary directory), through
 * @huggingface/transformers and onnxruntime-node with one ONNX thread per worker.
 *
 * Load: the time to start the pool and have the model ready on every thread, and the model's
 * own load time (the built-in one on this thread; the ONNX one per worker thread, slowest).
 * Throughput: texts/s through the pool with 1 and 2 workers (two batches in flight per worker,
 * best of 3 after a warm-up run), per core (divided by the workers) and per CPU second (the
 * process's CPU time, worker threads included). The tiny model is a lookup table, far cheaper
 * than a real transformer: its figures show the ONNX path's own cost (tokenizer, sessions,
 * pooling, thread hops), not a real model's.
 */
import os from 'node:os';
import path from 'node:path';
import fs from 'node:fs';
import { loadBuiltinEmbedderSync } from '../src/embedding/builtin-embedder.js';
import type { Embedder } from '../src/embedding/embedder.js';
import { createEmbedderPool } from '../src/embedding/embedder-pool.js';
import { EVAL_SET } from './eval/evaluate.js';
import { OnnxEmbedder } from '../src/embedding/onnx-embedder.js';
import { writeTinyEmbeddingModel } from '../test/fixtures/tiny-models.js';
import {
  BENCH_MODEL_ROOT,
  fixed,
  footer,
  header,
  measure,
  removeDir,
  sharedModel,
  table,
  tempDataDir,
} from './common.js';

const WORKERS = [1, 2];
const BATCH = 64;
const ROUNDS = 3;
/** The evaluation documents (2–4 sentences, ~200 characters each), repeated. */
const TEXTS = Array.from({ length: 10 }, () => EVAL_SET.docs.map((d) => d.text)).flat();
const TINY_DIR = 'adam-test/tiny-embedder';

header('model-embedders: built-in embedder vs ONNX (tiny model), load and throughput');
const benchStarted = performance.now();
const chars = TEXTS.reduce((s, t) => s + t.length, 0) / TEXTS.length;
console.log(`texts: ${TEXTS.length} of ~${chars.toFixed(0)} characters, batches of ${BATCH}\n`);

await sharedModel();
const dataDir = tempDataDir('adam-bench-models-');
const modelsRoot = fs.mkdtempSync(path.join(os.tmpdir(), 'adam-bench-onnx-'));
await writeTinyEmbeddingModel(path.join(modelsRoot, TINY_DIR), { dimension: 384 });

/** Texts per second and per CPU second of one pass, `concurrency` batches in flight. */
async function pass(
  embedder: Embedder,
  concurrency: number,
): Promise<{ rate: number; perCpuSecond: number }> {
  const batches: string[][] = [];
  for (let i = 0; i < TEXTS.length; i += BATCH) batches.push(TEXTS.slice(i, i + BATCH));
  let next = 0;
  const lane = async (): Promise<void> => {
    while (next < batches.length) await embedder.embed(batches[next++]!);
  };
  const { wallMs, cpuMs } = await measure(async () => {
    await Promise.all(Array.from({ length: concurrency }, lane));
  });
  return { rate: TEXTS.length / (wallMs / 1000), perCpuSecond: TEXTS.length / (cpuMs / 1000) };
}

async function throughput(embedder: Embedder, workers: number) {
  await pass(embedder, workers * 2); // warm-up: JIT, first batches on every thread
  let best = { rate: 0, perCpuSecond: 0 };
  for (let i = 0; i < ROUNDS; i++) {
    const r = await pass(embedder, workers * 2);
    if (r.rate > best.rate) best = r;
  }
  return best;
}

interface Row {
  name: string;
  workers: number;
  dimension: number;
  readyMs: number;
  modelLoadMs: number;
  rate: number;
  perCpuSecond: number;
}
const rows: Row[] = [];

// The built-in model's own load (read and check the converted file), on this thread.
const builtinLoadMs = loadBuiltinEmbedderSync(dataDir).loadMs;

for (const workers of WORKERS) {
  let started = performance.now();
  const pool = await createEmbedderPool({ dataDir, threads: workers });
  // create loads the model in one worker; the others load on their first batch.
  await Promise.all(Array.from({ length: workers }, () => pool.embed(['warm'])));
  let readyMs = performance.now() - started;
  let t = await throughput(pool, workers);
  rows.push({
    name: 'built-in',
    workers,
    dimension: pool.dimension,
    readyMs,
    modelLoadMs: builtinLoadMs,
    ...t,
  });
  await pool.close();

  started = performance.now();
  const onnx = await OnnxEmbedder.create({
    modelsRoot,
    dir: TINY_DIR,
    id: `onnx:${TINY_DIR}@bench`,
    threads: workers,
  });
  readyMs = performance.now() - started;
  t = await throughput(onnx, workers);
  rows.push({
    name: 'onnx tiny',
    workers,
    dimension: onnx.dimension,
    readyMs,
    modelLoadMs: onnx.loadMeasurement.load_time_ms,
    ...t,
  });
  console.log(
    `onnx load measurement, ${workers} worker(s): ${JSON.stringify(onnx.loadMeasurement)}`,
  );
  await onnx.close();
}

console.log('');
table(
  [
    'embedder',
    'workers',
    'dim',
    'pool ready ms',
    'model load ms',
    'texts/s',
    'texts/s per core',
    'texts per CPU s',
  ],
  rows.map((r) => [
    r.name,
    r.workers,
    r.dimension,
    fixed(r.readyMs, 0),
    fixed(r.modelLoadMs, 0),
    fixed(r.rate, 0),
    fixed(r.rate / r.workers, 0),
    fixed(r.perCpuSecond, 0),
  ]),
);
console.log(`\nbuilt-in model file: ${BENCH_MODEL_ROOT} (shared by the benches)`);

removeDir(dataDir);
removeDir(modelsRoot);
footer(benchStarted);
