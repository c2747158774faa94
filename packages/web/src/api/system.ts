/** Calls shared by several areas: public configuration, health and the realtime metrics poll. */
import { useQuery } from '@tanstack/react-query';
import type { HealthResponse, PublicConfig, RealtimeMetrics } from '@adam/contracts';
import { api } from './client';

export const systemKeys = {
  publicConfig: ['system', 'public-config'] as const,
  health: ['system', 'health'] as const,
  realtime: ['system', 'metrics', 'realtime'] as const,
};

/** Realtime metrics as answered, plus the measured round trip of the call. */
export interface TimedRealtimeMetrics extends RealtimeMetrics {
  /** Ingestion rate, when the server reports one. */
  segmentsPerSecond?: number;
  latencyMs: number;
}

export function fetchPublicConfig(signal?: AbortSignal): Promise<PublicConfig> {
  // Read before login: its failure must not toast over the login screen.
  return api.get<PublicConfig>('/config/public', { signal, silent: true, refreshOn401: false });
}

export function fetchHealth(signal?: AbortSignal): Promise<HealthResponse> {
  return api.get<HealthResponse>('/health', { signal });
}

export async function fetchRealtimeMetrics(signal?: AbortSignal): Promise<TimedRealtimeMetrics> {
  const started = performance.now();
  const metrics = await api.get<RealtimeMetrics & { segmentsPerSecond?: number }>(
    '/metrics/realtime',
    { signal },
  );
  return { ...metrics, latencyMs: performance.now() - started };
}

export function usePublicConfig() {
  return useQuery({
    queryKey: systemKeys.publicConfig,
    queryFn: ({ signal }) => fetchPublicConfig(signal),
    staleTime: 60_000,
  });
}

export function useHealth() {
  return useQuery({ queryKey: systemKeys.health, queryFn: ({ signal }) => fetchHealth(signal) });
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
    queryKey: systemKeys.realtime,
    queryFn: ({ signal }) => fetchRealtimeMetrics(signal),
    enabled,
    refetchInterval: enabled ? intervalMs : false,
    refetchIntervalInBackground: false,
  });
}
