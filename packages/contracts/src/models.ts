import { z } from 'zod';

/**
 * What a model does; the create and edit dialogs offer all of them, the tabs show the first two.
 * The spec's five come first; `reranker` (an ONNX cross-encoder scoring query–text pairs, for
 * the rerank stage of hybrid search) follows.
 */
export const MODEL_TYPES = [
  'embedding',
  'spacy',
  'emotion',
  'sentiment',
  'transformer',
  'reranker',
] as const;
export const ModelType = z.enum(MODEL_TYPES, {
  message: `must be one of ${MODEL_TYPES.join(', ')}`,
});
export type ModelType = z.infer<typeof ModelType>;

/** loaded and installed are both shown as 'installed'. */
export const MODEL_STATUSES = [
  'loaded',
  'installed',
  'available',
  'not_installed',
  'downloading',
  'error',
] as const;
export const ModelStatus = z.enum(MODEL_STATUSES);
export type ModelStatus = z.infer<typeof ModelStatus>;

/** The languages offered for models and language packs, with the name and flag shown. */
export const MODEL_LANGUAGES = [
  { code: 'en', name: 'English', flag: '🇬🇧' },
  { code: 'fr', name: 'French', flag: '🇫🇷' },
  { code: 'es', name: 'Spanish', flag: '🇪🇸' },
  { code: 'de', name: 'German', flag: '🇩🇪' },
  { code: 'it', name: 'Italian', flag: '🇮🇹' },
  { code: 'pt', name: 'Portuguese', flag: '🇵🇹' },
  { code: 'nl', name: 'Dutch', flag: '🇳🇱' },
  { code: 'ru', name: 'Russian', flag: '🇷🇺' },
  { code: 'ja', name: 'Japanese', flag: '🇯🇵' },
  { code: 'zh', name: 'Chinese', flag: '🇨🇳' },
] as const;
export const MODEL_LANGUAGE_CODES = MODEL_LANGUAGES.map((l) => l.code) as [
  (typeof MODEL_LANGUAGES)[number]['code'],
  ...(typeof MODEL_LANGUAGES)[number]['code'][],
];
export const ModelLanguage = z.enum(MODEL_LANGUAGE_CODES, {
  message: `must be one of ${MODEL_LANGUAGE_CODES.join(', ')}`,
});
export type ModelLanguage = z.infer<typeof ModelLanguage>;
/**
 * A model trained on many languages (paraphrase-multilingual-MiniLM-L12-v2) says so with this
 * language; only the catalogue uses it, an operator picks one of MODEL_LANGUAGES.
 */
export const MULTILINGUAL = 'multi';

/** A hub repository id: `owner/name` or `name`, as the hub's URLs spell it. */
export const HUB_REPO_PATTERN = /^[A-Za-z0-9][\w.-]{0,95}(\/[A-Za-z0-9][\w.-]{0,95})?$/;
/** A branch, tag or commit of a hub repository. */
export const HUB_REVISION_PATTERN = /^[A-Za-z0-9][\w.-]{0,99}$/;

export const ModelPerformance = z.object({
  /** Time to load the model into memory, measured at its last load. */
  load_time_ms: z.number().nullable(),
  /** Resident memory the load added (RSS difference), measured at its last load. */
  memory_mb: z.number().nullable(),
  /** Texts per second, measured at the last load's warm-up and at each test. */
  inference_speed: z.number().nullable(),
});
export type ModelPerformance = z.infer<typeof ModelPerformance>;

export const Model = z.object({
  id: z.number().int(),
  name: z.string(),
  type: ModelType,
  /** One of MODEL_LANGUAGES' codes, or MULTILINGUAL. */
  language: z.string(),
  status: ModelStatus,
  active: z.boolean(),
  /** Bytes on disk once installed; before that, the download's expected size (0 when unknown). */
  size: z.number().int().min(0),
  version: z.string(),
  description: z.string(),
  performance: ModelPerformance,
  /** Where its files come from: the hub page of its repository; null for a built-in model. */
  source_url: z.string().nullable(),
  /** Its directory, relative to the data directory's models/ folder; null until installed. */
  local_path: z.string().nullable(),
  updated_at: z.string(),
  /** The hub repository and revision installed from; null for a built-in model. */
  repo: z.string().nullable(),
  revision: z.string(),
  /** Vector length of an embedding model, once known (read from the installed files). */
  dimension: z.number().int().nullable(),
  /** Ships with ADAM: cannot be uninstalled, edited or deleted. */
  builtin: z.boolean(),
  /** Why the last install or load failed; null otherwise. */
  error: z.string().nullable(),
  /**
   * The re-embedding job that is making this embedding model the active one, while it is queued
   * or running: `active` turns true when it completes.
   */
  activation_job_id: z.number().int().nullable(),
});
export type Model = z.infer<typeof Model>;

export const ModelStats = z.object({
  total_models: z.number().int(),
  active_models: z.number().int(),
  /** Models held in memory now. */
  loaded_models: z.number().int(),
  /** Models whose files are installed (loaded ones included). */
  installed_models: z.number().int(),
  total_disk_usage_mb: z.number(),
  /** Distinct languages among the models. */
  available_languages: z.number().int(),
});
export type ModelStats = z.infer<typeof ModelStats>;

export const ModelList = z.object({ models: z.array(Model), stats: ModelStats });
export type ModelList = z.infer<typeof ModelList>;

const name = z.string().trim().min(1, 'is required').max(200, 'must be at most 200 characters');
const description = z.string().trim().max(2000, 'must be at most 2000 characters');
const repo = z
  .string()
  .trim()
  .regex(HUB_REPO_PATTERN, 'must be a hub repository id such as owner/name');
const revision = z
  .string()
  .trim()
  .regex(HUB_REVISION_PATTERN, 'must be a branch, tag or commit of the repository');
const version = z.string().trim().max(100, 'must be at most 100 characters');

/** Registers a model to install from the hub; `repo` defaults to the name. */
export const ModelCreate = z
  .object({
    name,
    type: ModelType,
    language: ModelLanguage.default('en'),
    description: description.default(''),
    repo: repo.optional(),
    revision: revision.default('main'),
    version: version.optional(),
  })
  .strict();
export type ModelCreate = z.infer<typeof ModelCreate>;
export type ModelCreateInput = z.input<typeof ModelCreate>;

export const ModelUpdate = z
  .object({ name, language: ModelLanguage, description, repo, revision, version })
  .partial()
  .strict()
  .refine((u) => Object.keys(u).length > 0, 'must change at least one field');
export type ModelUpdate = z.infer<typeof ModelUpdate>;

export const InstallProgress = z.object({
  model_id: z.number().int(),
  /** 0–100: bytes downloaded over bytes expected while downloading, 100 once installed. */
  progress: z.number().min(0).max(100),
  status: ModelStatus,
  /** What is happening now, or why it failed. */
  message: z.string(),
  downloaded_bytes: z.number().int().min(0),
  total_bytes: z.number().int().min(0),
  /** The install or uninstall job, while there is one. */
  job_id: z.number().int().nullable(),
});
export type InstallProgress = z.infer<typeof InstallProgress>;

/** The answer to an install or uninstall request. */
export const ModelActionResult = z.object({
  model_id: z.number().int(),
  status: ModelStatus,
  message: z.string(),
  job_id: z.number().int().nullable(),
  /** Present when the action runs in phases the client can poll. */
  progress: z.number().min(0).max(100).optional(),
});
export type ModelActionResult = z.infer<typeof ModelActionResult>;

export const ToggleModelBody = z.object({ active: z.boolean() }).strict();
export type ToggleModelBody = z.infer<typeof ToggleModelBody>;

export const ToggleModelResult = z.object({
  model: Model,
  /** The re-embedding job queued when the active embedding model changed its vector space. */
  job_id: z.number().int().nullable(),
  message: z.string(),
});
export type ToggleModelResult = z.infer<typeof ToggleModelResult>;

export const MODEL_TEST_MAX_CHARS = 10_000;
export const TestModelBody = z
  .object({
    text: z
      .string()
      .trim()
      .min(1, 'Test text cannot be empty')
      .max(MODEL_TEST_MAX_CHARS, `must be at most ${MODEL_TEST_MAX_CHARS} characters`),
  })
  .strict();
export type TestModelBody = z.infer<typeof TestModelBody>;

export const TestModelResult = z.object({
  model_id: z.number().int(),
  model: z.string(),
  type: ModelType,
  elapsed_ms: z.number(),
  /** What the model made of the text; its shape depends on the type (vector summary, entities…). */
  result: z.record(z.string(), z.unknown()),
});
export type TestModelResult = z.infer<typeof TestModelResult>;

export const LanguagePack = z.object({
  code: ModelLanguage,
  name: z.string(),
  flag: z.string(),
  /** The pack's version: the installed one, or the one an install would fetch. */
  version: z.string(),
  /** The pack format this server's pipeline reads; a different version shows a warning. */
  required_version: z.string(),
  /** Bytes on disk once installed; before that, the download's expected size. */
  size: z.number().int().min(0),
  installed: z.boolean(),
  status: ModelStatus,
  /** The registry row of the pack (a model of type spacy): its progress is the model's. */
  model_id: z.number().int(),
  description: z.string(),
});
export type LanguagePack = z.infer<typeof LanguagePack>;
export const LanguagePackList = z.array(LanguagePack);
export type LanguagePackList = z.infer<typeof LanguagePackList>;
export const LanguagePackParams = z.object({ code: ModelLanguage });
export type LanguagePackParams = z.infer<typeof LanguagePackParams>;

/** Folders a model file can sit in; anything else is grouped as 'other'. */
export const UnusedFileType = z.enum([...MODEL_TYPES, 'other']);
export type UnusedFileType = z.infer<typeof UnusedFileType>;
export const UnusedModelFile = z.object({
  /** Relative to the models directory, with forward slashes. */
  path: z.string(),
  type: UnusedFileType,
  language: z.string(),
  size: z.number().int().min(0),
});
export type UnusedModelFile = z.infer<typeof UnusedModelFile>;
export const UnusedModelFiles = z.array(UnusedModelFile);
export type UnusedModelFiles = z.infer<typeof UnusedModelFiles>;

export const MAX_CLEANUP_FILES = 1000;
export const DeleteModelFilesBody = z
  .object({
    files: z
      .array(z.string().min(1, 'must not be empty').max(1000))
      .min(1, 'must name at least one file')
      .max(MAX_CLEANUP_FILES, `must name at most ${MAX_CLEANUP_FILES} files`),
  })
  .strict();
export type DeleteModelFilesBody = z.infer<typeof DeleteModelFilesBody>;
export const DeleteModelFilesResult = z.object({
  deleted: z.array(z.string()),
  freed_bytes: z.number().int().min(0),
});
export type DeleteModelFilesResult = z.infer<typeof DeleteModelFilesResult>;

export const ClearCacheResult = z.object({
  /** Models that were in memory and are not any more. */
  unloaded_models: z.number().int(),
  /** Bytes of download leftovers (partial files) removed. */
  freed_bytes: z.number().int().min(0),
  message: z.string(),
});
export type ClearCacheResult = z.infer<typeof ClearCacheResult>;
