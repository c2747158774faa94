/**
 * The index's storage setting (f32, f16, bf16, i8) measured (not a test: prints figures, asserts
 * nothing).
 *
 *   npm run bench -w @adam/server -- index-storage [rows]
 *
 * Takes the first `rows` (default 200,000) vectors of the 1M bench data (bench/data-1m.ts) and
 * builds the index the server would build (HNSW settings of vector-index.ts, 2 threads) once
 * per storage, saved to a temporary directory and mapped (view) for searching. For each
 * storage and several expansion_search values: recall@10 against exact search (usearch
 * exactSearch over the f32 vectors) on 200 queries, and single-thread queries/s over 1,000
 * queries; reference: the exact scan's own queries/s on one thread, in the same run. Queries
 * are sentences of fixture pages past the ones in the data (as index-1m.bench.ts).
 * INDEX_STORAGE_BENCH_KINDS=f16,bf16 measures only those.
 */
import fs from 'node:fs';
import path from 'node:path';
import usearch from 'usearch';
import type { IndexStorage } from '@adam/contracts';
import { EXPANSION_SEARCH, HNSW, indexConfig } from '../src/vector/vector-index.js';
import { fixed, footer, header, mib, removeDir, seconds, table, tempDataDir } from './common.js';
import { ensureMillion, exactNeighbours, unseenQueries } from './data-1m.js';

type Matches = InstanceType<typeof usearch.Matches>;

const ROWS = Number(process.argv[2]) || 200_000;
const K = 10;
const QUERIES = 1_000;
const RECALL_QUERIES = 200;
const EXPANSIONS = [64, 128, 176, 192];
const STORAGES: IndexStorage[] = (process.env.INDEX_STORAGE_BENCH_KINDS ?? 'f32,f16,bf16,i8')
  .split(',')
  .map((s) => s as IndexStorage);

header(`index-storage: ${STORAGES.join(', ')} at ${ROWS.toLocaleString('en')} × 384`);
const benchStarted = performance.now();
const data = await ensureMillion();
const dim = data.dimension;
const n = Math.min(ROWS, data.rows);
const vectors = data.readVectors().subarray(0, n * dim);

const queries = await unseenQueries(data, QUERIES);
const truth = exactNeighbours(vectors, queries, RECALL_QUERIES, dim, K);
let t = performance.now();
const EXACT_TIMED = 10;
for (let i = 0; i < EXACT_TIMED; i++) {
  usearch.exactSearch(vectors, queries[i]!, dim, K, usearch.MetricKind.Cos, 1) as Matches;
}
const exactQps = EXACT_TIMED / ((performance.now() - t) / 1000);

const dir = tempDataDir('adam-bench-storage-');
const keys = BigUint64Array.from({ length: n }, (_, i) => BigInt(i));
const rows: (string | number)[][] = [];
const config = (storage: IndexStorage, ef: number) =>
  indexConfig(dim, storage, { expansionSearch: ef });
for (const storage of STORAGES) {
  const built = new usearch.Index(config(storage, EXPANSION_SEARCH[storage]));
  t = performance.now();
  const step = 50_000;
  for (let i = 0; i < n; i += step) {
    const end = Math.min(n, i + step);
    built.add(keys.subarray(i, end), vectors.subarray(i * dim, end * dim), 2);
  }
  const buildMs = performance.now() - t;
  const file = path.join(dir, `${storage}.usearch`);
  built.save(file);
  const bytes = fs.statSync(file).size;
  for (const ef of EXPANSIONS) {
    const index = new usearch.Index(config(storage, ef));
    index.view(file);
    for (let i = 0; i < 100; i++) index.search(queries[i]!, K, 1);
    const cpu = process.cpuUsage();
    t = performance.now();
    for (const q of queries) index.search(q, K, 1);
    const qps = QUERIES / ((performance.now() - t) / 1000);
    const used = process.cpuUsage(cpu);
    let found = 0;
    for (let i = 0; i < RECALL_QUERIES; i++) {
      const m = index.search(queries[i]!, K, 1) as Matches;
      for (const key of m.keys) if (truth[i]!.has(Number(key))) found++;
    }
    rows.push([
      `${storage}, search=${ef}${ef === EXPANSION_SEARCH[storage] ? ' (default)' : ''}`,
      fixed(found / (RECALL_QUERIES * K), 4),
      fixed(qps, 0),
      fixed(QUERIES / ((used.user + used.system) / 1e6), 0),
      fixed(exactQps, 1),
      mib(bytes),
      seconds(buildMs),
    ]);
  }
}
removeDir(dir);
console.log(
  `\nHNSW M=${HNSW.connectivity}, add=${HNSW.expansion_add} at ${n.toLocaleString('en')} vectors; recall@${K} vs exact on ${RECALL_QUERIES} queries, queries/s on one thread over ${QUERIES}:`,
);
table(
  [
    'storage, expansion',
    'recall@10',
    'queries/s',
    'queries per CPU s',
    'exact scan queries/s',
    'file',
    'build (2 threads)',
  ],
  rows,
);
console.log();
footer(benchStarted);
