import fastifyMultipart from '@fastify/multipart';
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { ErrorBody, UploadResponse } from '@adam/contracts';
import { AppError } from '../lib/errors.js';
import { busboyLimitsOf, type UploadPart, type UploadService } from '../services/upload.service.js';

const tags = ['sources'];

/**
 * POST /sources/upload, multipart/form-data: files (any field name) and the fields language,
 * min_quality and priority. The multipart parser is registered in this scope only: no other
 * route takes multipart bodies.
 */
export function uploadRoutes(uploads: UploadService) {
  return async (root: FastifyInstance) => {
    // Each request passes its own limits (the settings of the moment) over these.
    await root.register(fastifyMultipart, { limits: busboyLimitsOf(uploads.limits()) });
    const app = root.withTypeProvider<ZodTypeProvider>();
    app.post(
      '/sources/upload',
      {
        config: { role: 'operator' },
        schema: {
          tags,
          consumes: ['multipart/form-data'],
          response: {
            200: UploadResponse,
            413: ErrorBody,
            415: ErrorBody,
            422: ErrorBody,
            429: ErrorBody,
          },
        },
      },
      async (req, reply) => {
        if (!req.isMultipart()) {
          throw new AppError(415, 'An upload is a multipart/form-data body with the files in it');
        }
        try {
          return await uploads.receive(
            (limits) => req.parts({ limits }) as AsyncIterable<UploadPart>,
          );
        } catch (e) {
          // A refused upload is not read to its end: the connection closes after the answer,
          // rather than stay open under a body nobody reads.
          reply.header('connection', 'close');
          throw e;
        }
      },
    );
  };
}
