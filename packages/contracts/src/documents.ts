import { z } from 'zod';
import { DOCUMENT_TYPES } from './constants.js';
import { INGEST_OPTIONS, JobStatus, qualityMinimum } from './jobs.js';

const MIB = 1024 * 1024;

/**
 * Bounds of POST /sources/upload and of the parsing of each file, shown by the console and
 * enforced by the server. Every file is streamed to disk, never held whole in the server's
 * memory; the parser on an engine thread holds one file at a time.
 */
export const UPLOAD_LIMITS = {
  /** One file, in bytes: past it the whole upload is refused with 413 and nothing is kept. */
  max_file_bytes: 50 * MIB,
  /** Files in one upload. */
  max_files: 100,
  /** All files of one upload together. */
  max_total_bytes: 512 * MIB,
  /** Pages of one PDF: a longer one is refused as that file's error (before any page is read). */
  max_pages: 2000,
  /**
   * A DOCX's entries once inflated, together: checked on the zip's directory and while
   * inflating, so a zip bomb is refused before it fills the thread's memory.
   */
  max_docx_inflated_bytes: 200 * MIB,
  /** Entries in a DOCX's zip. */
  max_docx_entries: 10_000,
  /** Characters of text one document may give; the rest is cut and the job says so. */
  max_text_chars: 10_000_000,
  /** A file name's characters as stored (longer names are cut). */
  max_name_chars: 200,
} as const;
export type UploadLimits = { readonly [K in keyof typeof UPLOAD_LIMITS]: number };

/**
 * The operator's upload limits (settings section `uploads`), read by POST /sources/upload at
 * each request and by the console's Upload files tab; UPLOAD_LIMITS gives their defaults.
 * Whole MiB, as an operator thinks of them.
 */
export const UPLOAD_SETTINGS_BOUNDS = {
  // One file is parsed whole on an engine thread: past 1 GiB a PDF or DOCX parser would hold
  // several times that in the thread's memory.
  max_file_mib: { min: 1, max: 1024 },
  // Each file is a part busboy counts and a line of the job's input.
  max_files: { min: 1, max: 1000 },
  // What one request may write to the data directory before it is answered.
  max_total_mib: { min: 1, max: 10_240 },
} as const;

const wholeWithin = (b: { min: number; max: number }) =>
  z
    .number()
    .int('must be a whole number')
    .min(b.min, `must be at least ${b.min}`)
    .max(b.max, `must be at most ${b.max}`);

export const UploadSettings = z
  .object({
    /** One file: past it the whole upload is refused with 413 and nothing is kept. */
    max_file_mib: wholeWithin(UPLOAD_SETTINGS_BOUNDS.max_file_mib),
    /** Files in one upload. */
    max_files: wholeWithin(UPLOAD_SETTINGS_BOUNDS.max_files),
    /** All files of one upload together. */
    max_total_mib: wholeWithin(UPLOAD_SETTINGS_BOUNDS.max_total_mib),
  })
  .strict()
  .superRefine((s, ctx) => {
    if (s.max_file_mib > s.max_total_mib) {
      ctx.addIssue({
        code: 'custom',
        path: ['max_file_mib'],
        message: 'must not exceed the max upload size (max_total_mib)',
      });
    }
  });
export type UploadSettings = z.infer<typeof UploadSettings>;

export const DEFAULT_UPLOAD_SETTINGS: UploadSettings = {
  max_file_mib: UPLOAD_LIMITS.max_file_bytes / MIB,
  max_files: UPLOAD_LIMITS.max_files,
  max_total_mib: UPLOAD_LIMITS.max_total_bytes / MIB,
};

/** The byte limits an upload runs under, from the operator's settings. */
export function uploadLimitsOf(s: UploadSettings) {
  return {
    max_file_bytes: s.max_file_mib * MIB,
    max_files: s.max_files,
    max_total_bytes: s.max_total_mib * MIB,
  };
}

export const DocumentType = z.enum(DOCUMENT_TYPES);
export type DocumentType = z.infer<typeof DocumentType>;

/** The form fields of an upload beside its files, as for POST /sources/process. */
export const UploadOptions = z.object({
  language: INGEST_OPTIONS.language,
  // Form fields are strings: an empty one is no minimum.
  min_quality: z.preprocess(
    (v) => (v === '' ? null : v),
    qualityMinimum(z.coerce.number()).nullish(),
  ),
  priority: INGEST_OPTIONS.priority,
});
export type UploadOptions = z.input<typeof UploadOptions>;

/** One accepted file: the name it is stored under and the source it becomes. */
export const UploadedFile = z.object({
  name: z.string(),
  type: DocumentType,
  size: z.number().int(),
  /** `file:<first 16 hex of the content's SHA-256>/<name>`: the same bytes give the same source. */
  source_url: z.string(),
});
export type UploadedFile = z.infer<typeof UploadedFile>;

/** POST /sources/upload's answer: a process_documents job over the files. */
export const UploadResponse = z.object({
  job_id: z.number().int(),
  status: JobStatus,
  files: z.array(UploadedFile),
});
export type UploadResponse = z.infer<typeof UploadResponse>;

/** Where a snippet of a document came from, in its metadata. */
export const DocumentSnippetMetadata = z.object({
  file_name: z.string(),
  /** 1-based page of a PDF where the snippet begins; null for formats without pages. */
  page: z.number().int().nullable(),
  /** The nearest heading above the snippet, when the format has headings. */
  heading: z.string().nullable(),
});
export type DocumentSnippetMetadata = z.infer<typeof DocumentSnippetMetadata>;
