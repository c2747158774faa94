import { z } from 'zod';

/** The ranges of the metrics history and of the logs (spec 001 §9). */
export const HISTORY_RANGES = ['1h', '24h', '7d'] as const;
export const HistoryRange = z.enum(HISTORY_RANGES);
export type HistoryRange = z.infer<typeof HistoryRange>;

/** How often the server samples the machine for the history. */
export const METRICS_SAMPLE_INTERVAL_MS = 5000;

/** A figure the machine may not report: null then, never invented (the console shows '-'). */
const figure = z.number().nullable();

/**
 * The machine as GET /admin/system/metrics answers it and the history stores it (spec 001 §3).
 * Units: percentages 0–100; bytes for memory_* and disk_used/disk_total; MHz for cpu_frequency;
 * °C for temperatures; MB/s for disk_read/disk_write and network_in/network_out; operations per
 * second for disk_iops; ms for disk_latency; packets per second for network_packets_*; Mbps for
 * network_bandwidth_*; MB for gpu_memory*; W for gpu_power.
 */
export const SystemMetrics = z.object({
  timestamp: z.string(),
  cpu_usage: figure,
  /** One usage per logical core; empty when the machine does not say. */
  cpu_per_core: z.array(z.number()),
  cpu_temperature: figure,
  cpu_frequency: figure,
  cpu_processes: figure,
  cpu_threads: figure,
  memory_used: figure,
  memory_total: figure,
  memory_cached: figure,
  memory_buffers: figure,
  memory_usage: figure,
  swap_usage: figure,
  swap_total_gb: figure,
  disk_used: figure,
  disk_total: figure,
  disk_usage: figure,
  disk_read: figure,
  disk_write: figure,
  disk_iops: figure,
  disk_latency: figure,
  network_in: figure,
  network_out: figure,
  network_connections: figure,
  network_packets_in: figure,
  network_packets_out: figure,
  network_packets_lost: figure,
  network_bandwidth_used: figure,
  network_bandwidth_total: figure,
  gpu_usage: figure,
  gpu_memory: figure,
  gpu_memory_total: figure,
  gpu_temperature: figure,
  gpu_power: figure,
});
export type SystemMetrics = z.infer<typeof SystemMetrics>;

export const MetricsHistoryQuery = z.object({ range: HistoryRange.default('1h') });
export type MetricsHistoryQuery = z.input<typeof MetricsHistoryQuery>;

/**
 * GET /admin/system/metrics/history: oldest first. 1h is the raw 5 s samples, 24h one point per
 * minute, 7d one point per 10 minutes (each point the mean of its samples).
 */
export const MetricsHistory = z.object({
  range: HistoryRange,
  /** Seconds between two points of this range. */
  interval_s: z.number().int(),
  metrics: z.array(SystemMetrics),
});
export type MetricsHistory = z.infer<typeof MetricsHistory>;

/**
 * GET /admin/database/metrics, under the spec's three names for our real stores: `redis` is the
 * job queue's Redis (null when the server runs without one), `faiss` the vector index (usearch
 * HNSW on disk), `lmdb` the SQLite store. `engine` names the real store behind each panel.
 */
export const RedisMetrics = z.object({
  engine: z.string(),
  memory_usage_mb: figure,
  max_memory_mb: figure,
  connections: figure,
  ops_per_sec: figure,
  /** Keyspace hits / (hits + misses), 0–1; null before any lookup. */
  hit_rate: figure,
  evicted_keys: figure,
  expired_keys: figure,
});
export type RedisMetrics = z.infer<typeof RedisMetrics>;

export const VectorIndexMetrics = z.object({
  engine: z.string(),
  index_size_mb: figure,
  /** The size the index may grow to before the disk is full (its file plus the free space). */
  max_size_mb: figure,
  total_vectors: figure,
  searches_per_sec: figure,
  /** Seconds the last full build (rebuild) took; null when none was measured. */
  build_time: figure,
  dimensions: figure,
  /** Measured recall@10 of the approximate search against an exact scan, 0–1. */
  accuracy: figure,
});
export type VectorIndexMetrics = z.infer<typeof VectorIndexMetrics>;

export const StoreMetrics = z.object({
  engine: z.string(),
  size_mb: figure,
  max_size_mb: figure,
  entries: figure,
  /** Measured, in ms. */
  read_latency: figure,
  write_latency: figure,
  /**
   * Rows written (inserted, updated or deleted, triggers included) since the server started:
   * SQLite counts changes, not commits.
   */
  transactions: figure,
  /**
   * Stored bytes of the snippets table / UTF-8 bytes of their text. SQLite does not compress:
   * above 1 is the storage overhead (row headers, columns beside the text, free page space).
   */
  compression: figure,
});
export type StoreMetrics = z.infer<typeof StoreMetrics>;

export const DatabaseMetrics = z.object({
  timestamp: z.string(),
  redis: RedisMetrics.nullable(),
  faiss: VectorIndexMetrics,
  lmdb: StoreMetrics,
});
export type DatabaseMetrics = z.infer<typeof DatabaseMetrics>;

export const LOG_LEVELS = ['debug', 'info', 'warning', 'error'] as const;
export const LogLevel = z.enum(LOG_LEVELS);
export type LogLevel = z.infer<typeof LogLevel>;
export const LOG_PAGE_SIZE = 20;
export const LOG_PAGE_SIZE_MAX = 200;
export const LOG_TAIL_MAX = 100_000;

export const LogEntry = z.object({
  timestamp: z.string(),
  level: LogLevel,
  component: z.string(),
  message: z.string(),
});
export type LogEntry = z.infer<typeof LogEntry>;

/**
 * GET /admin/logs. `tail` (the console sends page_size × page, spec 001 §7) bounds how many of the
 * newest matching lines are considered at all.
 */
export const LogsQuery = z.object({
  level: z.enum(['all', ...LOG_LEVELS]).default('all'),
  range: HistoryRange.default('1h'),
  q: z.string().trim().max(500).default(''),
  page: z.coerce.number().int().min(1, 'must be at least 1').default(1),
  page_size: z.coerce
    .number()
    .int()
    .min(1, 'must be at least 1')
    .max(LOG_PAGE_SIZE_MAX, `must be at most ${LOG_PAGE_SIZE_MAX}`)
    .default(LOG_PAGE_SIZE),
  tail: z.coerce
    .number()
    .int()
    .min(1, 'must be at least 1')
    .max(LOG_TAIL_MAX, `must be at most ${LOG_TAIL_MAX}`)
    .optional(),
});
export type LogsQuery = z.input<typeof LogsQuery>;

/** Newest first, duplicates (same timestamp and message) dropped. */
export const LogsResponse = z.object({
  logs: z.array(LogEntry),
  page: z.number().int(),
  page_size: z.number().int(),
  /** Whether a next page exists. */
  has_more: z.boolean(),
});
export type LogsResponse = z.infer<typeof LogsResponse>;
