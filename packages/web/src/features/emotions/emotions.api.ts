/** Fetchers, query keys and hooks of the emotion analytics (spec 002 §7: /analytics/emotions...). */
import type { AnalyticsPeriod } from '@adam/contracts';

export const emotionKeys = {
  all: ['emotions'] as const,
  summary: (period: AnalyticsPeriod) => ['emotions', 'summary', period] as const,
  distribution: (period: AnalyticsPeriod) => ['emotions', 'distribution', period] as const,
  timeline: (hours: number) => ['emotions', 'timeline', hours] as const,
};
