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

/** How deep each side's ranking is compared when measuring their agreement. */
const AGREEMENT_DEPTH = 10;

/**
 * How much the two sides agree on this query, 0–1: the share of the keyword side's top 10 (by
 * bm25, among the candidates) that the vector side's top 10 (by cosine) also holds. 0 when either
 * side has no candidate.
 */
export function sideAgreement(candidates: readonly SearchCandidate[]): number {
  const top = (side: 'keyword' | 'vector') =>
    candidates
      .filter((c) => c[side] !== null)
      .sort((a, b) => b[side]! - a[side]! || a.id - b.id)
      .slice(0, AGREEMENT_DEPTH)
      .map((c) => c.id);
  const keyword = top('keyword');
  if (keyword.length === 0) return 0;
  const vector = new Set(top('vector'));
  return keyword.filter((id) => vector.has(id)).length / keyword.length;
}

/**
 * The cosine's weight for one query: `vectorWeight` × (0.5 + 1.5 × agreement), capped at 1 —
 * the setting's weight where the sides share a third of their top 10, half of it where they
 * share nothing, twice it where they share everything. An embedder that contradicts the keyword
 * side on a query is likely wrong there (a weak or unrelated model: with its cosines shuffled
 * the sides share 0.08–0.11 of their top 10 on bench/relevance's readme and eval sets, with the
 * real ones 0.35–0.43), so it loses its say on that query.
 */
export function agreedWeight(vectorWeight: number, agreement: number): number {
  return Math.min(1, Math.max(0, vectorWeight) * (0.5 + 1.5 * agreement));
}

/**
 * Hybrid ranking: (1 − wq) × (strength × bm25 / best bm25)² + wq × cosine, wq the cosine's
 * weight for this query (agreedWeight: `vectorWeight` moved by how much the sides agree).
 *
 * - The keyword evidence K = strength × bm25 / best is in 0–1: bm25 has no fixed scale, so it is
 *   scaled by the best candidate's, and the keyword side as a whole by its strength.
 * - K is squared: a soft gate. A full match (K near 1) keeps its whole weight and orders the
 *   top, while half-evidence (a stray word, a weaker candidate of a weak query) counts a quarter
 *   and leaves the order to the cosine — what wins on paraphrases.
 * - The cosine enters as it is (absolute, clamped at 0): a flat list of middling cosines from an
 *   embedder that does not know the field stays flat instead of being stretched to 0–1.
 * - The agreement weight (session 36, chosen on the even halves of bench/relevance's four sets by
 *   the worst margin over readme's keyword + 0.01, eval's better side and paraphrase's and
 *   short's vector side): readme nDCG@10 0.596 → 0.605 (keyword 0.588), and with the cosines
 *   shuffled 0.584 → 0.592, i.e. no longer below keyword; eval 0.622 → 0.617 (vector 0.605).
 *
 * Documented properties (fusion.test.ts): scores in 0–1; never lower for a better cosine, nor
 * for a better bm25 below the best where the agreement stays; no keyword evidence → the cosine
 * order; no vectors → the bm25 order; both sides agreeing → their order; the sides disagreeing
 * on a strong keyword query → the keyword side keeps its top.
 */
export function fuseScores(
  candidates: readonly SearchCandidate[],
  vectorWeight: number,
  basis: KeywordBasis,
): { candidate: SearchCandidate; score: number }[] {
  let best = 0;
  for (const c of candidates) if (c.keyword !== null && c.keyword > best) best = c.keyword;
  const scale = best > 0 ? keywordStrength(best, basis) / best : 0;
  const weight = agreedWeight(vectorWeight, sideAgreement(candidates));
  return candidates
    .map((candidate) => {
      const evidence = scale * Math.max(0, candidate.keyword ?? 0);
      return {
        candidate,
        score: (1 - weight) * evidence * evidence + weight * Math.max(0, candidate.vector ?? 0),
      };
    })
    .sort((a, b) => b.score - a.score || a.candidate.id - b.candidate.id);
}
