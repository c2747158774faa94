import {
  JOB_COUNT_CAP,
  MAX_QUEUED_JOBS,
  MAX_URL_OUTCOMES,
  QUEUE_FULL_RETRY_AFTER_SECONDS,
  STUCK_AFTER_SECONDS,
  type ByStatus,
  type CancelPendingResponse,
  type DeletedResponse,
  type Job,
  type JobError,
  type JobErrors,
  type JobDetail,
  type JobFindResponse,
  type JobList,
  type JobPage,
  type JobPriority,
  type JobStats,
  type RelaunchResponse,
  type ResetStuckJobsResponse,
  type UrlOutcome,
} from '@adam/contracts';
import type { QueueDriver } from '../queue/queue-driver.js';
import { Conflict, NotFound, TooManyRequests, Unprocessable } from '../lib/errors.js';
import type { Logger } from '../logging.js';
import type { EventBus } from '../lib/event-bus.js';
import type { JobKey, JobListFilter, JobRepository, JobRow } from '../store/job.repository.js';

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

/** The page query a tab takes beyond its status (JobHistoryQuery, parsed). */
export interface JobPageQuery {
  status?: string | undefined;
  limit: number;
  cursor?: string | undefined;
  type?: string | undefined;
  created_from?: string | undefined;
  created_to?: string | undefined;
  q?: string | undefined;
}

/** A cursor is the last row's key, opaque to callers: base64url of [created_at, id]. */
export function encodeCursor(k: JobKey): string {
  return Buffer.from(JSON.stringify([k.created_at, k.id])).toString('base64url');
}

const BAD_CURSOR = 'cursor is not one this list gave (pass next_cursor as it came)';

function decodeCursor(cursor: string): JobKey {
  let v: unknown;
  try {
    v = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
  } catch {
    throw new Unprocessable(BAD_CURSOR, [{ field: 'cursor', message: BAD_CURSOR }]);
  }
  const [createdAt, id] = Array.isArray(v) && v.length === 2 ? (v as unknown[]) : [];
  if (
    typeof createdAt !== 'string' ||
    createdAt.length > 40 ||
    Number.isNaN(Date.parse(createdAt)) ||
    typeof id !== 'number' ||
    !Number.isSafeInteger(id) ||
    id < 1
  ) {
    throw new Unprocessable(BAD_CURSOR, [{ field: 'cursor', message: BAD_CURSOR }]);
  }
  return { created_at: createdAt, id };
}

const ms = (from: string | null, to: string | null): number | null =>
  from && to ? Math.max(0, Date.parse(to) - Date.parse(from)) : null;

/** Failed, then skipped, then still to do, then ok: what an operator looks for first. */
const OUTCOME_ORDER: Record<UrlOutcome['status'], number> = {
  failed: 0,
  skipped: 1,
  pending: 2,
  ok: 3,
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

  /**
   * A tab's page: the statuses of the tab (or `status`), the filters, after `cursor`. The total
   * is exact from the per-status counts when only statuses filter; otherwise counted up to
   * JOB_COUNT_CAP (total_exact false past it).
   */
  page(tab: JobTab, q: JobPageQuery): JobPage {
    const filter: JobListFilter = {
      statuses: q.status ? [q.status] : TAB_STATUSES[tab],
      type: q.type,
      createdFrom: q.created_from,
      createdTo: q.created_to,
      q: q.q,
    };
    const after = q.cursor ? decodeCursor(q.cursor) : null;
    // One row more than asked says whether a next page exists without counting.
    const rows = this.deps.jobs.listPage(filter, after, q.limit + 1);
    const more = rows.length > q.limit;
    const jobs = rows.slice(0, q.limit).map(toJob);
    const last = jobs.at(-1);
    const by_status = this.byStatus();
    let total: number;
    let total_exact = true;
    if (!filter.type && !filter.createdFrom && !filter.createdTo && !filter.q) {
      const counted = filter.statuses ?? Object.keys(by_status);
      total = counted.reduce((n, s) => n + (by_status[s as keyof ByStatus] ?? 0), 0);
    } else {
      total = this.deps.jobs.countUpTo(filter, JOB_COUNT_CAP + 1);
      if (total > JOB_COUNT_CAP) {
        total = JOB_COUNT_CAP;
        total_exact = false;
      }
    }
    return {
      jobs,
      total,
      total_exact,
      by_status,
      next_cursor: more && last ? encodeCursor(last) : null,
    };
  }

  /**
   * What an operator needs of one job: times and durations, its result, and per URL (or file)
   * what became of it, from the job's URLs, the ones it finished, its errors and the snippets
   * still stored with its id. Bounded: MAX_URL_OUTCOMES URLs, failures first.
   */
  detail(id: number, now = new Date()): JobDetail {
    const row = this.deps.jobs.findById(id);
    if (!row) throw new NotFound('job', id);
    const job = toJob(row);
    const ended = job.completed_at ?? job.failed_at ?? job.cancelled_at;
    const nowIso = now.toISOString();
    const metadata = job.metadata;
    const result =
      metadata.result && typeof metadata.result === 'object' && !Array.isArray(metadata.result)
        ? (metadata.result as Record<string, unknown>)
        : null;

    const done = new Set(parse<string[]>(row.done_urls, []));
    const failedAt = new Map<string, JobError>();
    for (const e of job.errors) if (e.url && !failedAt.has(e.url)) failedAt.set(e.url, e);
    // The job's URLs in order, then any it finished or failed that were not among them
    // (a crawl's pages, a document job's files).
    const urls = [...new Set([...job.urls, ...done, ...failedAt.keys()])];
    const final =
      job.status === 'completed' || job.status === 'failed' || job.status === 'cancelled';
    const outcomes: UrlOutcome[] = urls.map((url) => {
      const error = failedAt.get(url);
      if (error) {
        return {
          url,
          status: 'failed',
          reason: error.message,
          snippets: 0,
          bytes: null,
          duration_ms: null,
          at: error.at,
        };
      }
      if (done.has(url)) {
        return {
          url,
          status: 'ok',
          reason: null,
          snippets: 0,
          bytes: null,
          duration_ms: null,
          at: null,
        };
      }
      return {
        url,
        status: final ? 'skipped' : 'pending',
        reason: final ? `Not reached: the job was ${job.status} first` : null,
        snippets: 0,
        bytes: null,
        duration_ms: null,
        at: null,
      };
    });
    const counts = { total: outcomes.length, ok: 0, failed: 0, skipped: 0, pending: 0 };
    for (const o of outcomes) counts[o.status]++;
    const shown = outcomes
      .map((o, i) => ({ o, i }))
      .sort((a, b) => OUTCOME_ORDER[a.o.status] - OUTCOME_ORDER[b.o.status] || a.i - b.i)
      .slice(0, MAX_URL_OUTCOMES)
      .map(({ o }) => o);
    const perUrl = this.deps.jobs.snippetsPerUrl(
      id,
      shown.filter((o) => o.status === 'ok').map((o) => o.url),
    );
    for (const o of shown) {
      if (o.status !== 'ok') continue;
      o.snippets = perUrl.get(o.url) ?? 0;
      if (o.snippets === 0) o.reason = 'No snippet of this page is stored with this job';
    }

    return {
      job,
      queued_by: queuedBy(metadata),
      ended_at: ended,
      durations: {
        queued_ms: ms(
          job.created_at,
          job.started_at ?? (job.status === 'pending' ? nowIso : ended),
        ),
        run_ms: job.started_at ? ms(job.started_at, ended ?? nowIso) : null,
        total_ms: ms(job.created_at, ended ?? nowIso) ?? 0,
      },
      result,
      url_outcomes: shown,
      url_counts: counts,
      url_outcomes_left_out: outcomes.length - shown.length,
      snippets_count: this.deps.jobs.countSnippets(id),
    };
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

/**
 * Who or what queued a job, from what its metadata records: jobs do not record the user who
 * asked (the audit log has the request), so a relaunch or a server action.
 */
function queuedBy(metadata: Record<string, unknown>): string | null {
  const by = metadata.queued_by ?? metadata.requested_by;
  if (typeof by === 'string' && by) return by.slice(0, 200);
  if (typeof metadata.relaunched_from === 'number') {
    return `relaunch of job ${metadata.relaunched_from}`;
  }
  if (typeof metadata.action === 'string' && metadata.action) {
    return `the server (${metadata.action.slice(0, 100)})`;
  }
  return null;
}
