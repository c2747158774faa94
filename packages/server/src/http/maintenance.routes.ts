import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import {
  ErrorBody,
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
          response: { 200: MaintenanceResult, 422: ErrorBody, 429: ErrorBody },
        },
      },
      async (req) => maintenance.execute(req.body),
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
