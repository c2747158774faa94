import { Readable } from 'node:stream';
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { ErrorBody, ImportQuery, ImportSummary, MAX_IMPORT_BYTES } from '@adam/contracts';
import { AppError } from '../lib/errors.js';
import type { ImportService } from '../services/import.service.js';

/** The body types an import is sent as: JSON Lines. */
const NDJSON = ['application/x-ndjson', 'application/jsonl'];

export function importRoutes(imports: ImportService) {
  return async (root: FastifyInstance) => {
    const app = root.withTypeProvider<ZodTypeProvider>();
    // The body reaches the handler as the request's stream: the service writes it to a file as
    // it arrives and applies its own limit (Fastify's bodyLimit is for the bodies it parses).
    app.addContentTypeParser(NDJSON, (_req, payload, done) => done(null, payload));

    app.post(
      '/snippets/import',
      {
        config: { role: 'operator' },
        bodyLimit: MAX_IMPORT_BYTES,
        schema: {
          tags: ['snippets'],
          description:
            'A JSON Lines body (Content-Type application/x-ndjson), one record a line: an exported snippet or {text, title?, url?, metadata?, theme?, quality_score?, language?, embedding?, embedder_id?}. Every line is checked first: any bad line answers 422 naming it, and nothing is imported. 202 with the queued import_snippets job; 200 for a dry run.',
          consumes: NDJSON,
          querystring: ImportQuery,
          response: { 200: ImportSummary, 202: ImportSummary, 413: ErrorBody, 422: ErrorBody },
        },
      },
      async (req, reply) => {
        if (!(req.body instanceof Readable))
          throw new AppError(415, `Send the records as JSON Lines (Content-Type ${NDJSON[0]})`);
        const length = Number(req.headers['content-length']);
        const summary = await imports.receive(req.body, {
          dryRun: req.query.dry_run,
          contentLength: Number.isFinite(length) ? length : undefined,
        });
        return reply.code(summary.dry_run ? 200 : 202).send(summary);
      },
    );
  };
}
