import type { FastifyError, FastifyInstance } from 'fastify';
import { hasZodFastifySchemaValidationErrors } from 'fastify-type-provider-zod';
import { AppError, describeFieldErrors, type FieldError } from '../lib/errors.js';
import { redactUrl } from '../logging.js';

const WHERE: Record<string, string> = {
  body: 'request body',
  querystring: 'query',
  params: 'path',
  headers: 'headers',
};

const DISK_FULL_DETAIL =
  'The disk holding the data directory is full: free some space and try again';

/**
 * SQLite's and the file system's "no space left": 507 Insufficient Storage with a message the
 * operator can act on, not a 500. SQLite rolled the statement's transaction back.
 */
function diskFull(err: unknown): boolean {
  const code = (err as { code?: unknown }).code;
  return code === 'SQLITE_FULL' || code === 'ENOSPC';
}

/** The one place errors become HTTP: `{detail}` always, `errors` for field-level problems. */
export function registerErrorHandler(app: FastifyInstance): void {
  app.setErrorHandler((err: FastifyError, req, reply) => {
    if (err instanceof AppError) {
      if (err.headers) reply.headers(err.headers);
      return reply.status(err.status).send({ detail: err.message, errors: err.errors });
    }
    if (hasZodFastifySchemaValidationErrors(err)) {
      const context = (err as { validationContext?: string }).validationContext ?? 'body';
      const errors: FieldError[] = err.validation.map((v) => {
        const path = v.instancePath.replace(/^\//, '').replace(/\//g, '.');
        const params = v.params as { issue?: { code?: string; keys?: string[] } } | undefined;
        if (params?.issue?.code === 'unrecognized_keys' && params.issue.keys?.length) {
          return { field: params.issue.keys.join(', '), message: 'is not a known field' };
        }
        return { field: path || `(${context})`, message: v.message ?? 'is invalid' };
      });
      return reply.status(422).send({
        detail: `Invalid ${WHERE[context] ?? context}: ${describeFieldErrors(errors)}`,
        errors,
      });
    }
    if (diskFull(err)) {
      req.log.error(
        { component: 'http', err },
        `${req.method} ${req.routeOptions.url ?? redactUrl(req.url)} failed: the disk is full`,
      );
      return reply.status(507).send({ detail: DISK_FULL_DETAIL });
    }
    const status = err.statusCode ?? 500;
    if (status >= 500) {
      req.log.error(
        { component: 'http', err },
        `${req.method} ${req.routeOptions.url ?? redactUrl(req.url)} failed`,
      );
      return reply.status(status).send({ detail: 'Internal server error' });
    }
    let detail = err.message;
    if (err.code === 'FST_ERR_CTP_INVALID_JSON_BODY' || err instanceof SyntaxError) {
      detail = `Invalid JSON body: ${err.message}`;
    } else if (err.code === 'FST_ERR_CTP_EMPTY_JSON_BODY') {
      detail = 'Request body is empty but Content-Type is application/json';
    } else if (err.code === 'FST_ERR_CTP_BODY_TOO_LARGE') {
      detail = 'Request body is too large';
    }
    return reply.status(status).send({ detail });
  });
}
