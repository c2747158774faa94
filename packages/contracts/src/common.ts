import { z } from 'zod';

/** Every error the API answers: a human `detail`, plus per-field messages for validation errors. */
export const ErrorBody = z.object({
  detail: z.string(),
  errors: z
    .array(z.object({ field: z.string(), message: z.string() }))
    .optional()
    .describe('Field-level messages, present on validation errors (422)'),
});
export type ErrorBody = z.infer<typeof ErrorBody>;

/** The body of a 204: nothing. */
export const NoContent = z.null();
export type NoContent = z.infer<typeof NoContent>;

/** `/:id` of the records with numeric ids (jobs, snippets, sources, scraping rules). */
export const IdParams = z.object({ id: z.coerce.number().int().positive('must be a positive id') });
export type IdParams = z.infer<typeof IdParams>;

/** What deleting a job or a scraping rule answers. */
export const DeletedResponse = z.object({ id: z.number().int(), deleted: z.literal(true) });
export type DeletedResponse = z.infer<typeof DeletedResponse>;

/** Quality scores, similarities and their thresholds lie in 0–1; the inputs take it from here. */
export const SCORE_BOUNDS = { min: 0, max: 1 } as const;
