import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { DatabaseMetrics } from '@adam/contracts';
import type { DatabaseMetricsService } from '../services/database-metrics.service.js';

export function databaseMetricsRoutes(metrics: DatabaseMetricsService) {
  return async (root: FastifyInstance) => {
    const app = root.withTypeProvider<ZodTypeProvider>();

    app.get(
      '/admin/database/metrics',
      {
        config: { role: 'viewer' },
        schema: { tags: ['monitoring'], response: { 200: DatabaseMetrics } },
      },
      async () => metrics.metrics(),
    );
  };
}
