import { z } from 'zod';
import { BUILTIN_EMBEDDING_MODEL } from './constants.js';
import { SCORE_BOUNDS } from './common.js';
import { RERANK_TOP_N_BOUNDS } from './snippets.js';
import { CrawlerSettings } from './crawls.js';
import { UploadSettings } from './documents.js';
import {
  AUTO_BACKUP_RETENTION,
  BACKUP_RETENTION_COUNT_BOUNDS,
  BACKUP_RETENTION_DAYS_BOUNDS,
} from './backups.js';

export const EMBEDDING_DIMENSION = 384;

/** The spec's three embedding models, with the labels the processing screen gives them. */
export const EMBEDDING_MODELS = [
  { value: 'all-mpnet-base-v2', label: 'all-mpnet-base-v2 (Balanced)' },
  { value: 'all-roberta-large-v1', label: 'all-roberta-large-v1 (Accurate)' },
  {
    value: 'paraphrase-multilingual-MiniLM-L12-v2',
    label: 'paraphrase-multilingual-MiniLM-L12-v2 (Multilingual)',
  },
] as const;
/**
 * The name of an installed embedding model of the registry. Reading the settings gives the
 * active one; saving another one activates it (the index is re-embedded by a job).
 */
export const EmbeddingModelName = z.string().trim().min(1, 'is required').max(200);
export type EmbeddingModelName = z.infer<typeof EmbeddingModelName>;

const int = () => z.number().int('must be a whole number');

/** Bounds of spec 000 §3; the form inputs and the server both take them from here. */
export const PROCESSING_BOUNDS = {
  embedding_batch_size: { min: 1, max: 128 },
  min_quality_score: { ...SCORE_BOUNDS, step: 0.01 },
  min_content_length: { min: 10 },
  min_word_count: { min: 5 },
  segment_min_length: { min: 1 },
  segment_max_length: { min: 1 },
  segment_min_words: { min: 5 },
  segment_quality_threshold: { ...SCORE_BOUNDS, step: 0.01 },
  segment_max_tokens: { min: 1 },
  segment_max_sentences: { min: 1 },
  segment_overlap: { min: 0 },
  max_concurrent_scrapes: { min: 1, max: 100 },
  search_vector_weight: { ...SCORE_BOUNDS, step: 0.05 },
  // From 1 s, for operators who want hostile pages dropped fast (and for tests); up to 10 min
  // for a slow CPU running a large model.
  task_timeout_seconds: { min: 1, max: 600 },
  rerank_top_n: RERANK_TOP_N_BOUNDS,
} as const;

/** A number held to its bounds, with the messages the form shows beside the field. */
function within(bounds: { min: number; max?: number }, n: z.ZodNumber = int()): z.ZodNumber {
  const atLeast = n.min(bounds.min, `must be at least ${bounds.min}`);
  return bounds.max === undefined
    ? atLeast
    : atLeast.max(bounds.max, `must be at most ${bounds.max}`);
}
const B = PROCESSING_BOUNDS;

/**
 * How the vector index stores each vector: 4 bytes a dimension, 2, or 1 (quantised). Smaller
 * storage is faster to search and load, for a little recall (the index stats show it).
 */
export const INDEX_STORAGES = ['f32', 'f16', 'bf16', 'i8'] as const;
export const IndexStorage = z.enum(INDEX_STORAGES);
export type IndexStorage = z.infer<typeof IndexStorage>;
export const INDEX_STORAGE_LABELS: Record<IndexStorage, string> = {
  f32: 'f32: 32-bit floats, exact vectors',
  f16: 'f16: 16-bit floats, half the memory',
  bf16: 'bf16: 16-bit brain floats, half the memory, fastest to search',
  i8: 'i8: 8-bit integers, a quarter of the memory',
};

export const ProcessingSettings = z
  .object({
    embedding_model: EmbeddingModelName,
    embedding_batch_size: within(B.embedding_batch_size),
    min_quality_score: within(B.min_quality_score, z.number()),
    min_content_length: within(B.min_content_length),
    min_word_count: within(B.min_word_count),
    segment_min_length: within(B.segment_min_length),
    segment_max_length: within(B.segment_max_length),
    segment_min_words: within(B.segment_min_words),
    segment_quality_threshold: within(B.segment_quality_threshold, z.number()),
    segment_max_tokens: within(B.segment_max_tokens),
    segment_max_sentences: within(B.segment_max_sentences),
    segment_overlap: within(B.segment_overlap),
    segmenter_model: z.string().trim().min(1, 'is required').max(200),
    smart_segmentation: z.boolean(),
    max_concurrent_scrapes: within(B.max_concurrent_scrapes),
    /** Share of the vector score in hybrid search (the keyword score has the rest). */
    search_vector_weight: within(B.search_vector_weight, z.number()),
    /** A change rebuilds the index from the stored vectors (a rebuild_index job). */
    index_storage: IndexStorage,
    /**
     * Time budget of one task on a worker thread (extracting a page, analysing a text, embedding
     * a batch); past it the thread is stopped and replaced, and the URL fails with an error.
     */
    task_timeout_seconds: within(B.task_timeout_seconds),
    /** Hybrid searches rerank their fused top rerank_top_n with reranker_model. */
    rerank_enabled: z.boolean(),
    rerank_top_n: within(B.rerank_top_n),
    /** The installed reranker model's name; '' when none is chosen. */
    reranker_model: z.string().trim().max(200, 'must be at most 200 characters'),
  })
  .strict()
  .superRefine((s, ctx) => {
    if (s.rerank_enabled && s.reranker_model === '') {
      ctx.addIssue({
        code: 'custom',
        path: ['reranker_model'],
        message: 'must name an installed reranker model when rerank_enabled is on',
      });
    }
    if (s.segment_min_length > s.segment_max_length) {
      ctx.addIssue({
        code: 'custom',
        path: ['segment_min_length'],
        message: 'must not exceed segment_max_length',
      });
    }
  });
export type ProcessingSettings = z.infer<typeof ProcessingSettings>;

export const DEFAULT_PROCESSING_SETTINGS: ProcessingSettings = {
  embedding_model: BUILTIN_EMBEDDING_MODEL,
  embedding_batch_size: 32,
  min_quality_score: 0.4,
  min_content_length: 50,
  min_word_count: 30,
  segment_min_length: 150,
  segment_max_length: 500,
  segment_min_words: 20,
  segment_quality_threshold: 0.3,
  segment_max_tokens: 384,
  segment_max_sentences: 3,
  segment_overlap: 50,
  segmenter_model: 'builtin',
  smart_segmentation: true,
  max_concurrent_scrapes: 10,
  search_vector_weight: 0.4,
  // Half the memory of f32 for the same recall within 0.01, and faster: the graph walk is bound by
  // memory reads, and bf16's dot products are the CPU's own (at 200k, ef 192: 922 queries/s, f16
  // 588; bench/index-storage.bench.ts). Stores whose index was built in f16 keep it (migration 34).
  index_storage: 'bf16',
  // A normal page takes well under a second to extract and analyse with the built-in embedder;
  // a large ONNX model on a slow CPU a few seconds. A minute is far past both.
  task_timeout_seconds: 60,
  rerank_enabled: false,
  rerank_top_n: 20,
  reranker_model: '',
};

export const METRICS_REFRESH_MIN_MS = 1000;
export const METRICS_REFRESH_MAX_MS = 3_600_000;

export const ResourcesSettings = z
  .object({
    metrics_refresh_ms: within({ min: METRICS_REFRESH_MIN_MS, max: METRICS_REFRESH_MAX_MS }),
  })
  .strict();
export type ResourcesSettings = z.infer<typeof ResourcesSettings>;

export const DEFAULT_RESOURCES_SETTINGS: ResourcesSettings = { metrics_refresh_ms: 5000 };

export const LANGUAGES = ['en', 'fr', 'es', 'de'] as const;
export const BACKUP_FREQUENCIES = [60, 360, 720, 1440] as const;

export const GeneralSettings = z
  .object({
    api_title: z.string().trim().min(1, 'is required').max(200),
    default_language: z.enum(LANGUAGES),
    environment: z.enum(['development', 'production']),
    debug_mode: z.boolean(),
    backup_frequency: z
      .number()
      .int()
      .refine((v) => (BACKUP_FREQUENCIES as readonly number[]).includes(v), {
        message: 'must be one of 60, 360, 720, 1440',
      }),
    auto_backup: z.boolean(),
    /** Auto backups kept (the newest ones); older ones are deleted. */
    backup_retention_count: within(BACKUP_RETENTION_COUNT_BOUNDS),
    /** Auto backups older than this many days are deleted (0: no age limit); the newest is always kept. */
    backup_retention_days: within(BACKUP_RETENTION_DAYS_BOUNDS),
  })
  .strict();
export type GeneralSettings = z.infer<typeof GeneralSettings>;

export const DEFAULT_GENERAL_SETTINGS: GeneralSettings = {
  api_title: 'ADAM API',
  default_language: 'en',
  environment: 'development',
  debug_mode: true,
  backup_frequency: 1440,
  auto_backup: true,
  backup_retention_count: AUTO_BACKUP_RETENTION,
  backup_retention_days: 0,
};

/** How long the audit trail keeps its entries; housekeeping prunes older ones. */
export const AUDIT_RETENTION_BOUNDS = { min: 1, max: 3650 } as const;

export const SecuritySettings = z
  .object({
    audit_retention_days: within(AUDIT_RETENTION_BOUNDS),
  })
  .strict();
export type SecuritySettings = z.infer<typeof SecuritySettings>;

export const DEFAULT_SECURITY_SETTINGS: SecuritySettings = { audit_retention_days: 365 };

/** Bounds of the quality section (search history and the evaluation workbench's watch). */
export const QUALITY_BOUNDS = {
  search_history_retention_days: { min: 1, max: 3650 },
  evaluation_schedule_hours: { min: 0, max: 720 },
  evaluation_drop_threshold: { min: 0.001, max: 1, step: 0.005 },
} as const;

export const QualitySettings = z
  .object({
    /** Searches are recorded (query, mode, filters, latency, result ids); off: nothing is kept. */
    search_history_enabled: z.boolean(),
    /** Recorded searches older than this many days are deleted by housekeeping. */
    search_history_retention_days: within(QUALITY_BOUNDS.search_history_retention_days),
    /**
     * Watched evaluation sets are run on their own after a rebuild of the index, a switch of the
     * embedding model, or a change of the search or fusion settings.
     */
    evaluation_on_change: z.boolean(),
    /** Watched sets are also run every this many hours (0: no schedule). */
    evaluation_schedule_hours: within(QUALITY_BOUNDS.evaluation_schedule_hours),
    /** A fall of a mode's nDCG@10 beyond this (absolute, 0–1) from the set's last run raises an alert. */
    evaluation_drop_threshold: within(QUALITY_BOUNDS.evaluation_drop_threshold, z.number()),
  })
  .strict();
export type QualitySettings = z.infer<typeof QualitySettings>;

export const DEFAULT_QUALITY_SETTINGS: QualitySettings = {
  search_history_enabled: true,
  search_history_retention_days: 30,
  evaluation_on_change: true,
  evaluation_schedule_hours: 24,
  evaluation_drop_threshold: 0.05,
};

export const SETTINGS_SECTIONS = [
  'general',
  'processing',
  'resources',
  'crawler',
  'uploads',
  'security',
  'quality',
] as const;
export const SettingsSection = z.enum(SETTINGS_SECTIONS);
export type SettingsSection = z.infer<typeof SettingsSection>;

/** Each section's schema, titled so the OpenAPI document names it. */
export const SETTINGS_SCHEMAS = {
  general: GeneralSettings.meta({ title: 'GeneralSettings' }),
  processing: ProcessingSettings.meta({ title: 'ProcessingSettings' }),
  resources: ResourcesSettings.meta({ title: 'ResourcesSettings' }),
  crawler: CrawlerSettings.meta({ title: 'CrawlerSettings' }),
  uploads: UploadSettings.meta({ title: 'UploadSettings' }),
  security: SecuritySettings.meta({ title: 'SecuritySettings' }),
  quality: QualitySettings.meta({ title: 'QualitySettings' }),
} as const;

export const AllSettings = z.object({
  general: GeneralSettings,
  processing: ProcessingSettings,
  resources: ResourcesSettings,
  crawler: CrawlerSettings,
  uploads: UploadSettings,
  security: SecuritySettings,
  quality: QualitySettings,
});
export type AllSettings = z.infer<typeof AllSettings>;
export type SectionSettings<S extends SettingsSection> = AllSettings[S];

/**
 * A save's fields: any of the section's, each checked alone. The whole section is checked again
 * after merging (the cross-field rules, such as segment_min_length against segment_max_length).
 * Built from the shape because zod refuses `.partial()` on a schema with refinements.
 */
function changeOf<Shape extends z.ZodRawShape>(section: { shape: Shape }, title: string) {
  return z.object(section.shape).partial().strict().meta({ title });
}

export const SETTINGS_CHANGE_SCHEMAS = {
  general: changeOf(GeneralSettings, 'GeneralSettingsChange'),
  processing: changeOf(ProcessingSettings, 'ProcessingSettingsChange'),
  resources: changeOf(ResourcesSettings, 'ResourcesSettingsChange'),
  crawler: changeOf(CrawlerSettings, 'CrawlerSettingsChange'),
  uploads: changeOf(UploadSettings, 'UploadSettingsChange'),
  security: changeOf(SecuritySettings, 'SecuritySettingsChange'),
  quality: changeOf(QualitySettings, 'QualitySettingsChange'),
} as const;
/** What SETTINGS_CHANGE_SCHEMAS[S] accepts (settings.test.ts checks they agree). */
export type SettingsChange<S extends SettingsSection> = Partial<AllSettings[S]>;

export const SettingsSectionParams = z.object({
  section: z.string().meta({ description: `One of: ${SETTINGS_SECTIONS.join(', ')}` }),
});
export type SettingsSectionParams = z.infer<typeof SettingsSectionParams>;

/**
 * PUT body: `{settings: {...}}` (the spec's "section, settings" payload; `section`, when given,
 * must match the path). `settings` holds fields of the path's section only; fields left out
 * keep their stored value.
 */
export const UpdateSettingsRequest = z.object({
  section: SettingsSection.optional(),
  settings: z
    .union([
      SETTINGS_CHANGE_SCHEMAS.general,
      SETTINGS_CHANGE_SCHEMAS.processing,
      SETTINGS_CHANGE_SCHEMAS.resources,
      SETTINGS_CHANGE_SCHEMAS.crawler,
      SETTINGS_CHANGE_SCHEMAS.uploads,
      SETTINGS_CHANGE_SCHEMAS.security,
      SETTINGS_CHANGE_SCHEMAS.quality,
    ])
    .meta({ description: "Fields of the path's section (the schema titled after it)" }),
});
export type UpdateSettingsRequest = z.infer<typeof UpdateSettingsRequest>;

/** One section's settings: the schema titled after the path's section. */
export const SettingsResponse = z.union([
  SETTINGS_SCHEMAS.general,
  SETTINGS_SCHEMAS.processing,
  SETTINGS_SCHEMAS.resources,
  SETTINGS_SCHEMAS.crawler,
  SETTINGS_SCHEMAS.uploads,
  SETTINGS_SCHEMAS.security,
  SETTINGS_SCHEMAS.quality,
]);
export type SettingsResponse = z.infer<typeof SettingsResponse>;
