/**
 * Percentile by linear interpolation between the closest ranks (the spreadsheet and numpy
 * default), so p50 of an even count is the mean of the middle two. Null without values.
 */
export function percentile(values: readonly number[], p: number): number | null {
  if (values.length === 0) return null;
  const sorted = [...values].sort((a, b) => a - b);
  const rank = (Math.min(100, Math.max(0, p)) / 100) * (sorted.length - 1);
  const lo = Math.floor(rank);
  const hi = Math.ceil(rank);
  return sorted[lo]! + (sorted[hi]! - sorted[lo]!) * (rank - lo);
}

/** Shannon entropy of the counts divided by its maximum over `outcomes` outcomes: 0–1. */
export function normalizedEntropy(counts: readonly number[], outcomes = counts.length): number {
  const total = counts.reduce((a, b) => a + b, 0);
  if (total <= 0 || outcomes < 2) return 0;
  let h = 0;
  for (const c of counts) if (c > 0) h -= (c / total) * Math.log(c / total);
  return h / Math.log(outcomes);
}

export const roundTo = (n: number, digits: number): number => {
  const f = 10 ** digits;
  return Math.round(n * f) / f;
};
