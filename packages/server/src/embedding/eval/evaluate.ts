import { dot, embedInBatches, type Embedder } from '../embedder.js';
import { EVAL_DOCS, type EvalDoc } from './eval-docs.js';
import { EVAL_QUERIES, type EvalQuery } from './eval-queries.js';

export type { EvalDoc } from './eval-docs.js';
export type { EvalQuery } from './eval-queries.js';

export interface EvalSet {
  docs: readonly EvalDoc[];
  queries: readonly EvalQuery[];
}

/** Our own set: 184 short documents and 60 paraphrased queries (see eval-docs.ts). */
export const EVAL_SET: EvalSet = { docs: EVAL_DOCS, queries: EVAL_QUERIES };

export interface EvalResult {
  /** Mean over queries of 1 / rank of the first relevant document in the top 10 (0 if none). */
  mrr10: number;
  /** Mean over queries of the share of its relevant documents found in the top 10. */
  recall10: number;
}

/** Scores a ranking function (best first) on the set; shared by the embedder and baselines. */
export function scoreRankings(
  set: EvalSet,
  rank: (query: EvalQuery, index: number) => readonly string[],
): EvalResult {
  let mrr = 0;
  let recall = 0;
  set.queries.forEach((q, qi) => {
    const top = rank(q, qi).slice(0, 10);
    const relevant = new Set(q.relevant);
    const first = top.findIndex((id) => relevant.has(id));
    if (first >= 0) mrr += 1 / (first + 1);
    recall += top.filter((id) => relevant.has(id)).length / relevant.size;
  });
  const n = set.queries.length || 1;
  return { mrr10: mrr / n, recall10: recall / n };
}

/** MRR@10 and recall@10 of `embedder` on `set`, by exact cosine search over all documents. */
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
