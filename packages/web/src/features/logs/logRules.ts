/**
 * The logs screen's rules (spec 001 §5): duplicates (same timestamp and message) are dropped and
 * unparsable timestamps sort as zero. The server applies them to its pages; the console applies
 * them again to what it shows, because live lines are merged into page 1 on this side.
 */
import { LogEntry, type LogLevel } from '@adam/contracts';
import { formatDate } from '../../lib/format';

export type LogLevelFilter = 'all' | LogLevel;

/** The part of the filters a live line can be checked against (any range holds a new line). */
export interface LiveFilters {
  level: LogLevelFilter;
  q: string;
}

/** Badge colour of each level: the louder the level, the warmer the colour. */
export const LEVEL_COLORS: Record<LogLevel, string> = {
  debug: 'gray',
  info: 'blue',
  warning: 'orange',
  error: 'red',
};

/** Milliseconds since the epoch; an unparsable timestamp counts as zero (sorted last). */
export function logTime(timestamp: string): number {
  const time = Date.parse(timestamp);
  return Number.isNaN(time) ? 0 : time;
}

const identity = (entry: LogEntry) => `${entry.timestamp}\u0000${entry.message}`;

/** Drops later copies of a line with the same timestamp and message (the first one stays). */
export function dedupeLogs(entries: readonly LogEntry[]): LogEntry[] {
  const seen = new Set<string>();
  return entries.filter((entry) => {
    const key = identity(entry);
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

/** Newest first; equal times keep their order (the server's order within one millisecond). */
export function sortLogs(entries: readonly LogEntry[]): LogEntry[] {
  return [...entries].sort((a, b) => logTime(b.timestamp) - logTime(a.timestamp));
}

/** What a page shows: duplicates dropped, then newest first. */
export function normalizeLogs(entries: readonly LogEntry[]): LogEntry[] {
  return sortLogs(dedupeLogs(entries));
}

/**
 * Page 1 with the live lines received since it loaded: merged, at most `pageSize` rows. Lines
 * pushed past the page's end now belong to page 2, so `overflow` says a next page exists.
 */
export function mergeLive(
  live: readonly LogEntry[],
  page: readonly LogEntry[],
  pageSize: number,
): { rows: LogEntry[]; overflow: boolean } {
  const all = normalizeLogs([...live, ...page]);
  return { rows: all.slice(0, pageSize), overflow: all.length > pageSize };
}

/**
 * Whether a live line belongs to the list under these filters, as the server decides it: the
 * exact level, and the search text (case-insensitive) within the message or the component.
 */
export function matchesFilters(entry: LogEntry, filters: LiveFilters): boolean {
  if (filters.level !== 'all' && entry.level !== filters.level) return false;
  const q = filters.q.trim().toLowerCase();
  if (!q) return true;
  return entry.message.toLowerCase().includes(q) || entry.component.toLowerCase().includes(q);
}

/** A pushed `log_entry` as a list row; null when it does not have a row's shape. */
export function toLogEntry(message: {
  timestamp: string;
  level: string;
  component: string;
  message: string;
}): LogEntry | null {
  const parsed = LogEntry.safeParse({
    timestamp: message.timestamp,
    level: message.level,
    component: message.component,
    message: message.message,
  });
  return parsed.success ? parsed.data : null;
}

/**
 * The console's date format with seconds (lines of one burst differ by seconds), local time
 * and zone: `Mar 01, 2026 09:05:07 UTC`.
 * An unparsable timestamp is shown as the server sent it (or `-` when empty).
 */
export function formatLogTime(timestamp: string): string {
  const time = Date.parse(timestamp);
  if (Number.isNaN(time)) return timestamp.trim() || '-';
  return formatDate(time, { seconds: true });
}
