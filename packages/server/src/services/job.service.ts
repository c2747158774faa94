import {
  MAX_QUEUED_JOBS,
  QUEUE_FULL_RETRY_AFTER_SECONDS,
  STUCK_AFTER_SECONDS,
  type ByStatus,
  type CancelPendingResponse,
  type DeletedResponse,
  type Job,
  type JobError,
  type JobErrors,
  type JobFindResponse,
  type JobList,
  type JobPriority,
  type JobStats,
  type RelaunchResponse,
  type ResetStuckJobsResponse,
} from '@adam/contracts';
import type { QueueDriver } from '../jobs/queue-driver.js';
import { Conflict, NotFound, TooManyRequests } from '../lib/errors.js';
import type { Logger } from '../logging.js';
import type { EventBus } from '../lib/event-bus.js';
import type { JobRepository, JobRow } from '../store/job.repository.js';

export type JobTab = 'all' | 'active' | 'queue' | 'history';
const TAB_STATUSES: Record<JobTab, readonly string[] | null> = {
  all: null,
  active: ['pending', 'processing'],
  queue: ['pending'],
  history: ['completed', 'failed', 'cancelled'],
};

const parse = <T>(s: string, fallback: T): T => {
  try {
    return JSON.parse(s) as T;
  } catch {
    return fallback;
  }
};

function toJob(r: JobRow): Job {
  return {
    id: r.id,
    type: r.type,
    status: r.status,
    priority: r.priority,
    urls: parse<string[]>(r.urls, []),
    progress: r.progress,
    stage: r.stage,
    stats: parse<JobStats>(r.stats, {}),
    errors: parse<JobError[]>(r.errors, []),
    filters: parse<Record<string, unknown>>(r.filters, {}),
    metadata: parse<Record<string, unknown>>(r.metadata, {}),
    worker_id: r.worker_id,
    attempts: r.attempts,
    created_at: r.created_at,
    started_at: r.started_at,
    completed_at: r.completed_at,
    failed_at: r.failed_at,
    cancelled_at: r.cancelled_at,
    heartbeat_at: r.heartbeat_at,
    updated_at: r.updated_at,
  };
}

export class JobService {
  constructor(
    private readonly deps: {
      jobs: JobRepository;
      queue: QueueDriver;
      bus: EventBus;
      log: Logger;
      /** Pending jobs past which create refuses (MAX_QUEUED_JOBS; tests lower it). */
      maxQueued?: number;
    },
  ) {}

  /**
   * Queues a job. Past the bound of pending jobs it answers 429, unless `internal`: a job the
   * server queues itself as the consequence of a change already made (the index rebuild after
   * a storage setting), which is at most one at a time and must not be lost.
   */
  create(
    j: {
      type: string;
      priority?: JobPriority;
      urls?: string[];
      input?: unknown;
      filters?: unknown;
      metadata?: Record<string, unknown>;
    },
    opts: { internal?: boolean } = {},
  ): Job {
    const max = this.deps.maxQueued ?? MAX_QUEUED_JOBS;
    // Counted and inserted in one synchronous step: no other request can slip in between.
    if (!opts.internal && this.deps.jobs.countPending() >= max) {
      this.deps.log.warn({ component: 'jobs' }, `Job refused (${j.type}): ${max} jobs are queued`);
      throw new TooManyRequests(
        `The job queue is full: ${max} jobs are waiting to run (the limit). Try again once some have run.`,
        QUEUE_FULL_RETRY_AFTER_SECONDS,
      );
    }
    const priority = j.priority ?? 'normal';
    const id = this.deps.jobs.insert({
      type: j.type,
      priority,
      urls: j.urls ?? [],
      input: j.input ?? {},
      filters: j.filters ?? {},
      metadata: j.metadata ?? {},
    });
    this.deps.log.info({ component: 'jobs' }, `Job ${id} (${j.type}, ${priority}) queued`);
    this.deps.bus.emit('job_created', { job_id: id, type: j.type, status: 'pending', priority });
    this.deps.queue.submit(id);
    return this.get(id);
  }

  /** Jobs of `type` waiting to run. */
  pendingOfType(type: string): Job[] {
    return this.deps.jobs.listByStatusAndType(['pending'], [type]).map(toJob);
  }

  get(id: number): Job {
    const row = this.deps.jobs.findById(id);
    if (!row) throw new NotFound('job', id);
    return toJob(row);
  }

  byStatus(): ByStatus {
    const c = this.deps.jobs.countByStatus();
    return {
      pending: c.pending ?? 0,
      processing: c.processing ?? 0,
      completed: c.completed ?? 0,
      failed: c.failed ?? 0,
      cancelled: c.cancelled ?? 0,
    };
  }

  list(tab: JobTab, status: string | undefined, limit: number): JobList {
    const statuses = status ? [status] : TAB_STATUSES[tab];
    const { rows, total } = this.deps.jobs.list(statuses, limit);
    return { jobs: rows.map(toJob), total, by_status: this.byStatus() };
  }

  /** Processing jobs whose worker has not been heard from for STUCK_AFTER_SECONDS. */
  stuck(limit: number): JobList {
    const before = new Date(Date.now() - STUCK_AFTER_SECONDS * 1000).toISOString();
    const { rows, total } = this.deps.jobs.listStuck(before, limit);
    return { jobs: rows.map(toJob), total, by_status: this.byStatus() };
  }

  resetStuck(): number[] {
    const before = new Date(Date.now() - STUCK_AFTER_SECONDS * 1000).toISOString();
    const ids = this.deps.jobs.requeueStuck(before);
    if (ids.length) {
      this.deps.log.warn(
        { component: 'jobs' },
        `Requeued ${ids.length} stuck job(s): ${ids.join(', ')}`,
      );
      for (const id of ids) this.deps.queue.submit(id);
    }
    return ids;
  }

  /** The maintenance call's answer: how many stuck jobs went back to the queue, and which. */
  resetStuckJobs(): ResetStuckJobsResponse {
    const ids = this.resetStuck();
    return { reset: ids.length, job_ids: ids };
  }

  /** Pending jobs are cancelled at once; a processing job stops at its next step and keeps what it stored. */
  cancel(id: number): Job {
    const job = this.get(id);
    if (job.status !== 'pending' && job.status !== 'processing') {
      throw new Conflict(
        `Job ${id} is ${job.status}: only pending or processing jobs can be cancelled`,
      );
    }
    const now = new Date().toISOString();
    if (
      !this.deps.jobs.update(id, { status: 'cancelled', cancelled_at: now, stage: 'cancelled' }, [
        job.status,
      ])
    ) {
      return this.cancel(id); // it moved on between the read and the write: decide again
    }
    this.deps.queue.cancel(id);
    this.deps.log.info({ component: 'jobs' }, `Job ${id} cancelled (was ${job.status})`);
    this.deps.bus.emit('job_cancelled', { job_id: id });
    return this.get(id);
  }

  /** Queues a finished job again as a new job, with its URLs and input. */
  relaunch(id: number, priority: JobPriority): RelaunchResponse {
    const row = this.deps.jobs.findById(id);
    if (!row) throw new NotFound('job', id);
    if (!['completed', 'failed', 'cancelled'].includes(row.status)) {
      throw new Conflict(
        `Job ${id} is ${row.status}: only completed, failed or cancelled jobs can be relaunched`,
      );
    }
    const job = this.create({
      type: row.type,
      priority,
      urls: parse<string[]>(row.urls, []),
      input: parse<unknown>(row.input, {}),
      filters: parse<unknown>(row.filters, {}),
      metadata: { relaunched_from: id },
    });
    return { job_id: job.id, relaunched_from: id, job };
  }

  delete(id: number): DeletedResponse {
    const job = this.get(id);
    if (job.status === 'pending' || job.status === 'processing') this.cancel(id);
    this.deps.jobs.deleteById(id);
    this.deps.log.info({ component: 'jobs' }, `Job ${id} deleted`);
    this.deps.bus.emit('job_deleted', { job_id: id });
    return { id, deleted: true };
  }

  /** A job by its id when `q` is a number, else the jobs one of whose URLs contains `q`. */
  find(q: string, limit: number): JobFindResponse {
    if (/^\d+$/.test(q)) {
      const row = this.deps.jobs.findById(Number(q));
      return { jobs: row ? [toJob(row)] : [], total: row ? 1 : 0 };
    }
    const { rows, total } = this.deps.jobs.listByUrlFragment(q, limit);
    return { jobs: rows.map(toJob), total };
  }

  errors(id: number): JobErrors {
    const job = this.get(id);
    return { job_id: id, errors: job.errors, total: job.errors.length };
  }

  cancelPending(): CancelPendingResponse {
    const ids = this.deps.jobs.cancelAllPending(new Date().toISOString());
    for (const id of ids) {
      this.deps.queue.cancel(id);
      this.deps.bus.emit('job_cancelled', { job_id: id });
    }
    if (ids.length)
      this.deps.log.info({ component: 'jobs' }, `Cancelled ${ids.length} pending job(s)`);
    return { cancelled: ids.length, job_ids: ids };
  }

  clearOldCompleted(days: number): number {
    return this.deps.jobs.deleteCompletedBefore(
      new Date(Date.now() - days * 86400_000).toISOString(),
    );
  }

  /** Resolves when the job reaches a final status, or after `timeoutMs` with its state then. */
  waitForEnd(id: number, timeoutMs: number): Promise<Job> {
    const final = () => {
      const row = this.deps.jobs.findById(id);
      return !row || ['completed', 'failed', 'cancelled'].includes(row.status);
    };
    if (final()) return Promise.resolve(this.get(id));
    return new Promise((resolve) => {
      const offs: (() => void)[] = [];
      const finish = () => {
        offs.forEach((off) => off());
        clearTimeout(timer);
        resolve(this.get(id));
      };
      const check = (e: { job_id: number }) => {
        if (e.job_id === id) finish();
      };
      offs.push(this.deps.bus.on('job_completed', check));
      offs.push(this.deps.bus.on('job_failed', check));
      offs.push(this.deps.bus.on('job_cancelled', check));
      const timer = setTimeout(finish, timeoutMs);
    });
  }
}
