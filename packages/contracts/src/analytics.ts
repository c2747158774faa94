import { z } from 'zod';
import { Job } from './jobs.js';

/**
 * Analytics calls (spec 002 §7 emotion analytics, spec 000 §9 overview, the snippets analytics
 * screen and the job throughput strip). Every figure is computed from stored data: aggregate
 * tables kept by the store on each write, so a request never scans the snippets.
 */

/** A snippet counts towards an emotion when its score for it reaches this. */
export const EMOTION_PRESENT_THRESHOLD = 0.1;

export const ANALYTICS_PERIODS = ['hour', 'day', 'week', 'month', 'all'] as const;
export const AnalyticsPeriod = z.enum(ANALYTICS_PERIODS, {
  message: 'must be one of hour, day, week, month, all',
});
export type AnalyticsPeriod = z.infer<typeof AnalyticsPeriod>;
export const DEFAULT_ANALYTICS_PERIOD: AnalyticsPeriod = 'day';

export const EmotionsQuery = z.object({ period: AnalyticsPeriod.default('day') });
export type EmotionsQuery = z.input<typeof EmotionsQuery>;

export const EmotionFigure = z.object({
  emotion: z.string(),
  /** Snippets of the period whose score for this emotion is at least EMOTION_PRESENT_THRESHOLD. */
  count: z.number().int(),
  /** Mean score over every snippet of the period (0–1). */
  average: z.number(),
  /** Mean score over the snippets where the emotion is present (0–1). */
  average_when_present: z.number(),
  /** Snippets whose strongest emotion this is. */
  dominant_count: z.number().int(),
});
export type EmotionFigure = z.infer<typeof EmotionFigure>;

/** GET /analytics/emotions?period=day */
export const EmotionAnalytics = z.object({
  period: AnalyticsPeriod,
  /**
   * Start of the period (ISO), null for `all`. Periods are counted in whole clock hours: the
   * hours that overlap the last hour, day, week (7 days) or month (30 days).
   */
  since: z.string().nullable(),
  /** Snippets created in the period. */
  total_snippets: z.number().int(),
  /** Of those, snippets with at least one emotion present. */
  with_emotion: z.number().int(),
  emotions: z.array(EmotionFigure),
  dominant: z.string().nullable(),
  /** Normalised Shannon entropy of the dominant-emotion counts: 0 one emotion, 1 all equal. */
  diversity: z.number(),
});
export type EmotionAnalytics = z.infer<typeof EmotionAnalytics>;

export const EmotionDistributionQuery = z.object({ period: AnalyticsPeriod.default('all') });
export type EmotionDistributionQuery = z.input<typeof EmotionDistributionQuery>;

/** GET /analytics/emotions/distribution?period=all: share of snippets per dominant emotion. */
export const EmotionDistribution = z.object({
  period: AnalyticsPeriod,
  total: z.number().int(),
  distribution: z.array(
    z.object({
      emotion: z.string(),
      count: z.number().int(),
      /** 0–100, of the snippets that have a dominant emotion. */
      percentage: z.number(),
      average: z.number(),
    }),
  ),
});
export type EmotionDistribution = z.infer<typeof EmotionDistribution>;

export const EMOTION_TIMELINE_DEFAULT_HOURS = 24;
export const EMOTION_TIMELINE_MAX_HOURS = 24 * 30;
export const EmotionTimelineQuery = z.object({
  hours: z.coerce
    .number()
    .int('must be a whole number')
    .min(1, 'must be at least 1')
    .max(EMOTION_TIMELINE_MAX_HOURS, `must be at most ${EMOTION_TIMELINE_MAX_HOURS}`)
    .default(EMOTION_TIMELINE_DEFAULT_HOURS),
});
export type EmotionTimelineQuery = z.input<typeof EmotionTimelineQuery>;

/** GET /analytics/emotions/timeline?hours=24: one bucket per hour, oldest first, empty ones too. */
export const EmotionTimeline = z.object({
  hours: z.number().int(),
  buckets: z.array(
    z.object({
      /** Start of the hour, ISO. */
      hour: z.string(),
      total: z.number().int(),
      /** Mean score per emotion over the bucket's snippets (0 when empty). */
      averages: z.record(z.string(), z.number()),
      /** Snippets per emotion present. */
      counts: z.record(z.string(), z.number()),
    }),
  ),
});
export type EmotionTimeline = z.infer<typeof EmotionTimeline>;

// ---------------------------------------------------------------------------------------------
// Overview (spec 000 §9, spec 002 §9)

export const RECENT_ACTIVITY_DEFAULT_LIMIT = 10;
export const ACTIVITY_TIMELINE_BUCKETS = 12;

export const ACTIVITY_KINDS = [
  'job_created',
  'job_completed',
  'job_failed',
  'job_cancelled',
  'snippets_deleted',
  'maintenance',
  'backup',
  'restore',
  'login',
  'settings',
  'sync',
  'quality_alert',
] as const;
export type ActivityKind = (typeof ACTIVITY_KINDS)[number];

export const ActivityItem = z.object({
  id: z.number().int(),
  kind: z.enum(ACTIVITY_KINDS),
  /** One readable line, e.g. "Job 12 completed: 48 segments". */
  message: z.string(),
  /** success, info, warning or error: the console's colour for it. */
  level: z.enum(['success', 'info', 'warning', 'error']),
  job_id: z.number().int().nullable(),
  created_at: z.string(),
});
export type ActivityItem = z.infer<typeof ActivityItem>;

export const RecentActivityQuery = z.object({
  limit: z.coerce
    .number()
    .int()
    .min(1, 'must be at least 1')
    .max(100, 'must be at most 100')
    .default(RECENT_ACTIVITY_DEFAULT_LIMIT),
});
export type RecentActivityQuery = z.input<typeof RecentActivityQuery>;
/** GET /analytics/activity/recent?limit=10 */
export const RecentActivity = z.object({ items: z.array(ActivityItem) });
export type RecentActivity = z.infer<typeof RecentActivity>;

export const ActivityTimelineQuery = z.object({ period: AnalyticsPeriod.default('day') });
export type ActivityTimelineQuery = z.input<typeof ActivityTimelineQuery>;
/**
 * GET /analytics/activity/timeline?period=day: the last 12 buckets of the period's unit
 * (minutes for hour, hours for day, days for week, month and all), oldest first, the last one
 * being the current (partial) bucket.
 */
export const ActivityTimeline = z.object({
  period: AnalyticsPeriod,
  bucket: z.enum(['minute', 'hour', 'day']),
  buckets: z.array(
    z.object({
      start: z.string(),
      snippets: z.number().int(),
      jobs_created: z.number().int(),
      jobs_completed: z.number().int(),
      jobs_failed: z.number().int(),
    }),
  ),
});
export type ActivityTimeline = z.infer<typeof ActivityTimeline>;

/** GET /analytics/overview: the real totals the overview shows beside the simulated metrics. */
export const OverviewStats = z.object({
  total_snippets: z.number().int(),
  /** Segments ever created by jobs (a snippet is a stored segment; refused duplicates count here). */
  total_segments: z.number().int(),
  total_sources: z.number().int(),
  /** Of total_sources: those holding snippets. */
  sources_with_content: z.number().int(),
  /** Of total_sources: those holding none because their last fetch failed (DNS error, 404...). */
  sources_failed: z.number().int(),
  total_vectors: z.number().int(),
  index_size_mb: z.number(),
  active_jobs: z.number().int(),
  pending_jobs: z.number().int(),
  /** Jobs created in the last hour. */
  throughput_last_hour: z.number().int(),
  /** Index query-cache hit rate (0–1), null before any search. */
  cache_hit_rate: z.number().nullable(),
  /** Segments stored per second over the last minute. */
  segments_per_second: z.number(),
  themes: z.record(z.string(), z.number()),
  average_quality: z.number().nullable(),
  generated_at: z.string(),
});
export type OverviewStats = z.infer<typeof OverviewStats>;

// ---------------------------------------------------------------------------------------------
// Snippets analytics screen

export const QUALITY_BUCKETS = 10;
export const SnippetAnalyticsQuery = z.object({
  days: z.coerce
    .number()
    .int()
    .min(1, 'must be at least 1')
    .max(365, 'must be at most 365')
    .default(30),
});
export type SnippetAnalyticsQuery = z.input<typeof SnippetAnalyticsQuery>;
/** GET /analytics/snippets?days=30 */
export const SnippetAnalytics = z.object({
  total: z.number().int(),
  themes: z.array(z.object({ theme: z.string(), count: z.number().int() })),
  /** Ten buckets of width 0.1, [0, 0.1) … [0.9, 1]. */
  quality: z.array(z.object({ from: z.number(), to: z.number(), count: z.number().int() })),
  average_quality: z.number().nullable(),
  /** Snippets created per day over the last `days` days, oldest first, empty days too. */
  growth: z.array(z.object({ day: z.string(), count: z.number().int(), cumulative: z.number() })),
  top_sources: z.array(
    z.object({
      url: z.string(),
      domain: z.string(),
      title: z.string().nullable(),
      segments_count: z.number().int(),
    }),
  ),
  languages: z.array(z.object({ language: z.string(), count: z.number().int() })),
});
export type SnippetAnalytics = z.infer<typeof SnippetAnalytics>;

// ---------------------------------------------------------------------------------------------
// Job throughput strip (queue screen)

/** GET /sources/jobs/throughput: the last 24 clock hours (the current one included) of job records. */
export const JobThroughput = z.object({
  window_hours: z.number().int(),
  jobs_created: z.number().int(),
  jobs_finished: z.number().int(),
  /** Jobs finished (completed or failed) per hour over the window. */
  jobs_per_hour: z.number(),
  /** Seconds from created_at to started_at, p50 / p95, null without data. */
  wait_p50_s: z.number().nullable(),
  wait_p95_s: z.number().nullable(),
  /** Seconds from started_at to completion or failure. */
  run_p50_s: z.number().nullable(),
  run_p95_s: z.number().nullable(),
  /** Failed / finished (0–1), null when none finished. */
  failure_rate: z.number().nullable(),
  /** Jobs created and finished per clock hour over the window, oldest first (24 values). */
  hourly: z.array(
    z.object({ hour: z.string(), created: z.number().int(), finished: z.number().int() }),
  ),
});
export type JobThroughput = z.infer<typeof JobThroughput>;

/** GET /sources/jobs/find?q=: a job id or part of a URL. */
export const JobFindQuery = z.object({
  q: z.string().trim().min(1, 'must not be empty').max(2048),
  limit: z.coerce.number().int().min(1).max(200).default(50),
});
export type JobFindQuery = z.input<typeof JobFindQuery>;
export const JobFindResponse = z.object({ jobs: z.array(Job), total: z.number().int() });
export type JobFindResponse = z.infer<typeof JobFindResponse>;
