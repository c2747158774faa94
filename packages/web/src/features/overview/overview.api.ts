/** Fetchers, query keys and hooks of the overview (spec 000 §9, spec 002 §9). */
import type { AnalyticsPeriod } from '@adam/contracts';

export const overviewKeys = {
  all: ['overview'] as const,
  stats: ['overview', 'stats'] as const,
  /** The channel's latest initial_state / stats_update (LiveStats), written by the realtime table. */
  live: ['overview', 'live'] as const,
  activity: (limit: number) => ['overview', 'activity', limit] as const,
  timeline: (period: AnalyticsPeriod) => ['overview', 'timeline', period] as const,
};
