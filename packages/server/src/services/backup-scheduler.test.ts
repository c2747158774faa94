import {
  DEFAULT_GENERAL_SETTINGS,
  type Backup,
  type BackupReason,
  type GeneralSettings,
} from '@adam/contracts';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { EventBus } from '../lib/event-bus.js';
import { AUTO_GRACE_MINUTES, AutoBackupScheduler } from './backup-scheduler.js';

const START = Date.parse('2024-05-01T12:00:00.000Z');
const MINUTE = 60_000;
const iso = (ms: number) => new Date(ms).toISOString();

/** Backups kept in memory; `create` records one at the fake clock's time unless told to fail. */
class FakeBackups {
  running: 'backup' | 'restore' | null = null;
  failWith: string | null = null;
  readonly made: Backup[] = [];

  add(at: number, reason: BackupReason): Backup {
    const b: Backup = {
      id: String(at),
      created_at: iso(at),
      size_mb: 1,
      reason,
      counts: { snippets: 0, vectors: 0, users: 1, rules: 0, jobs: 0, sources: 0 },
    };
    this.made.push(b);
    return b;
  }

  list = (): Backup[] => [...this.made].sort((a, b) => b.created_at.localeCompare(a.created_at));

  create = vi.fn(async (reason: BackupReason = 'manual') => {
    if (this.failWith) throw new Error(this.failWith);
    return this.add(Date.now(), reason);
  });
}

let bus: EventBus;
let backups: FakeBackups;
let general: GeneralSettings;
let scheduler: AutoBackupScheduler;

function start(settings: Partial<GeneralSettings>): AutoBackupScheduler {
  general = { ...DEFAULT_GENERAL_SETTINGS, ...settings };
  scheduler = new AutoBackupScheduler({
    backups,
    bus,
    settings: () => general,
    now: () => Date.now(),
  });
  scheduler.start();
  return scheduler;
}

const nextDue = () => scheduler.health().details?.next_due_at;

beforeEach(() => {
  vi.useFakeTimers({ now: START });
  bus = new EventBus();
  backups = new FakeBackups();
});

afterEach(() => {
  scheduler.close();
  vi.useRealTimers();
});

describe('AutoBackupScheduler', () => {
  it('takes the first auto backup after the grace, then one every frequency', async () => {
    start({ auto_backup: true, backup_frequency: 60 });
    expect(nextDue()).toBe(iso(START + AUTO_GRACE_MINUTES * MINUTE));

    await vi.advanceTimersByTimeAsync(AUTO_GRACE_MINUTES * MINUTE - 1);
    expect(backups.create).not.toHaveBeenCalled();
    await vi.advanceTimersByTimeAsync(1);
    expect(backups.create).toHaveBeenCalledWith('auto');
    const first = Date.parse(backups.made[0]!.created_at);
    expect(nextDue()).toBe(iso(first + 60 * MINUTE));

    await vi.advanceTimersByTimeAsync(60 * MINUTE);
    expect(backups.create).toHaveBeenCalledTimes(2);
  });

  it('plans from the last auto backup, and an overdue one after the grace', () => {
    backups.add(START - 100 * MINUTE, 'auto');
    backups.add(START - 10 * MINUTE, 'auto');
    // A manual backup does not move the auto ones.
    backups.add(START - 1 * MINUTE, 'manual');
    start({ auto_backup: true, backup_frequency: 60 });
    expect(nextDue()).toBe(iso(START + 50 * MINUTE));
    scheduler.close();

    backups.made.splice(0);
    backups.add(START - 360 * MINUTE, 'auto');
    start({ auto_backup: true, backup_frequency: 60 });
    expect(nextDue()).toBe(iso(START + AUTO_GRACE_MINUTES * MINUTE));
  });

  it('plans again when the general settings change, and only then', async () => {
    start({ auto_backup: false, backup_frequency: 60 });
    expect(scheduler.health().details).toMatchObject({ auto_backup: false, next_due_at: null });
    await vi.advanceTimersByTimeAsync(24 * 60 * MINUTE);
    expect(backups.create).not.toHaveBeenCalled();

    general = { ...general, auto_backup: true };
    bus.emit('settings.updated', { section: 'processing' });
    expect(nextDue()).toBeNull();
    bus.emit('settings.updated', { section: 'general' });
    expect(nextDue()).toBe(iso(Date.now() + AUTO_GRACE_MINUTES * MINUTE));

    general = { ...general, auto_backup: false };
    bus.emit('settings.updated', { section: 'general' });
    expect(nextDue()).toBeNull();
    await vi.advanceTimersByTimeAsync(24 * 60 * MINUTE);
    expect(backups.create).not.toHaveBeenCalled();
  });

  it('waits while a backup or a restore runs', async () => {
    start({ auto_backup: true, backup_frequency: 60 });
    backups.running = 'restore';
    await vi.advanceTimersByTimeAsync(AUTO_GRACE_MINUTES * MINUTE);
    expect(backups.create).not.toHaveBeenCalled();
    expect(scheduler.health().details).toMatchObject({ running: 'restore' });
    expect(nextDue()).toBe(iso(Date.now() + AUTO_GRACE_MINUTES * MINUTE));

    backups.running = null;
    await vi.advanceTimersByTimeAsync(AUTO_GRACE_MINUTES * MINUTE);
    expect(backups.create).toHaveBeenCalledTimes(1);
  });

  it('reports a failed auto backup in health until one succeeds', async () => {
    start({ auto_backup: true, backup_frequency: 60 });
    backups.failWith = 'No space left on device';
    await vi.advanceTimersByTimeAsync(AUTO_GRACE_MINUTES * MINUTE);
    expect(scheduler.health()).toMatchObject({
      status: 'degraded',
      error: 'Last auto backup failed: No space left on device',
      details: { count: 0, last_backup_id: null },
    });
    // Tried again a grace later, with nothing to count from.
    expect(nextDue()).toBe(iso(Date.now() + AUTO_GRACE_MINUTES * MINUTE));

    backups.failWith = null;
    await vi.advanceTimersByTimeAsync(AUTO_GRACE_MINUTES * MINUTE);
    const health = scheduler.health();
    expect(health.status).toBe('healthy');
    expect(health.error).toBeUndefined();
    expect(health.details).toEqual({
      last_backup_id: backups.made[0]!.id,
      last_backup_at: backups.made[0]!.created_at,
      count: 1,
      auto_backup: true,
      frequency_minutes: 60,
      next_due_at: iso(Date.parse(backups.made[0]!.created_at) + 60 * MINUTE),
      running: null,
    });
  });

  it('stops planning once closed', async () => {
    start({ auto_backup: true, backup_frequency: 60 });
    scheduler.close();
    expect(nextDue()).toBeNull();
    bus.emit('settings.updated', { section: 'general' });
    expect(nextDue()).toBeNull();
    await vi.advanceTimersByTimeAsync(24 * 60 * MINUTE);
    expect(backups.create).not.toHaveBeenCalled();
  });
});
