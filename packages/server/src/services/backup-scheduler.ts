import type { ComponentHealth, GeneralSettings } from '@adam/contracts';
import type { EventBus } from '../lib/event-bus.js';
import type { BackupService } from './backup.service.js';

/** An overdue auto backup (or the first one) runs this many minutes after start. */
export const AUTO_GRACE_MINUTES = 5;
/** setTimeout's longest delay (about 24.8 days, far above the longest frequency, a day). */
const MAX_TIMER_MS = 2 ** 31 - 1;

interface AutoBackupSchedulerDeps {
  backups: Pick<BackupService, 'create' | 'list' | 'running'> &
    Partial<Pick<BackupService, 'applyRetention'>>;
  bus: EventBus;
  settings: () => GeneralSettings;
  /** Length of the settings' minutes in ms; tests shrink it to watch the auto backup run. */
  minutesToMs?: (minutes: number) => number;
  now?: () => number;
}

/**
 * The auto-backup timer: the next backup is due one frequency after the last auto backup, and
 * never sooner than a short grace after start; planned again at once when the general settings
 * change (a new frequency moves the next backup, auto off clears it), and the retention applied.
 */
export class AutoBackupScheduler {
  private readonly minutesToMs: (minutes: number) => number;
  private readonly now: () => number;
  private timer: NodeJS.Timeout | null = null;
  private nextDueAt: number | null = null;
  private lastError: string | null = null;
  private unsubscribe: (() => void) | null = null;
  private closed = false;

  constructor(private readonly deps: AutoBackupSchedulerDeps) {
    this.minutesToMs = deps.minutesToMs ?? ((m) => m * 60_000);
    this.now = deps.now ?? Date.now;
  }

  start(): void {
    this.unsubscribe = this.deps.bus.on('settings.updated', ({ section }) => {
      if (section !== 'general') return;
      this.schedule();
      this.retain();
    });
    this.schedule();
  }

  /** A lowered retention takes effect at once, not at the next auto backup. */
  private retain(): void {
    if (this.deps.backups.running) return; // the backup under way prunes when it ends
    try {
      this.deps.backups.applyRetention?.();
    } catch (e) {
      this.lastError = `retention: ${(e as Error).message}`;
    }
  }

  close(): void {
    this.closed = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    this.nextDueAt = null;
    this.unsubscribe?.();
    this.unsubscribe = null;
  }

  private schedule(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    this.nextDueAt = null;
    if (this.closed) return;
    const g = this.deps.settings();
    if (!g.auto_backup) return;
    const now = this.now();
    const last = this.deps.backups.list().find((b) => b.reason === 'auto');
    const soonest = now + this.minutesToMs(AUTO_GRACE_MINUTES);
    const due = last
      ? Math.max(Date.parse(last.created_at) + this.minutesToMs(g.backup_frequency), soonest)
      : soonest;
    this.nextDueAt = due;
    this.timer = setTimeout(() => void this.run(), Math.min(due - now, MAX_TIMER_MS));
    this.timer.unref();
  }

  private async run(): Promise<void> {
    this.timer = null;
    // A manual backup or a restore is running: tried again a grace later at the soonest.
    if (this.deps.backups.running) {
      this.schedule();
      return;
    }
    try {
      await this.deps.backups.create('auto');
      this.lastError = null;
    } catch (e) {
      this.lastError = (e as Error).message;
    }
    this.schedule();
  }

  /** The `backups` component of /health: degraded while the last auto backup failed. */
  health(): ComponentHealth {
    const all = this.deps.backups.list();
    const last = all[0];
    const g = this.deps.settings();
    return {
      status: this.lastError ? 'degraded' : 'healthy',
      ...(this.lastError ? { error: `Last auto backup failed: ${this.lastError}` } : {}),
      details: {
        last_backup_id: last?.id ?? null,
        last_backup_at: last?.created_at ?? null,
        count: all.length,
        auto_backup: g.auto_backup,
        frequency_minutes: g.backup_frequency,
        next_due_at: this.nextDueAt === null ? null : new Date(this.nextDueAt).toISOString(),
        running: this.deps.backups.running,
      },
    };
  }
}
