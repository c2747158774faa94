import { describe, expect, it } from 'vitest';
import type { LogEntry } from '@adam/contracts';
import {
  LEVEL_COLORS,
  dedupeLogs,
  formatLogTime,
  logTime,
  matchesFilters,
  mergeLive,
  normalizeLogs,
  sortLogs,
  toLogEntry,
} from './logRules';

const entry = (timestamp: string, message: string, extra: Partial<LogEntry> = {}): LogEntry => ({
  timestamp,
  level: 'info',
  component: 'server',
  message,
  ...extra,
});

describe('log rules (spec 001 §5)', () => {
  it('drops a line with the same timestamp and message as an earlier one, keeping the first', () => {
    const first = entry('2026-03-01T10:00:00.000Z', 'Job 4 queued', { component: 'jobs' });
    const copy = entry('2026-03-01T10:00:00.000Z', 'Job 4 queued', { component: 'other' });
    const sameTimeOtherMessage = entry('2026-03-01T10:00:00.000Z', 'Job 5 queued');
    const sameMessageOtherTime = entry('2026-03-01T10:00:01.000Z', 'Job 4 queued');
    expect(dedupeLogs([first, copy, sameTimeOtherMessage, sameMessageOtherTime])).toEqual([
      first,
      sameTimeOtherMessage,
      sameMessageOtherTime,
    ]);
  });

  it('reads an unparsable timestamp as zero', () => {
    expect(logTime('not a date')).toBe(0);
    expect(logTime('')).toBe(0);
    expect(logTime('1970-01-01T00:00:01.000Z')).toBe(1000);
  });

  it('sorts newest first with unparsable timestamps last (as zero), equal times in order', () => {
    const bad = entry('yesterday-ish', 'bad');
    const old = entry('2026-03-01T09:00:00.000Z', 'old');
    const newA = entry('2026-03-01T10:00:00.000Z', 'new a');
    const newB = entry('2026-03-01T10:00:00.000Z', 'new b');
    const epoch = entry('1970-01-01T00:00:00.000Z', 'epoch');
    const sorted = sortLogs([bad, old, newA, epoch, newB]);
    expect(sorted.map((e) => e.message)).toEqual(['new a', 'new b', 'old', 'bad', 'epoch']);
  });

  it('normalises by dropping duplicates and sorting', () => {
    const a = entry('2026-03-01T09:00:00.000Z', 'a');
    const b = entry('2026-03-01T10:00:00.000Z', 'b');
    expect(normalizeLogs([a, b, { ...a }]).map((e) => e.message)).toEqual(['b', 'a']);
  });
});

describe('live lines on page 1', () => {
  const page = Array.from({ length: 3 }, (_, i) =>
    entry(`2026-03-01T10:00:0${3 - i}.000Z`, `server ${i}`),
  );

  it('puts a newer live line on top and pushes the oldest line to the next page', () => {
    const live = [entry('2026-03-01T10:00:09.000Z', 'live')];
    const { rows, overflow } = mergeLive(live, page, 3);
    expect(rows.map((e) => e.message)).toEqual(['live', 'server 0', 'server 1']);
    expect(overflow).toBe(true);
  });

  it('shows a live line once when the reloaded page holds it too', () => {
    const live = [{ ...page[0]! }];
    const { rows, overflow } = mergeLive(live, page, 3);
    expect(rows.map((e) => e.message)).toEqual(['server 0', 'server 1', 'server 2']);
    expect(overflow).toBe(false);
  });

  it('matches the level exactly and the search in message or component, ignoring case', () => {
    const line = entry('2026-03-01T10:00:00.000Z', 'Failed login for Eve', {
      level: 'warning',
      component: 'auth',
    });
    expect(matchesFilters(line, { level: 'all', q: '' })).toBe(true);
    expect(matchesFilters(line, { level: 'warning', q: '' })).toBe(true);
    expect(matchesFilters(line, { level: 'error', q: '' })).toBe(false);
    expect(matchesFilters(line, { level: 'info', q: '' })).toBe(false);
    expect(matchesFilters(line, { level: 'all', q: 'failed LOGIN' })).toBe(true);
    expect(matchesFilters(line, { level: 'all', q: ' AUTH ' })).toBe(true);
    expect(matchesFilters(line, { level: 'all', q: 'logout' })).toBe(false);
  });

  it('turns a pushed log_entry into a row, and refuses one without a known level', () => {
    const pushed = { timestamp: 'T', level: 'error', component: 'http', message: 'boom' };
    expect(toLogEntry(pushed)).toEqual(pushed);
    expect(toLogEntry({ ...pushed, level: 'fatal' })).toBeNull();
  });
});

describe('display', () => {
  it('shows local time to the second, and an unparsable timestamp as sent', () => {
    const local = new Date(2026, 2, 1, 9, 5, 7);
    expect(formatLogTime(local.toISOString())).toMatch(/^Mar 01, 2026 09:05:07 \S+$/);
    expect(formatLogTime('garbage')).toBe('garbage');
    expect(formatLogTime('  ')).toBe('-');
  });

  it('gives each level its own badge colour, error red and warning orange', () => {
    expect(LEVEL_COLORS).toEqual({ debug: 'gray', info: 'blue', warning: 'orange', error: 'red' });
  });
});
