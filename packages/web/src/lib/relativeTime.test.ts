import { describe, expect, it } from 'vitest';
import { formatRelative } from './relativeTime';

const NOW = Date.UTC(2026, 10, 26, 12, 0, 0);
const at = (seconds: number) => new Date(NOW + seconds * 1000).toISOString();

describe('formatRelative', () => {
  it('says how long ago or how soon, in minutes, hours then days', () => {
    expect(formatRelative(at(-20), NOW)).toBe('just now');
    expect(formatRelative(at(30), NOW)).toBe('in less than a minute');
    expect(formatRelative(at(-5 * 60), NOW)).toBe('5 min ago');
    expect(formatRelative(at(59 * 60), NOW)).toBe('in 59 min');
    expect(formatRelative(at(-3 * 3600 - 100), NOW)).toBe('3 h ago');
    expect(formatRelative(at(2 * 86400 + 5), NOW)).toBe('in 2 d');
  });

  it('shows a dash for no date or an invalid one', () => {
    expect(formatRelative(null, NOW)).toBe('-');
    expect(formatRelative('not a date', NOW)).toBe('-');
  });
});
