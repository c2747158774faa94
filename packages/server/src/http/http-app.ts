import Fastify, {
  LogController,
  type FastifyBaseLogger,
  type FastifyInstance,
  type FastifyReply,
  type FastifyRequest,
  type RouteOptions,
} from 'fastify';
import fastifyCookie from '@fastify/cookie';
import {
  jsonSchemaTransform,
  serializerCompiler,
  validatorCompiler,
} from 'fastify-type-provider-zod';
import { ErrorBody } from '@adam/contracts';
import { redactUrl, type Logger } from '../logging.js';
import { registerCrossSiteGuard } from './cross-site.js';
import { registerErrorHandler } from './errors.js';
import { registerFaithfulTextGuard } from './faithful-text-guard.js';
import { clientErrorHandler, frameworkErrors } from './framework-errors.js';
import { registerSecurityHeaders, withSecurityHeaders } from './security-headers.js';
import { closedDuringRestore } from './restore-gate.js';
import { deferYamlForSwagger } from './lazy-yaml.js';

/**
 * The Fastify instance with what every route shares: zod schemas, the error mapping, the
 * faithful-text and cross-site guards, cookies, one log line per request and the OpenAPI docs.
 * Routes are registered by the caller; nothing listens.
 */
export async function createHttpApp(opts: {
  log: Logger;
  allowedOrigins: string[];
  /** ADAM_TRUST_PROXY: the proxies whose X-Forwarded-* headers are believed; none when empty. */
  trustProxy?: string[];
  version: string;
}): Promise<FastifyInstance> {
  const app = Fastify({
    loggerInstance: opts.log.child({ component: 'http' }) as FastifyBaseLogger,
    // Our onResponse hook logs each request once, with the api_key query parameter redacted.
    logController: new LogController({ disableRequestLogging: true }),
    bodyLimit: 2 * 1024 * 1024,
    // An empty list trusts no proxy: X-Forwarded-* are ignored.
    trustProxy: opts.trustProxy?.length ? opts.trustProxy : false,
    frameworkErrors: withSecurityHeaders(frameworkErrors),
    clientErrorHandler,
  });
  app.setValidatorCompiler(validatorCompiler);
  app.setSerializerCompiler(serializerCompiler);
  app.addHook('onRoute', documentSharedErrors);
  // First: the hooks after it may answer at once (a refused write), with these headers too.
  registerSecurityHeaders(app);
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
  // Imported here, not above: the yaml package they require is first replaced by one that loads
  // at the YAML document's first request (lazy-yaml.ts).
  deferYamlForSwagger();
  const [{ default: fastifySwagger }, { default: fastifySwaggerUi }] = await Promise.all([
    import('@fastify/swagger'),
    import('@fastify/swagger-ui'),
  ]);
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

const WITH_BODY = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

/**
 * Adds to an API route's documented answers the errors the shared layers give before its
 * handler runs, so the OpenAPI document lists every status a client can get (the schema fuzzing
 * checks it): 400 a malformed URL or body, 401 no valid key, 403 a cross-site write, 409 a write
 * during a restore, 413 and 415 a body too large or not JSON, 414 a path parameter too long, 422
 * a field refused.
 */
function documentSharedErrors(route: RouteOptions): void {
  if (!route.url.startsWith('/api/') || !route.schema || route.schema.hide) return;
  const methods = Array.isArray(route.method) ? route.method : [route.method];
  const takesBody = methods.some((m) => WITH_BODY.has(m));
  const statuses = [400];
  if (!route.config?.public || route.config.readsKey) statuses.push(401);
  if (takesBody) statuses.push(403, 413, 415, 422);
  if (methods.some((m) => closedDuringRestore(m, route.url))) statuses.push(409);
  if (route.url.includes(':')) statuses.push(414);
  if (route.schema.params || route.schema.querystring || route.schema.body) statuses.push(422);
  const response = (route.schema.response ?? {}) as Record<string | number, unknown>;
  for (const status of statuses) {
    if (!(status in response) && !(String(status) in response)) response[status] = ErrorBody;
  }
  route.schema.response = response;
}
