import { z } from 'zod';
import { MAX_WORKERS } from './constants.js';
import { SCORE_BOUNDS } from './common.js';
import { LastSync } from './syncs.js';

export const JOB_STATUSES = ['pending', 'processing', 'completed', 'failed', 'cancelled'] as const;
export const JobStatus = z.enum(JOB_STATUSES);
export type JobStatus = z.infer<typeof JobStatus>;
export const JOB_PRIORITIES = ['high', 'normal', 'low'] as const;
export const JobPriority = z.enum(JOB_PRIORITIES, { message: 'must be high, normal or low' });
export type JobPriority = z.infer<typeof JobPriority>;
export const JOB_TYPES = [
  'process_urls',
  'save_segments',
  'rebuild_index',
  'optimize_index',
  'install_model',
  'switch_embedder',
  'process_documents',
  'sync_sources',
  'import_snippets',
  'crawl_site',
  'sync_crawl',
  'evaluation_run',
] as const;
export type JobType = (typeof JOB_TYPES)[number];

/** The segment a job's segmentation judged worst, and its score. */
export const DiagnosticSummary = z.object({ snippet: z.string(), score: z.number() });
export type DiagnosticSummary = z.infer<typeof DiagnosticSummary>;

export const JobError = z.object({
  type: z.string(),
  error: z.string(),
  message: z.string(),
  url: z.string().nullable(),
  at: z.string(),
  diagnostic_summary: DiagnosticSummary.nullable().optional(),
});
export type JobError = z.infer<typeof JobError>;

export const JobStats = z
  .object({
    segments_created: z.number().int(),
    snippets_added: z.number().int(),
    duplicates: z.number().int(),
    urls_total: z.number().int(),
    urls_done: z.number().int(),
    urls_failed: z.number().int(),
    segmentation_method: z.string().nullable(),
    last_fallback_reason: z.string().nullable(),
    last_warning: z.string().nullable(),
    last_rejection_reason: z.string().nullable(),
    diagnostic_summary: DiagnosticSummary.nullable(),
    segmentation_stats: z
      .object({ method: z.string(), counts: z.object({ before: z.number(), after: z.number() }) })
      .nullable(),
  })
  .partial()
  .loose();
export type JobStats = z.infer<typeof JobStats>;

export const Job = z.object({
  id: z.number().int(),
  type: z.string(),
  status: JobStatus,
  priority: JobPriority,
  urls: z.array(z.string()),
  progress: z.number(),
  stage: z.string().nullable(),
  stats: JobStats,
  errors: z.array(JobError),
  filters: z.record(z.string(), z.unknown()),
  metadata: z.record(z.string(), z.unknown()),
  worker_id: z.string().nullable(),
  attempts: z.number().int(),
  created_at: z.string(),
  started_at: z.string().nullable(),
  completed_at: z.string().nullable(),
  failed_at: z.string().nullable(),
  cancelled_at: z.string().nullable(),
  heartbeat_at: z.string().nullable(),
  updated_at: z.string(),
});
export type Job = z.infer<typeof Job>;

/** Jobs counted by status, every status present. */
export const ByStatus = z.object({
  pending: z.number().int(),
  processing: z.number().int(),
  completed: z.number().int(),
  failed: z.number().int(),
  cancelled: z.number().int(),
});
export type ByStatus = z.infer<typeof ByStatus>;
export const JobList = z.object({
  jobs: z.array(Job),
  total: z.number().int(),
  by_status: ByStatus,
});
export type JobList = z.infer<typeof JobList>;

export const JobListQuery = z.object({
  status: z.preprocess((v) => (v === '' ? undefined : v), JobStatus.optional()),
  limit: z.coerce.number().int().min(1).max(1000, 'must be at most 1000').default(200),
});
export type JobListQuery = z.input<typeof JobListQuery>;

const blankToUndefined = (v: unknown) => (v === '' ? undefined : v);
/** A day (taken as 00:00 UTC) or an instant with its offset; answered as an ISO instant. */
const instant = z
  .union([z.iso.date(), z.iso.datetime({ offset: true })], {
    message: 'must be a date (YYYY-MM-DD) or an ISO date-time',
  })
  .transform((v) => new Date(v.length === 10 ? `${v}T00:00:00Z` : v).toISOString());
/** Search text over a job's URLs and title: bounded, it is matched by a scan. */
export const JOB_SEARCH_MAX = 200;
/**
 * A job list tab (GET /sources/jobs, /active, /queue, /history), paged by keyset: newest first
 * on (created_at, id); `cursor` is the previous page's next_cursor. Without the new parameters
 * it answers what it always did (the newest `limit` jobs).
 */
export const JobHistoryQuery = JobListQuery.extend({
  cursor: z.preprocess(blankToUndefined, z.string().max(200).optional()),
  type: z.preprocess(
    blankToUndefined,
    z
      .string()
      .max(64)
      .regex(/^[a-z_]+$/, 'must be a job type')
      .optional(),
  ),
  created_from: z.preprocess(blankToUndefined, instant.optional()),
  created_to: z.preprocess(blankToUndefined, instant.optional()),
  q: z.preprocess(
    blankToUndefined,
    z
      .string()
      .trim()
      .max(JOB_SEARCH_MAX, `must be at most ${JOB_SEARCH_MAX} characters`)
      .optional(),
  ),
});
export type JobHistoryQuery = z.input<typeof JobHistoryQuery>;
/** Past this many matches a filtered total is not counted further (total_exact false). */
export const JOB_COUNT_CAP = 10_000;
export const JobPage = JobList.extend({
  /** Pass as `cursor` for the next (older) page; null on the last page. */
  next_cursor: z.string().nullable(),
  /** False when `total` stopped at JOB_COUNT_CAP: there are more. */
  total_exact: z.boolean(),
});
export type JobPage = z.infer<typeof JobPage>;

export const URL_OUTCOME_STATUSES = ['ok', 'failed', 'skipped', 'pending'] as const;
export const UrlOutcomeStatus = z.enum(URL_OUTCOME_STATUSES);
export type UrlOutcomeStatus = z.infer<typeof UrlOutcomeStatus>;
/** What became of one of a job's URLs (or files), as far as the job recorded it. */
export const UrlOutcome = z.object({
  url: z.string(),
  status: UrlOutcomeStatus,
  /** Why it failed or was skipped; a warning for an ok URL that made no snippet. */
  reason: z.string().nullable(),
  /** Snippets of this URL still stored with this job's id. */
  snippets: z.number().int(),
  /** Not recorded per URL by the jobs yet: null. */
  bytes: z.number().int().nullable(),
  duration_ms: z.number().nullable(),
  /** When it failed (from the job's errors); null otherwise. */
  at: z.string().nullable(),
});
export type UrlOutcome = z.infer<typeof UrlOutcome>;
/** URL outcomes in one detail answer; past it, `url_outcomes_left_out` says how many. */
export const MAX_URL_OUTCOMES = 500;
export const JobDetail = z.object({
  job: Job,
  /** Who or what queued it, when recorded: a relaunch, a schedule, a user. */
  queued_by: z.string().nullable(),
  /** completed_at, failed_at or cancelled_at, whichever ended it. */
  ended_at: z.string().nullable(),
  durations: z.object({
    /** created → started (or → now while pending). */
    queued_ms: z.number().nullable(),
    /** started → ended (or → now while processing). */
    run_ms: z.number().nullable(),
    /** created → ended (or → now). */
    total_ms: z.number(),
  }),
  /** The result the job recorded (metadata.result), if any. */
  result: z.record(z.string(), z.unknown()).nullable(),
  url_outcomes: z.array(UrlOutcome),
  url_counts: z.object({
    total: z.number().int(),
    ok: z.number().int(),
    failed: z.number().int(),
    skipped: z.number().int(),
    pending: z.number().int(),
  }),
  url_outcomes_left_out: z.number().int(),
  /** Snippets stored with this job's id now (the snippets listing filters by job_id). */
  snippets_count: z.number().int(),
});
export type JobDetail = z.infer<typeof JobDetail>;
export const RelaunchQuery = z.object({ priority: JobPriority.default('normal') });
export type RelaunchQuery = z.input<typeof RelaunchQuery>;
export const JobErrors = z.object({
  job_id: z.number().int(),
  errors: z.array(JobError),
  total: z.number().int(),
});
export type JobErrors = z.infer<typeof JobErrors>;
export const CancelPendingResponse = z.object({
  cancelled: z.number().int(),
  job_ids: z.array(z.number().int()),
});
export type CancelPendingResponse = z.infer<typeof CancelPendingResponse>;
/** POST /admin/maintenance/reset-stuck-jobs: the stuck jobs put back to pending. */
export const ResetStuckJobsResponse = z.object({
  reset: z.number().int(),
  job_ids: z.array(z.number().int()),
});
export type ResetStuckJobsResponse = z.infer<typeof ResetStuckJobsResponse>;
export const RelaunchResponse = z.object({
  job_id: z.number().int(),
  relaunched_from: z.number().int(),
  job: Job,
});
export type RelaunchResponse = z.infer<typeof RelaunchResponse>;

/**
 * Jobs waiting to run (pending) past which a new one is refused with 429, so that callers who
 * wait on their job (save-segments with `wait`, up to 120 s) are not queued behind an endless
 * backlog. Saved articles drain at 35–45 a second per worker (69–88 pages/s on two workers, see
 * the README), so a full queue of them clears in about 25 s with one worker; a URL job holds up
 * to 5,000 URLs, and 1,000 of those are days of fetching, far past any useful backlog.
 */
export const MAX_QUEUED_JOBS = 1000;
/** The Retry-After of that refusal: about how long a full queue of articles takes to drain. */
export const QUEUE_FULL_RETRY_AFTER_SECONDS = 30;

/** A job's rows are reported stuck when processing with no heartbeat for this long. */
export const STUCK_AFTER_SECONDS = 120;

export const WorkerInfo = z.object({
  id: z.string(),
  status: z.enum(['idle', 'busy', 'stopping']),
  current_job: z.number().int().nullable(),
  started_at: z.string(),
  processed: z.number().int(),
  failed: z.number().int(),
  /** Redis mode: tasks this worker stopped past their budget (task_timeout_seconds). */
  task_timeouts: z.number().int().optional(),
});
export type WorkerInfo = z.infer<typeof WorkerInfo>;
export const WorkersStatus = z.object({
  mode: z.enum(['embedded', 'redis']),
  running: z.number().int(),
  workers: z.array(WorkerInfo),
  queue: z.object({ pending: z.number().int(), processing: z.number().int() }),
});
export type WorkersStatus = z.infer<typeof WorkersStatus>;
export const StartWorkersRequest = z
  .object({
    count: z
      .number()
      .int()
      .min(1, 'must be at least 1')
      .max(MAX_WORKERS, `must be at most ${MAX_WORKERS}`)
      .default(1),
  })
  .nullish();
export type StartWorkersRequest = z.input<typeof StartWorkersRequest>;

export const SOURCE_LANGUAGES = ['auto', 'en', 'fr', 'es'] as const;
/** A quality minimum's bounds, on a number or on a form field coerced to one. */
export const qualityMinimum = (n: z.ZodNumber) =>
  n
    .min(SCORE_BOUNDS.min, `must be at least ${SCORE_BOUNDS.min}`)
    .max(SCORE_BOUNDS.max, `must be at most ${SCORE_BOUNDS.max}`);
/** The options every request that ingests takes (a URL list, a crawl, an upload's form). */
export const INGEST_OPTIONS = {
  language: z.enum(SOURCE_LANGUAGES, { message: 'must be auto, en, fr or es' }).default('auto'),
  min_quality: qualityMinimum(z.number()).nullish(),
  priority: JobPriority.default('normal'),
};
export const ProcessSourcesRequest = z.object({
  urls: z.union([
    z.array(z.string()).max(5000, 'at most 5000 URLs at once'),
    z.string().max(1_000_000),
  ]),
  ...INGEST_OPTIONS,
});
export type ProcessSourcesRequest = z.input<typeof ProcessSourcesRequest>;
export const ProcessSourcesResponse = z.object({
  job_id: z.number().int(),
  urls: z.array(z.string()),
  status: JobStatus,
});
export type ProcessSourcesResponse = z.infer<typeof ProcessSourcesResponse>;

/** A web page (a URL, or a page a crawl found), an uploaded document, or an import's records. */
export const SOURCE_KINDS = ['web', 'file', 'import'] as const;
export const SourceKind = z.enum(SOURCE_KINDS);
export type SourceKind = z.infer<typeof SourceKind>;

export const Source = z.object({
  id: z.number().int(),
  url: z.string(),
  kind: SourceKind,
  domain: z.string(),
  title: z.string().nullable(),
  language: z.string().nullable(),
  segments_count: z.number().int(),
  last_job_id: z.number().int().nullable(),
  last_status: z.string().nullable(),
  last_error: z.string().nullable(),
  created_at: z.string(),
  updated_at: z.string(),
  /** 'off', 'hourly', 'daily', 'weekly' or a cron expression (web sources). */
  schedule: z.string(),
  last_sync_at: z.string().nullable(),
  next_sync_at: z.string().nullable(),
  /** Syncs in a row that found the page gone (404/410); 0 while it answers. */
  missing_count: z.number().int(),
  last_sync: LastSync.nullable(),
});
export type Source = z.infer<typeof Source>;
export const SourceListQuery = z.object({
  search: z.string().trim().max(500).optional(),
  domain: z.string().trim().max(253).optional(),
  /** Only sources of this kind; empty means every kind. */
  kind: z.preprocess(
    (v) => (v === '' ? undefined : v),
    z.enum(SOURCE_KINDS, { message: 'must be web, file or import' }).optional(),
  ),
  page: z.coerce.number().int().min(1).default(1),
  per_page: z.coerce.number().int().min(1).max(500).default(100),
});
export type SourceListQuery = z.input<typeof SourceListQuery>;
export const SourceList = z.object({ sources: z.array(Source), total: z.number().int() });
export type SourceList = z.infer<typeof SourceList>;
export const DeleteSourceQuery = z.object({
  delete_snippets: z
    .enum(['true', 'false', '1', '0'])
    .default('false')
    .transform((v) => v === 'true' || v === '1'),
});
export type DeleteSourceQuery = z.input<typeof DeleteSourceQuery>;
export const DeleteSourceResponse = z.object({
  id: z.number().int(),
  deleted: z.literal(true),
  snippets_deleted: z.number().int(),
  vectors_deleted: z.number().int(),
});
export type DeleteSourceResponse = z.infer<typeof DeleteSourceResponse>;
