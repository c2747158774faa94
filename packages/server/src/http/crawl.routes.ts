import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import {
  CrawlJobParams,
  CrawlRequest,
  CrawlResponse,
  ErrorBody,
  FrontierList,
  FrontierQuery,
} from '@adam/contracts';
import type { CrawlService } from '../services/crawl.service.js';

const tags = ['jobs'];

export function crawlRoutes(crawls: CrawlService) {
  return async (root: FastifyInstance) => {
    const app = root.withTypeProvider<ZodTypeProvider>();

    app.post(
      '/sources/crawl',
      {
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
        schema: {
          tags,
          params: CrawlJobParams,
          querystring: FrontierQuery,
          response: { 200: FrontierList, 404: ErrorBody, 422: ErrorBody },
        },
      },
      async (req) => crawls.frontier(req.params.job_id, req.query),
    );
  };
}
