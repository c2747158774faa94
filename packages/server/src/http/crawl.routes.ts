import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import {
  CrawlDefinition,
  CrawlJobParams,
  CrawlRequest,
  CrawlResponse,
  CrawlSyncList,
  CrawlSyncListQuery,
  CrawlSyncNowResponse,
  ErrorBody,
  FrontierList,
  FrontierQuery,
  SetScheduleRequest,
} from '@adam/contracts';
import type { CrawlService } from '../services/crawl.service.js';
import type { CrawlSyncService } from '../services/crawl-sync.service.js';

const tags = ['jobs'];

/** Crawls: start one, its frontier, and keeping it fresh (schedule, Sync now, sync history). */
export function crawlRoutes(crawls: CrawlService, crawlSyncs: CrawlSyncService) {
  return async (root: FastifyInstance) => {
    const app = root.withTypeProvider<ZodTypeProvider>();

    app.post(
      '/sources/crawl',
      {
        config: { role: 'operator' },
        schema: {
          tags,
          body: CrawlRequest,
          response: { 200: CrawlResponse, 422: ErrorBody, 429: ErrorBody },
        },
      },
      async (req) => crawls.start(req.body),
    );

    app.get(
      '/sources/crawl/:job_id/frontier',
      {
        config: { role: 'viewer' },
        schema: {
          tags,
          params: CrawlJobParams,
          querystring: FrontierQuery,
          response: { 200: FrontierList, 404: ErrorBody, 422: ErrorBody },
        },
      },
      async (req) => crawls.frontier(req.params.job_id, req.query),
    );

    app.put(
      '/sources/crawl/:job_id/schedule',
      {
        config: { role: 'operator' },
        schema: {
          tags,
          params: CrawlJobParams,
          body: SetScheduleRequest,
          response: { 200: CrawlDefinition, 404: ErrorBody, 409: ErrorBody, 422: ErrorBody },
        },
      },
      async (req) => crawlSyncs.setSchedule(req.params.job_id, req.body.schedule),
    );

    app.post(
      '/sources/crawl/:job_id/sync',
      {
        config: { role: 'operator' },
        schema: {
          tags,
          params: CrawlJobParams,
          response: { 200: CrawlSyncNowResponse, 404: ErrorBody, 409: ErrorBody, 429: ErrorBody },
        },
      },
      async (req) => crawlSyncs.syncNow(req.params.job_id),
    );

    app.get(
      '/sources/crawl/:job_id/syncs',
      {
        config: { role: 'viewer' },
        schema: {
          tags,
          params: CrawlJobParams,
          querystring: CrawlSyncListQuery,
          response: { 200: CrawlSyncList, 404: ErrorBody, 409: ErrorBody },
        },
      },
      async (req) => crawlSyncs.history(req.params.job_id, req.query.limit),
    );
  };
}
