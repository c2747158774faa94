import Fastify, {
  LogController,
  type FastifyBaseLogger,
  type FastifyInstance,
  type FastifyReply,
  type FastifyRequest,
} from 'fastify';
import fastifyCookie from '@fastify/cookie';
import fastifySwagger from '@fastify/swagger';
import fastifySwaggerUi from '@fastify/swagger-ui';
import {
  jsonSchemaTransform,
  serializerCompiler,
  validatorCompiler,
} from 'fastify-type-provider-zod';
import { redactUrl, type Logger } from '../logging.js';
import { registerCrossSiteGuard } from './cross-site.js';
import { registerErrorHandler } from './errors.js';
import { registerFaithfulTextGuard } from './faithful-text.js';
import { clientErrorHandler, frameworkErrors } from './framework-errors.js';

/**
 * The Fastify instance with what every route shares: zod schemas, the error mapping, the
 * faithful-text and cross-site guards, cookies, one log line per request and the OpenAPI docs.
 * Routes are registered by the caller; nothing listens.
 */
export async function createHttpApp(opts: {
  log: Logger;
  allowedOrigins: string[];
  version: string;
}): Promise<FastifyInstance> {
  const app = Fastify({
    loggerInstance: opts.log.child({ component: 'http' }) as FastifyBaseLogger,
    // Our onResponse hook logs each request once, with the api_key query parameter redacted.
    logController: new LogController({ disableRequestLogging: true }),
    bodyLimit: 2 * 1024 * 1024,
    frameworkErrors,
    clientErrorHandler,
  });
  app.setValidatorCompiler(validatorCompiler);
  app.setSerializerCompiler(serializerCompiler);
  registerErrorHandler(app);
  registerFaithfulTextGuard(app);

  app.addHook('onResponse', async (req, reply) => {
    const line = `${req.method} ${redactUrl(req.url)} ${reply.statusCode} ${Math.round(reply.elapsedTime)}ms`;
    if (reply.statusCode >= 500) req.log.error(line);
    else if (reply.statusCode === 429) req.log.warn(line);
    else req.log.debug(line);
  });

  await app.register(fastifyCookie);
  registerCrossSiteGuard(app, opts.allowedOrigins);
  await app.register(fastifySwagger, {
    openapi: {
      info: {
        title: 'ADAM API',
        description: 'Knowledge-snippet platform: every call of the console.',
        version: opts.version,
      },
      components: {
        securitySchemes: { apiKey: { type: 'apiKey', in: 'header', name: 'X-API-Key' } },
      },
      security: [{ apiKey: [] }],
    },
    transform: jsonSchemaTransform,
  });
  await app.register(fastifySwaggerUi, { routePrefix: '/api/docs' });
  return app;
}

/** The 404 of any path no route answers, in the API's `detail` shape and without secrets. */
export function notFound(req: FastifyRequest, reply: FastifyReply) {
  return reply
    .status(404)
    .send({ detail: `Not found: ${req.method} ${redactUrl(req.url.split('?')[0] ?? '')}` });
}
