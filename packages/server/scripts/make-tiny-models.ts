/**
 * Writes the tiny test models (test/fixtures/tiny-models.ts) in a hub's repository layout:
 *
 *   npx tsx packages/server/scripts/make-tiny-models.ts <outDir>
 *
 * gives <outDir>/adam-test/tiny-embedder, adam-test/tiny-ner, adam-test/tiny-sentiment and
 * adam-test/tiny-reranker (a cross-encoder, model type reranker), each
 * with config.json, tokenizer.json, tokenizer_config.json, special_tokens_map.json and
 * onnx/model.onnx, and prints every file with its size and sha256. Same bytes on every run.
 */
import path from 'node:path';
import {
  describeModelFiles,
  writeTinyCrossEncoder,
  writeTinyEmbeddingModel,
  writeTinyTextClassifier,
  writeTinyTokenClassifier,
  type TinyModelFiles,
} from '../test/fixtures/tiny-models.js';

const TINY_MODELS: Record<string, (dir: string) => Promise<TinyModelFiles>> = {
  'adam-test/tiny-embedder': (dir) => writeTinyEmbeddingModel(dir),
  'adam-test/tiny-ner': (dir) => writeTinyTokenClassifier(dir),
  'adam-test/tiny-sentiment': (dir) => writeTinyTextClassifier(dir),
  'adam-test/tiny-reranker': (dir) => writeTinyCrossEncoder(dir),
};

const outDir = process.argv[2];
if (outDir === undefined || outDir.startsWith('-')) {
  console.error('usage: npx tsx packages/server/scripts/make-tiny-models.ts <outDir>');
  process.exit(2);
}

for (const [repo, write] of Object.entries(TINY_MODELS)) {
  const dir = path.resolve(outDir, repo);
  const { files } = await write(dir);
  console.log(`${repo} → ${dir}`);
  for (const f of await describeModelFiles(dir, files)) {
    console.log(`  ${f.path.padEnd(24)} ${String(f.size).padStart(8)} B  sha256 ${f.sha256}`);
  }
}
