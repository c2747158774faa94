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
import { playgroundRoutes } from './http/playground.routes.js';
import { ruleRoutes } from './http/rule.routes.js';
import { settingsRoutes } from './http/settings.routes.js';
import { snippetRoutes } from './http/snippet.routes.js';
import { systemRoutes } from './http/system.routes.js';
import { redisPing } from './lib/redis-ping.js';
import { createLogger, LogSink, redactUrl, type Logger } from './logging.js';
import { EventBus } from './realtime/event-bus.js';
import { Engine } from './engine/engine.js';
import { EncyclopediaClient } from './scraping/wikipedia.js';
import { SafeFetcher } from './scraping/safe-fetcher.js';
import { AuthService } from './services/auth.service.js';
import { IndexService, type ReconcileReport } from './services/index.service.js';
import { IngestionService } from './services/ingestion.service.js';
import { PlaygroundService } from './services/playground.service.js';
import { RuleService } from './services/rule.service.js';
import { SnippetService } from './services/snippet.service.js';
import { HealthService } from './services/health.service.js';
import { MetricsService } from './services/metrics.service.js';
import { SettingsService } from './services/settings.service.js';
import { ApiKeyRepository } from './store/api-key.repository.js';
import { openDatabase, type Db } from './store/db.js';
import { LogRepository } from './store/log.repository.js';
import { RuleRepository } from './store/rule.repository.js';
import { SnippetRepository } from './store/snippet.repository.js';
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
    engine: Engine;
    index: IndexService;
    snippets: SnippetService;
    ingestion: IngestionService;
    rules: RuleService;
    playground: PlaygroundService;
  };
  /** Start-up reconciliation of the index with the store (runs in the background). */
  reconciled: Promise<ReconcileReport | null>;
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

  const snippetRepo = new SnippetRepository(db);
  const engine = new Engine({ dataDir: config.dataDir, threads: Math.max(1, config.workers) });
  const index = new IndexService({
    dir: path.join(config.dataDir, 'index'),
    snippets: snippetRepo,
    embedder: engine,
    log,
    bus,
  });
  const snippets = new SnippetService({ snippets: snippetRepo, index, embedder: engine, bus, log });
  const ingestion = new IngestionService({ engine, snippets: snippetRepo, index, bus, log });
  const rules = new RuleService({ rules: new RuleRepository(db), log });
  const fetcher = new SafeFetcher({ allow: config.fetchAllow });
  const encyclopedia = new EncyclopediaClient({ baseUrl: config.wikipediaUrl, fetcher });
  const playground = new PlaygroundService({
    engine,
    ingestion,
    settings,
    rules,
    fetcher,
    encyclopedia,
  });

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

  health.register('index', () => ({
    status: 'healthy',
    details: {
      total_vectors: index.size,
      dimension: index.dimension,
      embedder: engine.id,
      last_saved_at: index.lastSavedAt,
    },
  }));
  health.register('workers', () => ({
    status: 'healthy',
    details: { mode: 'embedded', ...engine.stats() },
  }));

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
      await api.register(ruleRoutes(rules));
      await api.register(snippetRoutes(snippets, index));
      await api.register(playgroundRoutes(playground));
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

  const reconciled = index.reconcile().then(
    (r) => {
      if (r.marked_pending || r.reindexed || r.index_only) {
        log.info(
          { component: 'index' },
          `Index reconciled: ${r.reindexed} re-indexed, ${r.marked_pending} were missing, ${r.index_only} index-only`,
        );
      }
      return r;
    },
    (e: unknown) => {
      log.error({ component: 'index', err: e }, 'Index reconciliation failed');
      return null;
    },
  );

  app.addHook('onClose', async () => {
    clearInterval(housekeepingTimer);
    await reconciled;
    index.saveIfDirty();
    await engine.close();
    sink.flush();
    sink.attach(null);
    db.close();
  });

  return {
    app,
    db,
    bus,
    log,
    services: {
      auth,
      settings,
      health,
      metrics,
      engine,
      index,
      snippets,
      ingestion,
      rules,
      playground,
    },
    reconciled,
  };
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
