import { describe, expect, it } from 'vitest';
import {
  formatBytes,
  formatDate,
  formatNumber,
  formatPercent,
  formatUtc,
  ratioPercent,
} from './format';

describe('formatNumber', () => {
  it('groups thousands', () => {
    expect(formatNumber(1234567)).toBe('1,234,567');
    expect(formatNumber(0.123456)).toBe('0.12');
    expect(formatNumber(3, 1)).toBe('3.0');
  });

  it('shows - for non-finite values', () => {
    expect(formatNumber(Number.NaN)).toBe('-');
    expect(formatNumber(Number.POSITIVE_INFINITY)).toBe('-');
    expect(formatNumber(Number.NEGATIVE_INFINITY)).toBe('-');
    expect(formatNumber(null)).toBe('-');
    expect(formatNumber(undefined)).toBe('-');
  });
});

describe('ratioPercent', () => {
  it('is the share of the total in percent', () => {
    expect(ratioPercent(25, 100)).toBe(25);
    expect(ratioPercent(1, 3)).toBeCloseTo(33.333, 2);
  });

  it('caps at 100%', () => {
    expect(ratioPercent(150, 100)).toBe(100);
  });

  it('is 0 when the denominator is 0 or non-finite', () => {
    expect(ratioPercent(5, 0)).toBe(0);
    expect(ratioPercent(5, Number.NaN)).toBe(0);
    expect(ratioPercent(5, Number.POSITIVE_INFINITY)).toBe(0);
    expect(ratioPercent(5, undefined)).toBe(0);
    expect(ratioPercent(Number.NaN, 10)).toBe(0);
  });
});

describe('formatPercent', () => {
  it('shows one decimal by default and - for non-finite', () => {
    expect(formatPercent(42.26)).toBe('42.3%');
    expect(formatPercent(Number.NaN)).toBe('-');
  });
});

describe('formatDate', () => {
  // The viewer's zone as Intl names it for that date (the tests run in any zone).
  const zone = (d: Date) =>
    new Intl.DateTimeFormat('en-US', { timeZoneName: 'short' })
      .formatToParts(d)
      .find((p) => p.type === 'timeZoneName')!.value;

  it('uses MMM dd, yyyy HH:mm in local time, followed by the time zone', () => {
    const a = new Date(2026, 10, 22, 13, 5);
    expect(formatDate(a)).toBe(`Nov 22, 2026 13:05 ${zone(a)}`);
    expect(zone(a)).toMatch(/^(UTC|GMT[+-]\d{1,2}(:\d\d)?|[A-Z]{2,5})$/);
    const b = new Date(2024, 0, 3, 7, 9, 4);
    expect(formatDate(b)).toBe(`Jan 03, 2024 07:09 ${zone(b)}`);
    expect(formatDate(b, { seconds: true })).toBe(`Jan 03, 2024 07:09:04 ${zone(b)}`);
    expect(formatDate(b, { zone: false })).toBe('Jan 03, 2024 07:09');
  });

  it('accepts ISO strings and epoch milliseconds', () => {
    const date = new Date(2025, 5, 1, 23, 59);
    expect(formatDate(date.toISOString())).toBe(`Jun 01, 2025 23:59 ${zone(date)}`);
    expect(formatDate(date.getTime())).toBe(`Jun 01, 2025 23:59 ${zone(date)}`);
  });

  it('gives the same instant in UTC to the second (what a date shows on hover)', () => {
    expect(formatUtc('2026-11-22T12:05:09.500Z')).toBe('2026-11-22 12:05:09 UTC');
    expect(formatUtc(Date.UTC(2024, 0, 3, 0, 0, 1))).toBe('2024-01-03 00:00:01 UTC');
    expect(formatUtc('nope')).toBe('-');
  });

  it('shows - for invalid or missing dates', () => {
    expect(formatDate('not a date')).toBe('-');
    expect(formatDate(null)).toBe('-');
    expect(formatDate('')).toBe('-');
  });
});

describe('formatBytes', () => {
  it('steps through units up to TB', () => {
    expect(formatBytes(0)).toBe('0 B');
    expect(formatBytes(512)).toBe('512 B');
    expect(formatBytes(1536)).toBe('1.5 KB');
    expect(formatBytes(2 * 1024 ** 2)).toBe('2 MB');
    expect(formatBytes(3.25 * 1024 ** 3)).toBe('3.3 GB');
    expect(formatBytes(1024 ** 4)).toBe('1 TB');
  });

  it('stops at TB for larger values', () => {
    expect(formatBytes(2048 * 1024 ** 4)).toBe('2048 TB');
  });

  it('shows - for non-finite values', () => {
    expect(formatBytes(Number.NaN)).toBe('-');
    expect(formatBytes(undefined)).toBe('-');
  });
});
