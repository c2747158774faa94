import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { ErrorBody, MetricsHistory, MetricsHistoryQuery, SystemMetrics } from '@adam/contracts';
import type { MetricsSamplerService } from '../services/metrics-sampler.service.js';

const tags = ['monitoring'];

export function systemMetricsRoutes(sampler: MetricsSamplerService) {
  return async (root: FastifyInstance) => {
    const app = root.withTypeProvider<ZodTypeProvider>();

    app.get(
      '/admin/system/metrics',
      { config: { role: 'viewer' }, schema: { tags, response: { 200: SystemMetrics } } },
      async () => sampler.current(),
    );

    app.get(
      '/admin/system/metrics/history',
      {
        config: { role: 'viewer' },
        schema: {
          tags,
          querystring: MetricsHistoryQuery,
          response: { 200: MetricsHistory, 422: ErrorBody },
        },
      },
      async (req) => sampler.history(req.query.range),
    );
  };
}
