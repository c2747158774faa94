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
 * The share of its full weight the keyword side gets: its best bm25 against what a match of
 * every query word would score. bm25 gives a word at most about idf × (k1 + 1) with idf ≤ ln N,
 * so `terms × ln N` is a fixed reference per query, not relative to the candidates found;
 * STRENGTH_REFERENCE (tuned on bench/relevance, "readme" and "eval") places "strong" at 3/4 of it.
 * A question whose best match holds one incidental word scores low here and lets the cosine decide.
 */
const STRENGTH_REFERENCE = 0.75;

export function keywordStrength(bestBm25: number, basis: KeywordBasis): number {
  const reference =
    STRENGTH_REFERENCE * Math.max(1, basis.terms) * Math.log(Math.max(3, basis.documents));
  return Math.min(1, Math.max(0, bestBm25) / reference);
}

/**
 * Hybrid ranking: (1 − w) × strength × bm25 / best bm25 + w × cosine, w = `vectorWeight`.
 * The cosine enters as it is (absolute, clamped at 0): a flat list of middling cosines from an
 * embedder that does not know the field stays flat, instead of being stretched to 0–1 and
 * pulling a good keyword ranking apart. bm25 has no fixed scale, so it is scaled by the best
 * candidate's, and the keyword side as a whole by its strength (keywordStrength): full weight
 * when the best match holds the query's words, little when it holds one stray word. Scores
 * are in 0–1 and only grow with either side's score.
 */
export function fuseScores(
  candidates: readonly SearchCandidate[],
  vectorWeight: number,
  basis: KeywordBasis,
): { candidate: SearchCandidate; score: number }[] {
  let best = 0;
  for (const c of candidates) if (c.keyword !== null && c.keyword > best) best = c.keyword;
  const keywordWeight = (1 - vectorWeight) * keywordStrength(best, basis);
  return candidates
    .map((candidate) => ({
      candidate,
      score:
        (best > 0 ? (keywordWeight * Math.max(0, candidate.keyword ?? 0)) / best : 0) +
        vectorWeight * Math.max(0, candidate.vector ?? 0),
    }))
    .sort((a, b) => b.score - a.score || a.candidate.id - b.candidate.id);
}
