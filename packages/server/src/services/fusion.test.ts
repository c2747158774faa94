import { describe, expect, it } from 'vitest';
import { rng } from '../../test/fixtures/seeded-random.js';
import {
  agreedWeight,
  fuseScores,
  keywordStrength,
  sideAgreement,
  type SearchCandidate,
} from './fusion.js';

const c = (id: number, keyword: number | null, vector: number | null): SearchCandidate => ({
  id,
  keyword,
  vector,
  foundBy: [],
});
// Two query words in a store of 10,000: the reference is 0.5 × 2 × ln(10,000) ≈ 9.2.
const basis = { terms: 2, documents: 10_000 };
const reference = 0.5 * 2 * Math.log(10_000);
const rank = (cands: SearchCandidate[], w = 0.4) =>
  fuseScores(cands, w, basis).map((r) => r.candidate.id);

/** Random candidate lists from a seeded generator: some with one side missing. */
function randomLists(seed: number, count: number): SearchCandidate[][] {
  const next = rng(seed);
  return Array.from({ length: count }, () =>
    Array.from({ length: 2 + Math.floor(next() * 30) }, (_, id) =>
      c(id, next() < 0.2 ? null : next() * 25, next() < 0.1 ? null : next() * 1.2 - 0.2),
    ),
  );
}

describe('keywordStrength', () => {
  it('is the best bm25 against terms × ln N × 0.5, capped at 1', () => {
    expect(keywordStrength(reference * 2, basis)).toBe(1);
    expect(keywordStrength(reference / 2, basis)).toBeCloseTo(0.5);
    expect(keywordStrength(0, basis)).toBe(0);
  });
});

describe('sideAgreement and agreedWeight', () => {
  it('is the share of the keyword top 10 that the vector top 10 holds', () => {
    // Keyword top 10: 1..10 (11, 12 below them). Vector top 10: 1..4 and 21..26.
    const list = [
      ...Array.from({ length: 12 }, (_, i) => c(i + 1, 100 - i, i < 4 ? 0.9 - i / 100 : 0.1)),
      ...Array.from({ length: 6 }, (_, i) => c(21 + i, null, 0.8 - i / 100)),
    ];
    expect(sideAgreement(list)).toBeCloseTo(0.4);
    expect(sideAgreement(list.map((x) => ({ ...x, keyword: null })))).toBe(0);
    expect(sideAgreement(list.map((x) => ({ ...x, vector: null })))).toBe(0);
    // Fewer than 10 keyword candidates: the share of those.
    expect(sideAgreement([c(1, 5, 0.9), c(2, 4, null), c(3, null, 0.8)])).toBe(0.5);
  });

  it('halves the weight with no agreement, doubles it with full agreement, caps it at 1', () => {
    expect(agreedWeight(0.4, 0)).toBeCloseTo(0.2);
    expect(agreedWeight(0.4, 1 / 3)).toBeCloseTo(0.4);
    expect(agreedWeight(0.4, 1)).toBeCloseTo(0.8);
    expect(agreedWeight(0.9, 1)).toBe(1);
    expect(agreedWeight(0, 1)).toBe(0);
  });
});

describe('fuseScores: (1 − wq) × (strength × bm25 / best)² + wq × cosine', () => {
  it('computes the documented formula', () => {
    // Best bm25 = half the reference: strength 0.5, so the best candidate's evidence is 0.5.
    // Both keyword candidates are in the vector top 10: agreement 1, wq = 2 × 0.4.
    const best = reference / 2;
    const r = fuseScores([c(1, best, 0.2), c(2, best / 2, 0.8), c(3, null, 0.5)], 0.4, basis);
    const byId = new Map(r.map((x) => [x.candidate.id, x.score]));
    expect(byId.get(1)).toBeCloseTo(0.2 * 0.5 ** 2 + 0.8 * 0.2);
    expect(byId.get(2)).toBeCloseTo(0.2 * 0.25 ** 2 + 0.8 * 0.8);
    expect(byId.get(3)).toBeCloseTo(0.8 * 0.5);
    // No agreement (2's cosine unknown, 1 not in... the vector top is 3 alone): wq = 0.4 / 2.
    const r2 = fuseScores([c(1, best, null), c(2, best / 2, null), c(3, null, 0.5)], 0.4, basis);
    const byId2 = new Map(r2.map((x) => [x.candidate.id, x.score]));
    expect(byId2.get(1)).toBeCloseTo(0.8 * 0.5 ** 2);
    expect(byId2.get(3)).toBeCloseTo(0.2 * 0.5);
    // A negative cosine counts as 0, a missing side as 0.
    expect(fuseScores([c(1, null, -0.3)], 0.4, basis)[0]!.score).toBe(0);
  });

  it('squares the keyword evidence: half of the best counts a quarter against the cosine', () => {
    // Strong query (strength 1), the sides in full agreement, w 0.2 so that wq = 0.4. 2 holds
    // half the best bm25 and a middling cosine; 3 no query word but a better cosine. Linear
    // evidence (0.6 × 0.5 + 0.4 × 0.3 = 0.42) would keep 2 above 3 (0.4 × 0.7 = 0.28);
    // squared it is 0.6 × 0.25 + 0.12 = 0.27.
    const full = reference * 1.5;
    expect(rank([c(1, full, 0.3), c(2, full / 2, 0.3), c(3, null, 0.7)], 0.2)).toEqual([1, 3, 2]);
  });

  it('keeps the keyword top of a strong query that the vector side contradicts', () => {
    // Strength 1; the vector side's top 10 are ten other snippets (agreement 0, wq 0.2). At
    // the plain weight 0.4 (no agreement term) the vector-only 11 (0.4 × 0.7 = 0.28) would pass
    // 5 (0.6 × 0.5² + 0.4 × 0.3 = 0.27).
    const full = reference * 1.5;
    const cands = [
      ...[1, 0.8, 0.65, 0.55, 0.5].map((f, i) => c(i + 1, full * f, 0.3)),
      ...Array.from({ length: 10 }, (_, i) => c(11 + i, null, 0.7)),
    ];
    expect(rank(cands).slice(0, 5)).toEqual([1, 2, 3, 4, 5]);
    // Sides in full agreement (both top lists are 1 and 2): wq = 0.8, and the cosine reorders
    // two clear matches (at the plain 0.4, 1 stays first: 0.8 against 0.744).
    expect(rank([c(1, full, 0.5), c(2, full * 0.8, 0.9)])).toEqual([2, 1]);
  });

  it('keeps scores in 0–1 and, where the agreement stays, never lowers a candidate for a better score', () => {
    for (const list of randomLists(7, 200)) {
      const before = new Map(fuseScores(list, 0.4, basis).map((r) => [r.candidate.id, r.score]));
      for (const s of before.values()) {
        expect(s).toBeGreaterThanOrEqual(0);
        expect(s).toBeLessThanOrEqual(1);
      }
      const i = list.length - 1;
      // A better score can move the candidate into a side's top 10 and so change the query's
      // weight (the agreement): the property holds for a fixed agreement.
      const up = (patch: Partial<SearchCandidate>) => {
        const changed = list.map((x, j) => (j === i ? { ...x, ...patch } : x));
        if (sideAgreement(changed) !== sideAgreement(list)) return Infinity;
        return fuseScores(changed, 0.4, basis).find((r) => r.candidate.id === i)!.score;
      };
      const x = list[i]!;
      // Raising a candidate's bm25 below the best keeps the scale, so its score cannot drop.
      const best = Math.max(0, ...list.map((y) => y.keyword ?? 0));
      if ((x.keyword ?? 0) + 1 <= best)
        expect(up({ keyword: (x.keyword ?? 0) + 1 })).toBeGreaterThanOrEqual(before.get(i)!);
      expect(up({ vector: Math.max(0, x.vector ?? 0) + 0.1 })).toBeGreaterThan(before.get(i)!);
    }
  });

  it('ranks exactly as the vector side when there is no keyword evidence', () => {
    for (const list of randomLists(11, 100)) {
      const noWords = list.map((x) => ({ ...x, keyword: null }));
      const byCosine = [...noWords]
        .sort((a, b) => Math.max(0, b.vector ?? 0) - Math.max(0, a.vector ?? 0) || a.id - b.id)
        .map((x) => x.id);
      expect(rank(noWords)).toEqual(byCosine);
    }
  });

  it('ranks exactly as the keyword side when no candidate has a vector', () => {
    for (const list of randomLists(13, 100)) {
      const noVectors = list.map((x) => ({ ...x, vector: null }));
      const byBm25 = [...noVectors]
        .sort((a, b) => Math.max(0, b.keyword ?? 0) - Math.max(0, a.keyword ?? 0) || a.id - b.id)
        .map((x) => x.id);
      expect(rank(noVectors, 0.9)).toEqual(byBm25);
    }
  });

  it('keeps the order both sides agree on, whatever the weight and strength', () => {
    for (const list of randomLists(17, 100)) {
      // The same order on both sides: bm25 an increasing function of the cosine.
      const agree = list.map((x) => {
        const v = Math.abs(x.vector ?? 0.1);
        return { ...x, vector: v, keyword: 3 * v + v * v };
      });
      const order = [...agree].sort((a, b) => b.vector - a.vector || a.id - b.id).map((x) => x.id);
      for (const w of [0.1, 0.4, 0.9]) expect(rank(agree, w)).toEqual(order);
    }
  });

  it('lets the cosine decide when the keyword side matched one stray word', () => {
    // Best bm25 1.5 of a reference ~9.2: strength ~0.16; the vector side found the answer.
    const cands = [c(1, 1.5, 0.2), c(2, 1.2, 0.25), c(3, null, 0.7), c(4, null, 0.6)];
    expect(rank(cands)).toEqual([3, 4, 2, 1]);
  });

  it('keeps the clear keyword matches on top when the vector side is weak and flat', () => {
    // Keyword: clear matches of both words (strength 1). Vector: middling cosines in the
    // reverse order, as an embedder that does not know the field gives. (Scaling the cosines
    // by the best, as before issue 25, put the vector-only 5 first.)
    const cands = [c(1, 18, 0.3), c(2, 14, 0.31), c(3, 11, 0.32), c(4, 2, 0.33), c(5, null, 0.4)];
    expect(rank(cands).slice(0, 3)).toEqual([1, 2, 3]);
  });

  it('is symmetric in the candidates: ties go to the lower id', () => {
    const agree = [c(3, 9, 0.5), c(1, 18, 0.8), c(2, 12, 0.6)];
    expect(rank(agree)).toEqual([1, 2, 3]);
    expect(rank([...agree].reverse())).toEqual([1, 2, 3]);
    expect(rank([c(7, 10, 0.5), c(6, 10, 0.5)])).toEqual([6, 7]);
  });
});
