import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import {
  HOUSEKEEPING_EVERY_MS,
  HousekeepingService,
  LOG_RETENTION_DAYS,
} from './housekeeping.service.js';

const START = Date.UTC(2026, 10, 22, 12, 0, 0);
const iso = (ms: number) => new Date(ms).toISOString();

function setup(failLogs = false) {
  const logCutoffs: string[] = [];
  const keyCutoffs: string[] = [];
  const errors: string[] = [];
  const housekeeping = new HousekeepingService({
    logs: {
      deleteOlderThan: (c) => {
        if (failLogs) throw new Error('database is locked');
        return (logCutoffs.push(c), 0);
      },
    },
    keys: { deleteExpiredBefore: (c) => (keyCutoffs.push(c), 0) },
    refreshGraceSeconds: 3600,
    log: { error: (_obj: unknown, msg?: string) => void errors.push(String(msg)) },
  });
  return { housekeeping, logCutoffs, keyCutoffs, errors };
}

describe('HousekeepingService', () => {
  beforeEach(() => vi.useFakeTimers({ now: START }));
  afterEach(() => vi.useRealTimers());

  it('deletes old logs and keys past their grace at start, then every period', () => {
    const { housekeeping, logCutoffs, keyCutoffs } = setup();
    housekeeping.start();
    expect(logCutoffs).toEqual([iso(START - LOG_RETENTION_DAYS * 86400_000)]);
    expect(keyCutoffs).toEqual([iso(START - 3600_000)]);

    vi.advanceTimersByTime(HOUSEKEEPING_EVERY_MS - 1);
    expect(logCutoffs).toHaveLength(1);
    vi.advanceTimersByTime(1);
    const later = START + HOUSEKEEPING_EVERY_MS;
    expect(logCutoffs).toEqual([
      iso(START - LOG_RETENTION_DAYS * 86400_000),
      iso(later - LOG_RETENTION_DAYS * 86400_000),
    ]);
    expect(keyCutoffs.at(-1)).toBe(iso(later - 3600_000));
    housekeeping.stop();
  });

  it('runs no more once stopped', () => {
    const { housekeeping, logCutoffs } = setup();
    housekeeping.start();
    housekeeping.stop();
    vi.advanceTimersByTime(3 * HOUSEKEEPING_EVERY_MS);
    expect(logCutoffs).toHaveLength(1);
  });

  it('keeps no process alive', () => {
    const { housekeeping } = setup();
    const spy = vi.spyOn(globalThis, 'setInterval');
    housekeeping.start();
    const timer = spy.mock.results[0]?.value as NodeJS.Timeout;
    expect(timer.hasRef()).toBe(false);
    housekeeping.stop();
    spy.mockRestore();
  });

  it('logs a failed round and runs again the next period', () => {
    const { housekeeping, errors } = setup(true);
    housekeeping.start();
    expect(errors).toEqual(['Housekeeping failed']);
    vi.advanceTimersByTime(HOUSEKEEPING_EVERY_MS);
    expect(errors).toEqual(['Housekeeping failed', 'Housekeeping failed']);
    housekeeping.stop();
  });
});
