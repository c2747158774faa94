import { describe, expect, it } from 'vitest';
import { TooManyRequests } from '../lib/errors.js';
import {
  nextSyncAfter,
  normalizeSchedule,
  SyncScheduler,
  type SyncTargets,
} from './sync-scheduler.js';

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

describe('SyncScheduler.tick', () => {
  const log = { warn: () => undefined, error: () => undefined } as never;

  /** Targets in memory: id → schedule and next time (ms). */
  function memoryTargets(rows: Record<number, { schedule: string; next: number | null }>) {
    const queued: number[][] = [];
    let full = false;
    const targets: SyncTargets = {
      kind: 'test',
      listDue: (nowIso, limit) =>
        Object.entries(rows)
          .filter(([, r]) => r.next !== null && r.next <= Date.parse(nowIso))
          .slice(0, limit)
          .map(([id, r]) => ({ id: Number(id), schedule: r.schedule })),
      setNextSyncAt: (id, iso) => void (rows[id]!.next = iso === null ? null : Date.parse(iso)),
      queueSync: (ids) => {
        if (full) throw new TooManyRequests('full', 5);
        queued.push(ids);
        return queued.length;
      },
    };
    return { targets, queued, fill: (v: boolean) => void (full = v) };
  }

  it('queues each due target once however long it was overdue, and plans the next from now', () => {
    let now = at('2026-11-26T12:00:00Z');
    const rows = {
      1: { schedule: 'hourly', next: now - 5 * 3_600_000 },
      2: { schedule: '0 * * * *', next: now - 1 },
      3: { schedule: 'daily', next: now + 1 },
    };
    const m = memoryTargets(rows);
    const s = new SyncScheduler({ targets: [m.targets], log, now: () => now });
    expect(s.tick()).toEqual([1]);
    expect(m.queued).toEqual([[1, 2]]);
    expect(rows[1].next).toBe(now + 3_600_000);
    expect(rows[2].next).toBe(at('2026-11-26T13:00:00Z'));
    expect(s.tick()).toEqual([]);
    now += 2;
    expect(s.tick()).toEqual([2]);
    expect(m.queued.at(-1)).toEqual([3]);
  });

  it('leaves due targets due when the queue is full, for the next tick', () => {
    const now = at('2026-11-26T12:00:00Z');
    const rows = { 1: { schedule: 'hourly', next: now - 1 } };
    const m = memoryTargets(rows);
    const s = new SyncScheduler({ targets: [m.targets], log, now: () => now });
    m.fill(true);
    expect(s.tick()).toEqual([]);
    expect(rows[1].next).toBe(now - 1);
    m.fill(false);
    expect(s.tick()).toEqual([1]);
    expect(rows[1].next).toBe(now + 3_600_000);
  });
});
