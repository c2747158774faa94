import { CrawlFrontierRepository } from './store/crawl-frontier.repository.js';
import { CrawlService } from './services/crawl.service.js';
import { crawlRoutes } from './http/crawl.routes.js';
import { CrawlSyncService } from './services/crawl-sync.service.js';
import { CrawlSyncRepository } from './store/crawl-sync.repository.js';
import path from 'node:path';
import type { UploadLimits } from '@adam/contracts';
import { DocumentProcessor } from './services/document-processor.js';
import { uploadRoutes } from './http/upload.routes.js';
import { UploadService } from './services/upload.service.js';
import type { FastifyInstance } from 'fastify';
import type { Config } from './config.js';
import { buildCore, VERSION, type CoreServices } from './core.js';
import { analyticsRoutes } from './http/analytics.routes.js';
import { registerAuthGuard } from './http/auth-guard.js';
import { registerRestoreGate } from './http/restore-gate.js';
import { authRoutes } from './http/auth.routes.js';
import { userRoutes } from './http/user.routes.js';
import { auditRoutes, registerAuditTrail } from './http/audit.routes.js';
import { AuditService } from './services/audit.service.js';
import { hashApiKey } from './services/auth.service.js';
import { AuditRepository } from './store/audit.repository.js';
import { UserAdminService } from './services/user-admin.service.js';
import { apiKeyRoutes } from './http/api-key.routes.js';
import { ApiKeyService } from './services/api-key.service.js';
import { SessionService } from './services/session.service.js';
import { UserRepository } from './store/user.repository.js';
import { backupRoutes } from './http/backup.routes.js';
import { databaseMetricsRoutes } from './http/database-metrics.routes.js';
import { consoleStatic } from './http/console-static.js';
import { createHttpApp, notFound } from './http/http-app.js';
import { jobRoutes } from './http/job.routes.js';
import { logRoutes } from './http/log.routes.js';
import { maintenanceRoutes } from './http/maintenance.routes.js';
import { modelRoutes } from './http/model.routes.js';
import { playgroundRoutes } from './http/playground.routes.js';
import { ruleRoutes } from './http/rule.routes.js';
import { settingsRoutes } from './http/settings.routes.js';
import { snippetRoutes } from './http/snippet.routes.js';
import { probeRoutes, systemRoutes } from './http/system.routes.js';
import { systemMetricsRoutes } from './http/system-metrics.routes.js';
import { SystemProbe } from './metrics/system-probe.js';
import { MetricsSamplerService } from './services/metrics-sampler.service.js';
import { MetricsHistoryRepository } from './store/metrics-history.repository.js';
import { OnnxRunner } from './embedding/onnx-embedder.js';
import { OnnxReranker } from './embedding/onnx-reranker.js';
import { createQueue, startQueue } from './jobs/create-queue.js';
import type { QueueDriver } from './queue/queue-driver.js';
import { RateWindow } from './lib/rate-window.js';
import type { Logger } from './logging.js';
import type { EventBus } from './lib/event-bus.js';
import { liveStats } from './realtime/live-stats.js';
import { realtimeChannel } from './realtime/ws-channel.js';
import { EncyclopediaClient } from './scraping/wikipedia.js';
import { ActivityService } from './services/activity.service.js';
import { AnalyticsService } from './services/analytics.service.js';
import { DatabaseMetricsService } from './services/database-metrics.service.js';
import { EmbeddingSwitchService } from './services/embedding-switch.service.js';
import { registerHealthChecks } from './services/health-checks.js';
import { HealthService } from './services/health.service.js';
import { HousekeepingService } from './services/housekeeping.service.js';
import type { ReconcileReport } from '@adam/contracts';
import { JobService } from './services/job.service.js';
import { LogService } from './services/log.service.js';
import { MaintenanceService } from './services/maintenance.service.js';
import { MetricsService } from './services/metrics.service.js';
import { createModelServices, type ModelServices } from './services/model-services.js';
import { SettingsEffects } from './services/settings-effects.service.js';
import { PlaygroundService } from './services/playground.service.js';
import { SourceService } from './services/source.service.js';
import { SourceSyncService } from './services/source-sync.service.js';
import { SnippetDeleter } from './services/snippet-deleter.js';
import { SyncScheduler } from './services/sync-scheduler.js';
import { SourceSyncRepository } from './store/source-sync.repository.js';
import { syncRoutes } from './http/sync.routes.js';
import { ImportService } from './services/import.service.js';
import { importerFor } from './services/import-file.js';
import { importRoutes } from './http/import.routes.js';
import { evaluationRoutes } from './http/evaluation.routes.js';
import { qualityAlertRoutes } from './http/quality-alert.routes.js';
import { EvaluationWatchService } from './services/evaluation-watch.service.js';
import { QualityAlertRepository } from './store/quality-alert.repository.js';
import { registerSearchRecorder, searchHistoryRoutes } from './http/search-history.routes.js';
import { SearchHistoryService } from './services/search-history.service.js';
import { SearchHistoryRepository } from './store/search-history.repository.js';
import { EvaluationService } from './services/evaluation.service.js';
import { EvaluationRepository } from './store/evaluation.repository.js';
import { MAX_IMPORT_BYTES } from '@adam/contracts';
import { WorkerService } from './services/worker.service.js';
import { ActivityRepository } from './store/activity.repository.js';
import { AnalyticsRepository } from './store/analytics.repository.js';
import type { Db } from './store/db.js';
import { ModelRepository } from './store/model.repository.js';
import { spawnWorkerProcess } from './worker-process.js';

export interface BuildOptions {
  /** Also print log lines on stdout (the server does, tests do not). */
  stdoutLogs?: boolean;
  /** Clock for key expiry, TOTP and throttling; tests move it instead of sleeping. */
  now?: () => number;
  /** Pending jobs past which new ones are refused (MAX_QUEUED_JOBS); tests lower it. */
  maxQueuedJobs?: number;
  /** A model download that receives no byte for this long fails (default 60 s); tests lower it. */
  modelIdleTimeoutMs?: number;
  /** Between two samples of the machine's metrics history (default 5 s); tests shorten it. */
  metricsSampleIntervalMs?: number;
  /** POST /snippets/import's body limit (MAX_IMPORT_BYTES); tests lower it. */
  importMaxBytes?: number;
  /** Pinned over UPLOAD_LIMITS and the uploads settings (upload and parsing); tests lower them. */
  uploadLimits?: Partial<UploadLimits>;
  /**
   * Held start-up steps (tests): the engine's start and the index's first load wait for these,
   * so "starting" in /health is seen without racing the clock.
   */
  startGates?: { engine?: Promise<void>; index?: Promise<void>; keyword?: Promise<void> };
  /**
   * The engine starts (threads, models, warm-up) at its first task rather than with the server
   * (tests: most never analyse or embed a text, and a start is seconds of CPU). /health says
   * "starting" until then.
   */
  engineOnDemand?: boolean;
}

const MODEL_IDLE_TIMEOUT_MS = 60_000;

export interface Adam {
  app: FastifyInstance;
  db: Db;
  bus: EventBus;
  log: Logger;
  services: CoreServices & {
    health: HealthService;
    metrics: MetricsService;
    databaseMetrics: DatabaseMetricsService;
    logs: LogService;
    playground: PlaygroundService;
    jobs: JobService;
    sources: SourceService;
    workers: WorkerService;
    queue: QueueDriver;
    analytics: AnalyticsService;
    activity: ActivityService;
    models: ModelServices;
    embeddingSwitch: EmbeddingSwitchService;
    metricsSampler: MetricsSamplerService;
    sourceSyncs: SourceSyncService;
    crawlSyncs: CrawlSyncService;
    syncScheduler: SyncScheduler;
    evaluations: EvaluationService;
    evaluationWatch: EvaluationWatchService;
    searchHistory: SearchHistoryService;
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
  // The job queue runs jobs that record through services which queue jobs on it: that cycle is
  // closed by the functions below that name a service built further down (the queue's recorders,
  // the model registry's job service and embedding switch, a settings save's activation). None
  // is called before this function has built everything: a job runs once startQueue started
  // the queue, and the others answer HTTP calls, which start once it has returned.
  const core = buildCore(config, {
    stdoutLogs: opts.stdoutLogs,
    now: opts.now,
    runsJobs: true,
    indexOpenGate: opts.startGates?.index,
    activateEmbedding: (name) => models.registry.activateEmbeddingByName(name),
  });
  const { db, sink, log, bus, repos } = core;
  const { settings, auth, engine, index, backups, snippets, rules, fetcher, modelChoices } =
    core.services;

  // Written from the bus first of all, so the feed has every event of the start-up too.
  const activity = new ActivityService({ activity: new ActivityRepository(db), bus, log });
  activity.start();
  // Segments stored per second over the last minute; in the Redis mode the server stores the
  // workers' results too, so this one event covers both modes.
  const segmentRate = new RateWindow(60);
  bus.on('snippets.added', (e) => segmentRate.add(e.ids.length));
  const health = new HealthService(VERSION);
  const metrics = new MetricsService({
    segmentsPerSecond: () => segmentRate.perSecond(),
    searchesPerSecond: () => index.searchesPerSecond(),
    activeJobs: () => repos.jobs.countProcessing(),
    bus,
  });
  const databaseMetrics = new DatabaseMetricsService({
    db,
    index,
    indexDir: path.join(config.dataDir, 'index'),
    redisUrl: config.redisUrl ?? null,
    log,
  });
  const logs = new LogService({ logs: repos.logs, now: opts.now });
  // The first start's password hash runs on libuv's pool while the routes are built (awaited
  // before returning, so nothing answers before the administrator exists).
  const adminCreated = auth.ensureAdmin();
  adminCreated.catch(() => {});
  // Threads, model and the in-thread query embedder load now, beside the rest of the start-up
  // and while the server answers (the server listens without waiting): /health's workers say
  // "starting" until it is done; jobs and searches that need the engine meanwhile wait for it.
  let engineStarting = true;
  let closing = false;
  const engineGate = opts.engineOnDemand
    ? engine.whenFirstNeeded()
    : (opts.startGates?.engine ?? Promise.resolve());
  const engineStarted = engineGate
    .then(() => (closing ? false : core.startEngine()))
    .finally(() => (engineStarting = false));

  const modelsRoot = path.join(config.dataDir, 'models');
  const models = createModelServices({
    models: new ModelRepository(db),
    modelsRoot,
    hub: {
      fetcher,
      url: config.modelHubUrl,
      idleTimeoutMs: opts.modelIdleTimeoutMs ?? MODEL_IDLE_TIMEOUT_MS,
    },
    jobs: () => jobs,
    engine,
    createRunner: () => new OnnxRunner({ modelsRoot }),
    bus,
    log,
    onActivateEmbedding: (target) => embeddingSwitch.switchTo(target),
    activeSpace: () => engine.id,
    pendingSwitches: () => embeddingSwitch.pending(),
  });

  const documents = new DocumentProcessor({
    engine,
    ingestion: core.services.ingestion,
    sources: repos.sources,
    settings: () => settings.get('processing'),
    dataDir: config.dataDir,
    log,
    limits: opts.uploadLimits,
  });
  const importer = importerFor(core, config.dataDir);
  // The job queue and the services built on it; no job runs before startQueue below.
  const crawlFrontier = new CrawlFrontierRepository(db);
  const queue = await createQueue({
    redisUrl: config.redisUrl,
    jobs: repos.jobs,
    bus,
    log,
    runtime: {
      work: { engine, fetcher },
      record: {
        ingestion: core.services.ingestion,
        sources: repos.sources,
        index,
        models: models.installs,
        syncs: { record: (work, job) => sourceSyncs.record(work, job) },
        imports: importer,
        documents,
        crawlFrontier,
        crawlSyncs: {
          state: (crawlId, jobId) => crawlSyncs.state(crawlId, jobId),
          record: (crawlId, r, job, language) => crawlSyncs.record(crawlId, r, job, language),
          progressDue: (jobId) => crawlSyncs.progressDue(jobId),
        },
        evaluations: { execute: (runId, control) => evaluations.execute(runId, control) },
      },
      settings: () => settings.get('processing'),
      rules: () => rules.forMatching(),
    },
    spawnWorker: () => spawnWorkerProcess(config),
    lockMs: config.workerLockMs,
  });
  const jobs = new JobService({ jobs: repos.jobs, queue, bus, log, maxQueued: opts.maxQueuedJobs });
  models.start();
  const sources: SourceService = new SourceService({
    sources: repos.sources,
    snippets: repos.snippets,
    index,
    jobs,
    bus,
    log,
    lastSyncs: (ids) => sourceSyncs.lastSyncs(ids),
  });
  const sourceSyncs: SourceSyncService = new SourceSyncService({
    syncs: new SourceSyncRepository(db),
    sources: repos.sources,
    snippets: repos.snippets,
    ingestion: core.services.ingestion,
    deleter: new SnippetDeleter({ snippets: repos.snippets, index, bus }),
    jobs,
    bus,
    log,
    pruneAfter: config.syncPruneAfter,
    describe: (id) => sources.get(id),
    now: opts.now,
  });
  const crawlSyncs = new CrawlSyncService({
    crawls: new CrawlSyncRepository(db),
    sourceSyncRepo: new SourceSyncRepository(db),
    sourceSyncs,
    sources: repos.sources,
    ingestion: core.services.ingestion,
    jobRows: repos.jobs,
    jobs,
    bus,
    log,
    now: opts.now,
  });
  const syncScheduler = new SyncScheduler({
    targets: [sourceSyncs, crawlSyncs],
    log,
    now: opts.now,
  });
  const crawls = new CrawlService({
    jobs,
    frontier: crawlFrontier,
    crawler: () => settings.get('crawler'),
  });
  const workers = new WorkerService({ queue, jobs: repos.jobs });
  const uploads = new UploadService({
    documents,
    jobs,
    jobRows: repos.jobs,
    bus,
    log,
    settings: () => settings.get('uploads'),
    limits: opts.uploadLimits,
  });
  const imports = new ImportService({
    importer,
    jobs,
    jobRows: repos.jobs,
    embedder: () => engine.id,
    maxBytes: opts.importMaxBytes ?? MAX_IMPORT_BYTES,
    log,
  });
  /** The processing settings' reranker when it is installed, with its N; null otherwise. */
  const configuredReranker = () => {
    const p = settings.get('processing');
    const found = p.reranker_model === '' ? null : modelChoices.reranker(p.reranker_model);
    return found && { model: found.name, top_n: p.rerank_top_n };
  };
  const evaluations = new EvaluationService({
    repo: new EvaluationRepository(db),
    search: (req) => snippets.search(req),
    queueRun: (runId) =>
      jobs.create({ type: 'evaluation_run', input: { run_id: runId }, metadata: { run_id: runId } })
        .id,
    importLines: (body) => imports.receive(body, { dryRun: false }),
    state: () => {
      const processing = settings.get('processing');
      return {
        embedder: engine.id,
        index: {
          type: index.indexType,
          storage: processing.index_storage,
          dimension: index.dimension,
        },
        fusion: { vector_weight: processing.search_vector_weight },
        snippet_count: repos.snippets.count(),
        reranker: configuredReranker(),
      };
    },
    reranker: () => configuredReranker(),
    jobStatus: (jobId) => repos.jobs.findById(jobId)?.status ?? null,
    log,
    now: opts.now,
    transaction: (fn) => db.transaction(fn)(),
  });
  const evaluationWatch = new EvaluationWatchService({
    evaluations,
    repo: new EvaluationRepository(db),
    alerts: new QualityAlertRepository(db),
    bus,
    log,
    quality: () => settings.get('quality'),
    processing: () => settings.get('processing'),
    jobOf: (jobId) => {
      const row = repos.jobs.findById(jobId);
      return row
        ? { type: row.type, metadata: JSON.parse(row.metadata) as Record<string, unknown> }
        : null;
    },
    now: opts.now,
  });
  const embeddingSwitch = new EmbeddingSwitchService({
    engine,
    index,
    jobs,
    jobRows: repos.jobs,
    log,
  });
  // The rerank stage of hybrid search: the configured reranker, run on the engine's threads.
  snippets.useReranker({
    settings: () => {
      const p = settings.get('processing');
      return { enabled: p.rerank_enabled, top_n: p.rerank_top_n, model: p.reranker_model };
    },
    reranker: (name) => {
      const found = modelChoices.reranker(name);
      return found && new OnnxReranker(engine, found.name, found.dir);
    },
  });
  const encyclopedia = new EncyclopediaClient({ baseUrl: config.wikipediaUrl, fetcher });
  const playground = new PlaygroundService({
    engine,
    jobs,
    settings,
    rules,
    fetcher,
    encyclopedia,
    bus,
  });
  const analytics = new AnalyticsService({
    analytics: new AnalyticsRepository(db),
    jobs: repos.jobs,
    sources: repos.sources,
    index,
    bus,
    log,
    segmentsPerSecond: () => segmentRate.perSecond(),
  });
  analytics.start();
  const maintenance = new MaintenanceService({
    snippets: repos.snippets,
    index,
    jobs,
    health,
    bus,
    log,
  });
  registerHealthChecks(health, {
    db,
    dataDir: config.dataDir,
    redisUrl: config.redisUrl,
    backups,
    index,
    jobs: repos.jobs,
    queue,
    engine,
    engineStarting: () => engineStarting,
  });
  const audit = new AuditService({ audit: new AuditRepository(db), log, now: opts.now });
  const searchHistory = new SearchHistoryService({
    history: new SearchHistoryRepository(db),
    settings: () => settings.get('quality'),
    log,
    now: opts.now,
  });
  const settingsEffects = new SettingsEffects({ bus, maintenance, searchHistory });
  settingsEffects.start();
  searchHistory.start();
  // Written before a restore replaces the store, and the switch read again from the restored one.
  backups.holdDuringRestore({
    what: 'search history',
    pause: () => searchHistory.stop(),
    resume: () => {
      searchHistory.settingsChanged();
      searchHistory.start();
    },
  });
  const housekeeping = new HousekeepingService({
    searchHistory,
    audit,
    auditRetentionDays: () => settings.get('security').audit_retention_days,
    backups,
    logs: repos.logs,
    keys: repos.keys,
    refreshGraceSeconds: config.refreshGraceSeconds,
    log,
  });
  housekeeping.start();
  // The machine's metrics; its first sample waits for the first tick (or a first request), so
  // a server that never shows them pays nothing at start. On the real clock, not opts.now: its
  // points are stamped with the machine's time (its unit tests inject a clock).
  const metricsSampler = new MetricsSamplerService({
    probe: new SystemProbe(config.dataDir),
    history: new MetricsHistoryRepository(db),
    log,
    intervalMs: opts.metricsSampleIntervalMs,
  });

  // HTTP: the API behind its auth guard, the realtime channel, then the console's files.
  const app = await createHttpApp({
    log,
    allowedOrigins: config.allowedOrigins,
    trustProxy: config.trustProxy,
    version: VERSION,
  });
  await app.register(
    async (api) => {
      registerAuthGuard(api, auth);
      registerRestoreGate(api, backups);
      registerAuditTrail(api, {
        audit,
        settings,
        sessionOf: (secret) => repos.keys.findByHash(hashApiKey(secret)),
      });
      registerSearchRecorder(api, searchHistory);
      await api.register(authRoutes(auth, config.apiKeyTtlSeconds + config.refreshGraceSeconds));
      await api.register(
        userRoutes(
          new UserAdminService({
            users: new UserRepository(db),
            keys: repos.keys,
            bus,
            log,
            passwordHashCost: config.passwordHashCost,
            now: opts.now,
          }),
        ),
      );
      {
        const deps = { users: new UserRepository(db), keys: repos.keys, bus, log, now: opts.now };
        await api.register(apiKeyRoutes(new ApiKeyService(deps), new SessionService(deps)));
      }
      await api.register(settingsRoutes(settings));
      await api.register(auditRoutes(audit));
      await api.register(
        systemRoutes({ health, settings, auth, metrics, version: VERSION, engine, index }),
      );
      await api.register(ruleRoutes(rules));
      await api.register(snippetRoutes(snippets, index));
      await api.register(importRoutes(imports));
      await api.register(evaluationRoutes(evaluations));
      await api.register(qualityAlertRoutes(evaluationWatch));
      await api.register(searchHistoryRoutes(searchHistory));
      await api.register(uploadRoutes(uploads));
      await api.register(playgroundRoutes(playground));
      await api.register(backupRoutes(backups));
      await api.register(jobRoutes(jobs, sources, workers));
      await api.register(syncRoutes(sourceSyncs));
      await api.register(crawlRoutes(crawls, crawlSyncs));
      await api.register(maintenanceRoutes(maintenance, jobs));
      await api.register(analyticsRoutes({ analytics, activity, jobs }));
      await api.register(modelRoutes(models));
      await api.register(databaseMetricsRoutes(databaseMetrics));
      await api.register(logRoutes(logs));
      await api.register(systemMetricsRoutes(metricsSampler));
    },
    { prefix: '/api/v1' },
  );
  // Probes at the root too: before the console's pages, which answer any other path with 200.
  await app.register(probeRoutes({ health, auth, engine, index }));
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
          // Unknown (null) while Redis is unreachable: the other counts still go out.
          running: await Promise.resolve()
            .then(() => queue.status())
            .then(
              (w) => w.running,
              () => null,
            ),
          engine: engine.stats(),
        }),
        metrics: () => metrics.realtime(),
      }),
    }),
  );
  // After the HTTP gate's: a restore lets the writes under way end before it pauses the queue.
  backups.holdDuringRestore({
    what: 'jobs',
    pause: () => queue.pause(),
    resume: (r) => queue.resume(r),
  });
  await consoleStatic(app, config.webDist);
  app.setNotFoundHandler(notFound);

  // Started last, once every route exists: the index catches up in the background.
  const reconciled = core.reconcileIndex();
  // The keyword engine loads (or builds) on its thread; FTS5 answers searches until it is ready.
  const keyword = core.services.keyword;
  void (opts.startGates?.keyword ?? Promise.resolve()).then(() => keyword.open());
  backups.holdDuringRestore({
    what: 'keyword index',
    pause: () => keyword.pause(),
    resume: (r) => keyword.resume(r),
  });
  health.register('keyword_index', () => keyword.health());
  const { started: queueStarted } = await startQueue(queue, config.workers, log);
  // Imports a crash cut short and whose job is gone are taken out (a requeued one undoes its own).
  void queueStarted
    .then(() => importer.undoAbandoned())
    .catch((e: unknown) =>
      log.error({ component: 'import', err: e }, 'Undoing unfinished imports failed'),
    );
  backups.start();
  metricsSampler.start();
  syncScheduler.start();
  evaluationWatch.start();
  await uploads.start();

  await adminCreated;
  app.addHook('onClose', async () => {
    closing = true;
    housekeeping.stop();
    settingsEffects.stop();
    await metricsSampler.stop();
    // Before the queue: no auto backup or scheduled sync starts while the jobs wind down.
    syncScheduler.close();
    evaluationWatch.close();
    await backups.close();
    await queue.close();
    await models.close();
    analytics.stop();
    activity.stop();
    metrics.stop();
    await databaseMetrics.close();
    await reconciled;
    // The refused calls it still holds as a count are written while the database is open.
    audit.close();
    searchHistory.stop();
    await core.close();
  });

  return {
    app,
    db,
    bus,
    log,
    services: {
      ...core.services,
      health,
      metrics,
      databaseMetrics,
      logs,
      playground,
      jobs,
      sources,
      workers,
      queue,
      analytics,
      activity,
      models,
      embeddingSwitch,
      metricsSampler,
      sourceSyncs,
      crawlSyncs,
      syncScheduler,
      evaluations,
      evaluationWatch,
      searchHistory,
    },
    reconciled,
    queueStarted,
    engineStarted,
  };
}
