import { z } from 'zod';

export const SCRAPING_MODES = ['allow', 'deny', 'selector'] as const;

export const ScrapingRule = z.object({
  id: z.number().int(),
  domain: z.string(),
  mode: z.string(),
  target: z.string().nullable(),
  enabled: z.boolean(),
  created_at: z.string(),
  updated_at: z.string(),
});
export type ScrapingRule = z.infer<typeof ScrapingRule>;

const Mode = z
  .string()
  .trim()
  .toLowerCase()
  .refine((m) => (SCRAPING_MODES as readonly string[]).includes(m), {
    message: `must be one of ${SCRAPING_MODES.join(', ')}`,
  });
const Target = z
  .string()
  .trim()
  .max(500)
  .nullable()
  .transform((t) => (t ? t : null));

export const CreateScrapingRule = z
  .object({
    domain: z.string().trim().min(1, 'is required').max(253),
    mode: Mode.default('allow'),
    target: Target.optional().transform((t) => t ?? null),
    enabled: z.boolean().default(true),
  })
  .strict();
export type CreateScrapingRule = z.input<typeof CreateScrapingRule>;

export const UpdateScrapingRule = z
  .object({
    domain: z.string().trim().min(1, 'is required').max(253).optional(),
    mode: Mode.optional(),
    target: Target.optional(),
    enabled: z.boolean().optional(),
  })
  .strict();
export type UpdateScrapingRule = z.input<typeof UpdateScrapingRule>;

export const ScrapingRuleList = z.array(ScrapingRule);
export type ScrapingRuleList = z.infer<typeof ScrapingRuleList>;
