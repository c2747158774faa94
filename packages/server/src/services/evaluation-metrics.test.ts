import { describe, expect, it } from 'vitest';
import {
  hasRelevant,
  meanMetrics,
  ndcgAt,
  percentile,
  queryMetrics,
  recallAt,
  reciprocalRank,
} from './evaluation-metrics.js';

const grades = (o: Record<string, number>) => new Map(Object.entries(o));

describe('nDCG@10', () => {
  it('uses the grade as gain with a log2 discount, against the ideal of every judgment', () => {
    // DCG = 2/log2(2) + 0 + 3/log2(4) = 3.5; IDCG = 3 + 2/log2(3) + 1/log2(4) = 4.7618595
    const m = queryMetrics(['b', 'x', 'a'], grades({ a: 3, b: 2, c: 1 }));
    expect(m.ndcg_10).toBeCloseTo(3.5 / 4.7618595, 6);
    expect(m.recall_10).toBeCloseTo(2 / 3, 10);
    expect(m.mrr).toBe(1);
  });

  it('scores 1 whichever of two equally graded results comes first (ties)', () => {
    const g = grades({ a: 2, b: 2 });
    expect(ndcgAt(['a', 'b'], g, 10)).toBeCloseTo(1, 10);
    expect(ndcgAt(['b', 'a'], g, 10)).toBeCloseTo(1, 10);
  });

  it('counts a unit once: a second snippet of a judged source gains nothing', () => {
    // DCG = 2 + 0 + 2/log2(4) = 3; IDCG = 2 + 2/log2(3) = 3.2618595
    expect(ndcgAt(['a', 'a', 'b'], grades({ a: 2, b: 2 }), 10)).toBeCloseTo(3 / 3.2618595, 6);
  });

  it('ignores what lies past k', () => {
    const ranked = [...Array.from({ length: 10 }, () => null), 'a'];
    expect(ndcgAt(ranked, grades({ a: 3 }), 10)).toBe(0);
    expect(recallAt(ranked, grades({ a: 3 }), 10)).toBe(0);
    expect(recallAt(ranked, grades({ a: 3 }), 100)).toBe(1);
  });
});

describe('fewer results than k', () => {
  it('scores the results there are', () => {
    const m = queryMetrics([null, 'a'], grades({ a: 1 }));
    expect(m.ndcg_10).toBeCloseTo(1 / Math.log2(3), 10);
    expect(m.recall_10).toBe(1);
    expect(m.recall_100).toBe(1);
    expect(m.mrr).toBe(0.5);
  });

  it('scores 0 for no results at all', () => {
    expect(queryMetrics([], grades({ a: 1 }))).toEqual({
      ndcg_10: 0,
      recall_10: 0,
      recall_100: 0,
      mrr: 0,
    });
  });
});

describe('no relevant judgments', () => {
  it('scores 0 rather than dividing by zero, and is not counted as scorable', () => {
    const g = grades({ a: 0 });
    expect(queryMetrics(['a'], g)).toEqual({ ndcg_10: 0, recall_10: 0, recall_100: 0, mrr: 0 });
    expect(hasRelevant(g)).toBe(false);
    expect(hasRelevant(grades({}))).toBe(false);
    expect(hasRelevant(grades({ a: 1 }))).toBe(true);
  });

  it('skips a result judged 0 for the reciprocal rank', () => {
    expect(reciprocalRank(['z', 'a'], grades({ z: 0, a: 1 }))).toBe(0.5);
  });
});

describe('summaries', () => {
  it('takes the nearest-rank percentile', () => {
    expect(percentile([5, 1, 3, 2, 4], 50)).toBe(3);
    expect(percentile([5, 1, 3, 2, 4], 95)).toBe(5);
    expect(
      percentile(
        Array.from({ length: 20 }, (_, i) => i + 1),
        95,
      ),
    ).toBe(19);
    expect(percentile([], 50)).toBe(0);
  });

  it('averages each metric', () => {
    expect(
      meanMetrics([
        { ndcg_10: 1, recall_10: 0.5, recall_100: 1, mrr: 1 },
        { ndcg_10: 0, recall_10: 0, recall_100: 0.5, mrr: 0.5 },
      ]),
    ).toEqual({ ndcg_10: 0.5, recall_10: 0.25, recall_100: 0.75, mrr: 0.75 });
  });
});
