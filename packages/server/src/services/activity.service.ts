import type { RecentActivity } from '@adam/contracts';
import type { Logger } from '../logging.js';
import type { EventBus } from '../lib/event-bus.js';
import { crawlSyncSummary } from './crawl-sync-summary.js';
import type { ActivityRepository, NewActivity } from '../store/activity.repository.js';

/** The feed keeps this many items; older ones go. */
const ACTIVITY_KEEP = 10_000;
/** Pruning runs once per this many writes: the feed may hold a little more between two. */
const PRUNE_EVERY = 100;

const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;

/**
 * The overview's recent activity: one line per job end, deletion, maintenance action, backup,
 * restore, login or settings save, written as the bus reports them. The services that do these
 * things only emit their event; none of them knows about the feed.
 */
export class ActivityService {
  private readonly unsubscribe: (() => void)[] = [];
  private writes = 0;

  constructor(
    private readonly deps: {
      activity: ActivityRepository;
      bus: EventBus;
      log: Logger;
      keep?: number;
      now?: () => number;
    },
  ) {}

  start(): void {
    const { bus } = this.deps;
    this.prune();
    this.unsubscribe.push(
      bus.on('job_created', (e) =>
        this.add({
          kind: 'job_created',
          level: 'info',
          job_id: e.job_id,
          message: `Job ${e.job_id} queued (${e.type}, ${e.priority} priority)`,
        }),
      ),
      bus.on('job_completed', (e) =>
        this.add({
          kind: 'job_completed',
          level: 'success',
          job_id: e.job_id,
          message: `Job ${e.job_id} completed: ${plural(e.segments_created, 'segment')}`,
        }),
      ),
      bus.on('job_failed', (e) =>
        this.add({
          kind: 'job_failed',
          level: 'error',
          job_id: e.job_id,
          message: `Job ${e.job_id} failed${e.error ? `: ${e.error}` : ''}`,
        }),
      ),
      bus.on('job_cancelled', (e) =>
        this.add({
          kind: 'job_cancelled',
          level: 'warning',
          job_id: e.job_id,
          message: `Job ${e.job_id} cancelled`,
        }),
      ),
      bus.on('snippets.deleted', (e) =>
        this.add({
          kind: 'snippets_deleted',
          level: 'warning',
          job_id: null,
          message: `${plural(e.ids.length, 'snippet')} deleted`,
        }),
      ),
      bus.on('maintenance.done', (e) =>
        this.add({ kind: 'maintenance', level: 'info', job_id: e.job_id, message: e.message }),
      ),
      bus.on('backup.created', (e) =>
        this.add({
          kind: 'backup',
          level: 'success',
          job_id: null,
          message: `Backup ${e.id} created (${e.reason}, ${e.size_mb} MB)`,
        }),
      ),
      bus.on('backup.restored', (e) =>
        this.add({
          kind: 'restore',
          level: 'warning',
          job_id: null,
          message: `Backup ${e.id} restored: ${plural(e.snippets, 'snippet')}`,
        }),
      ),
      bus.on('auth.login', (e) =>
        this.add({ kind: 'login', level: 'info', job_id: null, message: `${e.email} logged in` }),
      ),
      bus.on('source.synced', (e) => {
        const c = e.counts;
        const what =
          e.outcome === 'changed'
            ? `changed: ${c.segments_added} segments added, ${c.segments_kept} kept, ${c.segments_removed} removed, ${c.reembedded} embedded`
            : e.outcome === 'unchanged'
              ? 'unchanged'
              : e.outcome === 'pruned'
                ? `gone, pruned with ${plural(c.segments_removed, 'snippet')}`
                : `${e.outcome}${e.error ? `: ${e.error}` : ''}`;
        this.add({
          kind: 'sync',
          level:
            e.outcome === 'failed'
              ? 'error'
              : e.outcome === 'changed' || e.outcome === 'unchanged'
                ? 'success'
                : 'warning',
          job_id: e.job_id,
          message: `Sync of ${e.url.slice(0, 200)}: ${what}`,
        });
      }),
      bus.on('crawl.synced', (e) =>
        this.add({
          kind: 'sync',
          level: e.sync.pages_failed > 0 ? 'warning' : 'success',
          job_id: e.job_id,
          message: `Sync of crawl ${e.crawl_id}: ${crawlSyncSummary(e.sync)}`,
        }),
      ),
      bus.on('quality_alert', (e) =>
        this.add({
          kind: 'quality_alert',
          level: 'warning',
          job_id: null,
          message:
            `Search quality fell on evaluation set "${e.set_name}" (${e.mode}): nDCG@10 −${e.fall.toFixed(3)}, ${e.lost_count} ${e.lost_count === 1 ? 'query' : 'queries'} lost${e.lost_texts.length ? `: ${e.lost_texts.map((t) => `"${t}"`).join(', ')}` : ''}`.slice(
              0,
              1000,
            ),
        }),
      ),
      bus.on('settings.saved', (e) =>
        this.add({
          kind: 'settings',
          level: 'info',
          job_id: null,
          message: `Settings section ${e.section} saved`,
        }),
      ),
    );
  }

  stop(): void {
    for (const off of this.unsubscribe.splice(0)) off();
  }

  recent(limit: number): RecentActivity {
    return { items: this.deps.activity.listRecent(limit) };
  }

  private add(a: NewActivity): void {
    // A feed line is never worth failing the action that reported it.
    try {
      const at = new Date((this.deps.now ?? Date.now)()).toISOString();
      this.deps.activity.insert(a, at);
      if (++this.writes % PRUNE_EVERY === 0) this.prune();
    } catch (e) {
      this.deps.log.warn({ component: 'activity', err: e }, 'Recording activity failed');
    }
  }

  private prune(): void {
    this.deps.activity.deleteAllButNewest(this.deps.keep ?? ACTIVITY_KEEP);
  }
}
