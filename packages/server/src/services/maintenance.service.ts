import {
  CLEAR_OLD_JOBS_DAYS,
  DUPLICATE_THRESHOLD_DEFAULT,
  LOW_QUALITY_THRESHOLD_DEFAULT,
  type MaintenanceHealth,
  type MaintenanceRequest,
  type MaintenanceResult,
} from '@adam/contracts';
import type { z } from 'zod';
import type { MaintenanceRequest as Req } from '@adam/contracts';
import type { Logger } from '../logging.js';
import type { EventBus } from '../lib/event-bus.js';
import type { SnippetRepository } from '../store/snippet.repository.js';
import type { HealthService } from './health.service.js';
import {
  blobToVector,
  type IndexUpkeep,
  type IndexWrites,
  type VectorSearch,
} from './index.service.js';
import type { JobService } from './job.service.js';
import { Conflict } from '../lib/errors.js';
import { SnippetDeleter } from './snippet-deleter.js';

type Parsed = z.output<typeof Req>;

/** The jobs that build the whole index again; at most one of them waits or runs. */
const INDEX_JOB_TYPES = ['rebuild_index', 'optimize_index'] as const;

/** Yields to the event loop between chunks, so a long cleanup never freezes the API. */
const breathe = () => new Promise<void>((r) => setImmediate(r));

export class MaintenanceService {
  private readonly deleter: SnippetDeleter;

  constructor(
    private readonly deps: {
      snippets: SnippetRepository;
      index: VectorSearch &
        Pick<IndexUpkeep, 'storage' | 'wantedStorage'> &
        Pick<IndexWrites, 'removeAndSave'>;
      jobs: JobService;
      health: HealthService;
      bus: EventBus;
      log: Logger;
    },
  ) {
    this.deleter = new SnippetDeleter(deps);
  }

  /**
   * When the settings ask for another index storage, queues the rebuild that moves the index to
   * it, unless one is already waiting (it reads the setting when it starts). Null when there is
   * nothing to do.
   */
  queueStorageChange(): MaintenanceResult | null {
    const { index, jobs, log } = this.deps;
    const storage = index.wantedStorage;
    if (storage === index.storage || jobs.pendingOfType('rebuild_index').length > 0) return null;
    const job = jobs.create(
      {
        type: 'rebuild_index',
        priority: 'high',
        input: { reembed: false, optimize: false },
        metadata: { action: 'change_storage', storage },
      },
      { internal: true },
    );
    const message = `Rebuilding the index with ${storage} storage as job ${job.id}`;
    log.info({ component: 'index' }, message);
    return {
      action: 'rebuild_index',
      status: 'queued',
      message,
      job_id: job.id,
      counts: { vectors: index.size },
    };
  }

  /**
   * One index rebuild or optimisation at a time: a second would only redo the same work after
   * the first, so it is refused while one waits or runs (a storage change's rebuild included).
   */
  private refuseSecondIndexJob(): void {
    for (const type of INDEX_JOB_TYPES) {
      const busy = this.deps.jobs.page('active', { type, limit: 1 }).jobs[0];
      if (busy) {
        throw new Conflict(
          `The index is already being ${type === 'optimize_index' ? 'optimized' : 'rebuilt'} by job ${busy.id} (${busy.status}); try again once it has ended`,
        );
      }
    }
  }

  async execute(req: Parsed | MaintenanceRequest): Promise<MaintenanceResult> {
    const result = await this.run(req);
    const { action, message, job_id } = result;
    this.deps.bus.emit('maintenance.done', { action, message, job_id });
    return result;
  }

  private async run(req: Parsed | MaintenanceRequest): Promise<MaintenanceResult> {
    const params = req.params ?? {};
    switch (req.action) {
      case 'optimize_index':
      case 'rebuild_index': {
        const optimize = req.action === 'optimize_index';
        this.refuseSecondIndexJob();
        const job = optimize
          ? this.deps.jobs.create({
              type: 'optimize_index',
              priority: 'high',
              metadata: { action: req.action },
            })
          : this.deps.jobs.create({
              type: 'rebuild_index',
              priority: 'high',
              input: { reembed: params.reembed ?? true },
              metadata: { action: req.action },
            });
        return {
          action: req.action,
          status: 'queued',
          message: optimize
            ? `Compacting the index graph as job ${job.id}`
            : `Rebuilding the index with the active embedder as job ${job.id}`,
          job_id: job.id,
          counts: { vectors: this.deps.index.size },
        };
      }
      case 'cleanup_duplicates':
        return this.cleanupDuplicates(
          params.threshold ?? DUPLICATE_THRESHOLD_DEFAULT,
          params.dry_run ?? false,
        );
      case 'cleanup_low_quality':
        return this.cleanupLowQuality(
          params.threshold ?? LOW_QUALITY_THRESHOLD_DEFAULT,
          params.dry_run ?? false,
        );
      case 'reset_stuck_jobs': {
        const ids = this.deps.jobs.resetStuck();
        return {
          action: req.action,
          status: 'completed',
          message: `Requeued ${ids.length} stuck job(s)`,
          job_id: null,
          counts: { reset: ids.length },
          ids,
        };
      }
      case 'clear_old_jobs': {
        const days = params.days ?? CLEAR_OLD_JOBS_DAYS;
        const n = this.deps.jobs.clearOldCompleted(days);
        this.deps.log.info(
          { component: 'maintenance' },
          `Cleared ${n} completed job(s) older than ${days} days`,
        );
        return {
          action: req.action,
          status: 'completed',
          message: `Removed ${n} completed job(s) older than ${days} days`,
          job_id: null,
          counts: { deleted: n },
        };
      }
    }
  }

  /**
   * Near-duplicate snippets by vector similarity: for each indexed snippet, its neighbours at or
   * above the threshold go, keeping the better-quality one (the older on a tie).
   */
  private async cleanupDuplicates(threshold: number, dryRun: boolean): Promise<MaintenanceResult> {
    const keys = this.deps.index.keys().sort((a, b) => a - b);
    const gone = new Set<number>();
    const quality = new Map<number, number>();
    let checked = 0;
    for (let i = 0; i < keys.length; i += 256) {
      const chunk = keys.slice(i, i + 256).filter((k) => !gone.has(k));
      const stored = this.deps.snippets.embeddings(chunk);
      const rows = this.deps.snippets.findByIds(chunk);
      for (const r of rows) quality.set(r.id, r.quality_score);
      for (const key of chunk) {
        if (gone.has(key)) continue;
        const e = stored.get(key)?.embedding;
        if (!e) continue;
        checked++;
        const { hits } = await this.deps.index.search(
          blobToVector(e),
          10,
          `#dup:${key}:${gone.size}`,
        );
        for (const h of hits) {
          if (h.key === key || gone.has(h.key) || h.similarity < threshold) continue;
          if (!quality.has(h.key)) {
            const row = this.deps.snippets.findById(h.key);
            if (!row) continue;
            quality.set(h.key, row.quality_score);
          }
          const qa = quality.get(key) ?? 0;
          const qb = quality.get(h.key) ?? 0;
          // Keep the better one; on a tie keep the older (smaller id).
          const loser = qb > qa || (qb === qa && h.key < key) ? key : h.key;
          gone.add(loser);
          if (loser === key) break;
        }
      }
      await breathe();
    }
    const ids = [...gone].sort((a, b) => a - b);
    if (!dryRun && ids.length) this.deleter.delete(ids);
    const verb = dryRun ? 'Found' : 'Removed';
    this.deps.log.info(
      { component: 'maintenance' },
      `${verb} ${ids.length} near-duplicate snippet(s) at similarity ≥ ${threshold}`,
    );
    return {
      action: 'cleanup_duplicates',
      status: 'completed',
      message: `${verb} ${ids.length} near-duplicate snippet(s) at similarity ≥ ${threshold}`,
      job_id: null,
      counts: { checked, deleted: dryRun ? 0 : ids.length, found: ids.length, threshold },
      ids: ids.slice(0, 1000),
    };
  }

  private async cleanupLowQuality(threshold: number, dryRun: boolean): Promise<MaintenanceResult> {
    const ids = this.deps.snippets.idsBelowQuality(threshold);
    if (!dryRun && ids.length) this.deleter.delete(ids);
    const verb = dryRun ? 'Found' : 'Removed';
    this.deps.log.info(
      { component: 'maintenance' },
      `${verb} ${ids.length} snippet(s) with quality below ${threshold}`,
    );
    return {
      action: 'cleanup_low_quality',
      status: 'completed',
      message: `${verb} ${ids.length} snippet(s) with quality below ${threshold}`,
      job_id: null,
      counts: { deleted: dryRun ? 0 : ids.length, found: ids.length, threshold },
      ids: ids.slice(0, 1000),
    };
  }

  async healthChecks(): Promise<MaintenanceHealth> {
    const report = await this.deps.health.report();
    return {
      status: report.status,
      checks: Object.entries(report.components).map(([component, c]) => ({ component, ...c })),
      checked_at: new Date().toISOString(),
    };
  }
}
