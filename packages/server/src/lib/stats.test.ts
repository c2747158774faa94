import { describe, expect, it } from 'vitest';
import { normalizedEntropy, percentile } from './stats.js';

describe('percentile', () => {
  it('interpolates between the closest ranks, whatever the input order', () => {
    const v = [10, 1, 9, 2, 8, 3, 7, 4, 6, 5];
    expect(percentile(v, 50)).toBe(5.5);
    expect(percentile(v, 95)).toBeCloseTo(9.55, 10);
    expect(percentile(v, 0)).toBe(1);
    expect(percentile(v, 100)).toBe(10);
    expect(v[0]).toBe(10); // the input is left as it was
  });

  it('answers the value itself for one value and null for none', () => {
    expect(percentile([4.2], 95)).toBe(4.2);
    expect(percentile([], 50)).toBeNull();
  });
});

describe('normalizedEntropy', () => {
  it('is 0 for one outcome, 1 for all equal, in between otherwise', () => {
    expect(normalizedEntropy([5, 0, 0, 0])).toBe(0);
    expect(normalizedEntropy([3, 3, 3, 3])).toBeCloseTo(1, 12);
    const mid = normalizedEntropy([6, 2, 0, 0]);
    expect(mid).toBeGreaterThan(0);
    expect(mid).toBeLessThan(1);
  });

  it('measures against the number of possible outcomes, not only those seen', () => {
    expect(normalizedEntropy([1, 1], 8)).toBeCloseTo(Math.log(2) / Math.log(8), 12);
    expect(normalizedEntropy([0, 0, 0])).toBe(0);
  });
});
