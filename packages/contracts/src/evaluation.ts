import { z } from 'zod';
import { SEARCH_MODES, SearchFilters } from './snippets.js';

/** Judgment grades: 0 judged not relevant, 3 the best answer (the BEIR qrels' scale). */
export const EVALUATION_GRADE_MAX = 3;
export const MAX_EVALUATION_QUERIES = 5000;
export const MAX_JUDGMENTS_PER_QUERY = 1000;
/** Every file of a BEIR upload, and the whole upload, is bounded (413 beyond). */
export const MAX_BEIR_FILE_BYTES = 64 * 1024 * 1024;
export const MAX_BEIR_LINE_BYTES = 1024 * 1024;
/** The metrics' depths: nDCG and the first recall at 10, the deep recall at 100 (the search's most). */
export const EVALUATION_K = 10;
export const EVALUATION_DEEP_K = 100;

const Grade = z.number().int().min(0, 'must be 0 to 3').max(EVALUATION_GRADE_MAX, 'must be 0 to 3');

/**
 * What a judgment is about: one snippet, or a whole source (by its id, its URL or its title),
 * whose every snippet then counts. Exactly one of the four.
 */
export const JudgmentInput = z
  .object({
    snippet_id: z.number().int().positive().optional(),
    source_id: z.number().int().positive().optional(),
    source_url: z.string().trim().min(1).max(2048).optional(),
    source_title: z.string().trim().min(1).max(500).optional(),
    grade: Grade,
  })
  .strict()
  .refine(
    (j) =>
      [j.snippet_id, j.source_id, j.source_url, j.source_title].filter((v) => v !== undefined)
        .length === 1,
    { message: 'names exactly one of snippet_id, source_id, source_url, source_title' },
  );
export type JudgmentInput = z.infer<typeof JudgmentInput>;

export const JUDGMENT_KINDS = ['snippet', 'source', 'source_url', 'source_title'] as const;
export const JudgmentKind = z.enum(JUDGMENT_KINDS);
export type JudgmentKind = z.infer<typeof JudgmentKind>;
export const Judgment = z.object({ kind: JudgmentKind, ref: z.string(), grade: z.number().int() });
export type Judgment = z.infer<typeof Judgment>;

export const EvaluationQueryInput = z
  .object({
    text: z.string().trim().min(1, 'must not be empty').max(2000),
    filters: SearchFilters.optional(),
    judgments: z.array(JudgmentInput).max(MAX_JUDGMENTS_PER_QUERY).default([]),
  })
  .strict();
export type EvaluationQueryInput = z.input<typeof EvaluationQueryInput>;

export const EvaluationQuery = z.object({
  /** The query's row in this version. */
  id: z.number().int(),
  /** The same query across the set's versions (what a comparison of two runs matches on). */
  key: z.number().int(),
  text: z.string(),
  filters: SearchFilters.nullable(),
  judgments: z.array(Judgment),
});
export type EvaluationQuery = z.infer<typeof EvaluationQuery>;

export const CreateEvaluationSet = z
  .object({
    name: z.string().trim().min(1, 'must not be empty').max(200),
    description: z.string().trim().max(2000).default(''),
    queries: z.array(EvaluationQueryInput).max(MAX_EVALUATION_QUERIES).default([]),
  })
  .strict();
export type CreateEvaluationSet = z.input<typeof CreateEvaluationSet>;

/** Name and description are the set's own, not versioned. */
export const UpdateEvaluationSet = z
  .object({
    name: z.string().trim().min(1, 'must not be empty').max(200).optional(),
    description: z.string().trim().max(2000).optional(),
    /** Watched sets are run on their own (see the quality settings) and raise drop alerts. */
    watched: z.boolean().optional(),
  })
  .strict();
export type UpdateEvaluationSet = z.infer<typeof UpdateEvaluationSet>;

export const ReplaceJudgments = z
  .object({ judgments: z.array(JudgmentInput).max(MAX_JUDGMENTS_PER_QUERY) })
  .strict();
export type ReplaceJudgments = z.input<typeof ReplaceJudgments>;

export const EvaluationSetVersionInfo = z.object({
  id: z.number().int(),
  number: z.number().int(),
  /** What made this version ("created", "query added", "judgments of query 4 edited", ...). */
  change: z.string(),
  query_count: z.number().int(),
  created_at: z.string(),
});
export type EvaluationSetVersionInfo = z.infer<typeof EvaluationSetVersionInfo>;

export const EvaluationSet = z.object({
  id: z.number().int(),
  name: z.string(),
  description: z.string(),
  watched: z.boolean(),
  latest: EvaluationSetVersionInfo,
  created_at: z.string(),
  updated_at: z.string(),
});
export type EvaluationSet = z.infer<typeof EvaluationSet>;
export const EvaluationSetList = z.object({ sets: z.array(EvaluationSet) });
export type EvaluationSetList = z.infer<typeof EvaluationSetList>;

/** One version of a set with its queries and their judgments. */
export const EvaluationSetVersion = z.object({
  set: EvaluationSet,
  version: EvaluationSetVersionInfo,
  queries: z.array(EvaluationQuery),
});
export type EvaluationSetVersion = z.infer<typeof EvaluationSetVersion>;
export const EvaluationVersionList = z.object({ versions: z.array(EvaluationSetVersionInfo) });
export type EvaluationVersionList = z.infer<typeof EvaluationVersionList>;

export const EvaluationSetParams = z.object({ id: z.coerce.number().int().positive() });
export const EvaluationVersionParams = z.object({
  id: z.coerce.number().int().positive(),
  number: z.coerce.number().int().positive(),
});
export const EvaluationQueryParams = z.object({
  id: z.coerce.number().int().positive(),
  key: z.coerce.number().int().positive(),
});

/** A BEIR upload's answer: what became the set, and the corpus ids nothing matched. */
export const BeirImportSummary = z.object({
  set: EvaluationSet,
  queries: z.number().int(),
  judgments: z.number().int(),
  /** Queries of queries.jsonl no qrels line names (left out of the set). */
  queries_without_judgments: z.number().int(),
  /** How the qrels' corpus ids were matched: to snippet ids, source ids, URLs, titles. */
  mapped: z.object({
    snippet: z.number().int(),
    source: z.number().int(),
    source_url: z.number().int(),
    source_title: z.number().int(),
  }),
  unmapped: z.object({ count: z.number().int(), ids: z.array(z.string()) }),
  /** The corpus import's job when corpus.jsonl was sent with import_corpus=true. */
  corpus: z.object({ job_id: z.number().int(), records: z.number().int() }).nullable(),
});
export type BeirImportSummary = z.infer<typeof BeirImportSummary>;

/**
 * What a run scores: the search modes, and `hybrid_rerank`: hybrid with the rerank stage on
 * (the configured reranker over the fused top N of the processing settings).
 */
export const EVALUATION_MODES = [...SEARCH_MODES, 'hybrid_rerank'] as const;
export const EvaluationMode = z.enum(EVALUATION_MODES, {
  message: `must be one of ${EVALUATION_MODES.join(', ')}`,
});
export type EvaluationMode = z.infer<typeof EvaluationMode>;

export const StartEvaluationRun = z
  .object({
    set_id: z.number().int().positive(),
    /** A version number of the set; its latest when absent. */
    version: z.number().int().positive().optional(),
    modes: z
      .array(EvaluationMode)
      .min(1, 'must name at least one mode')
      .max(4, 'must name at most 4 modes')
      .default(['keyword', 'vector', 'hybrid'])
      .refine((m) => new Set(m).size === m.length, { message: 'must not repeat a mode' }),
  })
  .strict();
export type StartEvaluationRun = z.input<typeof StartEvaluationRun>;

/** What queued a run: an operator, or a change the watch reacts to (issue 27, "Continuous"). */
export const EVALUATION_TRIGGERS = [
  'manual',
  'rebuild',
  'model_switch',
  'settings',
  'schedule',
] as const;
export const EvaluationTrigger = z.enum(EVALUATION_TRIGGERS);
export type EvaluationTrigger = z.infer<typeof EvaluationTrigger>;

export const RUN_STATUSES = ['pending', 'running', 'completed', 'failed', 'cancelled'] as const;
export const RunStatus = z.enum(RUN_STATUSES);

/** The state a run measured: what a change of results is to be explained by. */
export const RunState = z.object({
  embedder: z.string(),
  index: z.object({ type: z.string(), storage: z.string(), dimension: z.number().int() }),
  fusion: z.object({ vector_weight: z.number() }),
  snippet_count: z.number().int(),
  /** The reranker a hybrid_rerank mode ran with; null when the run had no such mode. */
  reranker: z.object({ model: z.string(), top_n: z.number().int() }).nullable().default(null),
});
export type RunState = z.infer<typeof RunState>;

export const QueryMetrics = z.object({
  ndcg_10: z.number(),
  recall_10: z.number(),
  recall_100: z.number(),
  mrr: z.number(),
});
export type QueryMetrics = z.infer<typeof QueryMetrics>;

export const ModeSummary = QueryMetrics.extend({
  mode: EvaluationMode,
  queries: z.number().int(),
  latency_p50_ms: z.number(),
  latency_p95_ms: z.number(),
});
export type ModeSummary = z.infer<typeof ModeSummary>;

export const EvaluationRun = z.object({
  id: z.number().int(),
  set_id: z.number().int(),
  set_name: z.string(),
  version: z.number().int(),
  modes: z.array(EvaluationMode),
  status: RunStatus,
  trigger: EvaluationTrigger,
  job_id: z.number().int().nullable(),
  state: RunState.nullable(),
  summary: z.array(ModeSummary),
  error: z.string().nullable(),
  created_at: z.string(),
  started_at: z.string().nullable(),
  ended_at: z.string().nullable(),
});
export type EvaluationRun = z.infer<typeof EvaluationRun>;
export const EvaluationRunList = z.object({ runs: z.array(EvaluationRun) });
export const EvaluationRunParams = z.object({ id: z.coerce.number().int().positive() });
export const EvaluationRunListQuery = z.object({
  set_id: z.coerce.number().int().positive().optional(),
});

export const QueryResult = QueryMetrics.extend({
  key: z.number().int(),
  text: z.string(),
  mode: EvaluationMode,
  /** The snippet ids returned, best first (up to 100). */
  ranked: z.array(z.number().int()),
  latency_ms: z.number(),
});
export type QueryResult = z.infer<typeof QueryResult>;
export const QueryResultList = z.object({ results: z.array(QueryResult) });
export const QueryResultListQuery = z.object({ mode: EvaluationMode.optional() });

/** Two runs side by side: per query and mode (matched by the query's key), head minus base. */
export const RunComparisonQuery = z.object({
  base: z.coerce.number().int().positive(),
  head: z.coerce.number().int().positive(),
});
export const QueryComparison = z.object({
  key: z.number().int(),
  text: z.string(),
  mode: EvaluationMode,
  base: QueryMetrics,
  head: QueryMetrics,
  delta: QueryMetrics,
  /** nDCG@10 rose (gained) or fell (lost) by more than 0.001, else unchanged. */
  outcome: z.enum(['gained', 'lost', 'unchanged']),
  /** Ids in the head's top 10 not in the base's, and the other way round. */
  entered: z.array(z.number().int()),
  left: z.array(z.number().int()),
  /** Ids in both top 10s at another rank (positions 1-based). */
  moved: z.array(z.object({ id: z.number().int(), from: z.number().int(), to: z.number().int() })),
});
export type QueryComparison = z.infer<typeof QueryComparison>;
export const RunComparison = z.object({
  base: EvaluationRun,
  head: EvaluationRun,
  summary: z.array(
    z.object({
      mode: EvaluationMode,
      gained: z.number().int(),
      lost: z.number().int(),
      unchanged: z.number().int(),
      delta: QueryMetrics,
    }),
  ),
  queries: z.array(QueryComparison),
});
export type RunComparison = z.infer<typeof RunComparison>;

/** An alert names at most this many lost queries (the worst first); lost_count has them all. */
export const MAX_ALERT_LOST_QUERIES = 20;
/** A lost query's text is kept cut to this many characters in its alert. */
export const MAX_ALERT_QUERY_TEXT = 200;

export const LostQuery = z.object({
  key: z.number().int(),
  text: z.string(),
  base_ndcg_10: z.number(),
  head_ndcg_10: z.number(),
});
export type LostQuery = z.infer<typeof LostQuery>;

/**
 * A mode's nDCG@10 fell from the set's previous completed run by more than the quality
 * settings' evaluation_drop_threshold: raised when the run completes, open until dismissed.
 */
export const QualityAlert = z.object({
  id: z.number().int(),
  set_id: z.number().int(),
  set_name: z.string(),
  run_id: z.number().int(),
  base_run_id: z.number().int(),
  mode: ModeSummary.shape.mode,
  base_ndcg_10: z.number(),
  head_ndcg_10: z.number(),
  /** base minus head, > 0. */
  fall: z.number(),
  /** The threshold in force when the alert was raised. */
  threshold: z.number(),
  trigger: EvaluationTrigger,
  lost_count: z.number().int(),
  lost_queries: z.array(LostQuery),
  created_at: z.string(),
  dismissed_at: z.string().nullable(),
  dismissed_by: z.string().nullable(),
});
export type QualityAlert = z.infer<typeof QualityAlert>;
export const QualityAlertList = z.object({ alerts: z.array(QualityAlert) });
export type QualityAlertList = z.infer<typeof QualityAlertList>;
export const QualityAlertListQuery = z.object({
  /** true: dismissed alerts too (newest first either way). */
  all: z
    .enum(['true', 'false'], { message: "must be 'true' or 'false'" })
    .optional()
    .transform((v) => v === 'true'),
});
export const QualityAlertParams = z.object({ id: z.coerce.number().int().positive() });
