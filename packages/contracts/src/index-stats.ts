import { z } from 'zod';
import { IndexStorage } from './settings.js';
import {
  INDEX_SEARCH_K,
  MAX_SEARCH_K,
  SearchMode,
  Snippet,
  SnippetList,
  SnippetListQuery,
  Theme,
} from './snippets.js';

export const IndexStats = z.object({
  total_vectors: z.number().int(),
  index_size_mb: z.number(),
  index_type: z.string(),
  dimension: z.number().int(),
  is_trained: z.boolean(),
  training_samples: z.number().int(),
  themes: z.record(z.string(), z.number()),
  last_optimized: z.string().nullable(),
  query_performance: z.object({ avg_latency_ms: z.number(), queries: z.number().int() }),
  cache_stats: z.object({
    hit_rate: z.number(),
    hits: z.number().int(),
    misses: z.number().int(),
    size: z.number().int(),
  }),
  accuracy: z.number().nullable(),
  accuracy_sample: z.number().int(),
  /** When the accuracy was measured (it is measured in the background, on a sample). */
  accuracy_measured_at: z.string().nullable().optional(),
  /** How the index stores vectors: f32, or f16 / i8 (smaller, slightly lower recall). */
  storage: IndexStorage,
  embedder: z.string(),
});
export type IndexStats = z.infer<typeof IndexStats>;

export const IndexEntriesQuery = z.object({
  page: z.coerce.number().int().min(1, 'must be at least 1').default(1),
  per_page: z.coerce.number().int().min(1).max(500, 'must be at most 500').default(50),
  search: z.string().trim().max(500).optional(),
  theme: z.preprocess((v) => (v === '' ? undefined : v), Theme.optional()),
  /** As the snippet listing's: a page's next_cursor or prev_cursor, with the same filters. */
  cursor: SnippetListQuery.shape.cursor,
});
export type IndexEntriesQuery = z.input<typeof IndexEntriesQuery>;

/** An index content row: the snippet with its id repeated as snippet_id (spec 002 §3). */
export const IndexEntry = Snippet.extend({ snippet_id: z.number().int() });
export type IndexEntry = z.infer<typeof IndexEntry>;
export const IndexEntryList = SnippetList.extend({ snippets: z.array(IndexEntry) });
export type IndexEntryList = z.infer<typeof IndexEntryList>;

export const IndexSearchRequest = z.object({
  query: z.string().trim().min(1, 'must not be empty').max(2000),
  k: z
    .number()
    .int()
    .min(1, 'must be at least 1')
    .max(MAX_SEARCH_K, `must be at most ${MAX_SEARCH_K}`)
    .default(INDEX_SEARCH_K),
  mode: SearchMode.default('hybrid'),
});
export type IndexSearchRequest = z.input<typeof IndexSearchRequest>;
