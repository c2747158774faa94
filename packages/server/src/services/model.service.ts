import fs from 'node:fs/promises';
import path from 'node:path';
import {
  HUB_REPO_PATTERN,
  MODEL_LANGUAGES,
  MODEL_TYPES,
  type ClearCacheResult,
  type DeleteModelFilesResult,
  type InstallProgress,
  type Job,
  type JobPriority,
  type LanguagePack,
  type Model,
  type ModelActionResult,
  type ModelCreate,
  type ModelList,
  type ModelStatus,
  type ModelType,
  type ModelUpdate,
  type TestModelResult,
  type ToggleModelResult,
  type UnusedFileType,
  type UnusedModelFile,
} from '@adam/contracts';
import { BUILTIN_SPACE, onnxSpaceId, type Engine } from '../engine/engine.js';
import {
  removeStaging,
  type DownloadProgress,
  type DownloadResult,
} from '../embedding/hub-download.js';
import { REQUIRED_MODEL_FILES } from '../embedding/model-files.js';
import type {
  LabelScore,
  OnnxEntity,
  OnnxTask,
  LoadMeasurement,
} from '../embedding/onnx-runtime.js';
import type { InstallPlan, ModelInstaller } from '../jobs/install-model.job.js';
import { BadRequest, Conflict, NotFound, Unprocessable } from '../lib/errors.js';
import type { EventBus } from '../lib/event-bus.js';
import type { Logger } from '../logging.js';
import { formatBytes } from '../scraping/fetch-error.js';
import type { SafeFetcher } from '../scraping/safe-fetcher.js';
import type { ModelRepository, ModelRow, ModelWritable } from '../store/model.repository.js';
import {
  BUILTIN_EMBEDDER_KEY,
  BUILTIN_MODEL_DIR,
  BUILTIN_PIPELINE_KEY,
  catalogueEntry,
  hubPage,
  MODEL_CATALOGUE,
  packKey,
  seedCatalogue,
} from './model-catalogue.js';
import {
  dirSize,
  inspectModelFile,
  installDirName,
  isWithin,
  linkOnTheWay,
  listFiles,
  normalisedPath,
  pathProblem,
  pruneEmptyDirs,
} from './model-files-guard.js';

/** The ONNX runner's calls the service makes (OnnxRunner implements them). */
export interface ModelRunner {
  load(request: { dir: string; task: OnnxTask }): Promise<LoadMeasurement>;
  embed(request: { dir: string; texts: string[] }): Promise<{ vectors: Float32Array[] }>;
  tokenClassify(request: { dir: string; text: string }): Promise<OnnxEntity[]>;
  textClassify(request: { dir: string; text: string }): Promise<LabelScore[]>;
  rerank(request: { dir: string; query: string; texts: string[] }): Promise<number[]>;
  unload(request: { dir: string }): Promise<number>;
  unloadAll(): Promise<number>;
  close(): Promise<void>;
}

/** What the service needs of the job service. */
export interface ModelJobs {
  create(
    j: {
      type: string;
      priority?: JobPriority;
      input?: unknown;
      metadata?: Record<string, unknown>;
    },
    opts?: { internal?: boolean },
  ): Job;
  cancel(id: number): Job;
  get(id: number): Job;
}

export interface ModelServiceDeps {
  models: ModelRepository;
  /** `<dataDir>/models`: every model's files, the staging area and the built-in model. */
  modelsRoot: string;
  hub: { fetcher: SafeFetcher; url: string; idleTimeoutMs: number };
  /** A function: the job service is built around the queue, whose jobs use this service. */
  jobs: () => ModelJobs;
  engine: Pick<Engine, 'embed' | 'rank' | 'setLanguagePacks' | 'unloadOnnxModels'>;
  /** Makes the ONNX runner on first use (its threads load a native runtime). */
  createRunner: () => ModelRunner;
  bus: EventBus;
  log: Logger;
  /**
   * Switches the server's embedder to an embedding model being activated: queues the
   * re-embedding job, after which the engine's space is the model's.
   */
  onActivateEmbedding: (target: { id: string; dimension: number; dir: string | null }) => {
    job_id: number;
  };
  /** The embedding space the engine embeds with now (engine.id). */
  activeSpace: () => string;
  /** Switch jobs queued or running, and the space each switches to. */
  pendingSwitches: () => { job_id: number; to: string }[];
}

const INSTALLED: readonly string[] = ['installed', 'loaded'];
/** Statuses whose files (or partial files) a cleanup must leave alone. */
const HOLDS_FILES: readonly string[] = ['installed', 'loaded', 'downloading'];
const STAGING = '.staging';
/** model_progress events per model at most every this many ms (~4/s); status changes always go. */
const PROGRESS_EVENT_MS = 250;
const MiB = 1048576;
const TASK: Record<ModelType, OnnxTask> = {
  embedding: 'feature-extraction',
  transformer: 'feature-extraction',
  spacy: 'token-classification',
  emotion: 'text-classification',
  sentiment: 'text-classification',
  // A cross-encoder is a sequence classifier over a pair: transformers.js loads it as one.
  reranker: 'text-classification',
};
const RESERVED_REPOS = new Set([BUILTIN_MODEL_DIR, STAGING]);

const round = (x: number, digits: number) => Math.round(x * 10 ** digits) / 10 ** digits;

/**
 * The model registry: the catalogue and the operator's models, their installs (install_model
 * jobs), activation, tests, language packs and the files under the models directory.
 */
export class ModelService implements ModelInstaller {
  readonly hub: ModelServiceDeps['hub'];
  private runner: ModelRunner | null = null;
  /** Installs running, by directory: a second install of the same files waits for the first. */
  private readonly installing = new Map<string, Promise<void>>();
  /** Loads in flight, by directory and task. */
  private readonly loading = new Map<string, Promise<void>>();
  private readonly lastEvent = new Map<number, { at: number; status: string }>();
  private readonly offs: (() => void)[] = [];

  constructor(private readonly deps: ModelServiceDeps) {
    this.hub = deps.hub;
    const added = seedCatalogue(deps.models, deps.hub.url);
    if (added.length) {
      deps.log.info({ component: 'models' }, `Model catalogue: ${added.length} model(s) added`);
    }
  }

  /**
   * Brings the rows in line with this process and listens for the fate of install jobs: nothing
   * is in memory after a start, and an install whose job was cancelled, deleted or failed
   * without running is no longer downloading.
   */
  start(): void {
    const { models, bus } = this.deps;
    for (const row of models.listByStatus(['loaded'])) {
      models.update(row.id, { status: 'installed', message: '' }, { statuses: ['loaded'] });
    }
    for (const row of models.listByStatus(['downloading'])) this.settleJob(row);
    this.syncLanguagePacks();
    const settle = (e: { job_id: number }) => {
      const row = models.findByJobId(e.job_id);
      if (row?.status === 'downloading') this.settleJob(row);
    };
    // A switch that ended changed (or not) which embedding model is active: tell the console.
    const switched = (e: { job_id: number }) => {
      const job = this.findJob(e.job_id);
      const to = job?.type === 'switch_embedder' ? job.metadata.to : undefined;
      const row = models.list().find((r) => r.type === 'embedding' && spaceIdOf(r) === to);
      if (row) this.emitProgress(row.id, true);
    };
    for (const event of ['job_cancelled', 'job_deleted', 'job_failed'] as const) {
      this.offs.push(bus.on(event, settle));
      this.offs.push(bus.on(event, switched));
    }
    this.offs.push(bus.on('job_completed', switched));
  }

  async close(): Promise<void> {
    this.offs.splice(0).forEach((off) => off());
    const runner = this.runner;
    this.runner = null;
    await runner?.close();
  }

  // -------------------------------------------------------------------------------------------
  // Registry

  async list(): Promise<ModelList> {
    const rows = this.deps.models.list();
    const dirs = new Set<string>();
    for (const r of rows) {
      const dir = INSTALLED.includes(r.status) ? r.local_path : null;
      if (dir) dirs.add(dir);
    }
    let bytes = 0;
    for (const dir of dirs) bytes += await dirSize(this.abs(dir));
    await this.measureBuiltin(rows);
    const switches = this.deps.pendingSwitches();
    return {
      models: rows.map((r) => this.toModel(r, switches)),
      stats: {
        total_models: rows.length,
        active_models: rows.filter((r) => this.isActive(r)).length,
        loaded_models: rows.filter((r) => r.status === 'loaded').length,
        installed_models: rows.filter((r) => INSTALLED.includes(r.status)).length,
        total_disk_usage_mb: round(bytes / MiB, 1),
        available_languages: new Set(rows.map((r) => r.language)).size,
      },
    };
  }

  get(id: number): Model {
    return this.toModel(this.row(id));
  }

  /**
   * An embedding model is active when the engine embeds in its space: the flag follows the
   * switch job, which may still be running (or have failed) after the toggle answered. Other
   * types keep the flag the operator set.
   */
  private isActive(r: ModelRow): boolean {
    return r.type === 'embedding' ? spaceIdOf(r) === this.deps.activeSpace() : r.active === 1;
  }

  private toModel(r: ModelRow, switches = this.deps.pendingSwitches()): Model {
    const activation =
      r.type === 'embedding' ? switches.find((s) => s.to === spaceIdOf(r)) : undefined;
    return {
      ...toModel(r, this.hub.url),
      active: this.isActive(r),
      activation_job_id: activation?.job_id ?? null,
    };
  }

  create(input: ModelCreate): Model {
    const { models, log } = this.deps;
    if (models.findByName(input.name)) {
      throw new Conflict(`A model named ${input.name} already exists`);
    }
    const repo = input.repo ?? input.name;
    checkRepo(repo, input.repo === undefined);
    const id = models.insert({
      name: input.name,
      type: input.type,
      language: input.language,
      description: input.description,
      repo,
      revision: input.revision,
      version: input.version ?? '',
      status: 'not_installed',
      source_url: hubPage(this.hub.url, repo),
    });
    log.info({ component: 'models' }, `Model ${input.name} added (${input.type}, ${repo})`);
    return this.get(id);
  }

  update(id: number, change: ModelUpdate): Model {
    const { models, log } = this.deps;
    const row = this.row(id);
    if (row.builtin) {
      throw new Conflict(`Model ${row.name} is built in: it ships with ADAM and cannot be edited`);
    }
    if (change.name !== undefined) {
      const clash = models.findByName(change.name);
      if (clash && clash.id !== id)
        throw new Conflict(`A model named ${change.name} already exists`);
    }
    const moves =
      (change.repo !== undefined && change.repo !== row.repo) ||
      (change.revision !== undefined && change.revision !== row.revision);
    if (moves && !['not_installed', 'error'].includes(row.status)) {
      throw new Conflict(
        `Model ${row.name} is ${statusText(row.status)}: uninstall it before changing its repository or revision`,
      );
    }
    if (change.repo !== undefined) checkRepo(change.repo, false);
    const fields: ModelWritable = {};
    if (change.name !== undefined) fields.name = change.name;
    if (change.language !== undefined) fields.language = change.language;
    if (change.description !== undefined) fields.description = change.description;
    if (change.version !== undefined) fields.version = change.version;
    if (change.revision !== undefined) fields.revision = change.revision;
    if (change.repo !== undefined) {
      fields.repo = change.repo;
      fields.source_url = hubPage(this.hub.url, change.repo);
    }
    // Files of the old repository or revision (a failed load left them) are no longer its own.
    if (moves) fields.local_path = null;
    models.update(id, fields);
    log.info(
      { component: 'models' },
      `Model ${row.name} edited (${Object.keys(fields).join(', ')})`,
    );
    return this.get(id);
  }

  // -------------------------------------------------------------------------------------------
  // Install and uninstall

  install(id: number): ModelActionResult {
    const { models, log } = this.deps;
    const row = this.row(id);
    if (row.status !== 'not_installed' && row.status !== 'error') {
      throw new Conflict(
        `Model ${row.name} is ${statusText(row.status)}: only a model that is not installed (or whose install failed) can be installed`,
      );
    }
    if (!row.repo) throw new Conflict(`Model ${row.name} has no hub repository to install from`);
    // Created, then the row marked, in one synchronous step: the job cannot start in between.
    const job = this.deps.jobs().create({
      type: 'install_model',
      priority: 'high',
      input: { model_id: id },
      metadata: { model_id: id, model: row.name, repo: `${row.repo}@${row.revision}` },
    });
    models.update(id, {
      status: 'downloading',
      job_id: job.id,
      error: null,
      downloaded_bytes: 0,
      total_bytes: row.expected_bytes,
      message: 'Waiting for the install job to start',
      last_action: 'install',
    });
    log.info({ component: 'models' }, `Install of ${row.name} queued (job ${job.id})`);
    this.emitProgress(id, true);
    return {
      model_id: id,
      status: 'downloading',
      message: `Installing ${row.name}: job ${job.id} downloads ${row.repo}@${row.revision}`,
      job_id: job.id,
      progress: 0,
    };
  }

  async uninstall(id: number): Promise<ModelActionResult> {
    const { models, log } = this.deps;
    const row = this.row(id);
    if (row.builtin) {
      throw new Conflict(
        `Model ${row.name} is built in: it ships with ADAM and cannot be uninstalled`,
      );
    }
    if (row.status === 'not_installed') throw new Conflict(`Model ${row.name} is not installed`);
    if (row.type === 'embedding' && this.isActive(row)) {
      throw new Conflict(
        `Model ${row.name} is the active embedding model: activate another embedding model before uninstalling it`,
      );
    }
    if (row.status === 'downloading' && row.job_id !== null) {
      // Its partial files stay until a cache clear: the job may still be writing them.
      const job = this.findJob(row.job_id);
      if (job && (job.status === 'pending' || job.status === 'processing')) {
        this.deps.jobs().cancel(row.job_id);
      }
    }
    const dir = dirOf(row);
    const users = dir ? this.rowsUsing(dir, row.id, INSTALLED) : [];
    const link = dir ? await linkOnTheWay(this.deps.modelsRoot, dir) : null;
    // The registry first: analysis stops using a pack before its files go.
    models.update(id, {
      status: 'not_installed',
      active: 0,
      local_path: null,
      disk_bytes: 0,
      error: null,
      downloaded_bytes: 0,
      total_bytes: 0,
      message: 'Uninstalled',
      last_action: 'uninstall',
    });
    this.syncLanguagePacks();
    let removed = false;
    if (dir && users.length === 0 && !link) {
      await this.unloadDir(dir);
      removed = await this.removeDir(dir);
    }
    const message = users.length
      ? `${row.name} uninstalled; its files stay, ${users.map((u) => u.name).join(', ')} use(s) them`
      : link
        ? `${row.name} uninstalled; its files stay: ${link} is a symbolic link, which an uninstall does not follow`
        : `${row.name} uninstalled`;
    log.info({ component: 'models' }, removed ? `${message}: files deleted` : message);
    this.emitProgress(id, true);
    return { model_id: id, status: 'not_installed', message, job_id: null, progress: 100 };
  }

  progress(id: number): InstallProgress {
    const row = this.row(id);
    const { progress, message } = progressOf(row);
    const job = row.job_id !== null ? this.findJob(row.job_id) : null;
    return {
      model_id: id,
      progress,
      status: row.status as ModelStatus,
      message,
      downloaded_bytes: row.downloaded_bytes,
      total_bytes: row.total_bytes,
      job_id: job && (job.status === 'pending' || job.status === 'processing') ? job.id : null,
    };
  }

  // -------------------------------------------------------------------------------------------
  // Activation and tests

  async toggle(id: number, active: boolean): Promise<ToggleModelResult> {
    const { models, log } = this.deps;
    const row = this.row(id);
    if (!INSTALLED.includes(row.status)) {
      throw new Conflict(
        `Model ${row.name} is ${statusText(row.status)}: only an installed model can be activated or deactivated`,
      );
    }
    let jobId: number | null = null;
    if (row.type === 'embedding' && !active && this.isActive(row)) {
      throw new Conflict(
        `Model ${row.name} is the active embedding model: activate another embedding model to replace it`,
      );
    }
    if (row.type === 'embedding') {
      if (active && !this.isActive(row)) jobId = this.switchTo(row);
    } else {
      models.update(id, { active: active ? 1 : 0 });
      this.syncLanguagePacks();
    }
    const message =
      jobId === null
        ? `${row.name} ${active ? 'activated' : 'deactivated'}`
        : `${row.name} activated: every snippet is re-embedded with it as job ${jobId}; search answers with the current model until that job completes`;
    log.info({ component: 'models' }, message + (jobId ? ` (re-embedding: job ${jobId})` : ''));
    return { model: this.get(id), job_id: jobId, message };
  }

  /**
   * Tells the engine which installed, active language packs serve which language: their NER
   * model recognises the entities of that language's texts (one pack per language: the most
   * recently updated).
   */
  private syncLanguagePacks(): void {
    const packs: Record<string, string> = {};
    const rows = this.deps.models
      .list()
      .filter((r) => r.type === 'spacy' && r.active === 1 && INSTALLED.includes(r.status) && r.repo)
      .sort((a, b) => a.updated_at.localeCompare(b.updated_at));
    for (const r of rows) packs[r.language] = this.abs(dirOf(r)!);
    this.deps.engine.setLanguagePacks(packs);
  }

  /** Queues the switch of the server's embedder to an installed embedding model's space. */
  private switchTo(row: ModelRow): number {
    if (row.dimension === null) {
      throw new Conflict(`Model ${row.name} has no known dimension: reinstall it`);
    }
    const dir = row.catalogue === BUILTIN_EMBEDDER_KEY ? null : dirOf(row);
    const { job_id } = this.deps.onActivateEmbedding({
      id: spaceIdOf(row),
      dimension: row.dimension,
      dir: dir === null ? null : this.abs(dir),
    });
    return job_id;
  }

  /** The processing settings' embedding_model: the active embedding model's name. */
  activeEmbeddingName(): string {
    const row = this.deps.models.list().find((r) => r.type === 'embedding' && this.isActive(r));
    return row?.name ?? this.deps.activeSpace();
  }

  /** Why the embedding model named `name` cannot be activated, or null. */
  embeddingProblem(name: string): string | null {
    const row = this.deps.models.list().find((r) => r.type === 'embedding' && r.name === name);
    if (!row) return `${name} is not an embedding model of the registry`;
    if (!INSTALLED.includes(row.status)) {
      return `${name} is ${statusText(row.status)}: install it first (Model Management)`;
    }
    return null;
  }

  /**
   * The installed reranker model named `name`, with its absolute directory; null when there is
   * none (no such model, another type, or not installed).
   */
  reranker(name: string): { name: string; dir: string } | null {
    const row = this.deps.models.list().find((r) => r.type === 'reranker' && r.name === name);
    const dir = row && INSTALLED.includes(row.status) ? dirOf(row) : null;
    return row && dir ? { name: row.name, dir: this.abs(dir) } : null;
  }

  /** Why the processing settings' reranker_model cannot be `name`, or null ('' is none). */
  rerankerProblem(name: string): string | null {
    if (name === '') return null;
    const row = this.deps.models.list().find((r) => r.name === name);
    if (!row) return `${name} is not a model of the registry`;
    if (row.type !== 'reranker') return `${name} is a model of type ${row.type}, not a reranker`;
    if (!INSTALLED.includes(row.status)) {
      return `${name} is ${statusText(row.status)}: install it first (Model Management)`;
    }
    return null;
  }

  /** Activates the embedding model named `name` (checked with embeddingProblem first). */
  activateEmbeddingByName(name: string): void {
    const row = this.deps.models.list().find((r) => r.type === 'embedding' && r.name === name);
    if (row && !this.isActive(row)) this.switchTo(row);
  }

  async test(id: number, text: string): Promise<TestModelResult> {
    const row = this.row(id);
    if (!INSTALLED.includes(row.status)) {
      throw new BadRequest(
        row.type === 'spacy'
          ? `Model ${row.name} is not ready: install its language pack first`
          : `Model ${row.name} is not ready: install it first`,
      );
    }
    const type = row.type as ModelType;
    let result: Record<string, unknown>;
    let elapsed: number;
    if (row.catalogue === BUILTIN_EMBEDDER_KEY) {
      const started = performance.now();
      const [vector] = await this.deps.engine.embed([text]);
      elapsed = performance.now() - started;
      result = vectorSummary(vector!);
    } else if (row.catalogue === BUILTIN_PIPELINE_KEY) {
      const started = performance.now();
      const r = await this.deps.engine.rank(text, text, row.language, 1000);
      elapsed = performance.now() - started;
      // Ranked by closeness to the text itself: put the sentences back in reading order.
      const sentences = r.answers
        .map((a) => a.sentence)
        .sort((a, b) => text.indexOf(a) - text.indexOf(b));
      result = { language: r.language, sentences, entities: r.entities };
    } else {
      const dir = dirOf(row)!;
      await this.ensureLoaded(row, dir);
      const runner = this.getRunner();
      const started = performance.now();
      if (TASK[type] === 'feature-extraction') {
        const { vectors } = await runner.embed({ dir, texts: [text] });
        elapsed = performance.now() - started;
        result = vectorSummary(vectors[0]!);
      } else if (type === 'reranker') {
        // A reranker scores pairs: the text against itself shows it loads and answers.
        const [score] = await runner.rerank({ dir, query: text, texts: [text] });
        elapsed = performance.now() - started;
        result = { query: text, score };
      } else if (TASK[type] === 'token-classification') {
        const entities = await runner.tokenClassify({ dir, text });
        elapsed = performance.now() - started;
        result = { language: row.language, entities };
      } else {
        const labels = await runner.textClassify({ dir, text });
        elapsed = performance.now() - started;
        result = { label: labels[0]?.label ?? null, labels };
      }
    }
    const elapsedMs = round(elapsed, 2);
    this.deps.models.update(id, {
      inference_speed: round(1000 / Math.max(elapsed, 0.01), 1),
    });
    return { model_id: id, model: row.name, type, elapsed_ms: elapsedMs, result };
  }

  // -------------------------------------------------------------------------------------------
  // Language packs

  languagePacks(): LanguagePack[] {
    const packs: LanguagePack[] = [];
    for (const lang of MODEL_LANGUAGES) {
      const row = this.deps.models.findByCatalogue(packKey(lang.code));
      if (!row) continue;
      const model = toModel(row, this.hub.url);
      packs.push({
        code: lang.code,
        name: lang.name,
        flag: lang.flag,
        version: model.version,
        required_version: catalogueEntry(row.catalogue)?.version ?? row.version,
        size: model.size,
        installed: INSTALLED.includes(row.status),
        status: model.status,
        model_id: row.id,
        description: row.description,
      });
    }
    return packs;
  }

  installPack(code: string): ModelActionResult {
    return this.install(this.packRow(code).id);
  }

  uninstallPack(code: string): Promise<ModelActionResult> {
    return this.uninstall(this.packRow(code).id);
  }

  // -------------------------------------------------------------------------------------------
  // Files: cleanup and cache

  /** Files under the models directory that no installed model (nor a running install) uses. */
  async unusedFiles(): Promise<UnusedModelFile[]> {
    const rows = this.deps.models.list();
    const files = await listFiles(this.deps.modelsRoot);
    return files
      .filter((f) => !this.userOf(f.rel, rows))
      .map((f) => ({ path: f.rel, ...describeFile(f.rel, rows), size: f.size }));
  }

  /**
   * Deletes files the cleanup listed. Every path is checked first; one that is not an unused
   * regular file inside the models directory refuses the whole request.
   */
  async deleteFiles(requested: readonly string[]): Promise<DeleteModelFilesResult> {
    const root = this.deps.modelsRoot;
    const rows = this.deps.models.list();
    const refuse = (p: string, why: string) =>
      new Unprocessable(`Refused to delete ${JSON.stringify(p)}: it ${why}. Nothing was deleted.`);
    const targets = new Map<string, { abs: string; size: number }>();
    for (const p of new Set(requested)) {
      const problem = pathProblem(p);
      if (problem) throw refuse(p, problem);
      const rel = normalisedPath(p);
      const user = this.userOf(rel, rows);
      if (user) throw refuse(p, `is in use by ${user}`);
      const file = await inspectModelFile(root, rel);
      if ('problem' in file) throw refuse(p, file.problem);
      targets.set(rel, file);
    }
    let freed = 0;
    const deleted: string[] = [];
    for (const [rel, file] of targets) {
      await fs.rm(file.abs, { force: true });
      freed += file.size;
      deleted.push(rel);
      await pruneEmptyDirs(root, path.dirname(file.abs));
    }
    this.deps.log.info(
      { component: 'models' },
      `Cleanup: ${deleted.length} unused model file(s) deleted (${formatBytes(freed)})`,
    );
    return { deleted, freed_bytes: freed };
  }

  /** Unloads every model from memory and removes the partial files of installs not running. */
  async clearCache(): Promise<ClearCacheResult> {
    const { models, log } = this.deps;
    const fromRunner = this.runner ? await this.runner.unloadAll() : 0;
    // The analysis threads hold the active ONNX embedder and the packs' models too.
    const fromEngine = await this.deps.engine.unloadOnnxModels();
    const loaded = models.listByStatus(['loaded']);
    for (const row of loaded) {
      models.update(row.id, { status: 'installed', message: 'Unloaded' }, { statuses: ['loaded'] });
      this.emitProgress(row.id, true);
    }
    const running = new Set(
      models
        .listByStatus(['downloading'])
        .map((r) => stagingOf(r))
        .filter((s): s is string => s !== null),
    );
    const stagingRoot = this.abs(STAGING);
    const units = new Set<string>();
    // A linked staging folder is not ours to empty: listing it would follow the link.
    const linked = (await fs.lstat(stagingRoot).catch(() => null))?.isSymbolicLink() ?? false;
    for (const f of linked ? [] : await listFiles(stagingRoot)) units.add(stagingUnit(f.rel));
    let freed = 0;
    for (const unit of units) {
      if (running.has(`${STAGING}/${unit}`)) continue;
      freed += await removeStaging(path.join(stagingRoot, unit));
      await pruneEmptyDirs(this.deps.modelsRoot, path.dirname(path.join(stagingRoot, unit)));
    }
    const unloaded = Math.max(fromRunner + fromEngine, loaded.length);
    const message = `Model cache cleared: ${unloaded} model(s) unloaded, ${formatBytes(freed)} of partial downloads removed`;
    log.info({ component: 'models' }, message);
    return { unloaded_models: unloaded, freed_bytes: freed, message };
  }

  // -------------------------------------------------------------------------------------------
  // ModelInstaller: what the install_model job calls

  async beginInstall(modelId: number, jobId: number): Promise<InstallPlan | null> {
    const current = () => {
      const row = this.deps.models.findById(modelId);
      return row && row.job_id === jobId && row.status === 'downloading' && row.repo ? row : null;
    };
    let row = current();
    if (!row) return null;
    // Installs of one repository and revision take turns: the second finds the files in place.
    const key = installDirName(row.repo!, row.revision);
    for (let other = this.installing.get(key); other; other = this.installing.get(key)) {
      await other;
      row = current();
      if (!row) return null;
    }
    const sharing = await this.installedTwin(row);
    const dir = sharing ?? key;
    // Only an install from before the flat layout (`<repo>/<revision>`) could overlap it.
    const clash = this.rowsUsing(dir, row.id, HOLDS_FILES).find(
      (r) => r.repo !== row!.repo || r.revision !== row!.revision,
    );
    if (clash) {
      throw new Error(
        `The folder ${dir} would overlap ${dirOf(clash)}, the files of model ${clash.name}: uninstall it first`,
      );
    }
    let release!: () => void;
    const hold = new Promise<void>((resolve) => (release = resolve));
    this.installing.set(key, hold);
    const present = sharing !== null;
    this.deps.models.update(
      modelId,
      { local_path: dir, message: present ? 'Files already installed' : 'Starting the download' },
      { jobId },
    );
    this.emitProgress(modelId, true);
    return {
      repo: row.repo!,
      revision: row.revision,
      destDir: this.abs(dir),
      stagingDir: this.abs(stagingOf(row)!),
      present,
      release: () => {
        if (this.installing.get(key) === hold) this.installing.delete(key);
        release();
      },
    };
  }

  /** The folder of another installed model of the same repository and revision, if complete. */
  private async installedTwin(row: ModelRow): Promise<string | null> {
    for (const r of this.deps.models.listByStatus([...INSTALLED])) {
      if (r.id === row.id || r.repo !== row.repo || r.revision !== row.revision) continue;
      const dir = dirOf(r);
      if (dir && (await hasModelFiles(this.abs(dir)))) return dir;
    }
    return null;
  }

  installProgress(modelId: number, jobId: number, p: DownloadProgress): void {
    // Throttled like the events: a 1 GB file comes in thousands of chunks.
    if (!this.dueEvent(modelId, 'downloading') && p.downloadedBytes < p.totalBytes) return;
    const changed = this.deps.models.update(
      modelId,
      {
        downloaded_bytes: p.downloadedBytes,
        total_bytes: p.totalBytes,
        message: `Downloading ${p.file}: ${formatBytes(p.downloadedBytes)} of ${formatBytes(p.totalBytes)}`,
      },
      { jobId, statuses: ['downloading'] },
    );
    if (changed) this.emitProgress(modelId, true);
  }

  async completeInstall(
    modelId: number,
    jobId: number,
    download: DownloadResult | null,
  ): Promise<void> {
    const { models, log } = this.deps;
    const row = models.findById(modelId);
    if (!row || row.job_id !== jobId) return;
    const dir = dirOf(row)!;
    const config = await readConfig(this.abs(dir));
    const hidden = typeof config.hidden_size === 'number' ? config.hidden_size : null;
    const version =
      typeof config.transformers_version === 'string' ? config.transformers_version : null;
    const bytes = await dirSize(this.abs(dir));
    const done = models.update(
      modelId,
      {
        status: 'installed',
        local_path: dir,
        disk_bytes: bytes,
        installed_version: version,
        dimension: TASK[row.type as ModelType] === 'feature-extraction' ? hidden : row.dimension,
        error: null,
        downloaded_bytes: download?.totalBytes ?? bytes,
        total_bytes: download?.totalBytes ?? bytes,
        message: 'Installed',
        last_action: 'install',
        // An installed language pack serves its language at once.
        ...(row.type === 'spacy' && { active: 1 }),
      },
      { jobId, statuses: ['downloading'] },
    );
    if (!done) return;
    this.syncLanguagePacks();
    log.info(
      { component: 'models' },
      `Model ${row.name} installed from ${row.repo}@${row.revision} (${formatBytes(bytes)})`,
    );
    this.emitProgress(modelId, true);
  }

  async failInstall(modelId: number, jobId: number, message: string): Promise<void> {
    const { models, log } = this.deps;
    const row = models.findById(modelId);
    if (!row || row.job_id !== jobId) return;
    const dir = dirOf(row);
    // Nothing half-installed stays: the download only ever puts complete files in place, so
    // what may be there is files whose config failed to read (gone unless another model uses
    // them); the partial files go too, as a failed file may be what made them.
    if (dir && this.rowsUsing(dir, modelId, INSTALLED).length === 0) await this.removeDir(dir);
    const staging = stagingOf(row);
    if (staging) {
      await removeStaging(this.abs(staging));
      await pruneEmptyDirs(this.deps.modelsRoot, path.dirname(this.abs(staging)));
    }
    const changed = models.update(
      modelId,
      { status: 'error', error: message, message, local_path: null, last_action: 'install' },
      { jobId },
    );
    if (!changed) return;
    log.warn({ component: 'models' }, `Install of ${row.name} failed: ${message}`);
    this.emitProgress(modelId, true);
  }

  cancelInstall(modelId: number, jobId: number): void {
    const changed = this.deps.models.update(
      modelId,
      {
        status: 'not_installed',
        error: null,
        local_path: null,
        message: 'Installation cancelled',
        last_action: 'install',
      },
      { jobId, statuses: ['downloading'] },
    );
    if (changed) {
      this.deps.log.info({ component: 'models' }, `Install of model ${modelId} cancelled`);
      this.emitProgress(modelId, true);
    }
  }

  pauseInstall(modelId: number, jobId: number): void {
    const changed = this.deps.models.update(
      modelId,
      { message: 'Paused: the download resumes when its job runs again' },
      { jobId, statuses: ['downloading'] },
    );
    if (changed) this.emitProgress(modelId, true);
  }

  // -------------------------------------------------------------------------------------------

  private row(id: number): ModelRow {
    const row = this.deps.models.findById(id);
    if (!row) throw new NotFound('model', id);
    return row;
  }

  private packRow(code: string): ModelRow {
    const row = this.deps.models.findByCatalogue(packKey(code));
    if (!row) throw new NotFound('language pack', code);
    return row;
  }

  private abs(rel: string): string {
    return path.join(this.deps.modelsRoot, ...rel.split('/'));
  }

  private getRunner(): ModelRunner {
    this.runner ??= this.deps.createRunner();
    return this.runner;
  }

  private findJob(id: number): Job | null {
    try {
      return this.deps.jobs().get(id);
    } catch (e) {
      if (e instanceof NotFound) return null;
      throw e;
    }
  }

  /** An install whose job ended without saying so (cancelled while pending, deleted, crashed). */
  private settleJob(row: ModelRow): void {
    const job = row.job_id !== null ? this.findJob(row.job_id) : null;
    if (job && (job.status === 'pending' || job.status === 'processing')) return;
    const guard = { statuses: ['downloading'], jobId: row.job_id ?? undefined };
    let fields: ModelWritable;
    if (job?.status === 'failed') {
      const reason = job.errors.at(-1)?.message ?? 'The install job failed';
      fields = { status: 'error', error: reason, message: reason, local_path: null };
    } else if (job?.status === 'completed') {
      return; // completeInstall decided
    } else {
      fields = {
        status: 'not_installed',
        error: null,
        message: 'Installation cancelled',
        local_path: null,
      };
    }
    if (this.deps.models.update(row.id, fields, guard)) this.emitProgress(row.id, true);
  }

  /** Other rows of `statuses` whose directory is `dir` or overlaps it. */
  private rowsUsing(dir: string, exceptId: number, statuses: readonly string[]): ModelRow[] {
    return this.deps.models.list().filter((r) => {
      if (r.id === exceptId || !statuses.includes(r.status)) return false;
      const other = dirOf(r);
      return other !== null && (isWithin(other, dir) || isWithin(dir, other));
    });
  }

  /** Who uses a file: an installed model, a running install, or null. */
  private userOf(rel: string, rows: readonly ModelRow[]): string | null {
    for (const r of rows) {
      if (!HOLDS_FILES.includes(r.status)) continue;
      const dir = dirOf(r);
      if (dir && isWithin(rel, dir)) return `model ${r.name}`;
      if (r.status !== 'downloading' || !dir) continue;
      const staging = stagingOf(r);
      if (staging && isWithin(rel, staging)) return `the running install of ${r.name}`;
      // The download assembles the directory beside it (.<name>.installing-…) before the rename.
      const sibling = path.posix.join(path.posix.dirname(dir), `.${path.posix.basename(dir)}.`);
      if (rel.startsWith(sibling)) return `the running install of ${r.name}`;
    }
    return null;
  }

  private async ensureLoaded(row: ModelRow, dir: string): Promise<void> {
    if (row.status === 'loaded') return;
    const task = TASK[row.type as ModelType];
    const key = `${dir}\n${task}`;
    let pending = this.loading.get(key);
    if (!pending) {
      pending = (async () => {
        try {
          const m = await this.getRunner().load({ dir, task });
          this.deps.models.update(
            row.id,
            {
              status: 'loaded',
              load_time_ms: round(m.load_time_ms, 1),
              memory_mb: round(m.memory_mb, 1),
              inference_speed: m.inference_speed,
              error: null,
              message: 'Loaded',
            },
            { statuses: ['installed'] },
          );
          this.emitProgress(row.id, true);
        } catch (e) {
          const message = `Loading failed: ${(e as Error).message}`;
          this.deps.models.update(row.id, { status: 'error', error: message, message });
          this.emitProgress(row.id, true);
          throw new BadRequest(`Model ${row.name} could not be loaded: ${(e as Error).message}`);
        } finally {
          this.loading.delete(key);
        }
      })();
      this.loading.set(key, pending);
    }
    await pending;
  }

  private async unloadDir(dir: string): Promise<void> {
    // A pack's model may be held by the analysis threads: free them before its files go.
    await this.deps.engine.unloadOnnxModels();
    if (!this.runner) return;
    await this.runner.unload({ dir });
    for (const r of this.deps.models.listByStatus(['loaded'])) {
      if (dirOf(r) === dir) {
        this.deps.models.update(r.id, { status: 'installed' }, { statuses: ['loaded'] });
      }
    }
  }

  /** Deletes a model directory and the folders it leaves empty. */
  private async removeDir(dir: string): Promise<boolean> {
    const full = this.abs(dir);
    const existed = (await fs.lstat(full).catch(() => null)) !== null;
    await fs.rm(full, { recursive: true, force: true });
    await pruneEmptyDirs(this.deps.modelsRoot, path.dirname(full));
    return existed;
  }

  /** The built-in embedder's file appears once the engine has converted it. */
  private async measureBuiltin(rows: ModelRow[]): Promise<void> {
    for (const r of rows) {
      if (r.catalogue !== BUILTIN_EMBEDDER_KEY || r.disk_bytes > 0 || !r.local_path) continue;
      const bytes = await dirSize(this.abs(r.local_path));
      if (bytes > 0) {
        this.deps.models.update(r.id, { disk_bytes: bytes });
        r.disk_bytes = bytes;
      }
    }
  }

  private dueEvent(id: number, status: string): boolean {
    const last = this.lastEvent.get(id);
    return !last || last.status !== status || performance.now() - last.at >= PROGRESS_EVENT_MS;
  }

  /** A model_progress event: status changes always, progress at most ~4 times a second. */
  private emitProgress(id: number, force = false): void {
    const row = this.deps.models.findById(id);
    if (!row) return;
    if (!force && !this.dueEvent(id, row.status)) return;
    this.lastEvent.set(id, { at: performance.now(), status: row.status });
    const { progress, message } = progressOf(row);
    this.deps.bus.emit('model_progress', { model_id: id, status: row.status, progress, message });
  }
}

// ---------------------------------------------------------------------------------------------

/** The wire shape; source_url follows the hub configured now, which the downloads use too. */
function toModel(r: ModelRow, hubUrl: string): Model {
  const installed = INSTALLED.includes(r.status);
  return {
    id: r.id,
    name: r.name,
    type: r.type as ModelType,
    language: r.language,
    status: r.status as ModelStatus,
    active: r.active === 1,
    size: installed ? r.disk_bytes : r.total_bytes || r.expected_bytes,
    version: (installed ? r.installed_version : null) ?? r.version,
    description: r.description,
    performance: {
      load_time_ms: r.load_time_ms,
      memory_mb: r.memory_mb,
      inference_speed: r.inference_speed,
    },
    source_url: r.repo ? hubPage(hubUrl, r.repo) : r.source_url,
    local_path: installed ? r.local_path : null,
    updated_at: r.updated_at,
    repo: r.repo,
    revision: r.revision,
    dimension: r.dimension,
    builtin: r.builtin === 1,
    error: r.error,
    activation_job_id: null,
  };
}

/** The embedding space an embedding model's vectors belong to (engine.id when it is active). */
function spaceIdOf(r: ModelRow): string {
  return r.catalogue === BUILTIN_EMBEDDER_KEY || !r.repo
    ? BUILTIN_SPACE.id
    : onnxSpaceId(r.repo, r.revision);
}

/**
 * The directory a model's files live in, relative to the models directory: the one recorded
 * when its install began (`<repo>/<revision>` for installs before the flat layout, which keep
 * working), else the one an install of it would use.
 */
function dirOf(r: ModelRow): string | null {
  if (r.local_path) return r.local_path;
  return r.repo ? installDirName(r.repo, r.revision) : null;
}

function stagingOf(r: ModelRow): string | null {
  return r.repo ? `${STAGING}/${r.repo}@${r.revision}` : null;
}

/** A staging file's install: `owner/name@rev` (or `name@rev`) from its path under .staging. */
function stagingUnit(rel: string): string {
  const [first = '', second = ''] = rel.split('/');
  return first.includes('@') || !second ? first : `${first}/${second}`;
}

function statusText(status: string): string {
  return status.replace('_', ' ');
}

function progressOf(r: ModelRow): { progress: number; message: string } {
  const share = r.total_bytes > 0 ? (100 * r.downloaded_bytes) / r.total_bytes : 0;
  switch (r.status) {
    case 'installed':
    case 'loaded':
      return { progress: 100, message: r.message || 'Installed' };
    case 'downloading':
      // 100 only once installed: the files are still being checked and moved into place.
      return { progress: Math.min(99.9, round(share, 1)), message: r.message };
    case 'error':
      // Never 100 on an error: a file can arrive whole and then fail its checksum.
      return { progress: Math.min(99, round(share, 1)), message: r.error ?? r.message };
    default:
      return {
        progress: r.last_action === 'uninstall' ? 100 : 0,
        message: r.message || 'Not installed',
      };
  }
}

function vectorSummary(v: Float32Array): Record<string, unknown> {
  let sum = 0;
  for (const x of v) sum += x * x;
  return {
    dimension: v.length,
    norm: round(Math.sqrt(sum), 4),
    preview: Array.from(v.subarray(0, 8), (x) => round(x, 4)),
  };
}

/** A cleanup row's type and language: from the model (or catalogue entry) owning its folder. */
function describeFile(
  rel: string,
  rows: readonly ModelRow[],
): { type: UnusedFileType; language: string } {
  if (isWithin(rel, STAGING)) {
    const unit = `${STAGING}/${stagingUnit(rel.slice(STAGING.length + 1))}`;
    const owner = rows.find((r) => stagingOf(r) === unit);
    return { type: 'other', language: owner?.language ?? 'unknown' };
  }
  const owner =
    rows.find((r) => r.repo && isWithin(rel, dirOf(r)!)) ??
    MODEL_CATALOGUE.find(
      (e) =>
        e.repo &&
        (isWithin(rel, installDirName(e.repo, e.revision)) ||
          isWithin(rel, `${e.repo}/${e.revision}`)),
    );
  if (owner) return { type: owner.type as ModelType, language: owner.language };
  const folders = rel.split('/').slice(0, -1);
  const type = folders.find((f): f is ModelType => (MODEL_TYPES as readonly string[]).includes(f));
  const language = folders.find((f) => MODEL_LANGUAGES.some((l) => l.code === f));
  return { type: type ?? 'other', language: language ?? 'unknown' };
}

function checkRepo(repo: string, fromName: boolean): void {
  const field = 'repo';
  if (!HUB_REPO_PATTERN.test(repo)) {
    throw new Unprocessable(
      `A hub repository is needed: ${JSON.stringify(repo)} is not one such as owner/name`,
      [
        {
          field,
          message: fromName
            ? 'is required when the name is not a hub repository id such as owner/name'
            : 'must be a hub repository id such as owner/name',
        },
      ],
    );
  }
  if (RESERVED_REPOS.has(repo.split('/')[0]!.toLowerCase())) {
    throw new Unprocessable(`${repo} is reserved for ADAM's own files`, [
      { field, message: 'is reserved for the built-in model' },
    ]);
  }
}

async function hasModelFiles(dir: string): Promise<boolean> {
  for (const f of REQUIRED_MODEL_FILES) {
    const st = await fs.stat(path.join(dir, f)).catch(() => null);
    if (!st?.isFile()) return false;
  }
  return true;
}

async function readConfig(dir: string): Promise<Record<string, unknown>> {
  let text: string;
  try {
    text = await fs.readFile(path.join(dir, 'config.json'), 'utf8');
  } catch {
    throw new Error('config.json is missing from the installed files');
  }
  try {
    const parsed: unknown = JSON.parse(text);
    if (parsed && typeof parsed === 'object' && !Array.isArray(parsed)) {
      return parsed as Record<string, unknown>;
    }
  } catch {
    // reported below
  }
  throw new Error('config.json is not a JSON object: the model cannot be read');
}
