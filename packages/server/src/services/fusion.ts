import type { SearchSide } from '@adam/contracts';

export interface SearchCandidate {
  id: number;
  /** bm25 relevance, higher is better; null when no query word is in the snippet. */
  keyword: number | null;
  /** Cosine similarity to the query; null when unknown. */
  vector: number | null;
  foundBy: SearchSide[];
}

/** What a query's bm25 is measured against: how many words it asks for, in how big a store. */
export interface KeywordBasis {
  /** Words of the MATCH expression (OR'ed). */
  terms: number;
  /** Snippets in the store (an estimate is enough: it enters through its logarithm). */
  documents: number;
}

/**
 * How strongly the keyword side matched, 0–1: its best bm25 against what a match of every query
 * word would score. bm25 gives a word at most about idf × (k1 + 1) with idf ≤ ln N, so
 * `terms × ln N` is a fixed reference per query, not relative to the candidates found;
 * STRENGTH_REFERENCE places "full" at half of it (tuned with the exponent below on
 * bench/relevance's sets, see fuseScores). A question whose best match holds one incidental word
 * scores low here.
 */
const STRENGTH_REFERENCE = 0.5;

export function keywordStrength(bestBm25: number, basis: KeywordBasis): number {
  const reference =
    STRENGTH_REFERENCE * Math.max(1, basis.terms) * Math.log(Math.max(3, basis.documents));
  return Math.min(1, Math.max(0, bestBm25) / reference);
}

/**
 * Hybrid ranking: (1 − w) × (strength × bm25 / best bm25)² + w × cosine, w = `vectorWeight`.
 *
 * - The keyword evidence K = strength × bm25 / best is in 0–1: bm25 has no fixed scale, so it is
 *   scaled by the best candidate's, and the keyword side as a whole by its strength.
 * - K is squared: a soft gate. A full match (K near 1) keeps its whole weight and orders the
 *   top, while half-evidence (a stray word, a weaker candidate of a weak query) counts a quarter
 *   and leaves the order to the cosine — what wins on paraphrases, where the keyword side's
 *   hits are incidental words. Against the linear K (the first cut of issue 25) it raised
 *   nDCG@10 on the paraphrase set from 0.313 to 0.387 and on "eval" from 0.614 to 0.622, at
 *   −0.005 on "readme", and hybrid beat the better side on every even and odd half of the three
 *   sets (bench/relevance.bench.ts).
 * - The cosine enters as it is (absolute, clamped at 0): a flat list of middling cosines from an
 *   embedder that does not know the field stays flat instead of being stretched to 0–1.
 *
 * Documented properties (fusion.test.ts): scores in 0–1, never lower for a better score on
 * either side; no keyword evidence (no query word in any candidate) → the cosine order; no
 * vectors → the bm25 order; both sides agreeing → their order.
 */
export function fuseScores(
  candidates: readonly SearchCandidate[],
  vectorWeight: number,
  basis: KeywordBasis,
): { candidate: SearchCandidate; score: number }[] {
  let best = 0;
  for (const c of candidates) if (c.keyword !== null && c.keyword > best) best = c.keyword;
  const scale = best > 0 ? keywordStrength(best, basis) / best : 0;
  return candidates
    .map((candidate) => {
      const evidence = scale * Math.max(0, candidate.keyword ?? 0);
      return {
        candidate,
        score:
          (1 - vectorWeight) * evidence * evidence +
          vectorWeight * Math.max(0, candidate.vector ?? 0),
      };
    })
    .sort((a, b) => b.score - a.score || a.candidate.id - b.candidate.id);
}
