import { z } from 'zod';
import { SCORE_BOUNDS } from './common.js';
import { ComponentStatus } from './system.js';

export const MAINTENANCE_ACTIONS = [
  'optimize_index',
  'rebuild_index',
  'cleanup_duplicates',
  'cleanup_low_quality',
  'reset_stuck_jobs',
  'clear_old_jobs',
] as const;
export type MaintenanceAction = (typeof MAINTENANCE_ACTIONS)[number];

export const DUPLICATE_THRESHOLD_DEFAULT = 0.95;
export const LOW_QUALITY_THRESHOLD_DEFAULT = 0.3;
export const CLEAR_OLD_JOBS_DAYS = 7;

const Threshold = z
  .number()
  .min(SCORE_BOUNDS.min, `must be at least ${SCORE_BOUNDS.min}`)
  .max(SCORE_BOUNDS.max, `must be at most ${SCORE_BOUNDS.max}`);

export const MaintenanceRequest = z.object({
  action: z.enum(MAINTENANCE_ACTIONS, {
    message: `must be one of ${MAINTENANCE_ACTIONS.join(', ')}`,
  }),
  params: z
    .object({
      threshold: Threshold.optional(),
      days: z.number().int().min(0).max(3650).optional(),
      reembed: z.boolean().optional(),
      dry_run: z.boolean().optional(),
    })
    .strict()
    .nullish(),
});
export type MaintenanceRequest = z.input<typeof MaintenanceRequest>;

/** POST /admin/index/rebuild's body, which may be left out: the rebuild_index action's parameter. */
export const IndexRebuildRequest = z
  .object({
    /** Re-embed every snippet with the active embedder (default) or reuse the stored vectors. */
    reembed: z.boolean().optional(),
  })
  .strict()
  .nullish();
export type IndexRebuildRequest = z.input<typeof IndexRebuildRequest>;

export const MaintenanceResult = z.object({
  action: z.string(),
  status: z.enum(['completed', 'queued']),
  message: z.string(),
  job_id: z.number().int().nullable(),
  counts: z.record(z.string(), z.number()),
  ids: z.array(z.number().int()).optional(),
});
export type MaintenanceResult = z.infer<typeof MaintenanceResult>;

export const HealthCheck = z.object({
  component: z.string(),
  status: ComponentStatus,
  details: z.record(z.string(), z.unknown()).optional(),
  error: z.string().optional(),
});
export type HealthCheck = z.infer<typeof HealthCheck>;
export const MaintenanceHealth = z.object({
  status: z.enum(['healthy', 'degraded', 'unhealthy', 'starting']),
  checks: z.array(HealthCheck),
  checked_at: z.string(),
});
export type MaintenanceHealth = z.infer<typeof MaintenanceHealth>;
