/**
 * Relevance of the three search modes (not a test: prints figures, asserts nothing).
 *
 *   npm run bench -w @adam/server -- relevance
 *
 * Each evaluation set goes into a real ADAM store: rows through SnippetRepository (so the FTS5
 * table and its triggers are used), vectors through IndexService.reconcile (the built-in
 * embedder, the real HNSW index), and every query runs through SnippetService.search, the code
 * behind POST /snippets/search, with k = 10. Figures: nDCG@10, recall@10 and MRR@10 per mode,
 * then every fusion method side by side on the same completed candidates (each side's 100 best,
 * with the other side's score: relevance/candidates.ts), over the whole set and over its even and
 * odd halves (the split check), and the kept fusion once more with a useless vector side (cosines
 * permuted). Last, one summary: per set, keyword, vector, hybrid's first and second cuts and
 * fuseScores today, nDCG@10 and MRR@10, whole set and halves.
 *
 * Sets: "readme" (bench/relevance/: passages of the npm packages' READMEs and questions written
 * to share few words with their answers), "eval" (the embedder's own evaluation set,
 * bench/eval/) and "paraphrase" (relevance/paraphrase-set.ts: ten topics asked in other
 * words, among the README passages) and "short" (relevance/short-set.ts: one word or a few
 * misspelt words on the same ten topics; never used to tune). The reference is plain bm25 with every word OR'ed and no
 * stemming or stop words, measured on an unstemmed FTS5 table in the same run.
 *
 * The kept fusion (services/fusion.ts fuseScores: (1 − wq) × (strength × bm25 / best)² + wq ×
 * cosine, wq = w × (0.5 + 1.5 × the share of the keyword top 10 in the vector top 10)) was
 * chosen offline (relevance/tune-fusion.ts over relevance/fusion-forms.ts, on dumped candidates)
 * by one objective on the even halves of the four sets; the odd halves are the check. The others
 * (the first and second cuts, the old max-scaled sum, min–max, z-scores, reciprocal rank fusion)
 * are the measured alternatives; the summary's shuffled columns are a useless vector side.
 */
import { DEFAULT_PROCESSING_SETTINGS, type SearchMode } from '@adam/contracts';
import { loadBuiltinEmbedderSync } from '../src/embedding/builtin-embedder.js';
import { scoreRankings, type EvalResult, type EvalSet } from './eval/evaluate.js';
import { createLogger, LogSink } from '../src/logging.js';
import { EventBus } from '../src/lib/event-bus.js';
import { queryWords, type SearchCandidate } from '../src/services/hybrid-search.js';
import { SnippetService } from '../src/services/snippet.service.js';
import { completedCandidates, openRelevanceStore } from './relevance/candidates.js';
import {
  firstCut,
  kept,
  maxScaled,
  minMax,
  rrf,
  squaredFixed,
  zScore,
  type Fusion,
} from './relevance/fusion-variants.js';
import { RELEVANCE_SETS } from './relevance/sets.js';
import { BENCH_MODEL_ROOT, footer, header, sharedModel, table } from './common.js';

header('relevance: keyword, vector and hybrid search through SnippetService.search');
const started = performance.now();
await sharedModel();
const { embedder } = loadBuiltinEmbedderSync(BENCH_MODEL_ROOT);
/** The candidates with their cosines permuted (a fixed rotation by 37): a vector side that knows nothing. */
function shuffledVectors(c: readonly SearchCandidate[]): SearchCandidate[] {
  return c.map((x, i) => ({ ...x, vector: c[(i * 37 + 11) % c.length]!.vector }));
}
const FUSION_WEIGHTS = [0.3, 0.4, 0.5];
const DEFAULT_WEIGHT = DEFAULT_PROCESSING_SETTINGS.search_vector_weight;

async function evaluateSet(name: string, set: EvalSet): Promise<void> {
  console.log(`\n## ${name}: ${set.docs.length} documents, ${set.queries.length} queries\n`);
  const store = await openRelevanceStore(name, set, embedder);
  const { db, repo, index, docIdOf } = store;
  const log = createLogger({ level: 'warn', sink: new LogSink(), stdout: false });
  const bus = new EventBus();
  const weight = DEFAULT_WEIGHT;
  const service = new SnippetService({
    snippets: repo,
    index,
    embedder,
    bus,
    log,
    vectorWeight: () => weight,
  });

  const ranked = new Map<string, string[][]>();
  const rankings = async (mode: SearchMode) => {
    const out: string[][] = [];
    for (const q of set.queries) {
      const res = await service.search({ query: q.text, k: 10, mode });
      out.push(res.results.map((r) => docIdOf.get(r.id)!));
    }
    ranked.set(`${mode} ${weight}`, out);
    return scoreRankings(set, (_q, i) => out[i]!);
  };

  // Reference: bm25 over an unstemmed table, every word OR'ed (what plain BM25 does).
  db.exec(
    "CREATE VIRTUAL TABLE plain_fts USING fts5(text, content='snippets', content_rowid='id', tokenize='unicode61 remove_diacritics 2');" +
      "INSERT INTO plain_fts(plain_fts) VALUES ('rebuild');",
  );
  const plainStmt = db.prepare(
    'SELECT rowid AS id FROM plain_fts WHERE plain_fts MATCH ? ORDER BY bm25(plain_fts) LIMIT 10',
  );
  const plainRanked = set.queries.map((q) => {
    const words = [...new Set(queryWords(q.text).map((w) => w.toLowerCase()))];
    if (!words.length) return [];
    const hits = plainStmt.pluck().all(words.map((w) => `"${w}"`).join(' OR ')) as number[];
    return hits.map((id) => docIdOf.get(id)!);
  });
  const plain = scoreRankings(set, (_q, i) => plainRanked[i]!);

  const row = (label: string, r: ReturnType<typeof scoreRankings>) =>
    [label, r.ndcg10.toFixed(3), r.recall10.toFixed(3), r.mrr10.toFixed(3)] as const;
  const keyword = await rankings('keyword');
  const vector = await rankings('vector');
  const hybrid = await rankings('hybrid');
  table(
    ['method', 'nDCG@10', 'recall@10', 'MRR@10'],
    [
      row('reference: plain bm25, words OR-ed, no stemming', plain),
      row('keyword (porter, any word, stop words dropped)', keyword),
      row('vector (built-in embedder, HNSW)', vector),
      row(`hybrid (vector weight ${DEFAULT_WEIGHT}, the default)`, hybrid),
    ],
  );
  console.log();
  const kinds = [...new Set(set.queries.map((q) => (q as { kind?: string }).kind))];
  if (kinds.every((k) => k !== undefined)) {
    // nDCG@10 of each kind of question (how many words it shares with its answers).
    const byKind = (out: string[][]) =>
      kinds.map((kind) => {
        const picked = set.queries.flatMap((q, i) =>
          (q as { kind?: string }).kind === kind ? [i] : [],
        );
        const sub = { docs: set.docs, queries: picked.map((i) => set.queries[i]!) };
        return scoreRankings(sub, (_q, j) => out[picked[j]!]!).ndcg10.toFixed(3);
      });
    table(
      [
        'nDCG@10 by kind of question',
        ...kinds.map(
          (k) => `${k} (${set.queries.filter((q) => (q as { kind?: string }).kind === k).length})`,
        ),
      ],
      [
        ['reference: plain bm25', ...byKind(plainRanked)],
        ['keyword', ...byKind(ranked.get(`keyword ${DEFAULT_WEIGHT}`)!)],
        ['vector', ...byKind(ranked.get(`vector ${DEFAULT_WEIGHT}`)!)],
        ['hybrid', ...byKind(ranked.get(`hybrid ${DEFAULT_WEIGHT}`)!)],
      ],
    );
    console.log();
  }
  // Every fusion on the same candidates: each side's CANDIDATE_DEPTH best, completed with the
  // other side's score (bm25 from FTS5, cosine from the stored vector), so only the fusion differs.
  const candidateLists = await completedCandidates(store, set, embedder, CANDIDATE_DEPTH);
  const half = (parity: number) => ({
    docs: set.docs,
    queries: set.queries.filter((_q, i) => i % 2 === parity),
  });
  const fusions: [string, Fusion][] = [
    [
      'keyword only',
      (c) =>
        c
          .filter((x) => x.keyword !== null)
          .sort((a, b) => b.keyword! - a.keyword! || a.id - b.id)
          .map((x) => x.id),
    ],
    [
      'vector only',
      (c) =>
        c
          .filter((x) => x.vector !== null)
          .sort((a, b) => b.vector! - a.vector! || a.id - b.id)
          .map((x) => x.id),
    ],
    ...[0.4].map((w): [string, Fusion] => [`first cut (before), w ${w}`, firstCut(w)]),
    ...[0.4].map((w): [string, Fusion] => [
      `second cut (squared, fixed w), w ${w}`,
      squaredFixed(w),
    ]),
    ...[0.2, 0.3, 0.4, 0.5].map((w): [string, Fusion] => [
      `old: max-scaled sum, w ${w}`,
      maxScaled(w),
    ]),
    ['rrf k 60', rrf(60)],
    ['rrf k 60, depth 20', rrf(60, 20)],
    ...[0.3, 0.4, 0.5].map((w): [string, Fusion] => [`z-score sum, w ${w}`, zScore(w)]),
    ...[0.3, 0.4, 0.5].map((w): [string, Fusion] => [`min-max sum, w ${w}`, minMax(w)]),
    ...FUSION_WEIGHTS.map((w): [string, Fusion] => [`new (kept), w ${w}`, kept(w)]),
    // A useless vector side (each candidate's cosine swapped with another's): must not sink
    // the keyword ranking.
    ...[0.4].map((w): [string, Fusion] => [
      `new, w ${w}, vector side shuffled`,
      (c, ctx) => kept(w)(shuffledVectors(c), ctx),
    ]),
    ['first cut, w 0.4, vector side shuffled', (c, ctx) => firstCut(0.4)(shuffledVectors(c), ctx)],
    [
      'second cut, w 0.4, vector side shuffled',
      (c, ctx) => squaredFixed(0.4)(shuffledVectors(c), ctx),
    ],
    ['old, w 0.4, vector side shuffled', (c, ctx) => maxScaled(0.4)(shuffledVectors(c), ctx)],
  ];
  const byLabel = new Map<string, [EvalResult, EvalResult, EvalResult]>();
  const fusionRows = fusions.map(([label, fuse]) => {
    const out = candidateLists.map((c, i) =>
      fuse(c, { query: set.queries[i]!.text, documents: set.docs.length }).map((id) =>
        docIdOf.get(id)!,
      ),
    );
    const whole = scoreRankings(set, (_q, i) => out[i]!);
    const even = scoreRankings(half(0), (_q, i) => out[i * 2]!);
    const odd = scoreRankings(half(1), (_q, i) => out[i * 2 + 1]!);
    byLabel.set(label, [whole, even, odd]);
    return [
      label,
      whole.ndcg10.toFixed(3),
      whole.recall10.toFixed(3),
      whole.mrr10.toFixed(3),
      even.ndcg10.toFixed(3),
      odd.ndcg10.toFixed(3),
    ];
  });
  table(
    [
      'fusion (same candidates)',
      'nDCG@10',
      'recall@10',
      'MRR@10',
      'nDCG even half',
      'nDCG odd half',
    ],
    fusionRows,
  );
  store.close();
  const cell = (label: string) => {
    const [whole, even, odd] = byLabel.get(label)!;
    return `${whole.ndcg10.toFixed(3)} (${even.ndcg10.toFixed(3)}/${odd.ndcg10.toFixed(3)}) ${whole.mrr10.toFixed(3)}`;
  };
  summary.push([
    name,
    cell('keyword only'),
    cell('vector only'),
    cell(`first cut (before), w ${DEFAULT_WEIGHT}`),
    cell(`second cut (squared, fixed w), w ${DEFAULT_WEIGHT}`),
    cell(`new (kept), w ${DEFAULT_WEIGHT}`),
    cell(`new, w ${DEFAULT_WEIGHT}, vector side shuffled`),
    cell(`second cut, w ${DEFAULT_WEIGHT}, vector side shuffled`),
    `${hybrid.ndcg10.toFixed(3)} ${hybrid.mrr10.toFixed(3)}`,
  ]);
}

/** Each side's best this many enter the fusion tables (the service's own depth may differ). */
const CANDIDATE_DEPTH = 100;
const summary: string[][] = [];
for (const [name, load] of RELEVANCE_SETS) await evaluateSet(name, load());
console.log(
  `\n## Summary: nDCG@10 (even half/odd half) MRR@10, vector weight ${DEFAULT_WEIGHT}, same candidates\n`,
);
table(
  [
    'set',
    'keyword',
    'vector',
    'hybrid first cut',
    'hybrid second cut',
    'hybrid now (fuseScores)',
    'now, cosines shuffled',
    'second cut, shuffled',
    'hybrid through the service: nDCG MRR',
  ],
  summary,
);
console.log();
footer(started);
