/**
 * Writes each relevance set's completed candidate lists (each side's 100 best, every candidate
 * with its bm25 and its cosine) to a JSON file, so fusions can be compared without re-embedding:
 *
 *   npx tsx --conditions=adam-source bench/relevance/dump-candidates.ts /tmp/out-dir [set name]
 */
import fs from 'node:fs';
import path from 'node:path';
import { loadBuiltinEmbedderSync } from '../../src/embedding/builtin-embedder.js';
import type { EvalSet } from '../eval/evaluate.js';
import { BENCH_MODEL_ROOT, sharedModel } from '../common.js';
import { buildCandidates } from './candidates.js';
import { RELEVANCE_SETS } from './sets.js';

const out = process.argv[2] ?? '/tmp/fusion-candidates';
const only = process.argv[3];
fs.mkdirSync(out, { recursive: true });
await sharedModel();
const { embedder } = loadBuiltinEmbedderSync(BENCH_MODEL_ROOT);
for (const [name, load] of RELEVANCE_SETS) {
  if (only && name !== only) continue;
  const set: EvalSet = load();
  const { lists, documents } = await buildCandidates(name, set, embedder, 100);
  fs.writeFileSync(path.join(out, `${name}.json`), JSON.stringify({ name, documents, lists }));
  console.log(name, set.queries.length, 'queries');
}
