/** A time relative to now, for sync columns: `in 5 min`, `3 h ago`; the absolute date goes in a tooltip. */

const EMPTY = '-';

const STEPS: readonly [limitSeconds: number, unitSeconds: number, unit: string][] = [
  [60 * 60, 60, 'min'],
  [24 * 60 * 60, 60 * 60, 'h'],
  [Infinity, 24 * 60 * 60, 'd'],
];

/** `now` is injectable so tests do not depend on the clock; invalid dates display as `-`. */
export function formatRelative(
  value: string | number | Date | null | undefined,
  now: number = Date.now(),
): string {
  if (value === null || value === undefined || value === '') return EMPTY;
  const time = (value instanceof Date ? value : new Date(value)).getTime();
  if (Number.isNaN(time)) return EMPTY;
  const seconds = Math.round((time - now) / 1000);
  const abs = Math.abs(seconds);
  if (abs < 60) return seconds >= 0 ? 'in less than a minute' : 'just now';
  for (const [limit, unitSeconds, unit] of STEPS) {
    if (abs < limit) {
      const n = Math.floor(abs / unitSeconds);
      return seconds >= 0 ? `in ${n} ${unit}` : `${n} ${unit} ago`;
    }
  }
  return EMPTY;
}
