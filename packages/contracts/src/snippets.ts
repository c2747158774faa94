import { z } from 'zod';
import { SECTION_MAX_CHARS } from './constants.js';
import { SCORE_BOUNDS } from './common.js';

export const THEMES = ['science', 'technology', 'philosophy', 'general'] as const;
export const Theme = z.enum(THEMES);
export type Theme = z.infer<typeof Theme>;

export const SNIPPET_PAGE_SIZE = 50;
export const SNIPPET_SEARCH_K = 5;
export const INDEX_SEARCH_K = 10;
export const MAX_SEARCH_K = 100;
/**
 * How many of hybrid search's fused results the rerank stage re-scores: at least a pair to
 * reorder; 100 pairs through a small cross-encoder take ~0.1–1 s on a CPU.
 */
export const RERANK_TOP_N_BOUNDS = { min: 2, max: 100 } as const;

/**
 * How a search finds snippets: `keyword` ranks by FTS5 bm25 over the stemmed words (any of
 * them), `vector` by cosine in the index, `hybrid` by a weighted sum of both, normalised.
 */
export const SEARCH_MODES = ['hybrid', 'vector', 'keyword'] as const;
export const SearchMode = z.enum(SEARCH_MODES, {
  message: `must be one of ${SEARCH_MODES.join(', ')}`,
});
export type SearchMode = z.infer<typeof SearchMode>;

/**
 * How the listing's `search` words match (stemmed): `any` word, `all` of them, or the exact
 * `phrase`.
 */
export const TEXT_MATCHES = ['any', 'all', 'phrase'] as const;
export const TextMatch = z.enum(TEXT_MATCHES, {
  message: `must be one of ${TEXT_MATCHES.join(', ')}`,
});
export type TextMatch = z.infer<typeof TextMatch>;

export const SNIPPET_SORTS = ['created_at', 'quality_score', 'word_count', 'relevance'] as const;

export const SegmentationDiagnostic = z.object({
  snippet: z.string(),
  score: z.number(),
  status: z.string(),
  reason: z.string().optional(),
});
export type SegmentationDiagnostic = z.infer<typeof SegmentationDiagnostic>;

export const Entity = z.object({ text: z.string(), label: z.string() });
export type Entity = z.infer<typeof Entity>;

export const SnippetMetadata = z
  .object({
    segmentation_method: z.string().optional(),
    segmentation_fallback_reason: z.string().nullable().optional(),
    segmentation_diagnostic: z
      .union([SegmentationDiagnostic, z.array(SegmentationDiagnostic)])
      .optional(),
    quality_score_detailed: z.record(z.string(), z.number()).optional(),
    emotions: z.record(z.string(), z.number()).optional(),
    entities: z.array(Entity).optional(),
    theme_scores: z.record(z.string(), z.number()).optional(),
    language_confidence: z.number().optional(),
    embedder: z.string().optional(),
  })
  .loose();
export type SnippetMetadata = z.infer<typeof SnippetMetadata>;

/** Where a snippet came from. */
export const SourceInfo = z.object({ title: z.string().nullable(), url: z.string().nullable() });
export type SourceInfo = z.infer<typeof SourceInfo>;

export const Snippet = z.object({
  id: z.number().int(),
  text: z.string(),
  theme: z.string(),
  quality_score: z.number(),
  language: z.string().nullable(),
  word_count: z.number().int(),
  size_bytes: z.number().int(),
  created_at: z.string(),
  updated_at: z.string(),
  indexed_at: z.string().nullable(),
  faiss_id: z.number().int().nullable(),
  index_pending: z.boolean(),
  source_info: SourceInfo,
  job_id: z.number().int().nullable(),
  /** The heading path of the page section it was cut from ("Pollination › Biotic pollination"). */
  section: z.string().max(SECTION_MAX_CHARS).nullable().optional(),
  metadata: SnippetMetadata,
});
export type Snippet = z.infer<typeof Snippet>;

const optionalNumber = (schema: z.ZodNumber) =>
  z.preprocess(
    (v) => (v === '' || v === undefined || v === null ? undefined : v),
    z.coerce.number().pipe(schema).optional(),
  );

/**
 * What a listing's cursor holds: the listing's sort and order, the page number it leads to (for
 * display: rows added or removed since do not renumber it), and where that page starts: just
 * after or just before a row's key (its sort column's value, null by date, and its id), or an
 * offset by relevance (bm25 ranks every match anyway). Sent as base64url JSON, opaque to clients.
 */
export const SnippetCursor = z
  .object({
    sort: z.enum(SNIPPET_SORTS),
    order: z.enum(['asc', 'desc']),
    page: z.number().int().min(1),
    at: z.discriminatedUnion('way', [
      z
        .object({
          way: z.enum(['after', 'before']),
          value: z.number().nullable(),
          id: z.number().int(),
        })
        .strict(),
      z.object({ way: z.literal('offset'), offset: z.number().int().min(0) }).strict(),
    ]),
  })
  .strict();
export type SnippetCursor = z.infer<typeof SnippetCursor>;

/** A cursor is a few dozen characters; anything much longer was not made by a listing. */
export const SNIPPET_CURSOR_MAX_LENGTH = 256;
const INVALID_CURSOR = 'is not a cursor a listing gave (pass next_cursor or prev_cursor as is)';

/** The cursor as a listing sends it: base64url of its JSON. */
export function encodeSnippetCursor(cursor: SnippetCursor): string {
  return btoa(JSON.stringify(cursor)).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}

/** A cursor query parameter, decoded and checked (a 422 on anything a listing did not give). */
const CursorParam = z
  .string()
  .max(SNIPPET_CURSOR_MAX_LENGTH, INVALID_CURSOR)
  .transform((text, ctx) => {
    let json: unknown;
    try {
      json = JSON.parse(atob(text.replace(/-/g, '+').replace(/_/g, '/')));
    } catch {
      json = undefined;
    }
    const cursor = SnippetCursor.safeParse(json);
    if (cursor.success) return cursor.data;
    ctx.addIssue({ code: 'custom', message: INVALID_CURSOR });
    return z.NEVER;
  });

export const SnippetListQuery = z.object({
  page: optionalNumber(z.number().int().min(1, 'must be at least 1')).default(1),
  per_page: optionalNumber(
    z.number().int().min(1, 'must be at least 1').max(500, 'must be at most 500'),
  ).default(SNIPPET_PAGE_SIZE),
  // Newest first unless asked; `relevance` (bm25, with a search) costs more on common words.
  sort_by: z
    .enum(SNIPPET_SORTS, { message: `must be one of ${SNIPPET_SORTS.join(', ')}` })
    .optional(),
  order: z.enum(['asc', 'desc'], { message: 'must be asc or desc' }).default('desc'),
  theme: z.preprocess((v) => (v === '' ? undefined : v), Theme.optional()),
  min_quality: optionalNumber(
    z
      .number()
      .min(SCORE_BOUNDS.min, `must be at least ${SCORE_BOUNDS.min}`)
      .max(SCORE_BOUNDS.max, `must be at most ${SCORE_BOUNDS.max}`),
  ),
  search: z.string().trim().max(500).optional(),
  match: TextMatch.default('any'),
  job_id: optionalNumber(z.number().int()),
  source_url: z.string().trim().max(2048).optional(),
  /**
   * A page by its neighbour: next_cursor or prev_cursor of a page, sent with the same filters
   * and sort. It takes the place of `page`, and costs the same on page 1,000 as on page 2.
   */
  cursor: z.preprocess((v) => (v === '' ? undefined : v), CursorParam.optional()),
});
export type SnippetListQuery = z.input<typeof SnippetListQuery>;

export const SnippetList = z.object({
  snippets: z.array(Snippet),
  /** Matching snippets; an estimate (to two significant figures) when total_exact is false. */
  total: z.number().int(),
  /**
   * True when total is a count. Totals a trigger-kept aggregate cannot answer are counted up to
   * 10,000 matches and estimated past that, so a listing never scans a million rows to count.
   */
  total_exact: z.boolean(),
  page: z.number().int(),
  per_page: z.number().int(),
  /** The next page's cursor (pass it as `cursor`); null on the last page. */
  next_cursor: z.string().nullable(),
  /** The previous page's cursor; null on the first page. */
  prev_cursor: z.string().nullable(),
});
export type SnippetList = z.infer<typeof SnippetList>;

export const SearchFilters = z
  .object({
    theme: Theme.optional(),
    min_quality: z.number().min(SCORE_BOUNDS.min).max(SCORE_BOUNDS.max).optional(),
    job_id: z.number().int().optional(),
    source_url: z.string().optional(),
  })
  .strict();
export type SearchFilters = z.infer<typeof SearchFilters>;

export const SnippetSearchRequest = z.object({
  query: z.string().trim().min(1, 'must not be empty').max(2000),
  k: z
    .number()
    .int()
    .min(1, 'must be at least 1')
    .max(MAX_SEARCH_K, `must be at most ${MAX_SEARCH_K}`)
    .default(SNIPPET_SEARCH_K),
  filters: SearchFilters.optional(),
  mode: SearchMode.default('hybrid'),
  /** false: this search is not recorded in the search history (recorded by default). */
  history: z.boolean().optional(),
  /**
   * Rerank the fused top N with the configured reranker (hybrid only); absent: the processing
   * setting rerank_enabled decides.
   */
  rerank: z.boolean().optional(),
  /** N for this search; absent: the processing setting rerank_top_n. */
  rerank_top_n: z
    .number()
    .int()
    .min(RERANK_TOP_N_BOUNDS.min, `must be at least ${RERANK_TOP_N_BOUNDS.min}`)
    .max(RERANK_TOP_N_BOUNDS.max, `must be at most ${RERANK_TOP_N_BOUNDS.max}`)
    .optional(),
});
export type SnippetSearchRequest = z.input<typeof SnippetSearchRequest>;

export const SEARCH_SIDES = ['keyword', 'vector'] as const;
export const SearchSide = z.enum(SEARCH_SIDES);
export type SearchSide = z.infer<typeof SearchSide>;

export const SnippetSearchResult = Snippet.extend({
  /**
   * Cosine similarity of the snippet's stored vector to the query, in every mode (the same
   * scale whatever else was found; 0 when the snippet has no vector of this embedder).
   */
  similarity: z.number(),
  /** What results are ranked by: the fused score in hybrid (0–1), else that side's own score. */
  score: z.number(),
  snippet_id: z.number().int(),
  /** The sides whose candidate lists held this snippet. */
  found_by: z.array(SearchSide),
  /** Cosine similarity to the query (null when the snippet has no vector of this embedder). */
  vector_score: z.number().nullable(),
  /** bm25 relevance, higher is better (null when no query word is in the snippet). */
  keyword_score: z.number().nullable(),
  /**
   * The reranker's score (its logit, higher is more relevant) when the rerank stage re-scored
   * this result, which then ranks it above every result not re-scored; null otherwise.
   */
  rerank_score: z.number().nullable(),
});
export type SnippetSearchResult = z.infer<typeof SnippetSearchResult>;
export const SnippetSearchResponse = z.object({
  query: z.string(),
  mode: SearchMode,
  results: z.array(SnippetSearchResult),
  total: z.number().int(),
  latency_ms: z.number(),
  /** The rerank stage when it ran (hybrid only): its model, N and its own cost; null otherwise. */
  rerank: z
    .object({ model: z.string(), top_n: z.number().int(), latency_ms: z.number() })
    .nullable(),
});
export type SnippetSearchResponse = z.infer<typeof SnippetSearchResponse>;

export const SnippetIndexInfo = z.object({
  snippet_id: z.number().int(),
  faiss_id: z.number().int(),
  indexed_at: z.string().nullable(),
  in_index: z.boolean(),
  dimension: z.number().int(),
  embedder: z.string().nullable(),
  vector_norm: z.number().nullable(),
  vector_preview: z.array(z.number()),
  nearest: z.array(z.object({ snippet_id: z.number().int(), similarity: z.number() })),
});
export type SnippetIndexInfo = z.infer<typeof SnippetIndexInfo>;

export const DeleteSnippetResponse = z.object({
  id: z.number().int(),
  deleted: z.boolean(),
  removed_from_store: z.boolean(),
  removed_from_index: z.boolean(),
});
export type DeleteSnippetResponse = z.infer<typeof DeleteSnippetResponse>;

export const EXPORT_FORMATS = ['json', 'jsonl', 'csv'] as const;
export const ExportFormat = z.enum(EXPORT_FORMATS, { message: 'must be json, jsonl or csv' });
export type ExportFormat = z.infer<typeof ExportFormat>;

export const ExportRequest = z.object({
  ids: z.array(z.number().int().positive()).max(100_000).optional(),
  format: ExportFormat.default('json'),
  /**
   * Each row also carries its `embedding` (numbers) and `embedder_id`, so that an import into
   * another ADAM with the same embedder reuses the vectors. Off by default: ~8 KB more a row.
   */
  include_embeddings: z.boolean().default(false),
});
export type ExportRequest = z.input<typeof ExportRequest>;

export const OrphanEntry = z.object({
  id: z.number().int().optional(),
  theme: z.string().optional(),
  quality_score: z.number().optional(),
  created_at: z.string().optional(),
  indexed_at: z.string().nullable().optional(),
  faiss_id: z.number().int().nullable().optional(),
  metadata: SnippetMetadata.optional(),
  size_bytes: z.number().int().optional(),
  source_info: SourceInfo.optional(),
  text: z.string().optional(),
  index_pending: z.boolean().optional(),
});
export type OrphanEntry = z.infer<typeof OrphanEntry>;

export const ConsistencyReport = z.object({
  summary: z.object({
    total_index: z.number().int(),
    total_disk: z.number().int(),
    consistent: z.number().int(),
    index_only: z.number().int(),
    disk_only: z.number().int(),
  }),
  snippets_ok: z.array(OrphanEntry),
  index_only: z.array(OrphanEntry),
  disk_only: z.array(OrphanEntry),
  checked_at: z.string(),
});
export type ConsistencyReport = z.infer<typeof ConsistencyReport>;

/** The orphans a cleanup handles: vectors without a row, or rows without a vector. */
export const CleanupType = z.enum(['index_only', 'disk_only'], {
  message: 'must be index_only or disk_only',
});
export type CleanupType = z.infer<typeof CleanupType>;

export const CleanupOrphansQuery = z.object({ cleanup_type: CleanupType });
export type CleanupOrphansQuery = z.infer<typeof CleanupOrphansQuery>;
export const CleanupOrphansBody = z
  .object({
    /** disk_only: delete the rows instead of re-indexing them. */
    delete: z.boolean().default(false),
    ids: z.array(z.number().int()).optional(),
  })
  .strict()
  .nullish();
export type CleanupOrphansBody = z.input<typeof CleanupOrphansBody>;
export const CleanupOrphansResponse = z.object({
  cleanup_type: z.string(),
  action: z.enum(['removed_vectors', 'reindexed', 'deleted_rows']),
  processed: z.number().int(),
  ids: z.array(z.number().int()),
});
export type CleanupOrphansResponse = z.infer<typeof CleanupOrphansResponse>;

/**
 * What start-up, a restore and POST /admin/refresh-snippet-state found and fixed between the
 * store and the index.
 */
export const ReconcileReport = z.object({
  total_disk: z.number().int(),
  total_index: z.number().int(),
  /** Rows said to be indexed whose vector was missing: put back to pending. */
  marked_pending: z.number().int(),
  /** Pending rows whose vectors are now in the index. */
  reindexed: z.number().int(),
  /** Vectors with no row. */
  index_only: z.number().int(),
});
export type ReconcileReport = z.infer<typeof ReconcileReport>;

export const IndexInspection = z.object({
  index_type: z.string(),
  dimension: z.number().int(),
  embedder: z.string(),
  total_vectors: z.number().int(),
  total_snippets: z.number().int(),
  pending: z.number().int(),
  index_file_bytes: z.number(),
  last_saved_at: z.string().nullable(),
  sample: z.array(
    z.object({
      snippet_id: z.number().int(),
      faiss_id: z.number().int().nullable(),
      indexed_at: z.string().nullable(),
      in_index: z.boolean(),
    }),
  ),
});
export type IndexInspection = z.infer<typeof IndexInspection>;
