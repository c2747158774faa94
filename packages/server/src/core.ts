import fs from 'node:fs';
import path from 'node:path';
import type { Config } from './config.js';
import { Engine } from './engine/engine.js';
import { createLogger, LogSink, type Logger } from './logging.js';
import { EventBus } from './lib/event-bus.js';
import { SafeFetcher } from './scraping/safe-fetcher.js';
import { AuthService } from './services/auth.service.js';
import { BackupService } from './services/backup.service.js';
import { loadActiveSpace, writeActiveSpace } from './services/embedding-switch.service.js';
import type { ReconcileReport } from '@adam/contracts';
import { IndexService } from './services/index.service.js';
import { KeywordService } from './keyword/keyword.service.js';
import { IngestionService } from './services/ingestion.service.js';
import { RuleService } from './services/rule.service.js';
import { ModelChoices } from './services/model-choices.js';
import { SettingsService, type SettingsModelChecks } from './services/settings.service.js';
import { SnippetService } from './services/snippet.service.js';
import { ApiKeyRepository } from './store/api-key.repository.js';
import { openDatabase, type Db } from './store/db.js';
import { JobRepository } from './store/job.repository.js';
import { LogRepository } from './store/log.repository.js';
import { ModelRepository } from './store/model.repository.js';
import { RuleRepository } from './store/rule.repository.js';
import { SettingsRepository } from './store/settings.repository.js';
import { SnippetRepository } from './store/snippet.repository.js';
import { SourceRepository } from './store/source.repository.js';
import { UserRepository } from './store/user.repository.js';

export const VERSION = readVersion();

interface CoreOptions {
  /** Also print log lines on stdout (the server does, tests and the CLI do not). */
  stdoutLogs?: boolean;
  /** Clock for key expiry, TOTP and throttling; tests move it instead of sleeping. */
  now?: () => number;
  /** A job queue runs in this process: a restore then waits until no job is processing. */
  runsJobs?: boolean;
  /** The index's first load waits for it (tests hold the index "starting"). */
  indexOpenGate?: Promise<void>;
  /**
   * The server's: activates the embedding model a processing-settings save names (queues the
   * switch). With it the processing settings name the registry's models and check them; without
   * it (the CLI) they are stored values.
   */
  activateEmbedding?: (name: string) => void;
}

export interface CoreServices {
  settings: SettingsService;
  auth: AuthService;
  engine: Engine;
  index: IndexService;
  backups: BackupService;
  snippets: SnippetService;
  ingestion: IngestionService;
  rules: RuleService;
  fetcher: SafeFetcher;
  keyword: KeywordService;
  modelChoices: ModelChoices;
}

/**
 * The data directory opened and the services that work on it, without the job queue or HTTP:
 * what the server and the CLI's maintenance commands share. Building it starts nothing (no
 * engine threads, no reconciliation, no auto backups): whoever needs one starts it.
 */
export interface Core {
  db: Db;
  sink: LogSink;
  log: Logger;
  bus: EventBus;
  repos: {
    snippets: SnippetRepository;
    jobs: JobRepository;
    sources: SourceRepository;
    logs: LogRepository;
    keys: ApiKeyRepository;
  };
  services: CoreServices;
  /** Loads the engine's threads and models; false (logged) when that failed. */
  startEngine: () => Promise<boolean>;
  /** Brings the index in line with the store; null (logged) when that failed. */
  reconcileIndex: () => Promise<ReconcileReport | null>;
  /** Closes what building opened, the database last; stop what you started first. */
  close: () => Promise<void>;
}

export function buildCore(config: Config, opts: CoreOptions = {}): Core {
  const sink = new LogSink();
  const log = createLogger({ level: config.logLevel, sink, stdout: opts.stdoutLogs ?? false });
  // Checkpoints on a thread: inside a commit, their fsync holds the event loop (issue 23).
  const db = openDatabase(config.dataDir, undefined, { checkpointOffThread: true });
  const repos = {
    snippets: new SnippetRepository(db),
    jobs: new JobRepository(db),
    sources: new SourceRepository(db),
    logs: new LogRepository(db),
    keys: new ApiKeyRepository(db),
  };
  sink.attach(repos.logs);
  const bus = new EventBus();

  const indexDir = path.join(config.dataDir, 'index');
  // Before the engine and the index: the space they start in is the last switch's (finished
  // here when a stop interrupted it after its swap).
  const space = loadActiveSpace({
    dataDir: config.dataDir,
    indexDir,
    snippets: repos.snippets,
    log,
  });
  // Before the settings, which name the active embedding model (the engine's space); the
  // engine reads its task budget from them at each task, never while being built.
  const engine: Engine = new Engine({
    dataDir: config.dataDir,
    threads: Math.max(1, config.workers),
    space,
    taskTimeoutS: (): number => settings.get('processing').task_timeout_seconds,
    onTimeout: (e) => log.warn({ component: 'engine' }, e.message),
  });
  const modelChoices: ModelChoices = new ModelChoices({
    models: new ModelRepository(db),
    modelsRoot: path.join(config.dataDir, 'models'),
    activeSpace: (): string => engine.id,
  });
  const activateEmbedding = opts.activateEmbedding;
  const settingsModels: SettingsModelChecks | undefined = activateEmbedding && {
    embedding: {
      active: (): string => modelChoices.activeEmbeddingName(),
      problem: (name) => modelChoices.embeddingProblem(name),
      activate: activateEmbedding,
    },
    rerankerProblem: (name) => modelChoices.rerankerProblem(name),
  };
  const settings: SettingsService = new SettingsService({
    settings: new SettingsRepository(db),
    bus,
    log,
    models: settingsModels,
  });
  const auth = new AuthService({
    users: new UserRepository(db),
    keys: repos.keys,
    bus,
    log,
    config,
    now: opts.now,
  });
  const index = new IndexService({
    dir: indexDir,
    snippets: repos.snippets,
    embedder: engine,
    log,
    bus,
    storage: () => settings.get('processing').index_storage,
    openGate: opts.indexOpenGate,
    spaces: {
      embedWith: (to, texts) => engine.embedWith(to, texts),
      activate: (to) => {
        engine.useSpace(to);
        writeActiveSpace(config.dataDir, to);
      },
    },
  });
  const backups = new BackupService({
    db,
    dataDir: config.dataDir,
    index,
    log,
    bus,
    settings: () => settings.get('general'),
    version: VERSION,
    // Without a queue here (the CLI holds the data directory's lock), a processing row is a
    // crashed server's, which its next start takes back: it must not block a restore.
    busyWith: opts.runsJobs ? () => processingJobs(repos.jobs) : undefined,
  });
  // The keyword engine: opened by app.ts after listen (FTS5 answers until it is ready).
  const keyword = new KeywordService({
    db,
    snippets: repos.snippets,
    dataDir: config.dataDir,
    log,
  });
  const snippets = new SnippetService({
    snippets: repos.snippets,
    keyword,
    index,
    embedder: engine,
    bus,
    log,
    vectorWeight: () => settings.get('processing').search_vector_weight,
  });
  const ingestion = new IngestionService({ engine, snippets: repos.snippets, index, bus, log });
  const rules = new RuleService({ rules: new RuleRepository(db), log });
  const fetcher = new SafeFetcher({ allow: config.fetchAllow });

  const startEngine = () =>
    engine.start().then(
      () => true,
      (e: unknown) => {
        log.error({ component: 'engine', err: e }, 'Starting the engine failed');
        return false;
      },
    );
  // After the loaded files' checksums were compared: a damaged index found then is emptied,
  // and this reconcile re-adds every row.
  const reconcileIndex = () =>
    index
      .whenVerified()
      .then(() => index.reconcile())
      .then(
        (r): ReconcileReport | null => {
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
  const close = async () => {
    await keyword.close();
    await index.close();
    await engine.close();
    await fetcher.close();
    sink.flush();
    sink.attach(null);
    db.close();
  };
  return {
    db,
    sink,
    log,
    bus,
    repos,
    services: {
      settings,
      auth,
      engine,
      index,
      backups,
      snippets,
      ingestion,
      rules,
      fetcher,
      keyword,
      modelChoices,
    },
    startEngine,
    reconcileIndex,
    close,
  };
}
function processingJobs(jobs: JobRepository): string | null {
  const n = jobs.countByStatus().processing ?? 0;
  return n ? `${n} job(s) are processing` : null;
}

function readVersion(): string {
  try {
    const pkg = JSON.parse(
      fs.readFileSync(new URL('../package.json', import.meta.url), 'utf8'),
    ) as { version?: string };
    return pkg.version ?? '0.0.0';
  } catch {
    return '0.0.0';
  }
}
