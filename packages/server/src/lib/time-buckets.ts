/**
 * Clock buckets keyed the way the store keys them: a prefix of an ISO UTC timestamp
 * (`2026-11-22T12:34` a minute, `2026-11-22T12` an hour, `2026-11-22` a day), so a bucket of a
 * row is `substr(created_at, 1, n)` in SQL and string order is time order.
 */
export type BucketUnit = 'minute' | 'hour' | 'day';

const UNIT_MS: Record<BucketUnit, number> = { minute: 60_000, hour: 3_600_000, day: 86_400_000 };
const KEY_LENGTH: Record<BucketUnit, number> = { minute: 16, hour: 13, day: 10 };

export const keyLength = (unit: BucketUnit): number => KEY_LENGTH[unit];

/** Start of the bucket holding `ms` (UTC; every unit divides a day evenly). */
export function floorTo(unit: BucketUnit, ms: number): number {
  return Math.floor(ms / UNIT_MS[unit]) * UNIT_MS[unit];
}

/** The store's key of the bucket starting at `ms`. */
export function bucketKey(unit: BucketUnit, ms: number): string {
  return new Date(ms).toISOString().slice(0, KEY_LENGTH[unit]);
}

/** The last `count` buckets up to the one holding `now` (included), oldest first. */
export function lastBuckets(
  unit: BucketUnit,
  count: number,
  now: number,
): { start: number; key: string; iso: string }[] {
  const last = floorTo(unit, now);
  return Array.from({ length: count }, (_, i) => {
    const start = last - (count - 1 - i) * UNIT_MS[unit];
    return { start, key: bucketKey(unit, start), iso: new Date(start).toISOString() };
  });
}

/**
 * Sums keyed rows into the given buckets (a row key may be finer than the bucket's: an hour
 * key counts towards its day), answering one value per bucket, 0 where nothing fell.
 */
export function fillBuckets(
  buckets: ReadonlyArray<{ key: string }>,
  rows: Iterable<{ key: string; n: number }>,
): number[] {
  const at = new Map(buckets.map((b, i) => [b.key, i]));
  const len = buckets[0]?.key.length ?? 0;
  const out = buckets.map(() => 0);
  for (const r of rows) {
    const i = at.get(r.key.slice(0, len));
    if (i !== undefined) out[i]! += r.n;
  }
  return out;
}
