import { z } from 'zod';
import { SearchMode } from './snippets.js';

/**
 * A search's best vector similarity below this, with no keyword match among its results, makes
 * it a weak one: it found something, but nothing that shares a word with the query or comes
 * close to it in meaning.
 */
export const WEAK_SIMILARITY = 0.3;
/** Result ids kept per search, best first. */
export const SEARCH_HISTORY_RESULT_IDS = 100;
export const SEARCH_HISTORY_PAGE_MAX = 200;
export const SEARCH_HISTORY_SUMMARY_DAYS = { min: 1, max: 3650, default: 7 } as const;
/** Rows in each list of the summary. */
export const SEARCH_HISTORY_SUMMARY_ROWS = 10;

/**
 * all: every search; empty: it found nothing; weak: it found something, but its best vector
 * similarity is below WEAK_SIMILARITY (0.3) and no result matched a query word (no keyword
 * score).
 */
export const SEARCH_OUTCOMES = ['all', 'empty', 'weak'] as const;
export const SearchOutcome = z.enum(SEARCH_OUTCOMES, { message: 'must be all, empty or weak' });
export type SearchOutcome = z.infer<typeof SearchOutcome>;

/** The rerank stage's cost when the search ran it. */
export const SearchHistoryRerank = z.object({
  model: z.string(),
  top_n: z.number().int(),
  latency_ms: z.number(),
});
export type SearchHistoryRerank = z.infer<typeof SearchHistoryRerank>;

export const SearchHistoryEntry = z.object({
  id: z.number().int(),
  at: z.string(),
  /** Who searched: the session's or the API key's user. */
  user_id: z.number().int().nullable(),
  query: z.string(),
  mode: SearchMode,
  filters: z.record(z.string(), z.unknown()).nullable(),
  k: z.number().int(),
  result_count: z.number().int(),
  /** The best result's score (what results are ranked by); null when nothing was found. */
  top_score: z.number().nullable(),
  /** The best vector similarity among the results; null when nothing was found. */
  best_similarity: z.number().nullable(),
  /** Results that matched a query word (have a keyword score). */
  keyword_matches: z.number().int(),
  /** Result snippet ids, best first (up to 100). */
  result_ids: z.array(z.number().int()),
  latency_ms: z.number(),
  rerank: SearchHistoryRerank.nullable(),
  /** empty / weak as defined by SearchOutcome; ok otherwise. */
  outcome: z.enum(['ok', 'empty', 'weak']),
});
export type SearchHistoryEntry = z.infer<typeof SearchHistoryEntry>;

const Time = z
  .string()
  .trim()
  .refine((s) => !Number.isNaN(Date.parse(s)), 'must be a date/time');

export const SearchHistoryQuery = z.object({
  /** A piece of the query's text, case-insensitive (plain text, not a pattern). */
  q: z.string().trim().max(200).optional(),
  mode: SearchMode.optional(),
  outcome: SearchOutcome.default('all'),
  from: Time.optional(),
  to: Time.optional(),
  /** The next_cursor of the previous page: older entries. */
  cursor: z
    .string()
    .regex(/^\d{1,15}$/, 'is not a cursor a page gave')
    .optional(),
  limit: z.coerce.number().int().min(1).max(SEARCH_HISTORY_PAGE_MAX).default(50),
});
export type SearchHistoryQuery = z.infer<typeof SearchHistoryQuery>;

export const SearchHistoryPage = z.object({
  /** Newest first. */
  entries: z.array(SearchHistoryEntry),
  /** Null on the last page. */
  next_cursor: z.string().nullable(),
});
export type SearchHistoryPage = z.infer<typeof SearchHistoryPage>;

export const SearchHistorySummaryQuery = z.object({
  days: z.coerce
    .number()
    .int()
    .min(SEARCH_HISTORY_SUMMARY_DAYS.min)
    .max(SEARCH_HISTORY_SUMMARY_DAYS.max)
    .default(SEARCH_HISTORY_SUMMARY_DAYS.default),
});
export type SearchHistorySummaryQuery = z.infer<typeof SearchHistorySummaryQuery>;

/**
 * Searches grouped by their normalised query (trimmed, lower-cased, runs of spaces made one):
 * `query` is the text of the latest of them, `mode` its mode.
 */
export const SearchHistoryQueryStats = z.object({
  normalized: z.string(),
  query: z.string(),
  mode: SearchMode,
  count: z.number().int(),
  avg_latency_ms: z.number(),
  /** Nearest-rank 95th percentile. */
  p95_latency_ms: z.number(),
  avg_results: z.number(),
  last_at: z.string(),
});
export type SearchHistoryQueryStats = z.infer<typeof SearchHistoryQueryStats>;

export const SearchHistorySummary = z.object({
  days: z.number().int(),
  since: z.string(),
  searches: z.number().int(),
  empty: z.number().int(),
  weak: z.number().int(),
  /** Most frequent queries first. */
  top_queries: z.array(SearchHistoryQueryStats),
  /** Single searches, slowest first. */
  slowest: z.array(SearchHistoryEntry),
  /** Queries whose searches found nothing, most frequent first. */
  found_nothing: z.array(SearchHistoryQueryStats),
  /** Queries whose searches had only weak matches (see SearchOutcome), most frequent first. */
  weak_matches: z.array(SearchHistoryQueryStats),
  recording: z.object({
    enabled: z.boolean(),
    retention_days: z.number().int(),
    /** Searches dropped since start because the store fell behind (the buffer was full). */
    dropped: z.number().int(),
  }),
});
export type SearchHistorySummary = z.infer<typeof SearchHistorySummary>;

export const SearchHistoryCleared = z.object({ deleted: z.number().int() });
export type SearchHistoryCleared = z.infer<typeof SearchHistoryCleared>;

/** Trimmed, lower-cased, runs of white space made one space: what groups a query's searches. */
export function normalizeQuery(query: string): string {
  return query.trim().toLowerCase().split(/\s+/).filter(Boolean).join(' ');
}
