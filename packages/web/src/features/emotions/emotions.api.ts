/** Fetchers, query keys and hooks of the emotion analytics (spec 002 §7: /analytics/emotions...). */
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import type {
  AnalyticsPeriod,
  EmotionAnalytics,
  EmotionDistribution,
  EmotionTimeline,
} from '@adam/contracts';
import { api } from '../../api/client';

export const emotionKeys = {
  all: ['emotions'] as const,
  summary: (period: AnalyticsPeriod) => ['emotions', 'summary', period] as const,
  distribution: (period: AnalyticsPeriod) => ['emotions', 'distribution', period] as const,
  timeline: (hours: number) => ['emotions', 'timeline', hours] as const,
};

export function fetchEmotionAnalytics(
  period: AnalyticsPeriod,
  signal?: AbortSignal,
): Promise<EmotionAnalytics> {
  return api.get<EmotionAnalytics>('/analytics/emotions', { query: { period }, signal });
}

export function fetchEmotionDistribution(
  period: AnalyticsPeriod,
  signal?: AbortSignal,
): Promise<EmotionDistribution> {
  return api.get<EmotionDistribution>('/analytics/emotions/distribution', {
    query: { period },
    signal,
  });
}

export function fetchEmotionTimeline(
  hours: number,
  signal?: AbortSignal,
): Promise<EmotionTimeline> {
  return api.get<EmotionTimeline>('/analytics/emotions/timeline', { query: { hours }, signal });
}

// A finished job refreshes all three through the realtime table (emotionKeys.all). While another
// period or range loads, the previous figures stay on screen: no layout jump.

export function useEmotionAnalytics(period: AnalyticsPeriod) {
  return useQuery({
    queryKey: emotionKeys.summary(period),
    queryFn: ({ signal }) => fetchEmotionAnalytics(period, signal),
    placeholderData: keepPreviousData,
  });
}

export function useEmotionDistribution(period: AnalyticsPeriod) {
  return useQuery({
    queryKey: emotionKeys.distribution(period),
    queryFn: ({ signal }) => fetchEmotionDistribution(period, signal),
    placeholderData: keepPreviousData,
  });
}

export function useEmotionTimeline(hours: number) {
  return useQuery({
    queryKey: emotionKeys.timeline(hours),
    queryFn: ({ signal }) => fetchEmotionTimeline(hours, signal),
    placeholderData: keepPreviousData,
  });
}
