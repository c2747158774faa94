/**
 * What the model registry, the installer and the model files share: the row helpers (a row's
 * wire shape, its directory, its progress), the statuses, and the throttled model_progress
 * events, one throttle for the three.
 */
import {
  type Job,
  type JobPriority,
  type Model,
  type ModelStatus,
  type ModelType,
} from '@adam/contracts';
import { BUILTIN_SPACE, onnxSpaceId } from '../engine/engine.js';
import type {
  LabelScore,
  LoadMeasurement,
  OnnxEntity,
  OnnxTask,
} from '../embedding/onnx-runtime.js';
import { NotFound } from '../lib/errors.js';
import type { EventBus } from '../lib/event-bus.js';
import type { ModelRepository, ModelRow } from '../store/model.repository.js';
import { BUILTIN_EMBEDDER_KEY, hubPage, packKey } from './model-catalogue.js';
import { installDirName, isWithin } from './model-files-guard.js';
import { round } from '../lib/round.js';

export const INSTALLED: readonly string[] = ['installed', 'loaded'];
/** Statuses whose files (or partial files) a cleanup must leave alone. */
export const HOLDS_FILES: readonly string[] = ['installed', 'loaded', 'downloading'];
export const STAGING = '.staging';
/** model_progress events per model at most every this many ms (~4/s); status changes always go. */
const PROGRESS_EVENT_MS = 250;
export const TASK: Record<ModelType, OnnxTask> = {
  embedding: 'feature-extraction',
  transformer: 'feature-extraction',
  spacy: 'token-classification',
  emotion: 'text-classification',
  sentiment: 'text-classification',
  // A cross-encoder is a sequence classifier over a pair: transformers.js loads it as one.
  reranker: 'text-classification',
};

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

/** What the model services need of the job service. */
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

/** The job `id`, or null when it is gone. */
export function findJob(jobs: Pick<ModelJobs, 'get'>, id: number): Job | null {
  try {
    return jobs.get(id);
  } catch (e) {
    if (e instanceof NotFound) return null;
    throw e;
  }
}

export function modelRow(models: ModelRepository, id: number): ModelRow {
  const row = models.findById(id);
  if (!row) throw new NotFound('model', id);
  return row;
}

export function packRow(models: ModelRepository, code: string): ModelRow {
  const row = models.findByCatalogue(packKey(code));
  if (!row) throw new NotFound('language pack', code);
  return row;
}

/** Other rows of `statuses` whose directory is `dir` or overlaps it. */
export function rowsUsing(
  models: ModelRepository,
  dir: string,
  exceptId: number,
  statuses: readonly string[],
): ModelRow[] {
  return models.list().filter((r) => {
    if (r.id === exceptId || !statuses.includes(r.status)) return false;
    const other = dirOf(r);
    return other !== null && (isWithin(other, dir) || isWithin(dir, other));
  });
}

/** A model's model_progress events: status changes always, progress at most ~4 times a second. */
export class ModelEvents {
  private readonly last = new Map<number, { at: number; status: string }>();

  constructor(private readonly deps: { models: ModelRepository; bus: EventBus }) {}

  /** Whether an event for this model in this status is due (the throttle's answer). */
  due(id: number, status: string): boolean {
    const last = this.last.get(id);
    return !last || last.status !== status || performance.now() - last.at >= PROGRESS_EVENT_MS;
  }

  emit(id: number, force = false): void {
    const row = this.deps.models.findById(id);
    if (!row) return;
    if (!force && !this.due(id, row.status)) return;
    this.last.set(id, { at: performance.now(), status: row.status });
    const { progress, message } = progressOf(row);
    this.deps.bus.emit('model_progress', { model_id: id, status: row.status, progress, message });
  }
}

/** The wire shape; source_url follows the hub configured now, which the downloads use too. */
export function toModel(r: ModelRow, hubUrl: string): Model {
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
export function spaceIdOf(r: Pick<ModelRow, 'catalogue' | 'repo' | 'revision'>): string {
  return r.catalogue === BUILTIN_EMBEDDER_KEY || !r.repo
    ? BUILTIN_SPACE.id
    : onnxSpaceId(r.repo, r.revision);
}

/**
 * The directory a model's files live in, relative to the models directory: the one recorded
 * when its install began (`<repo>/<revision>` for installs before the flat layout, which keep
 * working), else the one an install of it would use.
 */
export function dirOf(r: ModelRow): string | null {
  if (r.local_path) return r.local_path;
  return r.repo ? installDirName(r.repo, r.revision) : null;
}

export function stagingOf(r: ModelRow): string | null {
  return r.repo ? `${STAGING}/${r.repo}@${r.revision}` : null;
}

/** A staging file's install: `owner/name@rev` (or `name@rev`) from its path under .staging. */
export function stagingUnit(rel: string): string {
  const [first = '', second = ''] = rel.split('/');
  return first.includes('@') || !second ? first : `${first}/${second}`;
}

export function statusText(status: string): string {
  return status.replace('_', ' ');
}

export function progressOf(r: ModelRow): { progress: number; message: string } {
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
