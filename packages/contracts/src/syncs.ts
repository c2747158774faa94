import { z } from 'zod';

/** The schedules a web source can have besides a cron expression (five fields, UTC). */
export const SYNC_PRESETS = ['off', 'hourly', 'daily', 'weekly'] as const;
export type SyncPreset = (typeof SYNC_PRESETS)[number];
/** A cron expression is at most this long: five fields, with lists and ranges. */
export const SCHEDULE_MAX_CHARS = 100;

/**
 * How one sync of a source ended: `unchanged` (a 304 or the same content: one request, no
 * processing), `changed` (re-segmented, only new segments embedded), `missing` (404/410, marked
 * and kept until the prune threshold or the operator's prune), `pruned` (removed with its
 * snippets), `failed` (a transient error: the old content is kept), `skipped` (another sync of
 * the source held it).
 */
export const SYNC_OUTCOMES = [
  'running',
  'unchanged',
  'changed',
  'missing',
  'pruned',
  'failed',
  'skipped',
] as const;
export const SyncOutcome = z.enum(SYNC_OUTCOMES);
export type SyncOutcome = z.infer<typeof SyncOutcome>;

const count = z.number().int().min(0);

/** What one sync did, in pages and in segments. */
export const SyncCounts = z.object({
  pages_added: count,
  pages_changed: count,
  pages_unchanged: count,
  pages_removed: count,
  pages_failed: count,
  segments_added: count,
  segments_kept: count,
  segments_removed: count,
  /** Segments embedded by this sync: the new texts only, never the unchanged ones. */
  reembedded: count,
  /**
   * Pages re-cut because their snippets were cut by an older segmentation (their content may be
   * unchanged): their old snippets replaced, the new ones embedded as for a changed page.
   */
  pages_resegmented: count.optional(),
});
export type SyncCounts = z.infer<typeof SyncCounts>;

export const SourceSync = SyncCounts.extend({
  id: z.number().int(),
  source_id: z.number().int(),
  job_id: z.number().int().nullable(),
  started_at: z.string(),
  ended_at: z.string().nullable(),
  outcome: SyncOutcome,
  error: z.string().nullable(),
});
export type SourceSync = z.infer<typeof SourceSync>;

export const SourceSyncList = z.object({ syncs: z.array(SourceSync) });
export type SourceSyncList = z.infer<typeof SourceSyncList>;

export const SourceIdParams = z.object({ id: z.coerce.number().int().min(1) });
export type SourceIdParams = z.infer<typeof SourceIdParams>;

export const SourceSyncListQuery = z.object({
  limit: z.coerce.number().int().min(1).max(500).default(50),
});
export type SourceSyncListQuery = z.input<typeof SourceSyncListQuery>;

/** 'off', 'hourly', 'daily', 'weekly', or a five-field cron expression (checked by the server). */
export const SetScheduleRequest = z.object({
  schedule: z
    .string()
    .trim()
    .min(1, 'is required')
    .max(SCHEDULE_MAX_CHARS, `must be at most ${SCHEDULE_MAX_CHARS} characters`),
});
export type SetScheduleRequest = z.input<typeof SetScheduleRequest>;

export const SyncNowResponse = z.object({
  job_id: z.number().int(),
  source_ids: z.array(z.number().int()),
});
export type SyncNowResponse = z.infer<typeof SyncNowResponse>;

/** A source a prune would remove: found gone (404/410) by its last syncs. */
export const PruneCandidate = z.object({
  id: z.number().int(),
  url: z.string(),
  missing_count: z.number().int(),
  snippets: z.number().int(),
});
export type PruneCandidate = z.infer<typeof PruneCandidate>;

/** The dry run: what POST /sources/prune would remove now. */
export const PrunePreview = z.object({
  sources: z.number().int(),
  snippets: z.number().int(),
  /** Syncs in a row that must find a page gone before a sync prunes it by itself. */
  threshold: z.number().int(),
  candidates: z.array(PruneCandidate),
});
export type PrunePreview = z.infer<typeof PrunePreview>;

export const PruneRequest = z
  .object({
    /** Only these of the candidates; absent: every candidate of the preview. */
    source_ids: z.array(z.number().int().min(1)).max(10_000).optional(),
  })
  .default({});
export type PruneRequest = z.input<typeof PruneRequest>;

export const PruneResponse = z.object({
  sources_deleted: z.number().int(),
  snippets_deleted: z.number().int(),
  vectors_deleted: z.number().int(),
});
export type PruneResponse = z.infer<typeof PruneResponse>;

/** A source's last sync, as the source listing shows it. */
export const LastSync = SyncCounts.extend({
  job_id: z.number().int().nullable(),
  outcome: SyncOutcome,
  ended_at: z.string().nullable(),
  error: z.string().nullable(),
});
export type LastSync = z.infer<typeof LastSync>;
