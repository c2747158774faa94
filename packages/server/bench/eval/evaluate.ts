import { dot, embedInBatches, type Embedder } from '../../src/embedding/embedder.js';
import { EVAL_DOCS, type EvalDoc } from './eval-docs.js';
import { EVAL_QUERIES, type EvalQuery } from './eval-queries.js';

export type { EvalDoc } from './eval-docs.js';

/**
 * A query that may grade its relevant documents (2 = answers it fully, 1 = partly). Without
 * `grades`, or for a relevant id missing from it, the gain is 1; ids not in `relevant` gain 0.
 */
export interface GradedEvalQuery extends EvalQuery {
  grades?: Readonly<Record<string, number>>;
}

export interface EvalSet {
  docs: readonly EvalDoc[];
  queries: readonly GradedEvalQuery[];
}

/** Our own set: 184 short documents and 60 paraphrased queries (see eval-docs.ts). */
export const EVAL_SET: EvalSet = { docs: EVAL_DOCS, queries: EVAL_QUERIES };

export interface EvalResult {
  /** Mean over queries of 1 / rank of the first relevant document in the top 10 (0 if none). */
  mrr10: number;
  /** Mean over queries of the share of its relevant documents found in the top 10. */
  recall10: number;
  /**
   * Mean over queries of DCG@10 / ideal DCG@10, gains from `grades` (1 when ungraded), log2
   * discount; the ideal ranking is the query's labelled relevant documents by grade.
   */
  ndcg10: number;
}

/** Gain of `id` for `query`: its grade, 1 for an ungraded relevant id, 0 otherwise. */
function gainOf(query: GradedEvalQuery, id: string): number {
  if (!query.relevant.includes(id)) return 0;
  return query.grades?.[id] ?? 1;
}

/** NDCG@10 of one ranking (best first) for `query`; 0 when the query has no positive gain. */
function ndcgAt10(query: GradedEvalQuery, ranking: readonly string[]): number {
  const dcg = (gains: readonly number[]) =>
    gains.slice(0, 10).reduce((sum, g, i) => sum + g / Math.log2(i + 2), 0);
  const seen = new Set<string>();
  const gains = ranking.slice(0, 10).map((id) => {
    // A document listed twice earns its gain once.
    if (seen.has(id)) return 0;
    seen.add(id);
    return gainOf(query, id);
  });
  const ideal = dcg(
    [...new Set(query.relevant)].map((id) => gainOf(query, id)).sort((a, b) => b - a),
  );
  return ideal > 0 ? dcg(gains) / ideal : 0;
}

/** Scores a ranking function (best first) on the set; shared by the embedder and baselines. */
export function scoreRankings(
  set: EvalSet,
  rank: (query: GradedEvalQuery, index: number) => readonly string[],
): EvalResult {
  let mrr = 0;
  let recall = 0;
  let ndcg = 0;
  set.queries.forEach((q, qi) => {
    const top = rank(q, qi).slice(0, 10);
    ndcg += ndcgAt10(q, top);
    const relevant = new Set(q.relevant);
    const first = top.findIndex((id) => relevant.has(id));
    if (first >= 0) mrr += 1 / (first + 1);
    recall += top.filter((id) => relevant.has(id)).length / relevant.size;
  });
  const n = set.queries.length || 1;
  return { mrr10: mrr / n, recall10: recall / n, ndcg10: ndcg / n };
}

/**
 * MRR@10, recall@10 and NDCG@10 of `embedder` on `set`, by exact cosine search over all
 * documents.
 */
export async function evaluateMrr(
  embedder: Embedder,
  set: EvalSet = EVAL_SET,
): Promise<EvalResult> {
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
  return scoreRankings(set, (_q, qi) => {
    const qv = queryVectors[qi]!;
    return set.docs
      .map((d, di) => ({ id: d.id, score: dot(qv, docVectors[di]!) }))
      .sort((a, b) => b.score - a.score)
      .map((s) => s.id);
  });
}
