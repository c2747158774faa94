/**
 * Retrieval metrics of one ranked list against graded judgments, and their summaries. Pure: the
 * run feeds it what each result counts as, so nothing here knows about snippets or sources.
 *
 * A result is the judged unit it counts as (a snippet's own judgment, or its source's), or null.
 * A unit counts once, at its best rank: a source judged relevant is one relevant document
 * however many of its snippets come back (as in BEIR, where a document is the unit).
 */

export interface Metrics {
  ndcg_10: number;
  recall_10: number;
  recall_100: number;
  mrr: number;
}

/** Grades ≥ this are relevant (recall, MRR); nDCG uses the grade itself as the gain. */
const RELEVANT_GRADE = 1;

/** Each rank's gain, each unit once (its first rank); 0 for an unjudged or repeated unit. */
function gains(ranked: readonly (string | null)[], grades: ReadonlyMap<string, number>): number[] {
  const seen = new Set<string>();
  return ranked.map((unit) => {
    if (unit === null || seen.has(unit)) return 0;
    seen.add(unit);
    return grades.get(unit) ?? 0;
  });
}

function dcg(gainsInOrder: readonly number[], k: number): number {
  let sum = 0;
  const n = Math.min(k, gainsInOrder.length);
  for (let i = 0; i < n; i++) sum += gainsInOrder[i]! / Math.log2(i + 2);
  return sum;
}

/** nDCG@k with graded gains and a log2 discount; the ideal ranks every judgment by grade. */
export function ndcgAt(
  ranked: readonly (string | null)[],
  grades: ReadonlyMap<string, number>,
  k: number,
): number {
  const ideal = dcg(
    [...grades.values()].filter((g) => g > 0).sort((a, b) => b - a),
    k,
  );
  return ideal === 0 ? 0 : dcg(gains(ranked, grades), k) / ideal;
}

/** Share of the relevant units found in the top k (0 when there are none). */
export function recallAt(
  ranked: readonly (string | null)[],
  grades: ReadonlyMap<string, number>,
  k: number,
): number {
  let relevant = 0;
  for (const g of grades.values()) if (g >= RELEVANT_GRADE) relevant++;
  if (relevant === 0) return 0;
  const found = new Set<string>();
  for (const unit of ranked.slice(0, k))
    if (unit !== null && (grades.get(unit) ?? 0) >= RELEVANT_GRADE) found.add(unit);
  return found.size / relevant;
}

/** 1 / the rank of the first relevant result (0 when none came back). */
export function reciprocalRank(
  ranked: readonly (string | null)[],
  grades: ReadonlyMap<string, number>,
): number {
  const i = ranked.findIndex((u) => u !== null && (grades.get(u) ?? 0) >= RELEVANT_GRADE);
  return i < 0 ? 0 : 1 / (i + 1);
}

export function queryMetrics(
  ranked: readonly (string | null)[],
  grades: ReadonlyMap<string, number>,
): Metrics {
  return {
    ndcg_10: ndcgAt(ranked, grades, 10),
    recall_10: recallAt(ranked, grades, 10),
    recall_100: recallAt(ranked, grades, 100),
    mrr: reciprocalRank(ranked, grades),
  };
}

/** Whether a query can be scored: a query with nothing relevant would only add zeros. */
export function hasRelevant(grades: ReadonlyMap<string, number>): boolean {
  for (const g of grades.values()) if (g >= RELEVANT_GRADE) return true;
  return false;
}

/** The mean of each metric (zeros for no queries). */
export function meanMetrics(all: readonly Metrics[]): Metrics {
  const sum: Metrics = { ndcg_10: 0, recall_10: 0, recall_100: 0, mrr: 0 };
  for (const m of all) {
    sum.ndcg_10 += m.ndcg_10;
    sum.recall_10 += m.recall_10;
    sum.recall_100 += m.recall_100;
    sum.mrr += m.mrr;
  }
  const n = all.length || 1;
  return {
    ndcg_10: sum.ndcg_10 / n,
    recall_10: sum.recall_10 / n,
    recall_100: sum.recall_100 / n,
    mrr: sum.mrr / n,
  };
}

/** The nearest-rank percentile (p in 0–100) of the values; 0 for none. */
export function percentile(values: readonly number[], p: number): number {
  if (values.length === 0) return 0;
  const sorted = [...values].sort((a, b) => a - b);
  const rank = Math.ceil((p / 100) * sorted.length);
  return sorted[Math.min(sorted.length, Math.max(1, rank)) - 1]!;
}

export function subtract(a: Metrics, b: Metrics): Metrics {
  return {
    ndcg_10: a.ndcg_10 - b.ndcg_10,
    recall_10: a.recall_10 - b.recall_10,
    recall_100: a.recall_100 - b.recall_100,
    mrr: a.mrr - b.mrr,
  };
}
