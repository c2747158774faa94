/**
 * The install lifecycle of the registry's models: install and uninstall (a model, a language
 * pack), the install_model job's side of a download (ModelInstaller), and the installs whose
 * job ended without saying so.
 */
import fs from 'node:fs/promises';
import path from 'node:path';
import type { InstallProgress, ModelActionResult, ModelStatus, ModelType } from '@adam/contracts';
import type { DownloadProgress, DownloadResult } from '../embedding/hub-download.js';
import { REQUIRED_MODEL_FILES } from '../embedding/model-files.js';
import { Conflict } from '../lib/errors.js';
import type { Logger } from '../logging.js';
import type { InstallPlan, ModelInstaller } from '../queue/model-installer.js';
import { formatBytes } from '../scraping/fetch-error.js';
import type { SafeFetcher } from '../scraping/safe-fetcher.js';
import type { ModelRepository, ModelRow, ModelWritable } from '../store/model.repository.js';
import type { EventBus } from '../lib/event-bus.js';
import { dirSize, installDirName } from './model-files-guard.js';
import type { ModelFilesService } from './model-files.service.js';
import type { ModelRegistry } from './model-registry.service.js';
import {
  dirOf,
  findJob,
  HOLDS_FILES,
  INSTALLED,
  modelRow,
  packRow,
  progressOf,
  rowsUsing,
  stagingOf,
  statusText,
  TASK,
  type ModelEvents,
  type ModelJobs,
} from './model-rows.js';

export interface ModelInstallDeps {
  models: ModelRepository;
  hub: { fetcher: SafeFetcher; url: string; idleTimeoutMs: number };
  /** Which model is active, and the language packs to tell the engine after an install. */
  registry: Pick<ModelRegistry, 'isActive' | 'syncLanguagePacks'>;
  files: ModelFilesService;
  events: ModelEvents;
  /** A function: the job service is built around the queue, whose jobs use this service. */
  jobs: () => ModelJobs;
  bus: EventBus;
  log: Logger;
}

export class ModelInstallService implements ModelInstaller {
  readonly hub: ModelInstallDeps['hub'];
  /** Installs running, by directory: a second install of the same files waits for the first. */
  private readonly installing = new Map<string, Promise<void>>();
  private readonly offs: (() => void)[] = [];

  constructor(private readonly deps: ModelInstallDeps) {
    this.hub = deps.hub;
  }

  /**
   * Nothing is in memory after a start: an install whose job was cancelled, deleted or failed
   * without running is no longer downloading; and so from now on.
   */
  start(): void {
    const { models, bus } = this.deps;
    for (const row of models.listByStatus(['downloading'])) this.settleJob(row);
    const settle = (e: { job_id: number }) => {
      const row = models.findByJobId(e.job_id);
      if (row?.status === 'downloading') this.settleJob(row);
    };
    for (const event of ['job_cancelled', 'job_deleted', 'job_failed'] as const) {
      this.offs.push(bus.on(event, settle));
    }
  }

  close(): void {
    this.offs.splice(0).forEach((off) => off());
  }

  install(id: number): ModelActionResult {
    const { models, log } = this.deps;
    const row = modelRow(this.deps.models, id);
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
    this.deps.events.emit(id, true);
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
    const row = modelRow(this.deps.models, id);
    if (row.builtin) {
      throw new Conflict(
        `Model ${row.name} is built in: it ships with ADAM and cannot be uninstalled`,
      );
    }
    if (row.status === 'not_installed') throw new Conflict(`Model ${row.name} is not installed`);
    if (row.type === 'embedding' && this.deps.registry.isActive(row)) {
      throw new Conflict(
        `Model ${row.name} is the active embedding model: activate another embedding model before uninstalling it`,
      );
    }
    if (row.status === 'downloading' && row.job_id !== null) {
      // Its partial files stay until a cache clear: the job may still be writing them.
      const job = findJob(this.deps.jobs(), row.job_id);
      if (job && (job.status === 'pending' || job.status === 'processing')) {
        this.deps.jobs().cancel(row.job_id);
      }
    }
    const dir = dirOf(row);
    const users = dir ? rowsUsing(this.deps.models, dir, row.id, INSTALLED) : [];
    const link = dir ? await this.deps.files.linkOnTheWay(dir) : null;
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
    this.deps.registry.syncLanguagePacks();
    let removed = false;
    if (dir && users.length === 0 && !link) {
      await this.deps.files.unloadDir(dir);
      removed = await this.deps.files.removeDir(dir);
    }
    const message = users.length
      ? `${row.name} uninstalled; its files stay, ${users.map((u) => u.name).join(', ')} use(s) them`
      : link
        ? `${row.name} uninstalled; its files stay: ${link} is a symbolic link, which an uninstall does not follow`
        : `${row.name} uninstalled`;
    log.info({ component: 'models' }, removed ? `${message}: files deleted` : message);
    this.deps.events.emit(id, true);
    return { model_id: id, status: 'not_installed', message, job_id: null, progress: 100 };
  }

  progress(id: number): InstallProgress {
    const row = modelRow(this.deps.models, id);
    const { progress, message } = progressOf(row);
    const job = row.job_id !== null ? findJob(this.deps.jobs(), row.job_id) : null;
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

  installPack(code: string): ModelActionResult {
    return this.install(packRow(this.deps.models, code).id);
  }

  uninstallPack(code: string): Promise<ModelActionResult> {
    return this.uninstall(packRow(this.deps.models, code).id);
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
    const clash = rowsUsing(this.deps.models, dir, row.id, HOLDS_FILES).find(
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
    this.deps.events.emit(modelId, true);
    return {
      repo: row.repo!,
      revision: row.revision,
      destDir: this.deps.files.abs(dir),
      stagingDir: this.deps.files.abs(stagingOf(row)!),
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
      if (dir && (await hasModelFiles(this.deps.files.abs(dir)))) return dir;
    }
    return null;
  }

  installProgress(modelId: number, jobId: number, p: DownloadProgress): void {
    // Throttled like the events: a 1 GB file comes in thousands of chunks.
    if (!this.deps.events.due(modelId, 'downloading') && p.downloadedBytes < p.totalBytes) return;
    const changed = this.deps.models.update(
      modelId,
      {
        downloaded_bytes: p.downloadedBytes,
        total_bytes: p.totalBytes,
        message: `Downloading ${p.file}: ${formatBytes(p.downloadedBytes)} of ${formatBytes(p.totalBytes)}`,
      },
      { jobId, statuses: ['downloading'] },
    );
    if (changed) this.deps.events.emit(modelId, true);
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
    const config = await readConfig(this.deps.files.abs(dir));
    const hidden = typeof config.hidden_size === 'number' ? config.hidden_size : null;
    const version =
      typeof config.transformers_version === 'string' ? config.transformers_version : null;
    const bytes = await dirSize(this.deps.files.abs(dir));
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
    this.deps.registry.syncLanguagePacks();
    log.info(
      { component: 'models' },
      `Model ${row.name} installed from ${row.repo}@${row.revision} (${formatBytes(bytes)})`,
    );
    this.deps.events.emit(modelId, true);
  }

  async failInstall(modelId: number, jobId: number, message: string): Promise<void> {
    const { models, log } = this.deps;
    const row = models.findById(modelId);
    if (!row || row.job_id !== jobId) return;
    const dir = dirOf(row);
    // Nothing half-installed stays: the download only ever puts complete files in place, so
    // what may be there is files whose config failed to read (gone unless another model uses
    // them); the partial files go too, as a failed file may be what made them.
    if (dir && rowsUsing(this.deps.models, dir, modelId, INSTALLED).length === 0)
      await this.deps.files.removeDir(dir);
    const staging = stagingOf(row);
    if (staging) {
      await this.deps.files.removeStaging(staging);
    }
    const changed = models.update(
      modelId,
      { status: 'error', error: message, message, local_path: null, last_action: 'install' },
      { jobId },
    );
    if (!changed) return;
    log.warn({ component: 'models' }, `Install of ${row.name} failed: ${message}`);
    this.deps.events.emit(modelId, true);
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
      this.deps.events.emit(modelId, true);
    }
  }

  pauseInstall(modelId: number, jobId: number): void {
    const changed = this.deps.models.update(
      modelId,
      { message: 'Paused: the download resumes when its job runs again' },
      { jobId, statuses: ['downloading'] },
    );
    if (changed) this.deps.events.emit(modelId, true);
  }

  /** An install whose job ended without saying so (cancelled while pending, deleted, crashed). */
  private settleJob(row: ModelRow): void {
    const job = row.job_id !== null ? findJob(this.deps.jobs(), row.job_id) : null;
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
    if (this.deps.models.update(row.id, fields, guard)) this.deps.events.emit(row.id, true);
  }
}

// ---------------------------------------------------------------------------------------------

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
