import fs from 'node:fs';
import path from 'node:path';
import Fastify, { LogController, type FastifyBaseLogger, type FastifyInstance } from 'fastify';
import fastifyCookie from '@fastify/cookie';
import fastifySwagger from '@fastify/swagger';
import fastifySwaggerUi from '@fastify/swagger-ui';
import {
  jsonSchemaTransform,
  serializerCompiler,
  validatorCompiler,
} from 'fastify-type-provider-zod';
import type { Config } from './config.js';
import { analyticsRoutes } from './http/analytics.routes.js';
import { registerAuthGuard } from './http/auth-guard.js';
import { consoleStatic } from './http/console-static.js';
import { registerCrossSiteGuard } from './http/cross-site.js';
import { clientErrorHandler, frameworkErrors } from './http/framework-errors.js';
import { authRoutes } from './http/auth.routes.js';
import { backupRoutes } from './http/backup.routes.js';
import { registerErrorHandler } from './http/errors.js';
import { registerFaithfulTextGuard } from './http/faithful-text.js';
import { jobRoutes } from './http/job.routes.js';
import { maintenanceRoutes } from './http/maintenance.routes.js';
import { playgroundRoutes } from './http/playground.routes.js';
import { ruleRoutes } from './http/rule.routes.js';
import { settingsRoutes } from './http/settings.routes.js';
import { snippetRoutes } from './http/snippet.routes.js';
import { systemRoutes } from './http/system.routes.js';
import { spawnWorkerProcess } from './worker-process.js';
import { RateWindow } from './lib/rate-window.js';
import { redisPing } from './lib/redis-ping.js';
import { createLogger, LogSink, redactUrl, type Logger } from './logging.js';
import { EventBus } from './realtime/event-bus.js';
import { liveStats } from './realtime/live-stats.js';
import { realtimeChannel } from './realtime/ws-channel.js';
import { Engine } from './engine/engine.js';
import { EncyclopediaClient } from './scraping/wikipedia.js';
import { SafeFetcher } from './scraping/safe-fetcher.js';
import { ActivityService } from './services/activity.service.js';
import { AnalyticsService } from './services/analytics.service.js';
import { AuthService } from './services/auth.service.js';
import { BackupService } from './services/backup.service.js';
import { IndexService, type ReconcileReport } from './services/index.service.js';
import { IngestionService } from './services/ingestion.service.js';
import { JobService } from './services/job.service.js';
import { MaintenanceService } from './services/maintenance.service.js';
import { SourceService } from './services/source.service.js';
import { WorkerService } from './services/worker.service.js';
import { createQueue, startQueue } from './jobs/create-queue.js';
import type { QueueDriver } from './jobs/queue-driver.js';
import { JobRepository } from './store/job.repository.js';
import { SourceRepository } from './store/source.repository.js';
import { PlaygroundService } from './services/playground.service.js';
import { RuleService } from './services/rule.service.js';
import { SnippetService } from './services/snippet.service.js';
import { HealthService } from './services/health.service.js';
import { MetricsService } from './services/metrics.service.js';
import { SettingsService } from './services/settings.service.js';
import { ActivityRepository } from './store/activity.repository.js';
import { AnalyticsRepository } from './store/analytics.repository.js';
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
  /** Pending jobs past which new ones are refused (MAX_QUEUED_JOBS); tests lower it. */
  maxQueuedJobs?: number;
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
    backups: BackupService;
    jobs: JobService;
    sources: SourceService;
    workers: WorkerService;
    queue: QueueDriver;
    analytics: AnalyticsService;
    activity: ActivityService;
  };
  /** Resolves once the queue took over its jobs and started its workers (Redis mode: in the background). */
  queueStarted: Promise<void>;
  /** Start-up reconciliation of the index with the store (runs in the background). */
  reconciled: Promise<ReconcileReport | null>;
  /** The engine's threads and models are loaded (false: starting failed, calls start it again). */
  engineStarted: Promise<boolean>;
}

/** Builds the whole server from its parts; never listens, so tests can start it on any port. */
export async function buildApp(config: Config, opts: BuildOptions = {}): Promise<Adam> {
  const sink = new LogSink();
  const log = createLogger({ level: config.logLevel, sink, stdout: opts.stdoutLogs ?? false });
  const db = openDatabase(config.dataDir);
  const logs = new LogRepository(db);
  sink.attach(logs);

  const bus = new EventBus();
  // Written from the bus first of all, so the feed has every event of the start-up too.
  const activity = new ActivityService({ activity: new ActivityRepository(db), bus, log });
  activity.start();
  // Segments stored per second over the last minute; in the Redis mode the server stores the
  // workers' results too, so this one event covers both modes.
  const segmentRate = new RateWindow(60);
  bus.on('snippets.added', (e) => segmentRate.add(e.ids.length));
  const users = new UserRepository(db);
  const keys = new ApiKeyRepository(db);
  const auth = new AuthService({ users, keys, bus, log, config, now: opts.now });
  const settings = new SettingsService({ settings: new SettingsRepository(db), bus, log });
  const health = new HealthService(VERSION);
  const metrics = new MetricsService({ segmentsPerSecond: () => segmentRate.perSecond() });
  await auth.ensureAdmin();

  const snippetRepo = new SnippetRepository(db);
  const engine = new Engine({ dataDir: config.dataDir, threads: Math.max(1, config.workers) });
  // Threads, model and the in-thread query embedder load now, beside the rest of the start-up,
  // so no request waits on a lazy start; health's workers.engine.ready says when it is done.
  const engineStarted = engine.start().then(
    () => true,
    (e: unknown) => {
      log.error({ component: 'engine', err: e }, 'Starting the engine failed');
      return false;
    },
  );
  const index = new IndexService({
    dir: path.join(config.dataDir, 'index'),
    snippets: snippetRepo,
    embedder: engine,
    log,
    bus,
    storage: () => settings.get('processing').index_storage,
  });
  const backups = new BackupService({
    db,
    dataDir: config.dataDir,
    index,
    log,
    bus,
    settings: () => settings.get('general'),
    version: VERSION,
    busyWith: () => {
      const n = jobRepo.countByStatus().processing ?? 0;
      return n ? `${n} job(s) are processing` : null;
    },
  });
  const snippets = new SnippetService({
    snippets: snippetRepo,
    index,
    embedder: engine,
    bus,
    log,
    vectorWeight: () => settings.get('processing').search_vector_weight,
  });
  const ingestion = new IngestionService({ engine, snippets: snippetRepo, index, bus, log });
  const rules = new RuleService({ rules: new RuleRepository(db), log });
  const fetcher = new SafeFetcher({ allow: config.fetchAllow });
  const encyclopedia = new EncyclopediaClient({ baseUrl: config.wikipediaUrl, fetcher });
  const jobRepo = new JobRepository(db);
  const sourceRepo = new SourceRepository(db);
  const queue = createQueue({
    redisUrl: config.redisUrl,
    jobs: jobRepo,
    bus,
    log,
    runtime: {
      work: { engine, fetcher },
      record: { ingestion, sources: sourceRepo, index },
      settings: () => settings.get('processing'),
      rules: () => rules.forMatching(),
    },
    spawnWorker: () => spawnWorkerProcess(config),
  });
  const jobs = new JobService({ jobs: jobRepo, queue, bus, log, maxQueued: opts.maxQueuedJobs });
  const sources = new SourceService({
    sources: sourceRepo,
    snippets: snippetRepo,
    index,
    jobs,
    bus,
    log,
  });
  const workers = new WorkerService({ queue, jobs: jobRepo });
  const playground = new PlaygroundService({
    engine,
    jobs,
    settings,
    rules,
    fetcher,
    encyclopedia,
  });
  const analytics = new AnalyticsService({
    analytics: new AnalyticsRepository(db),
    jobs: jobRepo,
    sources: sourceRepo,
    index,
    bus,
    log,
    segmentsPerSecond: () => segmentRate.perSecond(),
  });
  analytics.start();
  const maintenance = new MaintenanceService({
    snippets: snippetRepo,
    index,
    jobs,
    health,
    bus,
    log,
  });
  bus.on('settings.updated', ({ section }) => {
    if (section === 'processing') maintenance.queueStorageChange();
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

  health.register('backups', () => backups.health());
  health.register('index', () => index.health());
  health.register('queue', async () => {
    const c = jobRepo.countByStatus();
    const pending = c.pending ?? 0;
    const { running } = await queue.status();
    // Work waiting with nobody to do it is worth a look, not an outage.
    const status = pending > 0 && running === 0 ? 'degraded' : 'healthy';
    return { status, details: { mode: queue.mode, pending, processing: c.processing ?? 0 } };
  });
  health.register('workers', async () => {
    const { running } = await queue.status();
    return {
      status: running > 0 ? 'healthy' : 'degraded',
      details: { mode: queue.mode, running, engine: engine.stats() },
    };
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
  registerCrossSiteGuard(app, config.allowedOrigins);
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
      await api.register(backupRoutes(backups));
      await api.register(jobRoutes(jobs, sources, workers));
      await api.register(maintenanceRoutes(maintenance, jobs));
      await api.register(analyticsRoutes({ analytics, activity, jobs }));
    },
    { prefix: '/api/v1' },
  );
  await app.register(
    realtimeChannel({
      auth,
      bus,
      sink,
      metrics,
      health,
      log,
      now: opts.now,
      allowedOrigins: config.allowedOrigins,
      metricsRefreshMs: () => settings.get('resources').metrics_refresh_ms,
      getStats: liveStats({
        db,
        // Vectors saved with their rows: with the pending rows, they add up to the rows.
        vectors: () => index.size - index.unsavedCount,
        workers: async () => ({
          mode: queue.mode,
          running: (await queue.status()).running,
          engine: engine.stats(),
        }),
        metrics: () => metrics.realtime(),
      }),
    }),
  );

  await consoleStatic(app, config.webDist);

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

  const { started: queueStarted } = await startQueue(queue, config.workers, log);
  backups.start();

  app.addHook('onClose', async () => {
    clearInterval(housekeepingTimer);
    await backups.close();
    await queue.close();
    analytics.stop();
    activity.stop();
    await reconciled;
    await index.close();
    await engine.close();
    await fetcher.close();
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
      backups,
      jobs,
      sources,
      workers,
      queue,
      analytics,
      activity,
    },
    reconciled,
    queueStarted,
    engineStarted,
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
