import type {
  CrawlDefinition,
  CrawlSyncList,
  CrawlSyncNowResponse,
  SyncCounts,
} from '@adam/contracts';
import type { CrawlResult, CrawlSyncState } from '../queue/crawl-results.js';
import type { EventBus } from '../lib/event-bus.js';
import { Conflict, NotFound } from '../lib/errors.js';
import type { Logger } from '../logging.js';
import { MAX_KNOWN_SEGMENTS } from '../queue/source-sync.js';
import type { SyncCrawlInput } from '../queue/job-inputs.js';
import { SEGMENT_KEY_CHARS } from '../pipeline/segment-key.js';
import { domainOf } from '../scraping/rules.js';
import type { CrawlSyncRepository } from '../store/crawl-sync.repository.js';
import type { JobRepository, JobRow } from '../store/job.repository.js';
import type { SourceRepository } from '../store/source.repository.js';
import type { SourceSyncRepository } from '../store/source-sync.repository.js';
import type { IngestionService } from './ingestion.service.js';
import type { JobService } from './job.service.js';
import { type SourceSyncService, validatorsToSend } from './source-sync.service.js';
import { crawlSyncSummary } from './crawl-sync-summary.js';
import { nextSyncAfter, normalizeSchedule, type SyncTargets } from './sync-scheduler.js';

/** The recording half of a crawl's sync, as the sync_crawl job sees it (RecordDeps.crawlSyncs). */
export interface CrawlSyncRecorder {
  /** What the working half starts from: the pages the job holds, the crawl's other URLs. */
  state(crawlId: number, jobId: number): CrawlSyncState;
  /** Applies one result; answers why the page failed, or null. */
  record(crawlId: number, r: CrawlResult, job: JobRow, language: string): string | null;
  /**
   * Whether the job's running figures are due to be written (the job row and its event): at
   * most once per PROGRESS_EVERY_MS of the service's clock, not per page (a row write, an event
   * to every console); the job writes its final figures whatever this says.
   */
  progressDue(jobId: number): boolean;
}

/** How often a crawl's sync writes its running figures (see CrawlSyncRecorder.progressDue). */
export const PROGRESS_EVERY_MS = 250;
/**
 * Unchanged pages whose records wait to be written in one transaction: a commit per page was
 * about half of an unchanged page's store time. Written once this many wait, after
 * UNCHANGED_FLUSH_MS, before any other result of the job, and before its state is read. A polite
 * sync gets a page every few tens of ms: a shorter wait wrote a few pages per transaction.
 */
export const UNCHANGED_BATCH = 64;
export const UNCHANGED_FLUSH_MS = 1_000;

const NO_COUNTS: SyncCounts = {
  pages_added: 0,
  pages_changed: 0,
  pages_unchanged: 0,
  pages_removed: 0,
  pages_failed: 0,
  segments_added: 0,
  segments_kept: 0,
  segments_removed: 0,
  reembedded: 0,
  pages_resegmented: 0,
};
const COUNT_KEYS = Object.keys(NO_COUNTS) as (keyof SyncCounts)[];

/** A job's unchanged pages not written yet. */
interface Unwritten {
  crawlId: number;
  job: JobRow;
  language: string;
  results: CrawlResult[];
  cancel: () => void;
}

function safeDomain(url: string): string {
  try {
    return domainOf(url);
  } catch {
    return '';
  }
}

/**
 * Keeping a crawl fresh: a finished crawl_site job becomes a crawl with a schedule and "Sync
 * now". A sync (sync_crawl) runs the crawl again: known pages re-fetched conditionally and
 * applied by the sources' own sync (SourceSyncService.record: unchanged, changed with only new
 * segments embedded, missing and pruned at the threshold, failed and kept), new pages stored as
 * a crawl stores them. The crawl's SyncTargets for the scheduler.
 */
export class CrawlSyncService implements SyncTargets, CrawlSyncRecorder {
  readonly kind = 'crawl';
  private readonly now: () => number;
  /** When each running sync last wrote its figures (dropped when it finishes). */
  private readonly progressAt = new Map<number, number>();
  private readonly later: (fn: () => void, ms: number) => () => void;
  /** Each running sync's unchanged pages not written yet (see UNCHANGED_BATCH). */
  private readonly unwritten = new Map<number, Unwritten>();

  constructor(
    private readonly deps: {
      crawls: CrawlSyncRepository;
      sourceSyncRepo: SourceSyncRepository;
      sourceSyncs: SourceSyncService;
      sources: SourceRepository;
      ingestion: IngestionService;
      jobRows: JobRepository;
      jobs: JobService;
      bus: EventBus;
      log: Logger;
      now?: () => number;
      /** Runs `fn` after `ms` (the unchanged pages' flush); answers its cancel. */
      later?: (fn: () => void, ms: number) => () => void;
    },
  ) {
    this.now = deps.now ?? Date.now;
    this.later =
      deps.later ??
      ((fn, ms) => {
        const timer = setTimeout(fn, ms);
        timer.unref();
        return () => clearTimeout(timer);
      });
  }

  private at(): string {
    return new Date(this.now()).toISOString();
  }

  /** The crawl of a crawl_site job, made syncable at its first use once the job has ended. */
  private crawl(jobId: number) {
    const found = this.deps.crawls.find(jobId);
    if (found) return found;
    const job = this.deps.jobRows.findById(jobId);
    if (!job || job.type !== 'crawl_site') throw new NotFound('crawl', jobId);
    if (job.status === 'pending' || job.status === 'processing') {
      throw new Conflict(`Crawl ${jobId} is still running: schedule or sync it once it has ended`);
    }
    this.deps.crawls.create(jobId, job.input, this.at());
    return this.deps.crawls.find(jobId)!;
  }

  describe(id: number): CrawlDefinition {
    const c = this.crawl(id);
    const plan = JSON.parse(c.plan) as { start_urls: string[] };
    return {
      id: c.id,
      start_urls: plan.start_urls,
      schedule: c.schedule,
      next_sync_at: c.next_sync_at,
      last_sync_at: c.last_sync_at,
      pages: this.deps.crawls.countPages(id),
      last_sync: this.deps.crawls.listSyncs(id, 1)[0] ?? null,
    };
  }

  setSchedule(id: number, input: string): CrawlDefinition {
    this.crawl(id);
    const schedule = normalizeSchedule(input);
    const next = nextSyncAfter(schedule, this.now());
    this.deps.crawls.setSchedule(id, schedule, next === null ? null : new Date(next).toISOString());
    this.deps.log.info({ component: 'sync' }, `Crawl ${id} scheduled: ${schedule}`);
    return this.describe(id);
  }

  /** "Sync now": 409 while a sync of the crawl is waiting or running. */
  syncNow(id: number): CrawlSyncNowResponse {
    this.crawl(id);
    const jobId = this.queueOne(id, 'manual');
    return { job_id: jobId, crawl_id: id };
  }

  history(id: number, limit: number): CrawlSyncList {
    this.crawl(id);
    return { syncs: this.deps.crawls.listSyncs(id, limit) };
  }

  // --- SyncTargets -------------------------------------------------------------------------

  listDue(nowIso: string, limit: number) {
    return this.deps.crawls.listDue(nowIso, limit);
  }

  setNextSyncAt(id: number, iso: string | null): void {
    this.deps.crawls.setNextSyncAt(id, iso);
  }

  /** One sync job per crawl no sync holds; answers the last job queued. */
  queueSync(ids: number[], reason: 'schedule' | 'manual'): number | null {
    let last: number | null = null;
    for (const id of ids) {
      if (this.deps.crawls.activeSyncJob(id) !== null) continue;
      last = this.queueOne(id, reason);
    }
    return last;
  }

  /**
   * Queues the crawl's sync and holds the crawl and its pages' sources (those no source sync
   * holds) in one synchronous step: no other request can queue a second sync in between.
   */
  private queueOne(id: number, reason: 'schedule' | 'manual'): number {
    const active = this.deps.crawls.activeSyncJob(id);
    if (active !== null) throw new Conflict(`Crawl ${id} is already being synced by job ${active}`);
    const c = this.deps.crawls.find(id)!;
    const plan = JSON.parse(c.plan) as SyncCrawlInput['plan'];
    const input: SyncCrawlInput = { crawl_id: id, reason, plan };
    const job = this.deps.jobs.create({
      type: 'sync_crawl',
      urls: plan.start_urls,
      input,
      metadata: { crawl_id: id },
    });
    const free = this.deps.crawls.freePageSourceIds(id);
    this.deps.sourceSyncRepo.claim(free, job.id);
    this.deps.crawls.claim(id, job.id);
    this.deps.crawls.startSync(id, job.id, this.at());
    return job.id;
  }

  // --- Recording half -----------------------------------------------------------------------

  /**
   * The pages the job re-fetches: those whose sources it holds. Read while the job is being
   * queued (the Redis queue reads it at once, before queueOne holds anything), they are the
   * free pages queueOne is about to hold: the same set.
   */
  state(crawlId: number, jobId: number): CrawlSyncState {
    this.flush(jobId);
    const queueing = !this.deps.crawls.holds(crawlId, jobId);
    const rows = queueing
      ? this.deps.crawls.listTargetsOf(crawlId, this.deps.crawls.freePageSourceIds(crawlId))
      : this.deps.crawls.listTargets(crawlId, jobId);
    const pages = rows.map((t) => ({
      source_id: t.source_id,
      url: t.url,
      ...validatorsToSend(t),
      depth: t.depth,
      in_sitemap: t.in_sitemap === 1,
      known: this.deps.sourceSyncRepo
        .listSegments(t.url)
        .slice(0, MAX_KNOWN_SEGMENTS)
        .map((s) => s.text_hash.slice(0, SEGMENT_KEY_CHARS)),
    }));
    const synced = new Set(pages.map((p) => p.url));
    const all = this.deps.crawls.listKnown(crawlId);
    return { pages, known: all.urls.filter((u) => !synced.has(u)), hashes: all.hashes };
  }

  progressDue(jobId: number): boolean {
    const t = this.now();
    const last = this.progressAt.get(jobId);
    if (last !== undefined && t - last < PROGRESS_EVERY_MS && t >= last) return false;
    this.progressAt.set(jobId, t);
    return true;
  }

  record(crawlId: number, r: CrawlResult, job: JobRow, language: string): string | null {
    if (r.finished) this.progressAt.delete(job.id);
    // An unchanged page never fails (recordNow answers null for it): it may wait.
    if (r.synced?.work.outcome === 'unchanged' && !r.page && !r.alias && !r.finished) {
      this.defer(crawlId, r, job, language);
      return null;
    }
    this.flush(job.id);
    return this.deps.crawls.atomically(() => this.recordNow(crawlId, r, job, language));
  }

  private defer(crawlId: number, r: CrawlResult, job: JobRow, language: string): void {
    let w = this.unwritten.get(job.id);
    if (!w) {
      const timed = () => {
        try {
          this.flush(job.id);
        } catch (e) {
          // Not written: the pages stay held by the job, and a resumed sync fetches them again.
          this.deps.log.warn(
            { component: 'sync', err: e },
            `Crawl ${crawlId}: unchanged pages not recorded: ${(e as Error).message}`,
          );
        }
      };
      w = { crawlId, job, language, results: [], cancel: this.later(timed, UNCHANGED_FLUSH_MS) };
      this.unwritten.set(job.id, w);
    }
    w.results.push(r);
    if (w.results.length >= UNCHANGED_BATCH) this.flush(job.id);
  }

  /** Writes the job's waiting unchanged pages, in one transaction. */
  private flush(jobId: number): void {
    const w = this.unwritten.get(jobId);
    if (!w) return;
    this.unwritten.delete(jobId);
    w.cancel();
    this.deps.crawls.atomically(() => this.recordUnchanged(w));
  }

  /**
   * A batch of unchanged pages, inside the batch's transaction: per page only its source's own
   * rows (no savepoint of its own: a throw rolls the whole batch back either way); the crawl
   * held, its counts added and its listed pages marked once for the batch.
   */
  private recordUnchanged(w: Unwritten): void {
    if (!this.deps.crawls.holds(w.crawlId, w.job.id)) return;
    const sum: SyncCounts = { ...NO_COUNTS };
    const listed: string[] = [];
    for (const r of w.results) {
      const { work, in_sitemap } = r.synced!;
      const done = this.deps.sourceSyncs.record(work, w.job, { quiet: true, batched: true });
      if (done.counts) for (const k of COUNT_KEYS) sum[k] = (sum[k] ?? 0) + (done.counts[k] ?? 0);
      if (in_sitemap && done.outcome !== 'pruned') listed.push(work.url);
    }
    this.deps.crawls.addCounts(w.job.id, sum);
    if (listed.length) this.deps.crawls.markAllInSitemap(w.crawlId, listed);
  }

  private recordNow(crawlId: number, r: CrawlResult, job: JobRow, language: string) {
    // A relaunched job that does not hold the crawl changes nothing.
    if (!this.deps.crawls.holds(crawlId, job.id)) return null;
    let failed: string | null = null;
    if (r.synced) {
      const { work, in_sitemap } = r.synced;
      const done = this.deps.sourceSyncs.record(work, job, { quiet: true });
      if (done.counts) this.deps.crawls.addCounts(job.id, done.counts);
      // Once listed, a page leaving the sitemaps counts as missing at each sync until pruned.
      if (in_sitemap && done.outcome !== 'pruned')
        this.deps.crawls.markInSitemap(crawlId, work.url);
      failed = done.failed;
    }
    if (r.alias) {
      this.deps.crawls.addPage(crawlId, {
        url: r.alias.url,
        source_id: null,
        depth: r.page?.depth ?? 0,
        text_hash: null,
      });
    }
    const page = r.page;
    if (page?.status === 'fetched' && page.page) {
      this.addPage(crawlId, page, job, language);
    } else if (page?.status === 'skipped' && page.fetched && page.reason !== 'robots') {
      // Fetched and not kept (a duplicate, noindex, too large): not fetched again by later syncs.
      this.deps.crawls.addPage(crawlId, {
        url: page.url,
        source_id: null,
        depth: page.depth,
        text_hash: null,
      });
    } else if (page?.status === 'failed') {
      this.deps.crawls.addCounts(job.id, { pages_failed: 1 });
      failed = page.detail ?? 'failed';
    }
    if (r.finished) this.finish(crawlId, job);
    return failed;
  }

  /** A page new to the crawl, stored as crawl_site stores it; counted as added. */
  private addPage(
    crawlId: number,
    page: NonNullable<CrawlResult['page']>,
    job: JobRow,
    language: string,
  ): void {
    const { analysis, title, validators } = page.page!;
    const ingest = this.deps.ingestion.store(analysis, {
      language,
      onlyLanguage: language,
      source: { title, url: page.url },
      jobId: job.id,
    });
    this.deps.sources.upsertResult({
      url: page.url,
      kind: 'web',
      domain: safeDomain(page.url),
      title,
      language: ingest.language === 'und' ? null : ingest.language,
      segments: ingest.segments_created,
      job_id: job.id,
      status: 'ok',
      error: null,
      ...(validators && { validators }),
    });
    const sourceId = this.deps.crawls.sourceIdOf(page.url);
    this.deps.crawls.addPage(crawlId, {
      url: page.url,
      source_id: sourceId,
      depth: page.depth,
      text_hash: page.content_hash,
    });
    const counts: SyncCounts = {
      pages_added: 1,
      pages_changed: 0,
      pages_unchanged: 0,
      pages_removed: 0,
      pages_failed: 0,
      segments_added: ingest.segments_created,
      segments_kept: 0,
      segments_removed: 0,
      reembedded: analysis.segments.filter((s) => s.vector.length > 0).length,
    };
    this.deps.crawls.addCounts(job.id, counts);
    if (sourceId !== null) {
      const at = this.at();
      this.deps.sourceSyncRepo.insertSync({
        ...counts,
        source_id: sourceId,
        job_id: job.id,
        started_at: job.started_at ?? at,
        ended_at: at,
        outcome: 'changed',
        error: null,
      });
    }
  }

  private finish(crawlId: number, job: JobRow): void {
    const at = this.at();
    const sync = this.deps.crawls.endSync(job.id, at, 'completed', null);
    this.deps.crawls.release(crawlId, job.id, at);
    if (sync) this.deps.bus.emit('crawl.synced', { crawl_id: crawlId, job_id: job.id, sync });
    this.deps.log.info({ component: 'sync' }, `Crawl ${crawlId} synced: ${crawlSyncSummary(sync)}`);
  }
}
