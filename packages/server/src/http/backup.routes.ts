import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { Backup, BackupIdParams, BackupList, ErrorBody, RestoreResult } from '@adam/contracts';
import type { BackupService } from '../services/backup.service.js';

const tags = ['maintenance'];

export function backupRoutes(backups: BackupService) {
  return async (root: FastifyInstance) => {
    const app = root.withTypeProvider<ZodTypeProvider>();

    app.post(
      '/admin/maintenance/backup',
      {
        config: { role: 'operator' },
        schema: { tags, response: { 200: Backup, 409: ErrorBody, 503: ErrorBody } },
      },
      async () => backups.create('manual'),
    );

    app.get(
      '/admin/maintenance/backups',
      { config: { role: 'viewer' }, schema: { tags, response: { 200: BackupList } } },
      async () => backups.list(),
    );

    app.post(
      '/admin/maintenance/restore/:id',
      {
        config: { role: 'administrator' },
        schema: {
          tags,
          params: BackupIdParams,
          response: { 200: RestoreResult, 404: ErrorBody, 409: ErrorBody, 422: ErrorBody },
        },
      },
      async (req) => backups.restore(req.params.id),
    );
  };
}
