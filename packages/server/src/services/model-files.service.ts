/**
 * The files under the models directory: the cleanup of files no model uses, the cache (models
 * loaded in memory, partial downloads), and the loading and deleting the registry and the
 * installer ask for.
 */
import fs from 'node:fs/promises';
import path from 'node:path';
import {
  MODEL_LANGUAGES,
  MODEL_TYPES,
  type ClearCacheResult,
  type DeleteModelFilesResult,
  type ModelType,
  type UnusedFileType,
  type UnusedModelFile,
} from '@adam/contracts';
import type { Engine } from '../engine/engine.js';
import { removeStaging } from '../embedding/hub-download.js';
import { BadRequest, Unprocessable } from '../lib/errors.js';
import type { Logger } from '../logging.js';
import { formatBytes } from '../scraping/fetch-error.js';
import type { ModelRepository, ModelRow } from '../store/model.repository.js';
import { MODEL_CATALOGUE } from './model-catalogue.js';
import {
  inspectModelFile,
  installDirName,
  isWithin,
  linkOnTheWay,
  listFiles,
  normalisedPath,
  pathProblem,
  pruneEmptyDirs,
} from './model-files-guard.js';
import {
  dirOf,
  HOLDS_FILES,
  STAGING,
  stagingOf,
  stagingUnit,
  TASK,
  type ModelEvents,
  type ModelRunner,
} from './model-rows.js';
import { round } from '../lib/round.js';

export interface ModelFilesDeps {
  models: ModelRepository;
  /** `<dataDir>/models`: every model's files, the staging area and the built-in model. */
  modelsRoot: string;
  engine: Pick<Engine, 'unloadOnnxModels'>;
  /** Makes the ONNX runner on first use (its threads load a native runtime). */
  createRunner: () => ModelRunner;
  events: ModelEvents;
  log: Logger;
}

export class ModelFilesService {
  private runner: ModelRunner | null = null;
  /** Loads in flight, by directory and task. */
  private readonly loading = new Map<string, Promise<void>>();

  constructor(private readonly deps: ModelFilesDeps) {}

  async close(): Promise<void> {
    const runner = this.runner;
    this.runner = null;
    await runner?.close();
  }

  /** A path relative to the models directory (as rows record them), made absolute. */
  abs(rel: string): string {
    return path.join(this.deps.modelsRoot, ...rel.split('/'));
  }

  /** The symbolic link on the way to a model directory (an uninstall does not follow it), or null. */
  linkOnTheWay(dir: string): Promise<string | null> {
    return linkOnTheWay(this.deps.modelsRoot, dir);
  }

  getRunner(): ModelRunner {
    this.runner ??= this.deps.createRunner();
    return this.runner;
  }

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
      this.deps.events.emit(row.id, true);
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

  /** Removes an install's partial files and the folders they leave empty. */
  async removeStaging(staging: string): Promise<void> {
    await removeStaging(this.abs(staging));
    await pruneEmptyDirs(this.deps.modelsRoot, path.dirname(this.abs(staging)));
  }

  /** Loads a model's files in the runner (once per directory and task); status loaded. */
  async ensureLoaded(row: ModelRow, dir: string): Promise<void> {
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
          this.deps.events.emit(row.id, true);
        } catch (e) {
          const message = `Loading failed: ${(e as Error).message}`;
          this.deps.models.update(row.id, { status: 'error', error: message, message });
          this.deps.events.emit(row.id, true);
          throw new BadRequest(`Model ${row.name} could not be loaded: ${(e as Error).message}`);
        } finally {
          this.loading.delete(key);
        }
      })();
      this.loading.set(key, pending);
    }
    await pending;
  }

  /** Frees a directory's model from memory before its files go. */
  async unloadDir(dir: string): Promise<void> {
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
  async removeDir(dir: string): Promise<boolean> {
    const full = this.abs(dir);
    const existed = (await fs.lstat(full).catch(() => null)) !== null;
    await fs.rm(full, { recursive: true, force: true });
    await pruneEmptyDirs(this.deps.modelsRoot, path.dirname(full));
    return existed;
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
}

// ---------------------------------------------------------------------------------------------

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
