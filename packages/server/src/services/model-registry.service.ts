/**
 * The model registry: the catalogue and the operator's models (list, add, edit), which are
 * active (the embedding model through its switch job, the language packs the engine uses),
 * and the models' tests. Installs are the installer's (model-install.service.ts), files the
 * model files' (model-files.service.ts).
 */
import {
  HUB_REPO_PATTERN,
  MODEL_LANGUAGES,
  type LanguagePack,
  type Model,
  type ModelCreate,
  type ModelList,
  type ModelType,
  type ModelUpdate,
  type TestModelResult,
  type ToggleModelResult,
} from '@adam/contracts';
import type { Engine } from '../engine/engine.js';
import { BadRequest, Conflict, Unprocessable } from '../lib/errors.js';
import type { EventBus } from '../lib/event-bus.js';
import type { Logger } from '../logging.js';
import type { ModelRepository, ModelRow, ModelWritable } from '../store/model.repository.js';
import {
  BUILTIN_EMBEDDER_KEY,
  BUILTIN_MODEL_DIR,
  BUILTIN_PIPELINE_KEY,
  catalogueEntry,
  hubPage,
  packKey,
  seedCatalogue,
} from './model-catalogue.js';
import { dirSize } from './model-files-guard.js';
import type { ModelFilesService } from './model-files.service.js';
import {
  dirOf,
  findJob,
  INSTALLED,
  modelRow,
  spaceIdOf,
  STAGING,
  statusText,
  TASK,
  toModel,
  type ModelEvents,
  type ModelJobs,
} from './model-rows.js';
import { round } from '../lib/round.js';

export interface ModelRegistryDeps {
  models: ModelRepository;
  /** The hub's base URL: a model's page (source_url) is on the hub configured now. */
  hubUrl: string;
  engine: Pick<Engine, 'embed' | 'rank' | 'setLanguagePacks'>;
  files: ModelFilesService;
  events: ModelEvents;
  /** A function: the job service is built around the queue, whose jobs use the installer. */
  jobs: () => Pick<ModelJobs, 'get'>;
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

const MiB = 1048576;
const RESERVED_REPOS = new Set([BUILTIN_MODEL_DIR, STAGING]);

export class ModelRegistry {
  private readonly offs: (() => void)[] = [];

  constructor(private readonly deps: ModelRegistryDeps) {
    const added = seedCatalogue(deps.models, deps.hubUrl);
    if (added.length) {
      deps.log.info({ component: 'models' }, `Model catalogue: ${added.length} model(s) added`);
    }
  }

  /**
   * Brings the rows in line with this process (nothing is loaded after a start), tells the
   * engine its language packs, and follows the switch jobs that change the active embedding model.
   */
  start(): void {
    const { models, bus } = this.deps;
    for (const row of models.listByStatus(['loaded'])) {
      models.update(row.id, { status: 'installed', message: '' }, { statuses: ['loaded'] });
    }
    this.syncLanguagePacks();
    // A switch that ended changed (or not) which embedding model is active: tell the console.
    const switched = (e: { job_id: number }) => {
      const job = findJob(this.deps.jobs(), e.job_id);
      const to = job?.type === 'switch_embedder' ? job.metadata.to : undefined;
      const row = models.list().find((r) => r.type === 'embedding' && spaceIdOf(r) === to);
      if (row) this.deps.events.emit(row.id, true);
    };
    for (const event of ['job_cancelled', 'job_deleted', 'job_failed', 'job_completed'] as const) {
      this.offs.push(bus.on(event, switched));
    }
  }

  close(): void {
    this.offs.splice(0).forEach((off) => off());
  }

  async list(): Promise<ModelList> {
    const rows = this.deps.models.list();
    const dirs = new Set<string>();
    for (const r of rows) {
      const dir = INSTALLED.includes(r.status) ? r.local_path : null;
      if (dir) dirs.add(dir);
    }
    let bytes = 0;
    for (const dir of dirs) bytes += await dirSize(this.deps.files.abs(dir));
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
    return this.toModel(modelRow(this.deps.models, id));
  }

  /**
   * An embedding model is active when the engine embeds in its space: the flag follows the
   * switch job, which may still be running (or have failed) after the toggle answered. Other
   * types keep the flag the operator set.
   */
  isActive(r: ModelRow): boolean {
    return r.type === 'embedding' ? spaceIdOf(r) === this.deps.activeSpace() : r.active === 1;
  }

  private toModel(r: ModelRow, switches = this.deps.pendingSwitches()): Model {
    const activation =
      r.type === 'embedding' ? switches.find((s) => s.to === spaceIdOf(r)) : undefined;
    return {
      ...toModel(r, this.deps.hubUrl),
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
      source_url: hubPage(this.deps.hubUrl, repo),
    });
    log.info({ component: 'models' }, `Model ${input.name} added (${input.type}, ${repo})`);
    return this.get(id);
  }

  update(id: number, change: ModelUpdate): Model {
    const { models, log } = this.deps;
    const row = modelRow(this.deps.models, id);
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
      fields.source_url = hubPage(this.deps.hubUrl, change.repo);
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
  // Activation and tests

  async toggle(id: number, active: boolean): Promise<ToggleModelResult> {
    const { models, log } = this.deps;
    const row = modelRow(this.deps.models, id);
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
  syncLanguagePacks(): void {
    const packs: Record<string, string> = {};
    const rows = this.deps.models
      .list()
      .filter((r) => r.type === 'spacy' && r.active === 1 && INSTALLED.includes(r.status) && r.repo)
      .sort((a, b) => a.updated_at.localeCompare(b.updated_at));
    for (const r of rows) packs[r.language] = this.deps.files.abs(dirOf(r)!);
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
      dir: dir === null ? null : this.deps.files.abs(dir),
    });
    return job_id;
  }

  /** Activates the embedding model named `name` (checked with ModelChoices.embeddingProblem first). */
  activateEmbeddingByName(name: string): void {
    const row = this.deps.models.list().find((r) => r.type === 'embedding' && r.name === name);
    if (row && !this.isActive(row)) this.switchTo(row);
  }

  async test(id: number, text: string): Promise<TestModelResult> {
    const row = modelRow(this.deps.models, id);
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
      await this.deps.files.ensureLoaded(row, dir);
      const runner = this.deps.files.getRunner();
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
      const model = toModel(row, this.deps.hubUrl);
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

  /** The built-in embedder's file appears once the engine has converted it. */
  private async measureBuiltin(rows: ModelRow[]): Promise<void> {
    for (const r of rows) {
      if (r.catalogue !== BUILTIN_EMBEDDER_KEY || r.disk_bytes > 0 || !r.local_path) continue;
      const bytes = await dirSize(this.deps.files.abs(r.local_path));
      if (bytes > 0) {
        this.deps.models.update(r.id, { disk_bytes: bytes });
        r.disk_bytes = bytes;
      }
    }
  }
}

// ---------------------------------------------------------------------------------------------

function vectorSummary(v: Float32Array): Record<string, unknown> {
  let sum = 0;
  for (const x of v) sum += x * x;
  return {
    dimension: v.length,
    norm: round(Math.sqrt(sum), 4),
    preview: Array.from(v.subarray(0, 8), (x) => round(x, 4)),
  };
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
