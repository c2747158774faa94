/** Display formatters shared by every screen (spec 000 §5 display rule, §9 date and byte formats). */

const EMPTY = '-';

function isFiniteNumber(value: unknown): value is number {
  return typeof value === 'number' && Number.isFinite(value);
}

/** A number with thousands separators; non-finite values (and non-numbers) display as `-`. */
export function formatNumber(value: number | null | undefined, fractionDigits?: number): string {
  if (!isFiniteNumber(value)) return EMPTY;
  return value.toLocaleString('en-US', {
    minimumFractionDigits: fractionDigits ?? 0,
    maximumFractionDigits: fractionDigits ?? 2,
  });
}

/** A listing's total: `≈ 170,000` when the server estimated it rather than counted it. */
export function formatTotal(total: number, exact = true): string {
  return exact ? formatNumber(total) : `≈ ${formatNumber(total)}`;
}

/** `value / total` as a percentage for bars: capped at 100, and 0 when total is 0 or non-finite. */
export function ratioPercent(
  value: number | null | undefined,
  total: number | null | undefined,
): number {
  if (!isFiniteNumber(total) || total === 0 || !isFiniteNumber(value)) return 0;
  const percent = (value / total) * 100;
  return Math.min(100, Math.max(0, percent));
}

/** A percentage figure, e.g. `42.5%`; non-finite values display as `-`. */
export function formatPercent(value: number | null | undefined, fractionDigits = 1): string {
  if (!isFiniteNumber(value)) return EMPTY;
  return `${value.toFixed(fractionDigits)}%`;
}

const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];
const pad2 = (n: number) => String(n).padStart(2, '0');

/** `MMM dd, yyyy HH:mm` in local time, e.g. `Nov 22, 2026 13:05`; invalid dates display as `-`. */
export function formatDate(value: string | number | Date | null | undefined): string {
  if (value === null || value === undefined || value === '') return EMPTY;
  const date = value instanceof Date ? value : new Date(value);
  if (Number.isNaN(date.getTime())) return EMPTY;
  return (
    `${MONTHS[date.getMonth()]} ${pad2(date.getDate())}, ${date.getFullYear()} ` +
    `${pad2(date.getHours())}:${pad2(date.getMinutes())}`
  );
}

const BYTE_UNITS = ['B', 'KB', 'MB', 'GB', 'TB'] as const;

/** Bytes in binary steps of 1024 up to TB, e.g. `1.5 KB`; TB is the largest unit. */
export function formatBytes(bytes: number | null | undefined, fractionDigits = 1): string {
  if (!isFiniteNumber(bytes)) return EMPTY;
  const sign = bytes < 0 ? '-' : '';
  let value = Math.abs(bytes);
  let unit = 0;
  while (value >= 1024 && unit < BYTE_UNITS.length - 1) {
    value /= 1024;
    unit += 1;
  }
  const text = unit === 0 ? String(Math.round(value)) : value.toFixed(fractionDigits);
  // Drop a trailing `.0` so round values read `2 MB`, not `2.0 MB`.
  return `${sign}${text.replace(/\.0+$/, '')} ${BYTE_UNITS[unit]}`;
}
