import { describe, expect, it } from 'vitest';
import {
  MAX_QUERY_WORDS,
  ftsMatch,
  fuseScores,
  keywordStrength,
  type SearchCandidate,
} from './hybrid-search.js';

describe('ftsMatch', () => {
  it('ORs the distinct content words of a question, quoted', () => {
    expect(ftsMatch('Why does the Index grow? The index!', 'any')).toBe('"index" OR "grow"');
  });

  it('keeps stop words when nothing else is left', () => {
    expect(ftsMatch('what is the', 'any')).toBe('"what" OR "is" OR "the"');
  });

  it('ANDs every word, or quotes the phrase', () => {
    expect(ftsMatch('volcano erupt', 'all')).toBe('"volcano" "erupt"');
    expect(ftsMatch('calm, the events', 'phrase')).toBe('"calm the events"');
  });

  it('lets no FTS5 operator through and answers null when no word is left', () => {
    expect(ftsMatch('a* NEAR(b c) OR "d', 'any')).toBe('"near" OR "b" OR "c" OR "d"');
    expect(ftsMatch('"); DROP TABLE snippets; --', 'all')).toBe('"DROP" "TABLE" "snippets"');
    expect(ftsMatch('!!! ???', 'any')).toBeNull();
  });

  it(`keeps at most ${MAX_QUERY_WORDS} words`, () => {
    const words = Array.from({ length: 40 }, (_, i) => `w${i}`);
    expect(ftsMatch(words.join(' '), 'any')!.split(' OR ')).toHaveLength(MAX_QUERY_WORDS);
  });
});

describe('fuseScores', () => {
  const c = (id: number, keyword: number | null, vector: number | null): SearchCandidate => ({
    id,
    keyword,
    vector,
    foundBy: [],
  });
  // Two query words in a store of 10,000: a full match scores about 2 × ln(10,000) ≈ 18.
  const basis = { terms: 2, documents: 10_000 };
  const rank = (cands: SearchCandidate[], w = 0.4) =>
    fuseScores(cands, w, basis).map((r) => r.candidate.id);

  it('adds the absolute cosine to bm25 scaled by the best and by the keyword side strength', () => {
    const full = keywordStrength(20, basis);
    expect(full).toBe(1);
    const half = keywordStrength(0.375 * 2 * Math.log(10_000), basis);
    expect(half).toBeCloseTo(0.5);
    const r = fuseScores([c(1, 20, 0.2), c(2, 10, 0.8), c(3, null, 0.5)], 0.4, basis);
    expect(r.map((x) => x.candidate.id)).toEqual([1, 2, 3]);
    expect(r[0]!.score).toBeCloseTo(0.6 * 1 + 0.4 * 0.2);
    expect(r[1]!.score).toBeCloseTo(0.6 * 0.5 + 0.4 * 0.8);
    expect(r[2]!.score).toBeCloseTo(0.4 * 0.5);
    // A negative cosine counts as 0, a missing side as 0.
    expect(fuseScores([c(1, null, -0.3)], 0.4, basis)[0]!.score).toBe(0);
  });

  it('never lowers a candidate for a better score on either side (monotone)', () => {
    const base = [c(1, 12, 0.3), c(2, 8, 0.5), c(3, 4, 0.6), c(4, null, 0.55)];
    const scoreOf = (cands: SearchCandidate[], id: number) =>
      fuseScores(cands, 0.4, basis).find((r) => r.candidate.id === id)!.score;
    for (const id of [1, 2, 3, 4]) {
      const before = scoreOf(base, id);
      const i = id - 1;
      const moreKeyword = base.map((x, j) =>
        j === i ? { ...x, keyword: (x.keyword ?? 0) + 3 } : x,
      );
      const moreVector = base.map((x, j) => (j === i ? { ...x, vector: x.vector! + 0.1 } : x));
      expect(scoreOf(moreKeyword, id)).toBeGreaterThanOrEqual(before);
      expect(scoreOf(moreVector, id)).toBeGreaterThan(before);
    }
  });

  it('keeps a strong keyword ranking when the vector side is weak and flat', () => {
    // Keyword: clear matches of both words (strength 1), answer first. Vector: middling cosines
    // with the order turned around, as an embedder that does not know the field gives.
    // (Scaling the cosines by the best, as before, put the vector-only 5 above 4.)
    const cands = [c(1, 18, 0.3), c(2, 8, 0.31), c(3, 5, 0.32), c(4, 2, 0.33), c(5, null, 0.4)];
    expect(rank(cands)).toEqual([1, 2, 3, 4, 5]);
  });

  it('lets the cosine decide when the keyword side matched one stray word', () => {
    // Best bm25 1.5 of a full match's ~18: strength ~0.11; the vector side found the answer.
    const cands = [c(1, 1.5, 0.2), c(2, 1.2, 0.25), c(3, null, 0.7), c(4, null, 0.6)];
    expect(rank(cands)).toEqual([3, 4, 2, 1]);
  });

  it('is symmetric in the candidates: agreeing sides keep their order, ties go to the lower id', () => {
    const agree = [c(3, 9, 0.5), c(1, 18, 0.8), c(2, 12, 0.6)];
    expect(rank(agree)).toEqual([1, 2, 3]);
    expect(rank([...agree].reverse())).toEqual([1, 2, 3]);
    expect(rank([c(7, 10, 0.5), c(6, 10, 0.5)])).toEqual([6, 7]);
  });

  it('ranks by the cosine alone when no query word is in any snippet, by bm25 when no vectors', () => {
    expect(rank([c(1, null, 0.2), c(2, null, 0.6)])).toEqual([2, 1]);
    expect(rank([c(1, 4, null), c(2, 8, null)], 0.9)).toEqual([2, 1]);
  });
});
