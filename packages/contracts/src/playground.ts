import { z } from 'zod';
import { JOB_PRIORITIES, JobStatus } from './jobs.js';
import { Entity, SegmentationDiagnostic } from './snippets.js';

export const ARTICLE_MAX_BYTES = 102400;
export const ANALYZE_TOP_K = 3;

export const PlaygroundLanguage = z.object({ code: z.string(), name: z.string() });
export type PlaygroundLanguage = z.infer<typeof PlaygroundLanguage>;
export const PlaygroundLanguages = z.array(PlaygroundLanguage);
export type PlaygroundLanguages = z.infer<typeof PlaygroundLanguages>;

export const AnalyzeRequest = z
  .object({
    context: z.string().max(500_000).optional(),
    text: z.string().max(500_000).optional(),
    question: z.string().trim().min(1, 'must not be empty').max(2000),
    top_k: z
      .number()
      .int()
      .min(1, 'must be at least 1')
      .max(50, 'must be at most 50')
      .default(ANALYZE_TOP_K),
    language: z.string().trim().max(10).nullish(),
  })
  .refine((b) => (b.context ?? b.text ?? '').trim().length > 0, {
    message: 'context (or text) must not be empty',
    path: ['context'],
  });
export type AnalyzeRequest = z.input<typeof AnalyzeRequest>;

export const AnalyzeResponse = z.object({
  answers: z.array(z.object({ sentence: z.string(), score: z.number() })),
  entities: z.array(Entity),
  language: z.string(),
});
export type AnalyzeResponse = z.infer<typeof AnalyzeResponse>;

export const FetchUrlRequest = z.object({
  url: z.string().trim().min(1, 'is required').max(2048),
  rule_id: z.number().int().positive().nullish(),
});
export type FetchUrlRequest = z.input<typeof FetchUrlRequest>;
export const FetchUrlResponse = z.object({
  content: z.string(),
  html: z.string(),
  original_length: z.number().int(),
  clean_length: z.number().int(),
  domain: z.string(),
  rule: z.string(),
  rule_id: z.union([z.number(), z.string()]).nullable().optional(),
  title: z.string().optional(),
  url: z.string().optional(),
  html_truncated: z.boolean().optional(),
  warnings: z.array(z.string()).optional(),
});
export type FetchUrlResponse = z.infer<typeof FetchUrlResponse>;

/**
 * A source's link, stored with its snippets and shown by the console as a link: http(s) only, so
 * no `javascript:` or `data:` URL can reach an href.
 */
export const HttpUrl = z
  .string()
  .trim()
  .max(2048)
  .pipe(z.url({ protocol: /^https?$/, error: 'must be an http(s) URL' }));

export const SaveSegmentsRequest = z.object({
  title: z.string().trim().max(500).default(''),
  language: z.string().trim().max(10).default('en'),
  text: z.string(),
  source_url: HttpUrl.nullish(),
  /** Wait for the job to finish (up to 120 s) and answer its result. */
  wait: z.boolean().default(false),
  priority: z.enum(JOB_PRIORITIES).default('normal'),
});
export type SaveSegmentsRequest = z.input<typeof SaveSegmentsRequest>;

export const SaveSegmentsResponse = z.object({
  job_id: z.number().int().nullable(),
  status: JobStatus,
  segments_created: z.number().int(),
  duplicates: z.number().int(),
  snippet_ids: z.array(z.number().int()),
  diagnostics: z
    .object({
      method: z.string(),
      fallback_reason: z.string().nullable(),
      language: z.string(),
      counts: z.object({ before: z.number().int(), after: z.number().int() }),
      items: z.array(SegmentationDiagnostic),
    })
    .nullable(),
});
export type SaveSegmentsResponse = z.infer<typeof SaveSegmentsResponse>;

export const FetchWikipediaRequest = z.object({
  title: z.string().max(1000),
  language: z
    .string()
    .trim()
    .toLowerCase()
    .regex(/^[a-z]{2,3}$/, 'must be a 2 or 3 letter language code')
    .default('en'),
});
export type FetchWikipediaRequest = z.input<typeof FetchWikipediaRequest>;
export const FetchWikipediaResponse = z.object({
  text: z.string(),
  title: z.string(),
  url: z.string(),
  language: z.string(),
});
export type FetchWikipediaResponse = z.infer<typeof FetchWikipediaResponse>;
