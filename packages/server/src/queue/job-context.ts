import type { JobError, JobStats } from '@adam/contracts';
import type { Logger } from '../logging.js';
import type { EventBus } from '../lib/event-bus.js';
import type { JobRepository, JobRow } from '../store/job.repository.js';

/** What a running job can do: report, record errors, remember finished URLs, and check whether to stop. */
export interface JobContext {
  readonly job: JobRow;
  readonly workerId: string;
  readonly urls: string[];
  /** URLs finished by an earlier attempt (a restart resumes after them). */
  readonly doneUrls: ReadonlySet<string>;
  /** The job's figures as recorded so far (change them with record or progress). */
  readonly stats: Readonly<JobStats>;
  /**
   * Takes new figures (and stage, progress) without writing them: for jobs that record many
   * results and write their row less often than that (see flush).
   */
  record(update: { progress?: number; stage?: string; stats?: Partial<JobStats> }): void;
  /** Writes the job row with the figures recorded so far and sends them (job_progress). */
  flush(): void;
  /** record, then flush. */
  progress(update: {
    progress?: number;
    stage?: string;
    stats?: Partial<JobStats>;
    /** Also sent as segment_progress (the console's second progress bar). */
    segments?: { processed: number; total: number };
  }): void;
  urlDone(url: string): void;
  addError(error: Omit<JobError, 'at'>): void;
  errorCount(): number;
  setResult(result: Record<string, unknown>): void;
  /** True once the job was cancelled or deleted, or its worker is stopping. */
  shouldStop(): boolean;
  cancelled(): boolean;
}

export type JobOutcome =
  | { status: 'completed'; segments_created: number }
  | { status: 'failed'; error: string }
  /** The worker is stopping: the job goes back to the queue and resumes later. */
  | { status: 'interrupted' };

/** How a job that noticed it must stop ends: a cancel is final, a stopping worker requeues it. */
export function stoppedOutcome(ctx: JobContext): JobOutcome {
  return ctx.cancelled()
    ? { status: 'completed', segments_created: ctx.stats.segments_created ?? 0 }
    : { status: 'interrupted' };
}

export const parseJson = <T>(s: string, fallback: T): T => {
  try {
    return JSON.parse(s) as T;
  } catch {
    return fallback;
  }
};

export interface LiveJob extends JobContext {
  readonly errors: JobError[];
}

/**
 * How long a running job trusts what it knows of its own cancel: a cancel made in this process
 * reaches it at once on the bus (JobService emits job_cancelled / job_deleted), one written by
 * another process (a CLI's job cancelled by the server) is read from the row at most this late.
 * Not per result: a sync of thousands of unchanged pages would read its row thousands of times.
 */
export const CANCEL_RECHECK_MS = 1_000;

/** Per bus, the running jobs' contexts waiting for their cancel: one bus listener each kind. */
const cancelWatchers = new WeakMap<EventBus, Map<number, Set<() => void>>>();

function watchCancel(bus: EventBus, jobId: number, onCancel: () => void): void {
  let byJob = cancelWatchers.get(bus);
  if (!byJob) {
    const watched = new Map<number, Set<() => void>>();
    byJob = watched;
    cancelWatchers.set(bus, watched);
    const fire = ({ job_id }: { job_id: number }) => {
      const fns = watched.get(job_id);
      watched.delete(job_id);
      for (const fn of fns ?? []) fn();
    };
    bus.on('job_cancelled', fire);
    bus.on('job_deleted', fire);
  }
  const fns = byJob.get(jobId) ?? new Set();
  fns.add(onCancel);
  byJob.set(jobId, fns);
}

/** The job ended: its contexts stop waiting for a cancel. */
function unwatchCancel(bus: EventBus, jobId: number): void {
  cancelWatchers.get(bus)?.delete(jobId);
}

/**
 * The state of one running job and how it is written: every update lands on the job row (only
 * while it is still processing: a cancelled or deleted job is left alone) and goes out on the
 * bus. Used by the embedded workers and by the server side of Redis workers alike.
 */
export function createJobContext(opts: {
  jobs: JobRepository;
  bus: EventBus;
  row: JobRow;
  workerId: string;
  stopping: () => boolean;
  /** Milliseconds of a monotonic clock (tests inject one); default performance.now. */
  now?: () => number;
}): LiveJob {
  const { jobs, bus, row } = opts;
  const now = opts.now ?? (() => performance.now());
  const stats = parseJson<JobStats>(row.stats, {});
  const errors = parseJson<JobError[]>(row.errors, []);
  const done = new Set(parseJson<string[]>(row.done_urls, []));
  const metadata = parseJson<Record<string, unknown>>(row.metadata, {});
  let progress = row.progress;
  let stage = row.stage;
  let cancelSeen = false;
  let checkedAt = -Infinity;
  watchCancel(bus, row.id, () => (cancelSeen = true));
  const cancelled = () => {
    if (cancelSeen) return true;
    const t = now();
    // t < checkedAt: a clock that went back is not trusted to have waited.
    if (t - checkedAt < CANCEL_RECHECK_MS && t >= checkedAt) return false;
    checkedAt = t;
    const current = jobs.findById(row.id);
    cancelSeen = !current || current.status === 'cancelled';
    return cancelSeen;
  };
  const record = (u: { progress?: number; stage?: string; stats?: Partial<JobStats> }) => {
    if (u.progress !== undefined) progress = Math.max(0, Math.min(1, u.progress));
    if (u.stage !== undefined) stage = u.stage;
    if (u.stats) Object.assign(stats, u.stats);
  };
  const flush = () => {
    jobs.update(
      row.id,
      { progress, stage, stats: JSON.stringify(stats), heartbeat_at: new Date().toISOString() },
      ['processing'],
    );
    bus.emit('job_progress', {
      job_id: row.id,
      progress,
      stage,
      stats,
      segmentation_method: stats.segmentation_method ?? null,
      last_fallback_reason: stats.last_fallback_reason ?? null,
    });
  };
  return {
    job: row,
    workerId: opts.workerId,
    urls: parseJson<string[]>(row.urls, []),
    doneUrls: done,
    stats,
    errors,
    record,
    flush,
    progress: (u) => {
      record(u);
      flush();
      if (u.segments) {
        bus.emit('segment_progress', { job_id: row.id, ...u.segments, stage: stage ?? '' });
      }
    },
    urlDone: (url) => {
      done.add(url);
      jobs.update(row.id, { done_urls: JSON.stringify([...done]) }, ['processing']);
    },
    addError: (e) => {
      errors.push({ ...e, at: new Date().toISOString() });
      jobs.update(row.id, { errors: JSON.stringify(errors) }, ['processing']);
    },
    errorCount: () => errors.length,
    setResult: (result) => {
      metadata.result = result;
      jobs.update(row.id, { metadata: JSON.stringify(metadata) }, ['processing']);
    },
    cancelled,
    shouldStop: () => opts.stopping() || cancelled(),
  };
}

/**
 * Writes a job's end: completed or failed (with events), or back to the queue when its worker
 * stopped. Answers what happened, or 'other' when the job had been cancelled or deleted meanwhile.
 */
export function finishJob(
  deps: { jobs: JobRepository; bus: EventBus; log: Logger },
  job: { id: number; type: string; errors: JobError[] },
  outcome: JobOutcome,
): 'completed' | 'failed' | 'requeued' | 'other' {
  const { jobs, bus, log } = deps;
  unwatchCancel(bus, job.id);
  const now = new Date().toISOString();
  const errors = JSON.stringify(job.errors);
  if (outcome.status === 'interrupted') {
    const back = jobs.update(
      job.id,
      { status: 'pending', worker_id: null, heartbeat_at: null, stage: 'requeued' },
      ['processing'],
    );
    if (back)
      log.info({ component: 'queue' }, `Job ${job.id} returned to the queue (worker stopping)`);
    return back ? 'requeued' : 'other';
  }
  if (outcome.status === 'completed') {
    const changed = jobs.update(
      job.id,
      {
        status: 'completed',
        progress: 1,
        stage: 'completed',
        completed_at: now,
        heartbeat_at: now,
        errors,
      },
      ['processing'],
    );
    if (!changed) return 'other';
    log.info(
      { component: 'queue' },
      `Job ${job.id} (${job.type}) completed: ${outcome.segments_created} segments`,
    );
    bus.emit('job_completed', { job_id: job.id, segments_created: outcome.segments_created });
    return 'completed';
  }
  const changed = jobs.update(
    job.id,
    { status: 'failed', stage: 'failed', failed_at: now, heartbeat_at: now, errors },
    ['processing'],
  );
  if (!changed) return 'other';
  log.warn({ component: 'queue' }, `Job ${job.id} (${job.type}) failed: ${outcome.error}`);
  bus.emit('job_failed', { job_id: job.id, error: outcome.error });
  return 'failed';
}
