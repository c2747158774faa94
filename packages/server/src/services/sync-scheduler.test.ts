import { describe, expect, it } from 'vitest';
import { nextSyncAfter, normalizeSchedule } from './sync-scheduler.js';

const at = (iso: string) => Date.parse(iso);

describe('normalizeSchedule', () => {
  it('accepts the presets in any case and five-field cron expressions with single spaces', () => {
    expect(normalizeSchedule(' Weekly ')).toBe('weekly');
    expect(normalizeSchedule('OFF')).toBe('off');
    expect(normalizeSchedule('0   3 * *\t1-5')).toBe('0 3 * * 1-5');
    expect(normalizeSchedule('*/10 8-18 * * mon-fri')).toBe('*/10 8-18 * * mon-fri');
  });

  it.each([
    ['every day', 'it has 2 fields'],
    ['* * * *', 'it has 4 fields'],
    ['0 0 * * * *', 'it has 6 fields'],
    ['@daily', 'it has 1 field'],
    ['61 * * * *', 'expected range 0-59'],
    ['0 25 * * *', 'expected range 0-23'],
    ['0 0 * 13 *', 'expected range 1-12'],
  ])('refuses %j with a message that says why (%s)', (input, why) => {
    expect(() => normalizeSchedule(input)).toThrow(why);
    expect(() => normalizeSchedule(input)).toThrow(/^schedule: /);
  });
});

describe('nextSyncAfter', () => {
  it('plans presets one period from now, cron expressions at their next UTC minute, off never', () => {
    const now = at('2026-11-26T10:07:30Z');
    expect(nextSyncAfter('off', now)).toBeNull();
    expect(nextSyncAfter('hourly', now)).toBe(now + 3_600_000);
    expect(nextSyncAfter('weekly', now)).toBe(now + 7 * 86_400_000);
    expect(nextSyncAfter('*/15 * * * *', now)).toBe(at('2026-11-26T10:15:00Z'));
    expect(nextSyncAfter('0 3 * * *', now)).toBe(at('2026-11-27T03:00:00Z'));
  });
});
