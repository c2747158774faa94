import { z } from 'zod';
import { SCORE_BOUNDS } from './common.js';
import { HttpUrl } from './playground.js';
import { SECTION_MAX_CHARS } from './constants.js';
import { Snippet, SourceInfo, Theme } from './snippets.js';

/**
 * POST /snippets/import: a JSON Lines body (application/x-ndjson), one record a line, streamed
 * to a file in the data directory and never held whole. Past this many bytes: 413.
 */
export const MAX_IMPORT_BYTES = 512 * 1024 * 1024;
/** A line past this many bytes is refused by its number without being parsed. */
export const MAX_IMPORT_LINE_BYTES = 1024 * 1024;
/** Records (non-blank lines) in one import; past it the file is refused (422). */
export const MAX_IMPORT_RECORDS = 500_000;
/** A record's text, in characters (a snippet; a longer text is a document: upload it). */
export const MAX_IMPORT_TEXT_CHARS = 200_000;
/** The widest vector an embedder of ADAM makes is far below this. */
export const MAX_IMPORT_DIMENSION = 4096;
/** Objects and arrays nested in one record (metadata included), at most. */
export const MAX_IMPORT_DEPTH = 32;
/** Bad lines named in a refusal (the count says how many there were in all). */
export const IMPORT_BAD_LINES_SHOWN = 20;

/** The largest finite 32-bit float: vectors are stored as float32. */
const F32_MAX = 3.4028234663852886e38;

/**
 * One line of an import. Either a snippet as an export writes it (`source_info`, and with
 * `include_embeddings` its `embedding` and `embedder_id`; id, dates and index state are
 * ignored: the importing ADAM gives its own), or a minimal record `{text, title?, url?, ...}`.
 * A record carrying both `theme` and `quality_score` is restored as one snippet as it is; any
 * other is a document, analysed like pasted text (segmented, scored, embedded).
 */
export const ImportRecord = z.object({
  text: z
    .string({ error: (iss) => (iss.input === undefined ? 'required' : 'must be a string') })
    .max(MAX_IMPORT_TEXT_CHARS, `must be at most ${MAX_IMPORT_TEXT_CHARS} characters`)
    .refine((t) => t.trim().length > 0, 'must not be empty'),
  title: z.string().max(500).nullish(),
  url: HttpUrl.nullish(),
  source_info: z
    .object({ title: SourceInfo.shape.title.optional(), url: HttpUrl.nullish() })
    .nullish(),
  /** The heading path of the page section (an export writes it); kept as it is. */
  section: z.string().max(SECTION_MAX_CHARS).nullish(),
  theme: Theme.optional(),
  quality_score: z.number().min(SCORE_BOUNDS.min).max(SCORE_BOUNDS.max).optional(),
  language: z.string().trim().max(10).nullish(),
  metadata: z.record(z.string(), z.unknown()).optional(),
  // JSON has no NaN or Infinity: a non-finite number can only come as a huge literal (1e999).
  embedding: z
    .array(
      z
        .number({ error: 'must be a finite number' })
        .min(-F32_MAX, 'must fit a 32-bit float')
        .max(F32_MAX, 'must fit a 32-bit float'),
    )
    .min(1)
    .max(MAX_IMPORT_DIMENSION)
    .nullish(),
  embedder_id: z.string().max(200).nullish(),
});
export type ImportRecord = z.output<typeof ImportRecord>;

export const ImportQuery = z.object({
  /** Validate and count only: nothing is written and no job is queued. */
  dry_run: z
    .enum(['true', 'false', '1', '0'])
    .default('false')
    .transform((v) => v === 'true' || v === '1'),
});
export type ImportQuery = z.input<typeof ImportQuery>;

/**
 * What an accepted import holds, counted at validation (the job's result has the final counts:
 * a snippet added meanwhile can turn a new record into a duplicate).
 */
export const ImportSummary = z.object({
  dry_run: z.boolean(),
  /** The import_snippets job (null for a dry run). */
  job_id: z.number().int().nullable(),
  records: z.number().int(),
  /** Records restored as they are (theme and quality given). */
  restored: z.number().int(),
  /** Records analysed like pasted text (no theme or quality given). */
  analysed: z.number().int(),
  /** Restored records whose text is already stored, or repeated in the file. */
  duplicates: z.number().int(),
  /** Restored records whose vector the active embedder made: kept as it is. */
  vectors_reused: z.number().int(),
  /** Restored records without a usable vector: embedded by the active embedder. */
  to_embed: z.number().int(),
  embedder: z.string(),
});
export type ImportSummary = z.infer<typeof ImportSummary>;

/** The import job's result (job.metadata.result). */
export const ImportResult = z.object({
  records: z.number().int(),
  imported: z.number().int(),
  duplicates: z.number().int(),
  vectors_reused: z.number().int(),
  reembedded: z.number().int(),
  analysed: z.number().int(),
  /** Segments the analysis of documents rejected (quality, language, length). */
  rejected: z.number().int(),
  sources: z.number().int(),
});
export type ImportResult = z.infer<typeof ImportResult>;

/** A snippet as an export with `include_embeddings` writes it. */
export const ExportedSnippet = Snippet.extend({
  embedding: z.array(z.number()).nullable(),
  embedder_id: z.string().nullable(),
});
export type ExportedSnippet = z.infer<typeof ExportedSnippet>;
