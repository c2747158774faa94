/**
 * Fetchers, query keys and hooks of monitoring: health, the realtime metrics poll, and the
 * system, history and database metrics of the Control Centre and Performance Monitoring.
 */
import { useQueries, useQuery, type QueryClient } from '@tanstack/react-query';
import type {
  DatabaseMetrics,
  HealthResponse,
  HistoryRange,
  MetricsHistory,
  RealtimeMetrics,
  SystemMetrics,
} from '@adam/contracts';
import { api } from '../../api/client';

export const monitoringKeys = {
  all: ['monitoring'] as const,
  health: ['monitoring', 'health'] as const,
  realtime: ['monitoring', 'metrics', 'realtime'] as const,
  system: ['monitoring', 'metrics', 'system'] as const,
  history: (range: HistoryRange) => ['monitoring', 'metrics', 'history', range] as const,
  database: ['monitoring', 'metrics', 'database'] as const,
};

/** Realtime metrics as answered, plus the measured round trip of the call. */
export interface TimedRealtimeMetrics extends RealtimeMetrics {
  latencyMs: number;
}

export function fetchHealth(signal?: AbortSignal): Promise<HealthResponse> {
  return api.get<HealthResponse>('/health', { signal });
}

export async function fetchRealtimeMetrics(signal?: AbortSignal): Promise<TimedRealtimeMetrics> {
  const started = performance.now();
  const metrics = await api.get<RealtimeMetrics>('/metrics/realtime', { signal });
  return { ...metrics, latencyMs: performance.now() - started };
}

// Silent: the screens show the spec's inline error lines (§8) instead of a toast every poll.
export function fetchSystemMetrics(signal?: AbortSignal): Promise<SystemMetrics> {
  return api.get<SystemMetrics>('/admin/system/metrics', { signal, silent: true });
}

export function fetchMetricsHistory(
  range: HistoryRange,
  signal?: AbortSignal,
): Promise<MetricsHistory> {
  return api.get<MetricsHistory>('/admin/system/metrics/history', {
    query: { range },
    signal,
    silent: true,
  });
}

export function fetchDatabaseMetrics(signal?: AbortSignal): Promise<DatabaseMetrics> {
  return api.get<DatabaseMetrics>('/admin/database/metrics', { signal, silent: true });
}

/**
 * A `metrics.update` push as the realtime poll's answer: the figures are the server's, the
 * latency stays the last one measured (a push has no round trip).
 */
export function applyRealtimeMetricsPush(
  queryClient: QueryClient,
  { type: _type, ...metrics }: RealtimeMetrics & { type: 'metrics.update' },
): void {
  queryClient.setQueryData<TimedRealtimeMetrics>(monitoringKeys.realtime, (previous) => ({
    ...metrics,
    latencyMs: previous?.latencyMs ?? Number.NaN,
  }));
}

export function useHealth() {
  return useQuery({
    queryKey: monitoringKeys.health,
    queryFn: ({ signal }) => fetchHealth(signal),
  });
}

/** Polls GET /metrics/realtime every `intervalMs` while `enabled`; header and sidebar share it. */
export function useRealtimeMetrics({
  enabled,
  intervalMs,
}: {
  enabled: boolean;
  intervalMs: number;
}) {
  return useQuery({
    queryKey: monitoringKeys.realtime,
    queryFn: ({ signal }) => fetchRealtimeMetrics(signal),
    enabled,
    refetchInterval: enabled ? intervalMs : false,
    refetchIntervalInBackground: false,
  });
}

/**
 * How a monitoring screen polls. Not polling (paused, or monitoring off) still loads what the
 * screen has never had, once; it only stops the refetches.
 */
export interface MetricsPoll {
  intervalMs: number;
  polling: boolean;
}

const pollOptions = ({ intervalMs, polling }: MetricsPoll) => ({
  refetchInterval: polling ? intervalMs : (false as const),
  refetchIntervalInBackground: false,
  // A paused screen must not fetch behind the operator's back (reconnect, remount of a panel).
  refetchOnReconnect: polling,
});

/** GET /admin/system/metrics. On a failed poll the query keeps its last data beside the error. */
export function useSystemMetricsQuery(poll: MetricsPoll) {
  return useQuery({
    queryKey: monitoringKeys.system,
    queryFn: ({ signal }) => fetchSystemMetrics(signal),
    ...pollOptions(poll),
  });
}

/** GET /admin/system/metrics/history for each distinct range the charts show, in that order. */
export function useMetricsHistories(ranges: readonly HistoryRange[], poll: MetricsPoll) {
  return useQueries({
    queries: ranges.map((range) => ({
      queryKey: monitoringKeys.history(range),
      queryFn: ({ signal }: { signal: AbortSignal }) => fetchMetricsHistory(range, signal),
      ...pollOptions(poll),
    })),
  });
}

/** GET /admin/database/metrics. */
export function useDatabaseMetrics(poll: MetricsPoll) {
  return useQuery({
    queryKey: monitoringKeys.database,
    queryFn: ({ signal }) => fetchDatabaseMetrics(signal),
    ...pollOptions(poll),
  });
}
