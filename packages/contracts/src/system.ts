import { z } from 'zod';

/** `starting`: still loading after the server began answering (engine threads, the index). */
export const ComponentStatus = z.enum(['healthy', 'degraded', 'unhealthy', 'disabled', 'starting']);
export type ComponentStatus = z.infer<typeof ComponentStatus>;

export const ComponentHealth = z.object({
  status: ComponentStatus,
  details: z.record(z.string(), z.unknown()).optional(),
  error: z.string().optional(),
});
export type ComponentHealth = z.infer<typeof ComponentHealth>;

export const HealthResponse = z.object({
  status: z.enum(['healthy', 'degraded', 'unhealthy', 'starting']),
  version: z.string(),
  uptime_s: z.number(),
  components: z.record(z.string(), ComponentHealth),
});
export type HealthResponse = z.infer<typeof HealthResponse>;

/** GET /ready: 200 once the engine and the index are ready (a load balancer may send work), else 503. */
export const ReadinessResponse = z.object({
  ready: z.boolean(),
  engine: z.boolean(),
  index: z.boolean(),
  /** What is not ready yet, one line each ("engine: starting its threads and model"). */
  not_ready: z.array(z.string()),
});
export type ReadinessResponse = z.infer<typeof ReadinessResponse>;

export const PublicConfig = z.object({
  segment_max_tokens: z.number(),
  segment_max_sentences: z.number(),
  segmenter_model: z.string(),
  /** True while the default administrator (DEFAULT_ADMIN_EMAIL / _PASSWORD) can still log in. */
  default_credentials_in_use: z.boolean(),
  default_credentials: z.object({ email: z.string(), password: z.string() }).nullable(),
  version: z.string(),
});
export type PublicConfig = z.infer<typeof PublicConfig>;

export const RealtimeMetrics = z.object({
  cpuUsage: z.number(),
  memoryUsage: z.number(),
  /** Segments stored per second over the last minute (the header's segment rate). */
  segmentsPerSecond: z.number(),
  /** Jobs running now, and jobs finished per minute over the last 5 minutes. */
  activeJobs: z.number().int(),
  jobsPerMinute: z.number(),
  /** Similarity searches answered per second over the last minute. */
  searchesPerSecond: z.number(),
  timestamp: z.string(),
});
export type RealtimeMetrics = z.infer<typeof RealtimeMetrics>;
