/**
 * Plain values of the wire contracts, without zod: worker threads import them from
 * `@adam/contracts/constants`, so a thread never loads zod nor builds the schemas (a fifth of a
 * second of CPU per thread start). The package's root exports them too.
 */

/**
 * The administrator created on an empty store unless ADAM_ADMIN_EMAIL / ADAM_ADMIN_PASSWORD say
 * otherwise; while these still log in, the login screen shows them and the checklist warns.
 */
export const DEFAULT_ADMIN_EMAIL = 'admin@example.com';
export const DEFAULT_ADMIN_PASSWORD = 'admin';

/** The built-in embedder's name in the model registry: the embedding model of a fresh install. */
export const BUILTIN_EMBEDDING_MODEL = 'builtin-384';

/**
 * Workers that may run at once, whether started with the server (ADAM_WORKERS) or from the
 * console: each holds a job's pages and models in memory.
 */
export const MAX_WORKERS = 16;

/** A heading path longer than this is cut: it is metadata, not content. */
export const SECTION_MAX_CHARS = 300;

/** The eight emotions the pipeline scores per snippet (Plutchik's wheel), 0–1 each. */
export const EMOTIONS = [
  'joy',
  'trust',
  'fear',
  'surprise',
  'sadness',
  'anticipation',
  'anger',
  'disgust',
] as const;
export type Emotion = (typeof EMOTIONS)[number];

/** What an upload may hold, each recognised by its content and its extension. */
export const DOCUMENT_TYPES = ['pdf', 'docx', 'markdown', 'html', 'text'] as const;

/** Extensions accepted for each type (lower case, with the dot). */
export const DOCUMENT_EXTENSIONS: Readonly<
  Record<(typeof DOCUMENT_TYPES)[number], readonly string[]>
> = {
  pdf: ['.pdf'],
  docx: ['.docx'],
  markdown: ['.md', '.markdown'],
  html: ['.html', '.htm'],
  text: ['.txt', '.text'],
};
