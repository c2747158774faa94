import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import {
  CancelPendingResponse,
  DeletedResponse,
  DeleteSourceQuery,
  DeleteSourceResponse,
  ErrorBody,
  IdParams,
  Job,
  JobDetail,
  JobErrors,
  JobHistoryQuery,
  JobList,
  JobListQuery,
  JobPage,
  ProcessSourcesRequest,
  ProcessSourcesResponse,
  RelaunchQuery,
  RelaunchResponse,
  SourceList,
  SourceListQuery,
  StartWorkersRequest,
  WorkersStatus,
} from '@adam/contracts';
import type { JobService, JobTab } from '../services/job.service.js';
import type { SourceService } from '../services/source.service.js';
import type { WorkerService } from '../services/worker.service.js';

const tags = ['jobs'];
const e = { 404: ErrorBody, 409: ErrorBody, 422: ErrorBody };

export function jobRoutes(jobs: JobService, sources: SourceService, workers: WorkerService) {
  return async (root: FastifyInstance) => {
    const app = root.withTypeProvider<ZodTypeProvider>();

    const tabs: [string, JobTab][] = [
      ['/sources/jobs', 'all'],
      ['/sources/jobs/active', 'active'],
      ['/sources/jobs/queue', 'queue'],
      ['/sources/jobs/history', 'history'],
    ];
    for (const [path, tab] of tabs) {
      app.get(
        path,
        {
          config: { role: 'viewer' },
          schema: {
            tags,
            querystring: JobHistoryQuery,
            response: { 200: JobPage, 422: ErrorBody },
          },
        },
        async (req) => jobs.page(tab, req.query),
      );
    }
    app.get(
      '/sources/jobs/stuck',
      {
        config: { role: 'viewer' },
        schema: { tags, querystring: JobListQuery, response: { 200: JobList } },
      },
      async (req) => jobs.stuck(req.query.limit),
    );
    app.post(
      '/sources/jobs/cancel_pending',
      { config: { role: 'operator' }, schema: { tags, response: { 200: CancelPendingResponse } } },
      async () => jobs.cancelPending(),
    );
    app.get(
      '/sources/jobs/:id',
      {
        config: { role: 'viewer' },
        schema: { tags, params: IdParams, response: { 200: Job, ...e } },
      },
      async (req) => jobs.get(req.params.id),
    );
    app.get(
      '/sources/jobs/:id/detail',
      {
        config: { role: 'viewer' },
        schema: { tags, params: IdParams, response: { 200: JobDetail, ...e } },
      },
      async (req) => jobs.detail(req.params.id),
    );
    app.get(
      '/sources/jobs/:id/errors',
      {
        config: { role: 'viewer' },
        schema: { tags, params: IdParams, response: { 200: JobErrors, ...e } },
      },
      async (req) => jobs.errors(req.params.id),
    );
    app.post(
      '/sources/jobs/:id/cancel',
      {
        config: { role: 'operator' },
        schema: { tags, params: IdParams, response: { 200: Job, ...e } },
      },
      async (req) => jobs.cancel(req.params.id),
    );
    app.post(
      '/sources/jobs/:id/relaunch',
      {
        config: { role: 'operator' },
        schema: {
          tags,
          params: IdParams,
          querystring: RelaunchQuery,
          response: { 200: RelaunchResponse, 429: ErrorBody, ...e },
        },
      },
      async (req) => jobs.relaunch(req.params.id, req.query.priority),
    );
    app.delete(
      '/sources/jobs/:id',
      {
        config: { role: 'operator' },
        schema: { tags, params: IdParams, response: { 200: DeletedResponse, ...e } },
      },
      async (req) => jobs.delete(req.params.id),
    );

    const sourceTags = ['sources'];
    app.post(
      '/sources/process',
      {
        config: { role: 'operator' },
        schema: {
          tags: sourceTags,
          body: ProcessSourcesRequest,
          response: { 200: ProcessSourcesResponse, 422: ErrorBody, 429: ErrorBody },
        },
      },
      async (req) => sources.process(req.body),
    );
    app.get(
      '/sources/list',
      {
        config: { role: 'viewer' },
        schema: { tags: sourceTags, querystring: SourceListQuery, response: { 200: SourceList } },
      },
      async (req) => sources.list(req.query),
    );
    app.delete(
      '/sources/:id',
      {
        config: { role: 'operator' },
        schema: {
          tags: sourceTags,
          params: IdParams,
          querystring: DeleteSourceQuery,
          response: { 200: DeleteSourceResponse, ...e },
        },
      },
      async (req) => sources.delete(req.params.id, req.query.delete_snippets),
    );

    const workerTags = ['workers'];
    app.get(
      '/admin/maintenance/workers/status',
      {
        config: { role: 'viewer' },
        schema: { tags: workerTags, response: { 200: WorkersStatus } },
      },
      async () => workers.status(),
    );
    app.post(
      '/admin/maintenance/workers/start',
      {
        config: { role: 'operator' },
        schema: {
          tags: workerTags,
          body: StartWorkersRequest,
          response: { 200: WorkersStatus, 422: ErrorBody },
        },
      },
      async (req) => workers.start(req.body?.count ?? 1),
    );
    app.post(
      '/admin/maintenance/workers/stop',
      {
        config: { role: 'operator' },
        schema: { tags: workerTags, response: { 200: WorkersStatus } },
      },
      async () => workers.stop(),
    );
  };
}
