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

function toDate(value: string | number | Date | null | undefined): Date | null {
  if (value === null || value === undefined || value === '') return null;
  const date = value instanceof Date ? value : new Date(value);
  return Number.isNaN(date.getTime()) ? null : date;
}

let zoneFormat: Intl.DateTimeFormat | null = null;
/** The viewer's zone at that date (summer time included), short: `UTC`, `CET`, `GMT+1`. */
function zoneName(date: Date): string {
  zoneFormat ??= new Intl.DateTimeFormat('en-US', { timeZoneName: 'short' });
  return zoneFormat.formatToParts(date).find((p) => p.type === 'timeZoneName')?.value ?? '';
}

/**
 * The one date format of the console (spec 000 §9, `MMM dd, yyyy HH:mm`) in the viewer's local
 * time, followed by its time zone: `Nov 22, 2026 13:05 CET`; with `seconds`, `13:05:09`.
 * Invalid or missing dates display as `-`.
 */
export function formatDate(
  value: string | number | Date | null | undefined,
  { seconds = false, zone = true }: { seconds?: boolean; zone?: boolean } = {},
): string {
  const date = toDate(value);
  if (!date) return EMPTY;
  const time =
    `${pad2(date.getHours())}:${pad2(date.getMinutes())}` +
    (seconds ? `:${pad2(date.getSeconds())}` : '');
  const day = `${MONTHS[date.getMonth()]} ${pad2(date.getDate())}, ${date.getFullYear()}`;
  const name = zone ? zoneName(date) : '';
  return name ? `${day} ${time} ${name}` : `${day} ${time}`;
}

/** The same instant in UTC to the second, `2026-11-22 12:05:09 UTC`: what a date shows on hover. */
export function formatUtc(value: string | number | Date | null | undefined): string {
  const date = toDate(value);
  if (!date) return EMPTY;
  return (
    `${date.getUTCFullYear()}-${pad2(date.getUTCMonth() + 1)}-${pad2(date.getUTCDate())} ` +
    `${pad2(date.getUTCHours())}:${pad2(date.getUTCMinutes())}:${pad2(date.getUTCSeconds())} UTC`
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
