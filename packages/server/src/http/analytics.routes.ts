import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import {
  ActivityTimeline,
  ActivityTimelineQuery,
  EmotionAnalytics,
  EmotionDistribution,
  EmotionDistributionQuery,
  EmotionTimeline,
  EmotionTimelineQuery,
  EmotionsQuery,
  ErrorBody,
  JobFindQuery,
  JobFindResponse,
  JobThroughput,
  OverviewStats,
  RecentActivity,
  RecentActivityQuery,
  SnippetAnalytics,
  SnippetAnalyticsQuery,
} from '@adam/contracts';
import type { ActivityService } from '../services/activity.service.js';
import type { AnalyticsService } from '../services/analytics.service.js';
import type { JobService } from '../services/job.service.js';

const tags = ['analytics'];
const bad = { 422: ErrorBody };

export function analyticsRoutes(deps: {
  analytics: AnalyticsService;
  activity: ActivityService;
  jobs: JobService;
}) {
  const { analytics, activity, jobs } = deps;
  return async (root: FastifyInstance) => {
    const app = root.withTypeProvider<ZodTypeProvider>();

    app.get(
      '/analytics/emotions',
      {
        config: { role: 'viewer' },
        schema: { tags, querystring: EmotionsQuery, response: { 200: EmotionAnalytics, ...bad } },
      },
      async (req) => analytics.emotions(req.query.period),
    );
    app.get(
      '/analytics/emotions/distribution',
      {
        config: { role: 'viewer' },
        schema: {
          tags,
          querystring: EmotionDistributionQuery,
          response: { 200: EmotionDistribution, ...bad },
        },
      },
      async (req) => analytics.distribution(req.query.period),
    );
    app.get(
      '/analytics/emotions/timeline',
      {
        config: { role: 'viewer' },
        schema: {
          tags,
          querystring: EmotionTimelineQuery,
          response: { 200: EmotionTimeline, ...bad },
        },
      },
      async (req) => analytics.emotionTimeline(req.query.hours),
    );
    app.get(
      '/analytics/activity/recent',
      {
        config: { role: 'viewer' },
        schema: {
          tags,
          querystring: RecentActivityQuery,
          response: { 200: RecentActivity, ...bad },
        },
      },
      async (req) => activity.recent(req.query.limit),
    );
    app.get(
      '/analytics/activity/timeline',
      {
        config: { role: 'viewer' },
        schema: {
          tags,
          querystring: ActivityTimelineQuery,
          response: { 200: ActivityTimeline, ...bad },
        },
      },
      async (req) => analytics.activityTimeline(req.query.period),
    );
    app.get(
      '/analytics/overview',
      { config: { role: 'viewer' }, schema: { tags, response: { 200: OverviewStats } } },
      async () => analytics.overview(),
    );
    app.get(
      '/analytics/snippets',
      {
        config: { role: 'viewer' },
        schema: {
          tags,
          querystring: SnippetAnalyticsQuery,
          response: { 200: SnippetAnalytics, ...bad },
        },
      },
      async (req) => analytics.snippets(req.query.days),
    );

    // Static paths: Fastify matches them before /sources/jobs/:id whatever the order.
    const jobTags = ['jobs'];
    app.get(
      '/sources/jobs/throughput',
      { config: { role: 'viewer' }, schema: { tags: jobTags, response: { 200: JobThroughput } } },
      async () => analytics.throughput(),
    );
    app.get(
      '/sources/jobs/find',
      {
        config: { role: 'viewer' },
        schema: {
          tags: jobTags,
          querystring: JobFindQuery,
          response: { 200: JobFindResponse, ...bad },
        },
      },
      async (req) => jobs.find(req.query.q, req.query.limit),
    );
  };
}
