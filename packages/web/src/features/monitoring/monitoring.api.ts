/** Fetchers, query keys and hooks of monitoring: health and the realtime metrics poll. */
import { useQuery } from '@tanstack/react-query';
import type { HealthResponse, RealtimeMetrics } from '@adam/contracts';
import { api } from '../../api/client';

export const monitoringKeys = {
  all: ['monitoring'] as const,
  health: ['monitoring', 'health'] as const,
  realtime: ['monitoring', 'metrics', 'realtime'] as const,
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
