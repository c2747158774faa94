import { Readable } from 'node:stream';
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import {
  BACKUP_ARCHIVE_TYPE,
  Backup,
  BackupIdParams,
  BackupList,
  BackupVerification,
  ErrorBody,
  RestoreResult,
} from '@adam/contracts';
import { AppError } from '../lib/errors.js';
import type { BackupService } from '../services/backup.service.js';

const tags = ['maintenance'];
/** What an upload may be sent as: the tar a download gives, or any bytes declared as such. */
const ARCHIVE_TYPES = [BACKUP_ARCHIVE_TYPE, 'application/octet-stream'];

export function backupRoutes(backups: BackupService) {
  return async (root: FastifyInstance) => {
    const app = root.withTypeProvider<ZodTypeProvider>();
    // The archive reaches the handler as the request's stream: the service writes it to disk as
    // it arrives under its own bound (Fastify's bodyLimit is for the bodies it parses).
    app.addContentTypeParser(ARCHIVE_TYPES, (_req, payload, done) => done(null, payload));

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

    app.delete(
      '/admin/maintenance/backups/:id',
      {
        config: { role: 'administrator' },
        schema: {
          tags,
          description:
            'Deletes a backup (a safety backup too). 409 while it is being restored, downloaded, verified or written.',
          params: BackupIdParams,
          response: { 204: z.null(), 404: ErrorBody, 409: ErrorBody },
        },
      },
      async (req, reply) => {
        backups.remove(req.params.id);
        return reply.code(204).send(null);
      },
    );

    app.get(
      '/admin/maintenance/backups/:id/download',
      {
        // The whole store (users and their password hashes included): administrators only,
        // and recorded in the audit trail although a read.
        config: { role: 'administrator' },
        schema: {
          tags,
          description: `The backup as an uncompressed tar archive (${BACKUP_ARCHIVE_TYPE}): <id>/manifest.json and the files it lists, streamed from disk.`,
          params: BackupIdParams,
          produces: [BACKUP_ARCHIVE_TYPE],
          response: {
            200: z.unknown().describe('The archive'),
            404: ErrorBody,
            422: ErrorBody,
          },
        },
      },
      async (req, reply) => {
        const { stream, filename, bytes } = backups.download(req.params.id);
        return reply
          .header('content-type', BACKUP_ARCHIVE_TYPE)
          .header('content-length', String(bytes))
          .header('content-disposition', `attachment; filename="${filename}"`)
          .header('cache-control', 'no-store')
          .send(stream);
      },
    );

    app.post(
      '/admin/maintenance/backups/:id/verify',
      {
        config: { role: 'operator' },
        schema: {
          tags,
          description:
            "Runs the checks a restore runs (manifest, files, checksums, the store's integrity, the index) and answers each one's outcome; nothing is changed.",
          params: BackupIdParams,
          response: { 200: BackupVerification, 404: ErrorBody },
        },
      },
      async (req) => backups.verify(req.params.id),
    );

    app.post(
      '/admin/maintenance/backups/upload',
      {
        config: { role: 'administrator' },
        schema: {
          tags,
          description: `A backup archive as a download gives it (Content-Type ${BACKUP_ARCHIVE_TYPE}), written to disk as it arrives and verified before it is listed: 201 with the backup; 413 past the size bound; 507 when the disk has not the room for it (checked before, from Content-Length, and as it arrives); 422 naming what failed (the upload is deleted); 409 when its id is already here.`,
          consumes: ARCHIVE_TYPES,
          response: {
            201: Backup,
            409: ErrorBody,
            413: ErrorBody,
            415: ErrorBody,
            422: ErrorBody,
            507: ErrorBody,
          },
        },
      },
      async (req, reply) => {
        if (!(req.body instanceof Readable))
          throw new AppError(415, `Send the backup archive as ${BACKUP_ARCHIVE_TYPE}`);
        const length = Number(req.headers['content-length']);
        const backup = await backups.upload(req.body, Number.isFinite(length) ? length : undefined);
        return reply.code(201).send(backup);
      },
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
