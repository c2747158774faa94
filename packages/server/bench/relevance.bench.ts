/**
 * Relevance on our evaluation set (not a test: prints figures, asserts nothing).
 *
 *   cd packages/server && npx tsx --conditions=adam-source bench/relevance.bench.ts
 *
 * MRR@10 and recall@10 of the built-in embedder's exact cosine ranking next to the keyword
 * ranking the server itself would give: the eval documents go into a real ADAM SQLite store
 * (so snippets_fts and its triggers are used) and each query runs FTS5 bm25 through
 * SnippetRepository.keywordSearch. `ftsQuery` ANDs every word, which finds nothing for most
 * natural-language questions, so the same words joined with OR are reported too.
 */
import { loadBuiltinEmbedderSync } from '../src/embedding/builtin-embedder.js';
import {
  EVAL_SET,
  evaluateMrr,
  scoreRankings,
  type EvalResult,
} from '../src/embedding/eval/evaluate.js';
import { ftsQuery } from '../src/services/snippet.service.js';
import { textHash } from '../src/services/ingestion.service.js';
import { openDatabase } from '../src/store/db.js';
import { SnippetRepository } from '../src/store/snippet.repository.js';
import {
  BENCH_MODEL_ROOT,
  footer,
  header,
  removeDir,
  sharedModel,
  table,
  tempDataDir,
} from './common.js';

header('relevance: built-in embedder vs FTS5 bm25 on the evaluation set');
const started = performance.now();
const set = EVAL_SET;
console.log(`evaluation set: ${set.docs.length} documents, ${set.queries.length} queries`);

const dataDir = tempDataDir('adam-bench-relevance-');
const db = openDatabase(dataDir);
const repo = new SnippetRepository(db);
const ids = repo.insertMany(
  set.docs.map((d) => ({
    text: d.text,
    text_hash: textHash(d.text),
    theme: 'general',
    quality_score: 0.5,
    language: null,
    word_count: d.text.split(/\s+/).length,
    size_bytes: Buffer.byteLength(d.text, 'utf8'),
    source_title: d.id,
    source_url: null,
    job_id: null,
    metadata: '{}',
    embedding: null,
    embedder_id: null,
  })),
);
const docIdOf = new Map<number, string>();
ids.forEach((id, i) => {
  if (id === null) throw new Error(`eval document ${set.docs[i]!.id} is a duplicate`);
  docIdOf.set(id, set.docs[i]!.id);
});

/** Ranks each query by bm25 with the MATCH expression `toMatch` builds; counts empty answers. */
function keyword(toMatch: (query: string) => string | null): {
  result: EvalResult;
  empty: number;
} {
  let empty = 0;
  const result = scoreRankings(set, (q) => {
    const match = toMatch(q.text);
    const hits = match ? repo.keywordSearch(match, 10) : [];
    if (hits.length === 0) empty++;
    return hits.map((h) => docIdOf.get(h.id)!);
  });
  return { result, empty };
}

// The same quoted words as ftsQuery (last one a prefix), any of them rather than all.
const orQuery = (text: string): string | null => ftsQuery(text)?.split(' ').join(' OR ') ?? null;

const and = keyword(ftsQuery);
const or = keyword(orQuery);

await sharedModel();
const { embedder } = loadBuiltinEmbedderSync(BENCH_MODEL_ROOT);
const cosine = await evaluateMrr(embedder, set);

console.log(`example, "${set.queries[0]!.text}":`);
console.log(`  AND: ${ftsQuery(set.queries[0]!.text)}`);
console.log(`  OR:  ${orQuery(set.queries[0]!.text)}\n`);

const row = (method: string, r: EvalResult, empty: number) =>
  [method, r.mrr10.toFixed(3), r.recall10.toFixed(3), `${empty} / ${set.queries.length}`] as const;
table(
  ['method', 'MRR@10', 'recall@10', 'queries with no result'],
  [
    row('FTS5 bm25, all words (server ftsQuery)', and.result, and.empty),
    row('FTS5 bm25, any word (OR)', or.result, or.empty),
    row('builtin-384, exact cosine', cosine, 0),
  ],
);

db.close();
removeDir(dataDir);
console.log();
footer(started);
