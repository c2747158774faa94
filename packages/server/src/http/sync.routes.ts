import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import {
  ErrorBody,
  PrunePreview,
  PruneRequest,
  PruneResponse,
  SetScheduleRequest,
  Source,
  SourceIdParams,
  SourceSyncList,
  SourceSyncListQuery,
  SyncNowResponse,
} from '@adam/contracts';
import type { SourceSyncService } from '../services/source-sync.service.js';

const tags = ['sources'];

/** Keeping web sources fresh: schedules, Sync now, sync history, and the prune of gone pages. */
export function syncRoutes(syncs: SourceSyncService) {
  return async (root: FastifyInstance) => {
    const app = root.withTypeProvider<ZodTypeProvider>();

    app.put(
      '/sources/:id/schedule',
      {
        config: { role: 'operator' },
        schema: {
          tags,
          params: SourceIdParams,
          body: SetScheduleRequest,
          response: { 200: Source, 404: ErrorBody, 422: ErrorBody },
        },
      },
      async (req) => syncs.setSchedule(req.params.id, req.body.schedule),
    );

    app.post(
      '/sources/:id/sync',
      {
        config: { role: 'operator' },
        schema: {
          tags,
          params: SourceIdParams,
          response: {
            200: SyncNowResponse,
            404: ErrorBody,
            409: ErrorBody,
            422: ErrorBody,
            429: ErrorBody,
          },
        },
      },
      async (req) => syncs.syncNow(req.params.id),
    );

    app.get(
      '/sources/:id/syncs',
      {
        config: { role: 'viewer' },
        schema: {
          tags,
          params: SourceIdParams,
          querystring: SourceSyncListQuery,
          response: { 200: SourceSyncList, 404: ErrorBody },
        },
      },
      async (req) => syncs.history(req.params.id, req.query.limit),
    );

    app.get(
      '/sources/prune/preview',
      { config: { role: 'viewer' }, schema: { tags, response: { 200: PrunePreview } } },
      async () => syncs.prunePreview(),
    );

    app.post(
      '/sources/prune',
      {
        config: { role: 'operator' },
        schema: { tags, body: PruneRequest, response: { 200: PruneResponse, 422: ErrorBody } },
      },
      async (req) => syncs.prune(req.body.source_ids),
    );
  };
}
