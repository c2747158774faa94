/** Fetchers, query keys and hooks of the overview (spec 000 §9, spec 002 §9). */
import { keepPreviousData, useQuery, useQueryClient } from '@tanstack/react-query';
import {
  RECENT_ACTIVITY_DEFAULT_LIMIT,
  type ActivityTimeline,
  type AnalyticsPeriod,
  type LiveStats,
  type OverviewStats,
  type RecentActivity,
} from '@adam/contracts';
import { api } from '../../api/client';

export const overviewKeys = {
  all: ['overview'] as const,
  stats: ['overview', 'stats'] as const,
  /** The channel's latest initial_state / stats_update (LiveStats), written by the realtime table. */
  live: ['overview', 'live'] as const,
  activity: (limit: number) => ['overview', 'activity', limit] as const,
  timeline: (period: AnalyticsPeriod) => ['overview', 'timeline', period] as const,
};

/**
 * Job events refresh these through the realtime table; logins, backups and maintenance push no
 * event, so the overview also polls at this pace.
 */
export const OVERVIEW_POLL_MS = 30_000;

export function fetchOverviewStats(signal?: AbortSignal): Promise<OverviewStats> {
  return api.get<OverviewStats>('/analytics/overview', { signal });
}

export function fetchRecentActivity(limit: number, signal?: AbortSignal): Promise<RecentActivity> {
  return api.get<RecentActivity>('/analytics/activity/recent', { query: { limit }, signal });
}

export function fetchActivityTimeline(
  period: AnalyticsPeriod,
  signal?: AbortSignal,
): Promise<ActivityTimeline> {
  return api.get<ActivityTimeline>('/analytics/activity/timeline', { query: { period }, signal });
}

export function useOverviewStats() {
  return useQuery({
    queryKey: overviewKeys.stats,
    queryFn: ({ signal }) => fetchOverviewStats(signal),
    refetchInterval: OVERVIEW_POLL_MS,
  });
}

export function useRecentActivity(limit: number = RECENT_ACTIVITY_DEFAULT_LIMIT) {
  return useQuery({
    queryKey: overviewKeys.activity(limit),
    queryFn: ({ signal }) => fetchRecentActivity(limit, signal),
    refetchInterval: OVERVIEW_POLL_MS,
  });
}

/** The previous period's buckets stay on screen while a new period loads: no layout jump. */
export function useActivityTimeline(period: AnalyticsPeriod) {
  return useQuery({
    queryKey: overviewKeys.timeline(period),
    queryFn: ({ signal }) => fetchActivityTimeline(period, signal),
    placeholderData: keepPreviousData,
    refetchInterval: OVERVIEW_POLL_MS,
  });
}

/**
 * The latest LiveStats pushed on the channel. Only the realtime table writes this key; the query
 * never fetches (enabled: false) and just re-renders its readers on every push.
 */
export function useLiveStats(): LiveStats | undefined {
  const queryClient = useQueryClient();
  const { data } = useQuery({
    queryKey: overviewKeys.live,
    queryFn: () => queryClient.getQueryData<LiveStats>(overviewKeys.live) ?? null,
    enabled: false,
    staleTime: Infinity,
  });
  return data ?? undefined;
}
