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

export const OkResponse = z.object({ ok: z.literal(true) });
export type OkResponse = z.infer<typeof OkResponse>;
