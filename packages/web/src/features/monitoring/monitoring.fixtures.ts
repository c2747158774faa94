/** Wire answers for the monitoring screens' tests, shaped by the contracts. */
import type {
  DatabaseMetrics,
  HistoryRange,
  MetricsHistory,
  RealtimeMetrics,
  SystemMetrics,
} from '@adam/contracts';

const GB = 1024 ** 3;
const AT = '2026-11-23T10:00:00.000Z';

export function systemMetrics(over: Partial<SystemMetrics> = {}): SystemMetrics {
  return {
    timestamp: AT,
    cpu_usage: 42.5,
    cpu_per_core: [12, 65, 85, 40],
    cpu_temperature: 55,
    cpu_frequency: 3200,
    cpu_processes: 312,
    cpu_threads: 1480,
    memory_used: 12.34 * GB,
    memory_total: 31.26 * GB,
    memory_cached: 4.44 * GB,
    memory_buffers: 0.25 * GB,
    memory_usage: 39.5,
    swap_usage: 3.2,
    swap_total_gb: 2,
    disk_used: 120 * GB,
    disk_total: 480 * GB,
    disk_usage: 25,
    disk_read: 1.5,
    disk_write: 0.75,
    disk_iops: 140,
    disk_latency: 0.8,
    network_in: 2.5,
    network_out: 0.5,
    network_connections: 57,
    network_packets_in: 1200,
    network_packets_out: 900,
    network_packets_lost: 0,
    network_bandwidth_used: 24,
    network_bandwidth_total: 1000,
    gpu_usage: null,
    gpu_memory: null,
    gpu_memory_total: null,
    gpu_temperature: null,
    gpu_power: null,
    ...over,
  };
}

export function metricsHistory(range: HistoryRange, points = 3): MetricsHistory {
  const step = { '1h': 5, '24h': 60, '7d': 600 }[range];
  const start = Date.parse(AT) - points * step * 1000;
  return {
    range,
    interval_s: step,
    metrics: Array.from({ length: points }, (_, i) =>
      systemMetrics({
        timestamp: new Date(start + i * step * 1000).toISOString(),
        cpu_usage: 20 + i,
        memory_usage: 40 + i,
      }),
    ),
  };
}

export function databaseMetrics(over: Partial<DatabaseMetrics> = {}): DatabaseMetrics {
  return {
    timestamp: AT,
    redis: null,
    faiss: {
      engine: 'usearch HNSW (on disk)',
      index_size_mb: 12.5,
      max_size_mb: 50_000,
      total_vectors: 4200,
      searches_per_sec: 0.4,
      build_time: 3.2,
      dimensions: 384,
      accuracy: 0.97,
    },
    lmdb: {
      engine: 'SQLite 3.46 (WAL)',
      size_mb: 48,
      max_size_mb: 50_000,
      entries: 4200,
      read_latency: 0.05,
      write_latency: 0.4,
      transactions: 812,
      compression: 5.198,
    },
    ...over,
  };
}

export function redisMetrics(): NonNullable<DatabaseMetrics['redis']> {
  return {
    engine: 'Redis 7.2 (BullMQ queue)',
    memory_usage_mb: 3.5,
    max_memory_mb: 256,
    connections: 4,
    ops_per_sec: 12,
    hit_rate: 0.91,
    evicted_keys: 0,
    expired_keys: 17,
  };
}

export function realtimeMetrics(over: Partial<RealtimeMetrics> = {}): RealtimeMetrics {
  return {
    cpuUsage: 30,
    memoryUsage: 50,
    segmentsPerSecond: 0,
    activeJobs: 0,
    jobsPerMinute: 0,
    searchesPerSecond: 0,
    timestamp: AT,
    ...over,
  };
}
