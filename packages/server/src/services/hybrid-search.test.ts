import { describe, expect, it } from 'vitest';
import { MAX_QUERY_WORDS, ftsMatch, fuseScores, type SearchCandidate } from './hybrid-search.js';

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

  it('ranks by the weighted sum of each side scaled by its best score', () => {
    const cands = [c(1, 10, 0.2), c(2, 5, 0.8), c(3, null, 0.4)];
    const at = (w: number) => fuseScores(cands, w).map((r) => [r.candidate.id, r.score]);
    expect(at(0)).toEqual([
      [1, 1],
      [2, 0.5],
      [3, 0],
    ]);
    expect(at(1)).toEqual([
      [2, 1],
      [3, 0.5],
      [1, 0.25],
    ]);
    const half = at(0.5);
    expect(half[0]).toEqual([2, 0.75]);
    expect(half[1]![0]).toBe(1);
    expect(half[1]![1]).toBeCloseTo(0.625);
  });

  it('clamps a negative cosine to 0; a side with no scores gives its weight to the other', () => {
    const r = fuseScores([c(1, null, -0.3), c(2, null, 0.6)], 0.5);
    expect(r.map((x) => [x.candidate.id, x.score])).toEqual([
      [2, 1],
      [1, 0],
    ]);
    const words = fuseScores([c(1, 4, null), c(2, 8, null)], 0.9);
    expect(words.map((x) => [x.candidate.id, x.score])).toEqual([
      [2, 1],
      [1, 0.5],
    ]);
  });
});
