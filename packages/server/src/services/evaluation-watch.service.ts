import {
  EVALUATION_MODES,
  MAX_ALERT_LOST_QUERIES,
  MAX_ALERT_QUERY_TEXT,
  type EvaluationTrigger,
  type LostQuery,
  type QualityAlert,
  type QualitySettings,
} from '@adam/contracts';
import type { EventBus } from '../lib/event-bus.js';
import { NotFound } from '../lib/errors.js';
import type { Logger } from '../logging.js';
import type { EvaluationRepository } from '../store/evaluation.repository.js';
import type { QualityAlertRepository, QualityAlertRow } from '../store/quality-alert.repository.js';
import type { EvaluationService } from './evaluation.service.js';
import { round } from '../lib/round.js';

/** Between two looks for watched sets whose scheduled run is due: periods are hours. */
const WATCH_TICK_MS = 60_000;
const HOUR_MS = 3_600_000;
/** setTimeout's longest delay. */
const MAX_TIMER_MS = 2 ** 31 - 1;
/**
 * The processing settings that change what a search answers without rebuilding the index
 * (index_storage rebuilds: its run follows the rebuild). The reranker's are read only when the
 * section has them.
 */
const SEARCH_SETTING_FIELDS = [
  'search_vector_weight',
  'rerank_enabled',
  'rerank_top_n',
  'reranker_model',
] as const;
/** How many lost queries the warning log line names (the alert keeps up to 20). */
const LOGGED_LOST = 5;
const LOGGED_TEXT = 80;

/** What the watch needs to know of a finished job. */
export interface FinishedJob {
  type: string;
  metadata: Record<string, unknown>;
}

interface EvaluationWatchDeps {
  evaluations: Pick<EvaluationService, 'startRun' | 'hasRunInProgress' | 'compare'>;
  repo: Pick<
    EvaluationRepository,
    'listWatchedSets' | 'latestRun' | 'previousCompletedRun' | 'findRun' | 'findSet'
  >;
  alerts: QualityAlertRepository;
  bus: EventBus;
  log: Logger;
  quality: () => QualitySettings;
  /** The processing section as stored (read loosely: the reranker's fields may be absent). */
  processing: () => object;
  /** A job's type and metadata; null once it is gone. */
  jobOf: (jobId: number) => FinishedJob | null;
  now?: () => number;
  tickMs?: number;
}

type RunModes = Parameters<EvaluationService['startRun']>[0]['modes'];

const cut = (text: string, max: number) =>
  text.length > max ? `${text.slice(0, max - 1)}…` : text;

/**
 * Continuous evaluation (issue 27): watched sets get a run queued after a rebuild of the index,
 * a switch of the embedding model and a change of the search settings (when the quality
 * settings' evaluation_on_change is on), and every evaluation_schedule_hours; when a run of a
 * watched set completes, each mode's nDCG@10 is compared with the set's previous completed run
 * and a fall beyond evaluation_drop_threshold becomes an alert (log, activity feed, realtime).
 * It hears of jobs through the bus and queues through the evaluation service only.
 */
export class EvaluationWatchService {
  private readonly now: () => number;
  private readonly offs: (() => void)[] = [];
  private timer: NodeJS.Timeout | null = null;
  private closed = false;
  private searchSettings: string;
  /** The search fields a save changed ('settings.updated' comes just before 'settings.saved'). */
  private changedBySave: string[] = [];

  constructor(private readonly deps: EvaluationWatchDeps) {
    this.now = deps.now ?? Date.now;
    this.searchSettings = this.snapshot();
  }

  start(): void {
    const { bus } = this.deps;
    this.offs.push(
      bus.on('job_completed', ({ job_id }) => this.jobCompleted(job_id)),
      // Restores emit 'settings.updated' alone: they move the snapshot and queue nothing.
      bus.on('settings.updated', ({ section }) => {
        if (section !== 'processing') return;
        const before = JSON.parse(this.searchSettings) as Record<string, unknown>;
        this.searchSettings = this.snapshot();
        const after = JSON.parse(this.searchSettings) as Record<string, unknown>;
        this.changedBySave = Object.keys(after).filter(
          (k) => JSON.stringify(before[k]) !== JSON.stringify(after[k]),
        );
      }),
      bus.on('settings.saved', ({ section }) => {
        if (section !== 'processing') return;
        const changed = this.changedBySave;
        this.changedBySave = [];
        if (changed.length) this.queueWatched('settings', `${changed.join(', ')} changed`);
      }),
    );
    this.tick();
    this.timer = setInterval(
      () => this.tick(),
      Math.min(this.deps.tickMs ?? WATCH_TICK_MS, MAX_TIMER_MS),
    );
    this.timer.unref();
  }

  close(): void {
    this.closed = true;
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    for (const off of this.offs.splice(0)) off();
  }

  /** Queues the scheduled runs that are due; answers their run ids. */
  tick(): number[] {
    if (this.closed) return [];
    const hours = this.deps.quality().evaluation_schedule_hours;
    if (hours <= 0) return [];
    const now = this.now();
    const due = this.deps.repo.listWatchedSets().filter((set) => {
      // Counted from the set's last run of any kind, as stored: a restart loses nothing, and a
      // set never run is due at once (its first run is the baseline later runs compare with).
      const last = this.deps.repo.latestRun(set.id);
      return !last || Date.parse(last.created_at) + hours * HOUR_MS <= now;
    });
    return this.queue(
      due.map((s) => s.id),
      'schedule',
      `due every ${hours} h`,
    );
  }

  /**
   * Queues a run of every watched set for a change, unless evaluation_on_change is off; a set
   * with a run waiting or running is left out (that run measures the change too).
   */
  queueWatched(trigger: Exclude<EvaluationTrigger, 'manual' | 'schedule'>, why: string): number[] {
    if (this.closed || !this.deps.quality().evaluation_on_change) return [];
    return this.queue(
      this.deps.repo.listWatchedSets().map((s) => s.id),
      trigger,
      why,
    );
  }

  listAlerts(all: boolean): { alerts: QualityAlert[] } {
    return { alerts: this.deps.alerts.list(all).map(toAlert) };
  }

  /** Dismissing a dismissed alert changes nothing and answers it as it is. */
  dismissAlert(id: number, by: string): QualityAlert {
    if (!this.deps.alerts.findById(id)) throw new NotFound('quality alert', id);
    if (this.deps.alerts.dismiss(id, by, new Date(this.now()).toISOString())) {
      this.deps.log.info({ component: 'evaluation' }, `Quality alert ${id} dismissed by ${by}`);
      this.deps.bus.emit('quality_alert_dismissed', { alert_id: id });
    }
    return toAlert(this.deps.alerts.findById(id)!);
  }

  /**
   * Compares a completed run of a watched set with the set's previous completed run, mode by
   * mode; answers the ids of the alerts raised.
   */
  detectDrop(runId: number): number[] {
    const { repo, alerts } = this.deps;
    const run = repo.findRun(runId);
    if (run?.status !== 'completed') return [];
    const set = repo.findSet(run.set_id);
    if (!set || set.watched !== 1) return [];
    const base = repo.previousCompletedRun(run.set_id, run.id);
    if (!base) return [];
    const threshold = this.deps.quality().evaluation_drop_threshold;
    const before = new Map(
      (JSON.parse(base.summary) as { mode: string; ndcg_10: number }[]).map((m) => [
        m.mode,
        m.ndcg_10,
      ]),
    );
    let comparison: ReturnType<EvaluationService['compare']> | null = null;
    const raised: number[] = [];
    for (const m of JSON.parse(run.summary) as { mode: string; ndcg_10: number }[]) {
      const was = before.get(m.mode);
      if (was === undefined) continue;
      const fall = round(was - m.ndcg_10);
      if (fall <= threshold) continue;
      comparison ??= this.deps.evaluations.compare(base.id, run.id);
      const lost = comparison.queries
        .filter((q) => q.mode === m.mode && q.outcome === 'lost')
        .sort((a, b) => a.delta.ndcg_10 - b.delta.ndcg_10 || a.key - b.key);
      const named: LostQuery[] = lost.slice(0, MAX_ALERT_LOST_QUERIES).map((q) => ({
        key: q.key,
        text: cut(q.text, MAX_ALERT_QUERY_TEXT),
        base_ndcg_10: q.base.ndcg_10,
        head_ndcg_10: q.head.ndcg_10,
      }));
      const id = alerts.insert(
        {
          run_id: run.id,
          set_id: set.id,
          mode: m.mode,
          base_run_id: base.id,
          base_ndcg_10: was,
          head_ndcg_10: m.ndcg_10,
          fall,
          threshold,
          lost_count: lost.length,
          lost_queries: named,
        },
        new Date(this.now()).toISOString(),
      );
      if (id === null) continue;
      raised.push(id);
      const texts = named.slice(0, LOGGED_LOST).map((q) => cut(q.text, LOGGED_TEXT));
      const more = lost.length > texts.length ? ` and ${lost.length - texts.length} more` : '';
      this.deps.log.warn(
        { component: 'evaluation' },
        `Search quality fell on evaluation set "${cut(set.name, 100)}" (${m.mode}): nDCG@10 ` +
          `${was.toFixed(3)} → ${m.ndcg_10.toFixed(3)} (−${fall.toFixed(3)}, threshold ` +
          `${threshold}) in run ${run.id} against run ${base.id}; ` +
          (lost.length
            ? `queries lost: ${texts.map((t) => `"${t}"`).join(', ')}${more}`
            : 'no single query lost more than noise'),
      );
      this.deps.bus.emit('quality_alert', {
        alert_id: id,
        set_id: set.id,
        set_name: set.name,
        run_id: run.id,
        mode: m.mode,
        fall,
        lost_count: lost.length,
        lost_texts: texts,
      });
    }
    return raised;
  }

  private jobCompleted(jobId: number): void {
    // A bus listener: whatever goes wrong here is logged, never thrown into the job's end.
    try {
      const job = this.deps.jobOf(jobId);
      if (!job) return;
      if (job.type === 'evaluation_run') {
        const runId = Number(job.metadata.run_id);
        if (Number.isSafeInteger(runId)) this.detectDrop(runId);
      } else if (job.type === 'rebuild_index' || job.type === 'optimize_index') {
        // A change of index_storage rebuilds the index: its run follows that rebuild, once.
        if (job.metadata.action === 'change_storage')
          this.queueWatched('settings', `index storage changed (job ${jobId})`);
        else this.queueWatched('rebuild', `index rebuilt (job ${jobId})`);
      } else if (job.type === 'switch_embedder') {
        this.queueWatched('model_switch', `embedding model switched (job ${jobId})`);
      }
    } catch (e) {
      this.deps.log.error(
        { component: 'evaluation', err: e },
        `The evaluation watch failed on job ${jobId}`,
      );
    }
  }

  private queue(setIds: number[], trigger: EvaluationTrigger, why: string): number[] {
    const queued: number[] = [];
    const modes = this.modes();
    for (const setId of setIds) {
      if (this.deps.evaluations.hasRunInProgress(setId)) continue;
      try {
        queued.push(this.deps.evaluations.startRun({ set_id: setId, modes, trigger }).id);
      } catch (e) {
        // A set without queries, or a full queue: the next trigger or tick tries again.
        this.deps.log.warn(
          { component: 'evaluation', err: e },
          `Evaluation set ${setId} not run (${trigger}): ${(e as Error).message}`,
        );
      }
    }
    if (queued.length)
      this.deps.log.info(
        { component: 'evaluation' },
        `Evaluation runs ${queued.join(', ')} queued (${trigger}: ${why})`,
      );
    return queued;
  }

  /** Every mode; hybrid + rerank only when a reranker is switched on in the settings. */
  private modes(): RunModes {
    const rerank = (this.deps.processing() as { rerank_enabled?: unknown }).rerank_enabled === true;
    return EVALUATION_MODES.filter((m: string) => m !== 'hybrid_rerank' || rerank) as RunModes;
  }

  private snapshot(): string {
    const p = this.deps.processing() as Record<string, unknown>;
    return JSON.stringify(
      Object.fromEntries(SEARCH_SETTING_FIELDS.filter((f) => f in p).map((f) => [f, p[f]])),
    );
  }
}

function toAlert(r: QualityAlertRow): QualityAlert {
  return {
    id: r.id,
    set_id: r.set_id,
    set_name: r.set_name,
    run_id: r.run_id,
    base_run_id: r.base_run_id,
    mode: r.mode as QualityAlert['mode'],
    base_ndcg_10: r.base_ndcg_10,
    head_ndcg_10: r.head_ndcg_10,
    fall: r.fall,
    threshold: r.threshold,
    trigger: r.trigger,
    lost_count: r.lost_count,
    lost_queries: JSON.parse(r.lost_queries) as LostQuery[],
    created_at: r.created_at,
    dismissed_at: r.dismissed_at,
    dismissed_by: r.dismissed_by,
  };
}
