/** Wire answers for the model screens' tests, shaped by the contracts. */
import { afterEach, beforeEach, vi } from 'vitest';
import type {
  InstallProgress,
  LanguagePack,
  Model,
  ModelActionResult,
  ModelList,
  ModelStats,
  UnusedModelFile,
} from '@adam/contracts';

export function model(id: number, over: Partial<Model> = {}): Model {
  return {
    id,
    name: `model-${id}`,
    type: 'embedding',
    language: 'en',
    status: 'not_installed',
    active: false,
    size: 90_000_000,
    version: '1.0',
    description: `Sentence embeddings (model ${id}).`,
    performance: { load_time_ms: null, memory_mb: null, inference_speed: null },
    source_url: `http://hub.test/sentence-transformers/model-${id}`,
    local_path: null,
    updated_at: '2026-03-01T10:00:00.000Z',
    repo: `sentence-transformers/model-${id}`,
    revision: 'main',
    dimension: null,
    builtin: false,
    error: null,
    activation_job_id: null,
    ...over,
  };
}

function stats(over: Partial<ModelStats> = {}): ModelStats {
  return {
    total_models: 4,
    active_models: 1,
    loaded_models: 1,
    installed_models: 2,
    total_disk_usage_mb: 123.6,
    available_languages: 2,
    ...over,
  };
}

export const modelList = (models: Model[], over: Partial<ModelStats> = {}): ModelList => ({
  models,
  stats: stats({ total_models: models.length, ...over }),
});

export function progress(id: number, over: Partial<InstallProgress> = {}): InstallProgress {
  return {
    model_id: id,
    progress: 0,
    status: 'downloading',
    message: 'Downloading model.onnx',
    downloaded_bytes: 0,
    total_bytes: 1000,
    job_id: 21,
    ...over,
  };
}

export function actionResult(id: number, over: Partial<ModelActionResult> = {}): ModelActionResult {
  return { model_id: id, status: 'downloading', message: 'Install queued', job_id: 21, ...over };
}

export function pack(code: LanguagePack['code'], over: Partial<LanguagePack> = {}): LanguagePack {
  return {
    code,
    name: code === 'fr' ? 'French' : code === 'en' ? 'English' : code,
    flag: code === 'fr' ? '🇫🇷' : '🏳️',
    version: '3.7.0',
    required_version: '3.7.0',
    size: 12 * 1024 * 1024,
    installed: false,
    status: 'not_installed',
    model_id: 100,
    description: `Sentence splitting and entities for ${code}.`,
    ...over,
  };
}

export function unusedFile(path: string, over: Partial<UnusedModelFile> = {}): UnusedModelFile {
  return { path, type: 'embedding', language: 'en', size: 1024, ...over };
}

/**
 * A window tall enough that the short lists of these tests are not virtualised (jsdom lays
 * nothing out), put back after each test with the real timers.
 */
export function keepListsUnvirtualised(): void {
  let innerHeight: number;
  beforeEach(() => {
    innerHeight = window.innerHeight;
    window.innerHeight = 5000;
  });
  afterEach(() => {
    window.innerHeight = innerHeight;
    vi.useRealTimers();
  });
}
