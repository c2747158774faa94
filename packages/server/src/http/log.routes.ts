import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { ErrorBody, LogsQuery, LogsResponse } from '@adam/contracts';
import type { LogService } from '../services/log.service.js';

export function logRoutes(logs: LogService) {
  return async (root: FastifyInstance) => {
    const app = root.withTypeProvider<ZodTypeProvider>();

    app.get(
      '/admin/logs',
      {
        config: { role: 'operator' },
        schema: {
          tags: ['monitoring'],
          querystring: LogsQuery,
          response: { 200: LogsResponse, 422: ErrorBody },
        },
      },
      async (req) => logs.list(req.query),
    );
  };
}
