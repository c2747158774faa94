import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import {
  ErrorBody,
  IndexRebuildRequest,
  MaintenanceHealth,
  MaintenanceRequest,
  MaintenanceResult,
  ResetStuckJobsResponse,
} from '@adam/contracts';
import type { JobService } from '../services/job.service.js';
import type { MaintenanceService } from '../services/maintenance.service.js';

const tags = ['maintenance'];

export function maintenanceRoutes(maintenance: MaintenanceService, jobs: JobService) {
  return async (root: FastifyInstance) => {
    const app = root.withTypeProvider<ZodTypeProvider>();
    app.post(
      '/admin/maintenance/execute',
      {
        config: { role: 'operator' },
        schema: {
          tags,
          body: MaintenanceRequest,
          response: { 200: MaintenanceResult, 409: ErrorBody, 422: ErrorBody, 429: ErrorBody },
        },
      },
      async (req) => maintenance.execute(req.body),
    );
    // The spec's dedicated index calls: the execute actions optimize_index and rebuild_index,
    // with the same answers (409 while one already waits or runs, 429 on a full queue).
    const indexTags = ['index'];
    const indexJobAnswers = { 200: MaintenanceResult, 409: ErrorBody, 429: ErrorBody };
    app.post(
      '/admin/index/optimize',
      {
        config: { role: 'operator' },
        schema: {
          tags: indexTags,
          summary: 'Optimize the index: rebuild its graph from the stored vectors, as a job',
          response: indexJobAnswers,
        },
      },
      async () => maintenance.execute({ action: 'optimize_index' }),
    );
    app.post(
      '/admin/index/rebuild',
      {
        config: { role: 'operator' },
        schema: {
          tags: indexTags,
          summary:
            'Rebuild the index, re-embedding every snippet unless reembed is false, as a job',
          body: IndexRebuildRequest,
          response: { ...indexJobAnswers, 422: ErrorBody },
        },
      },
      async (req) => maintenance.execute({ action: 'rebuild_index', params: req.body ?? {} }),
    );
    app.post(
      '/admin/maintenance/reset-stuck-jobs',
      {
        config: { role: 'operator' },
        schema: {
          tags,
          response: { 200: ResetStuckJobsResponse },
        },
      },
      async () => jobs.resetStuckJobs(),
    );
    app.get(
      '/admin/maintenance/health',
      { config: { role: 'viewer' }, schema: { tags, response: { 200: MaintenanceHealth } } },
      async () => maintenance.healthChecks(),
    );
  };
}
