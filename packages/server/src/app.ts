import fs from 'node:fs';
import path from 'node:path';
import Fastify, { LogController, type FastifyBaseLogger, type FastifyInstance } from 'fastify';
import fastifyCookie from '@fastify/cookie';
import fastifyStatic from '@fastify/static';
import fastifySwagger from '@fastify/swagger';
import fastifySwaggerUi from '@fastify/swagger-ui';
import {
  jsonSchemaTransform,
  serializerCompiler,
  validatorCompiler,
} from 'fastify-type-provider-zod';
import type { Config } from './config.js';
import { registerAuthGuard } from './http/auth-guard.js';
import { authRoutes } from './http/auth.routes.js';
import { registerErrorHandler } from './http/errors.js';
import { settingsRoutes } from './http/settings.routes.js';
import { systemRoutes } from './http/system.routes.js';
import { redisPing } from './lib/redis-ping.js';
import { createLogger, LogSink, redactUrl, type Logger } from './logging.js';
import { EventBus } from './realtime/event-bus.js';
import { AuthService } from './services/auth.service.js';
import { HealthService } from './services/health.service.js';
import { MetricsService } from './services/metrics.service.js';
import { SettingsService } from './services/settings.service.js';
import { ApiKeyRepository } from './store/api-key.repository.js';
import { openDatabase, type Db } from './store/db.js';
import { LogRepository } from './store/log.repository.js';
import { SettingsRepository } from './store/settings.repository.js';
import { UserRepository } from './store/user.repository.js';

export const VERSION = readVersion();
const LOG_RETENTION_DAYS = 30;

export interface BuildOptions {
  /** Also print log lines on stdout (the server does, tests do not). */
  stdoutLogs?: boolean;
  /** Clock for key expiry, TOTP and throttling; tests move it instead of sleeping. */
  now?: () => number;
}

export interface Adam {
  app: FastifyInstance;
  db: Db;
  bus: EventBus;
  log: Logger;
  services: {
    auth: AuthService;
    settings: SettingsService;
    health: HealthService;
    metrics: MetricsService;
  };
}

/** Builds the whole server from its parts; never listens, so tests can start it on any port. */
export async function buildApp(config: Config, opts: BuildOptions = {}): Promise<Adam> {
  const sink = new LogSink();
  const log = createLogger({ level: config.logLevel, sink, stdout: opts.stdoutLogs ?? false });
  const db = openDatabase(config.dataDir);
  const logs = new LogRepository(db);
  sink.attach(logs);

  const bus = new EventBus();
  const users = new UserRepository(db);
  const keys = new ApiKeyRepository(db);
  const auth = new AuthService({ users, keys, bus, log, config, now: opts.now });
  const settings = new SettingsService({ settings: new SettingsRepository(db), bus, log });
  const health = new HealthService(VERSION);
  const metrics = new MetricsService();
  await auth.ensureAdmin();

  health.register('database', () => {
    db.prepare('SELECT 1').get();
    const file = path.join(config.dataDir, 'adam.db');
    return {
      status: 'healthy',
      details: {
        path: file,
        size_mb: round2(fs.statSync(file).size / 1048576),
        journal_mode: db.pragma('journal_mode', { simple: true }),
      },
    };
  });
  health.register('redis', async () => {
    if (!config.redisUrl) {
      return { status: 'disabled', details: { reason: 'REDIS_URL is not set: embedded queue' } };
    }
    const ms = await redisPing(config.redisUrl);
    return { status: 'healthy', details: { latency_ms: ms } };
  });

  const housekeeping = () => {
    const cutoff = new Date(Date.now() - LOG_RETENTION_DAYS * 86400_000).toISOString();
    logs.deleteOlderThan(cutoff);
    keys.deleteExpiredBefore(
      new Date(Date.now() - config.refreshGraceSeconds * 1000).toISOString(),
    );
  };
  housekeeping();
  const housekeepingTimer = setInterval(housekeeping, 6 * 3600_000);
  housekeepingTimer.unref();

  const app = Fastify({
    loggerInstance: log.child({ component: 'http' }) as FastifyBaseLogger,
    // Our onResponse hook logs each request once, with the api_key query parameter redacted.
    logController: new LogController({ disableRequestLogging: true }),
    bodyLimit: 2 * 1024 * 1024,
  });
  app.setValidatorCompiler(validatorCompiler);
  app.setSerializerCompiler(serializerCompiler);
  registerErrorHandler(app);

  app.addHook('onResponse', async (req, reply) => {
    const line = `${req.method} ${redactUrl(req.url)} ${reply.statusCode} ${Math.round(reply.elapsedTime)}ms`;
    if (reply.statusCode >= 500) req.log.error(line);
    else if (reply.statusCode === 429) req.log.warn(line);
    else req.log.debug(line);
  });

  await app.register(fastifyCookie);
  await app.register(fastifySwagger, {
    openapi: {
      info: {
        title: 'ADAM API',
        description: 'Knowledge-snippet platform: every call of the console.',
        version: VERSION,
      },
      components: {
        securitySchemes: { apiKey: { type: 'apiKey', in: 'header', name: 'X-API-Key' } },
      },
      security: [{ apiKey: [] }],
    },
    transform: jsonSchemaTransform,
  });
  await app.register(fastifySwaggerUi, { routePrefix: '/api/docs' });

  await app.register(
    async (api) => {
      registerAuthGuard(api, auth);
      await api.register(authRoutes(auth, config.apiKeyTtlSeconds + config.refreshGraceSeconds));
      await api.register(settingsRoutes(settings));
      await api.register(systemRoutes({ health, settings, auth, metrics, version: VERSION }));
    },
    { prefix: '/api/v1' },
  );

  const webDist =
    config.webDist && fs.existsSync(path.join(config.webDist, 'index.html'))
      ? config.webDist
      : null;
  if (webDist) {
    await app.register(fastifyStatic, { root: webDist, serve: false });
    app.get('/*', { schema: { hide: true } }, (req, reply) => {
      if (req.url === '/api' || req.url.startsWith('/api/')) return reply.callNotFound();
      const rel = decodeURIComponent((req.params as { '*': string })['*'] ?? '');
      const file = path.join(webDist, rel);
      if (
        rel &&
        file.startsWith(webDist + path.sep) &&
        fs.statSync(file, { throwIfNoEntry: false })?.isFile()
      ) {
        // Vite names assets by content hash: they never change under the same name.
        if (rel.startsWith('assets/'))
          reply.header('cache-control', 'public, max-age=31536000, immutable');
        else reply.header('cache-control', 'no-cache');
        return reply.sendFile(rel, { cacheControl: false });
      }
      // Client-side routes all load the console.
      return reply
        .header('cache-control', 'no-cache')
        .sendFile('index.html', { cacheControl: false });
    });
  }

  app.setNotFoundHandler((req, reply) =>
    reply
      .status(404)
      .send({ detail: `Not found: ${req.method} ${redactUrl(req.url.split('?')[0] ?? '')}` }),
  );

  app.addHook('onClose', async () => {
    clearInterval(housekeepingTimer);
    sink.flush();
    sink.attach(null);
    db.close();
  });

  return { app, db, bus, log, services: { auth, settings, health, metrics } };
}

function readVersion(): string {
  try {
    const pkg = JSON.parse(
      fs.readFileSync(new URL('../package.json', import.meta.url), 'utf8'),
    ) as {
      version?: string;
    };
    return pkg.version ?? '0.0.0';
  } catch {
    return '0.0.0';
  }
}

const round2 = (n: number) => Math.round(n * 100) / 100;
