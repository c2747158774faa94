import { z } from 'zod';
import { INGEST_OPTIONS, JobStatus } from './jobs.js';
import { SyncCounts } from './syncs.js';

/** Which links a crawl follows: the start URLs' hosts, those hosts and their subdomains, or a path prefix. */
export const CRAWL_SCOPES = ['host', 'domain', 'prefix'] as const;
export const CrawlScopeName = z.enum(CRAWL_SCOPES, { message: 'must be host, domain or prefix' });

/** Limits of a crawl request; the form and the server both take them from here. */
export const CRAWL_BOUNDS = {
  start_urls: { min: 1, max: 50 },
  max_depth: { min: 0, max: 20, default: 3 },
  max_pages: { min: 1, max: 100_000, default: 500 },
  /** Include or exclude patterns, each side. */
  patterns: { max: 50, max_length: 500 },
} as const;
const B = CRAWL_BOUNDS;

const int = () => z.number().int('must be a whole number');
const pattern = z
  .string()
  .trim()
  .min(1, 'must not be empty')
  .max(B.patterns.max_length, `must be at most ${B.patterns.max_length} characters`);

export const CrawlRequest = z.object({
  start_urls: z
    .array(z.string().max(2000, 'must be at most 2000 characters'))
    .min(B.start_urls.min, 'Please enter at least one start URL')
    .max(B.start_urls.max, `at most ${B.start_urls.max} start URLs`),
  scope: CrawlScopeName.default('host'),
  max_depth: int()
    .min(B.max_depth.min, `must be at least ${B.max_depth.min}`)
    .max(B.max_depth.max, `must be at most ${B.max_depth.max}`)
    .default(B.max_depth.default),
  max_pages: int()
    .min(B.max_pages.min, `must be at least ${B.max_pages.min}`)
    .max(B.max_pages.max, `must be at most ${B.max_pages.max}`)
    .default(B.max_pages.default),
  include_patterns: z
    .array(pattern)
    .max(B.patterns.max, `at most ${B.patterns.max} patterns`)
    .default([]),
  exclude_patterns: z
    .array(pattern)
    .max(B.patterns.max, `at most ${B.patterns.max} patterns`)
    .default([]),
  use_sitemaps: z.boolean().default(true),
  ...INGEST_OPTIONS,
});
export type CrawlRequest = z.input<typeof CrawlRequest>;

export const CrawlResponse = z.object({
  job_id: z.number().int(),
  start_urls: z.array(z.string()),
  status: JobStatus,
});
export type CrawlResponse = z.infer<typeof CrawlResponse>;

/**
 * Why a frontier URL was not stored. robots: refused by robots.txt; scope: outside the crawl's
 * scope; pattern: refused by the include/exclude patterns; duplicate: the same content (or its
 * canonical or redirect target) was already seen; too_large: over the fetcher's size cap;
 * noindex: the page asks not to be indexed; error: the fetch or the processing failed.
 */
export const CRAWL_SKIP_REASONS = [
  'robots',
  'scope',
  'pattern',
  'duplicate',
  'too_large',
  'noindex',
  'error',
] as const;
export const CrawlSkipReason = z.enum(CRAWL_SKIP_REASONS);
export type CrawlSkipReason = z.infer<typeof CrawlSkipReason>;

export const FRONTIER_STATUSES = ['pending', 'fetched', 'skipped', 'failed'] as const;
export const FrontierStatus = z.enum(FRONTIER_STATUSES);
export type FrontierStatus = z.infer<typeof FrontierStatus>;

/** A crawl's live figures, kept in its job's stats under `crawl`. */
export const CrawlProgress = z.object({
  /** URLs the crawl learnt of (start URLs, sitemaps, links), each once. */
  discovered: int(),
  /** Waiting to be fetched. */
  queued: int(),
  /** Requested from their site (whatever came back). */
  fetched: int(),
  /** Fetched and kept as a source. */
  stored: int(),
  skipped: z.object(
    Object.fromEntries(CRAWL_SKIP_REASONS.map((r) => [r, int()])) as Record<
      CrawlSkipReason,
      ReturnType<typeof int>
    >,
  ),
  /** The deepest level fetched so far (start URLs are 0). */
  depth: int(),
});
export type CrawlProgress = z.infer<typeof CrawlProgress>;

export const emptyCrawlProgress = (): CrawlProgress => ({
  discovered: 0,
  queued: 0,
  fetched: 0,
  stored: 0,
  skipped: Object.fromEntries(CRAWL_SKIP_REASONS.map((r) => [r, 0])) as Record<
    CrawlSkipReason,
    number
  >,
  depth: 0,
});

export const CrawlJobParams = z.object({ job_id: z.coerce.number().int().min(1) });
export type CrawlJobParams = z.infer<typeof CrawlJobParams>;

export const FrontierQuery = z.object({
  status: FrontierStatus.optional(),
  reason: CrawlSkipReason.optional(),
  page: z.coerce.number().int().min(1, 'must be at least 1').default(1),
  per_page: z.coerce
    .number()
    .int()
    .min(1, 'must be at least 1')
    .max(500, 'must be at most 500')
    .default(100),
});
export type FrontierQuery = z.input<typeof FrontierQuery>;

export const FrontierEntry = z.object({
  url: z.string(),
  depth: z.number().int(),
  status: FrontierStatus,
  reason: CrawlSkipReason.nullable(),
  http_status: z.number().int().nullable(),
  /** What went wrong, or why it was skipped, in words. */
  detail: z.string().nullable(),
  /** The page whose link led here (null for start URLs and sitemap entries). */
  discovered_from: z.string().nullable(),
});
export type FrontierEntry = z.infer<typeof FrontierEntry>;

export const FrontierList = z.object({
  entries: z.array(FrontierEntry),
  total: z.number().int(),
  page: z.number().int(),
  per_page: z.number().int(),
});
export type FrontierList = z.infer<typeof FrontierList>;

/** Bounds of the crawler settings (politeness towards the sites crawled). */
export const CRAWLER_BOUNDS = {
  per_host_concurrency: { min: 1, max: 16 },
  min_delay_ms: { min: 0, max: 60_000 },
  max_backoff_ms: { min: 1000, max: 3_600_000 },
} as const;

export const CrawlerSettings = z
  .object({
    /** Sent on every crawl request and matched against robots.txt groups. */
    user_agent: z.string().trim().min(1, 'is required').max(300),
    per_host_concurrency: int()
      .min(CRAWLER_BOUNDS.per_host_concurrency.min, 'must be at least 1')
      .max(CRAWLER_BOUNDS.per_host_concurrency.max, 'must be at most 16'),
    /** Between two requests to one host; a robots.txt Crawl-delay above it wins. */
    min_delay_ms: int()
      .min(CRAWLER_BOUNDS.min_delay_ms.min, 'must be at least 0')
      .max(CRAWLER_BOUNDS.min_delay_ms.max, 'must be at most 60000'),
    /** The longest wait after a 429/503 (Retry-After included) or a Crawl-delay. */
    max_backoff_ms: int()
      .min(CRAWLER_BOUNDS.max_backoff_ms.min, 'must be at least 1000')
      .max(CRAWLER_BOUNDS.max_backoff_ms.max, 'must be at most 3600000'),
  })
  .strict();
export type CrawlerSettings = z.infer<typeof CrawlerSettings>;

export const DEFAULT_CRAWLER_SETTINGS: CrawlerSettings = {
  user_agent: 'ADAM-crawler/0.1 (+knowledge-snippet crawler)',
  per_host_concurrency: 2,
  min_delay_ms: 1000,
  max_backoff_ms: 60_000,
};

// --- Keeping a crawl fresh (sync_crawl) ---------------------------------------------------------

// A crawl is named by the id of the crawl_site job that first ran it (CrawlJobParams).

/** Where one sync of a crawl is: running, completed, or stopped (its job ended before its end). */
export const CRAWL_SYNC_OUTCOMES = ['running', 'completed', 'stopped'] as const;

/** One sync of a crawl: its pages' counts summed (pages added, changed, unchanged, removed, failed). */
export const CrawlSync = SyncCounts.extend({
  id: z.number().int(),
  crawl_id: z.number().int(),
  job_id: z.number().int().nullable(),
  started_at: z.string(),
  ended_at: z.string().nullable(),
  outcome: z.enum(CRAWL_SYNC_OUTCOMES),
  error: z.string().nullable(),
});
export type CrawlSync = z.infer<typeof CrawlSync>;

export const CrawlSyncList = z.object({ syncs: z.array(CrawlSync) });
export type CrawlSyncList = z.infer<typeof CrawlSyncList>;

export const CrawlSyncListQuery = z.object({
  limit: z.coerce.number().int().min(1).max(500).default(50),
});

/** A crawl kept fresh: its schedule and pages (what PUT .../schedule answers). */
export const CrawlDefinition = z.object({
  id: z.number().int(),
  start_urls: z.array(z.string()),
  schedule: z.string(),
  next_sync_at: z.string().nullable(),
  last_sync_at: z.string().nullable(),
  /** Pages the crawl holds now (web sources). */
  pages: z.number().int().min(0),
  last_sync: CrawlSync.nullable(),
});
export type CrawlDefinition = z.infer<typeof CrawlDefinition>;

export const CrawlSyncNowResponse = z.object({
  job_id: z.number().int(),
  crawl_id: z.number().int(),
});
export type CrawlSyncNowResponse = z.infer<typeof CrawlSyncNowResponse>;
