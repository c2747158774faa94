import { SYNC_PRESETS, type SyncPreset } from '@adam/contracts';
import { CronExpressionParser } from 'cron-parser';
import { TooManyRequests, Unprocessable } from '../lib/errors.js';
import type { Logger } from '../logging.js';

/** Between two looks for due targets: cron expressions name minutes, so a minute is enough. */
const SYNC_TICK_MS = 60_000;
/** Due targets read per look; the rest come at the next round of the same tick. */
const DUE_BATCH = 100;
/** setTimeout's longest delay. */
const MAX_TIMER_MS = 2 ** 31 - 1;

/**
 * The presets are periods from the last plan, not wall-clock instants: a thousand hourly sources
 * spread over the hour as they were added instead of all firing at minute 0.
 */
const PRESET_MS: Record<Exclude<SyncPreset, 'off'>, number> = {
  hourly: 3_600_000,
  daily: 86_400_000,
  weekly: 7 * 86_400_000,
};
const CRON_FIELDS = ['minute', 'hour', 'day of month', 'month', 'day of week'];

const PRESET_LIST = `${SYNC_PRESETS.slice(0, -1).join(', ')} or ${SYNC_PRESETS.at(-1)}`;

/**
 * A schedule as stored: a preset in lower case, or a cron expression of exactly five fields
 * (minute hour day-of-month month day-of-week, UTC) with single spaces. Anything else is a 422
 * that says what is wrong. Seconds fields and `@` macros are refused: five fields is what
 * operators know from crontab, and a sync every second is never meant.
 */
export function normalizeSchedule(input: string): string {
  const s = input.trim();
  const lower = s.toLowerCase();
  if ((SYNC_PRESETS as readonly string[]).includes(lower)) return lower;
  const fields = s.split(/\s+/).filter(Boolean);
  const fail = (why: string): never => {
    throw new Unprocessable(`schedule: ${why}`, [{ field: 'schedule', message: why }]);
  };
  if (fields.length !== CRON_FIELDS.length) {
    fail(
      `'${s.slice(0, 100)}' is neither ${PRESET_LIST} nor a cron expression of five fields ` +
        `(${CRON_FIELDS.join(', ')}): it has ${fields.length} field${fields.length === 1 ? '' : 's'}`,
    );
  }
  const cron = fields.join(' ');
  try {
    CronExpressionParser.parse(cron, { tz: 'UTC', strict: false });
  } catch (e) {
    fail(`'${cron}' is not a valid cron expression: ${(e as Error).message}`);
  }
  return cron;
}

/** When a target of this (normalized) schedule syncs next after `from`; null when off. */
export function nextSyncAfter(schedule: string, from: number): number | null {
  if (schedule === 'off') return null;
  const period = PRESET_MS[schedule as keyof typeof PRESET_MS];
  if (period) return from + period;
  return CronExpressionParser.parse(schedule, { currentDate: new Date(from), tz: 'UTC' })
    .next()
    .getTime();
}

/**
 * Something the scheduler keeps fresh: web sources now, crawls later. Each kind stores its own
 * schedules and next times and queues its own sync jobs; the scheduler only decides when.
 */
export interface SyncTargets {
  readonly kind: string;
  /** Targets with a schedule whose next sync is at or before `nowIso`, the most overdue first. */
  listDue(nowIso: string, limit: number): { id: number; schedule: string }[];
  setNextSyncAt(id: number, iso: string | null): void;
  /**
   * Queues one sync of these targets, leaving out any a sync already holds (two syncs of a
   * target never overlap); answers the job id, or null when every one was held.
   */
  queueSync(ids: number[], reason: 'schedule'): number | null;
}

interface SyncSchedulerDeps {
  targets: SyncTargets[];
  log: Logger;
  now?: () => number;
  tickMs?: number;
}

/**
 * Queues the syncs that are due, at start and then every tick. Schedules survive a restart: each
 * target's next time is stored, and a time missed while the server was down is simply due at
 * the first tick, which plans the next one from now, so a long stop gives one sync, not one per
 * missed period. Runs in the server in both queue modes; the jobs it queues run in either.
 */
export class SyncScheduler {
  private readonly now: () => number;
  private timer: NodeJS.Timeout | null = null;
  private closed = false;

  constructor(private readonly deps: SyncSchedulerDeps) {
    this.now = deps.now ?? Date.now;
  }

  start(): void {
    this.tick();
    const every = Math.min(this.deps.tickMs ?? SYNC_TICK_MS, MAX_TIMER_MS);
    this.timer = setInterval(() => this.tick(), every);
    this.timer.unref();
  }

  close(): void {
    this.closed = true;
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
  }

  /** Queues every due target's sync; answers the ids of the jobs queued. */
  tick(): number[] {
    const queued: number[] = [];
    if (this.closed) return queued;
    const now = this.now();
    const nowIso = new Date(now).toISOString();
    for (const targets of this.deps.targets) {
      try {
        for (;;) {
          const due = targets.listDue(nowIso, DUE_BATCH);
          if (!due.length) break;
          const jobId = targets.queueSync(
            due.map((d) => d.id),
            'schedule',
          );
          if (jobId !== null) queued.push(jobId);
          // Planned from now, after queueing: a full queue (429) leaves them due for the next tick.
          for (const d of due) {
            const next = nextSyncAfter(d.schedule, now);
            targets.setNextSyncAt(d.id, next === null ? null : new Date(next).toISOString());
          }
        }
      } catch (e) {
        const level = e instanceof TooManyRequests ? 'warn' : 'error';
        this.deps.log[level](
          { component: 'sync', err: e },
          `Queueing the due ${targets.kind} syncs failed; tried again at the next tick`,
        );
      }
    }
    return queued;
  }
}
