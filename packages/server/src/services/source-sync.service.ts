import type {
  LastSync,
  PrunePreview,
  PruneResponse,
  Source,
  SourceSyncList,
  SyncCounts,
  SyncNowResponse,
  SyncOutcome,
} from '@adam/contracts';
import type { EventBus } from '../lib/event-bus.js';
import { Conflict, NotFound, Unprocessable } from '../lib/errors.js';
import type { Logger } from '../logging.js';
import {
  MAX_KNOWN_SEGMENTS,
  type SourceSyncRecorder,
  type SyncRecorded,
  type SyncWork,
} from '../queue/source-sync.js';
import { SEGMENT_KEY_CHARS } from '../pipeline/segment-key.js';
import { SEGMENTATION_VERSION } from '../pipeline/segmentation-version.js';
import type { JobRow } from '../store/job.repository.js';
import type { SnippetRepository } from '../store/snippet.repository.js';
import type { SourceRepository } from '../store/source.repository.js';
import type { SourceSyncRepository } from '../store/source-sync.repository.js';
import type { IngestionService } from './ingestion.service.js';
import { textHash } from '../pipeline/segment-key.js';
import type { JobService } from './job.service.js';
import type { SnippetDeleter } from './snippet-deleter.js';
import { nextSyncAfter, normalizeSchedule, type SyncTargets } from './sync-scheduler.js';

/**
 * The validators a sync sends for a source: none when its snippets were cut by an older
 * segmentation, so the page is fetched and analysed again even if unchanged (and re-cut).
 */
export function validatorsToSend(t: {
  etag: string | null;
  last_modified: string | null;
  content_hash: string | null;
  segmentation: number;
}): { etag: string | null; last_modified: string | null; content_hash: string | null } {
  if (t.segmentation < SEGMENTATION_VERSION) {
    return { etag: null, last_modified: null, content_hash: null };
  }
  return { etag: t.etag, last_modified: t.last_modified, content_hash: t.content_hash };
}

/** Jobs whose prune counts are remembered for their result (see totals). */
const PRUNED_JOBS_KEPT = 100;
/** Candidates a prune preview lists, and a prune removes at once (the counts cover them all). */
const PREVIEW_LIMIT = 1_000;

const ZERO: SyncCounts = {
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

const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;

/**
 * Keeping web sources fresh: their schedules, "Sync now", the recording half of a sync (what a
 * re-fetch changes in the store), the history of syncs and the prune of pages found gone.
 * The sources' SyncTargets for the scheduler.
 */
export class SourceSyncService implements SourceSyncRecorder, SyncTargets {
  readonly kind = 'source';
  private readonly now: () => number;
  private readonly prunedByJob = new Map<number, { pages: number; segments: number }>();

  constructor(
    private readonly deps: {
      syncs: SourceSyncRepository;
      sources: SourceRepository;
      snippets: SnippetRepository;
      ingestion: IngestionService;
      deleter: SnippetDeleter;
      jobs: JobService;
      bus: EventBus;
      log: Logger;
      /** Syncs in a row that find a page gone before a sync prunes it (ADAM_SYNC_PRUNE_AFTER). */
      pruneAfter: number;
      /** A source as the API shows it (SourceService.get). */
      describe: (id: number) => Source;
      now?: () => number;
    },
  ) {
    this.now = deps.now ?? Date.now;
  }

  private webSource(id: number) {
    const source = this.deps.sources.findById(id);
    if (!source) throw new NotFound('source', id);
    if (source.kind !== 'web') {
      throw new Unprocessable(
        `Source ${id} is ${source.kind === 'file' ? 'an uploaded file' : 'an import'}: only web sources can be synced`,
      );
    }
    return source;
  }

  setSchedule(id: number, input: string): Source {
    this.webSource(id);
    const schedule = normalizeSchedule(input);
    const next = nextSyncAfter(schedule, this.now());
    this.deps.syncs.setSchedule(id, schedule, next === null ? null : new Date(next).toISOString());
    this.deps.log.info({ component: 'sync' }, `Source ${id} scheduled: ${schedule}`);
    return this.deps.describe(id);
  }

  /** "Sync now": 409 while a sync of the source is waiting or running. */
  syncNow(id: number): SyncNowResponse {
    this.webSource(id);
    const active = this.deps.syncs.findActiveSyncJob(id);
    if (active !== null) {
      throw new Conflict(`Source ${id} is already being synced by job ${active}`);
    }
    const jobId = this.queueSync([id], 'manual');
    if (jobId === null) throw new Conflict(`Source ${id} is already being synced`);
    return { job_id: jobId, source_ids: [id] };
  }

  history(id: number, limit: number): SourceSyncList {
    if (!this.deps.sources.findById(id)) throw new NotFound('source', id);
    return { syncs: this.deps.syncs.listSyncs(id, limit) };
  }

  lastSyncs(ids: readonly number[]): Map<number, LastSync> {
    return this.deps.syncs.lastSyncs(ids);
  }

  // --- SyncTargets -------------------------------------------------------------------------

  listDue(nowIso: string, limit: number) {
    return this.deps.syncs.listDue(nowIso, limit);
  }

  setNextSyncAt(id: number, iso: string | null): void {
    this.deps.syncs.setNextSyncAt(id, iso);
  }

  /**
   * One job for the sources no sync holds, each sent with its validators and its segments' keys
   * (a worker has no store); the job then holds them. Check, insert and hold in one synchronous
   * step: no other request can queue a second sync in between.
   */
  queueSync(ids: number[], reason: 'schedule' | 'manual'): number | null {
    const free = this.deps.syncs.listFree(ids);
    if (!free.length) return null;
    const targets = this.deps.syncs.listTargets(free).map((t) => ({
      source_id: t.id,
      url: t.url,
      ...validatorsToSend(t),
      known: this.deps.syncs
        .listSegments(t.url)
        .slice(0, MAX_KNOWN_SEGMENTS)
        // The text hash's first characters are the segment key (segment-key.test.ts).
        .map((s) => s.text_hash.slice(0, SEGMENT_KEY_CHARS)),
    }));
    const job = this.deps.jobs.create({
      type: 'sync_sources',
      urls: targets.map((t) => t.url),
      input: { targets, reason, language: 'auto' },
      metadata: { source_ids: free },
    });
    this.deps.syncs.claim(free, job.id);
    return job.id;
  }

  // --- Recording half -----------------------------------------------------------------------

  /**
   * Applies one source's re-fetch; only the job that holds the source may change it. One
   * transaction: an unchanged page's few writes commit once (most of a re-sync's server time).
   */
  record(
    work: SyncWork,
    job: JobRow,
    opts: { quiet?: boolean; batched?: boolean } = {},
  ): SyncRecorded {
    const quiet = opts.quiet ?? false;
    // `batched`: the caller's transaction holds a batch of pages; a savepoint each was a third
    // of an unchanged page's statements.
    if (opts.batched) return this.recordNow(work, job, quiet);
    return this.deps.syncs.atomically(() => this.recordNow(work, job, quiet));
  }

  /** `quiet`: no activity line of its own (a crawl's sync writes one for all its pages). */
  private recordNow(work: SyncWork, job: JobRow, quiet: boolean): SyncRecorded {
    const at = new Date(this.now()).toISOString();
    const started = job.started_at ?? at;
    const counts: SyncCounts = { ...ZERO };
    let outcome: SyncOutcome;
    let error: string | null = null;
    const source = this.deps.syncs.findSource(work.source_id);

    if (!source || source.url !== work.url) {
      // Deleted (or pruned by the operator) while the job ran: nothing left to sync.
      return { failed: null, segments_added: 0, totals: () => this.totals(job.id) };
    }
    // The row says who holds the source (SourceSyncRepository.holds, without a second read).
    if (source.sync_job_id !== job.id) {
      outcome = 'skipped';
      error = 'another sync held the source';
    } else if (work.outcome === 'unchanged') {
      this.deps.syncs.saveFetch(source.id, work.validators, at);
      outcome = 'unchanged';
      counts.pages_unchanged = 1;
      counts.segments_kept = this.deps.syncs.countSegments(source.url);
    } else if (work.outcome === 'changed' && work.analysis.segments.length === 0) {
      // A page that now gives no segment at all (an error page served as 200, a consent wall)
      // would empty the source: kept as a failure instead; deleting it is the operator's call.
      this.deps.syncs.markAttempt(source.id, at);
      counts.pages_failed = 1;
      outcome = 'failed';
      error = 'the page now gives no segment that passes the filters; its old content is kept';
    } else if (work.outcome === 'changed') {
      outcome = this.applyChange(source.id, source.url, work, job.id, counts, at);
      const cutWith = this.deps.syncs.segmentationOf(source.id);
      if (cutWith < SEGMENTATION_VERSION) {
        this.deps.syncs.setSegmentation(source.id, SEGMENTATION_VERSION);
        counts.pages_resegmented = 1;
        // Sent without validators to be re-cut: the content itself may be the same.
        if (work.validators.content_hash === source.content_hash) {
          counts.pages_changed = 0;
          counts.pages_unchanged = 0;
        }
        this.deps.log.info(
          { component: 'sync', source_id: source.id, job_id: job.id },
          `Source ${source.id} re-segmented (its snippets were cut by segmentation ${cutWith}, now ${SEGMENTATION_VERSION}): ${counts.segments_added} added, ${counts.segments_kept} kept, ${counts.segments_removed} removed`,
        );
      }
    } else if (work.outcome === 'missing') {
      const missing = this.deps.syncs.markMissing(source.id, at);
      if (missing >= this.deps.pruneAfter) {
        const removed = this.pruneSource(source.id, source.url);
        counts.pages_removed = 1;
        counts.segments_removed = removed.snippets_deleted;
        this.notePrune(job.id, removed.snippets_deleted);
        outcome = 'pruned';
      } else {
        outcome = 'missing';
      }
      error = `${work.reason ?? `answered HTTP ${work.status}`} (${plural(missing, 'sync')} in a row)`;
    } else {
      // Transient: the old content stays, and it never counts toward the prune.
      this.deps.syncs.markAttempt(source.id, at);
      counts.pages_failed = 1;
      outcome = 'failed';
      error = work.error.message;
    }

    if (outcome !== 'pruned') {
      this.deps.syncs.insertSync({
        ...counts,
        source_id: source.id,
        job_id: job.id,
        started_at: started,
        ended_at: at,
        outcome,
        error,
      });
      if (outcome !== 'skipped') this.deps.syncs.releaseSource(source.id, job.id);
    }
    if (!quiet) {
      this.deps.bus.emit('source.synced', {
        source_id: source.id,
        url: source.url,
        job_id: job.id,
        outcome,
        counts,
        error,
      });
    }
    return {
      failed: outcome === 'failed' ? (error ?? 'failed') : null,
      segments_added: counts.segments_added,
      totals: () => this.totals(job.id),
      outcome,
      counts,
    };
  }

  /**
   * A changed page: its new segments are inserted (embedded by the worker, the known ones were
   * not), its segments that are gone deleted with their vectors, the others kept as they are:
   * same ids, same vectors. New rows first, so a search in between finds old or new, never none.
   */
  private applyChange(
    sourceId: number,
    url: string,
    work: Extract<SyncWork, { outcome: 'changed' }>,
    jobId: number,
    counts: SyncCounts,
    at: string,
  ): SyncOutcome {
    const existing = new Map(this.deps.syncs.listSegments(url).map((s) => [s.text_hash, s.id]));
    const seen = new Set<string>();
    const fresh: typeof work.analysis.segments = [];
    let stale = false;
    for (const seg of work.analysis.segments) {
      const hash = textHash(seg.text);
      if (seen.has(hash)) continue;
      seen.add(hash);
      if (existing.has(hash)) continue;
      // Known to the worker when queued but deleted since: no vector to store. The page's
      // validators are not saved, so the next sync processes it again.
      if (seg.vector.length === 0) stale = true;
      else fresh.push(seg);
    }
    counts.reembedded = work.analysis.segments.filter((s) => s.vector.length > 0).length;
    const r = this.deps.ingestion.store(
      { ...work.analysis, segments: fresh },
      { language: 'auto', source: { title: work.title, url }, jobId },
    );
    const gone = [...existing].filter(([hash]) => !seen.has(hash)).map(([, id]) => id);
    const removed = gone.length ? this.deps.deleter.delete(gone).snippets_deleted : 0;
    const kept = existing.size - gone.length;
    counts.segments_added = r.segments_created;
    counts.segments_kept = kept;
    counts.segments_removed = removed;
    const changed = r.segments_created > 0 || removed > 0;
    counts.pages_changed = changed ? 1 : 0;
    counts.pages_unchanged = changed ? 0 : 1;
    this.deps.syncs.saveFetch(
      sourceId,
      stale ? { etag: null, last_modified: null, content_hash: null } : work.validators,
      at,
    );
    this.deps.syncs.setSegmentsCount(sourceId, kept + r.segments_created, work.title, at);
    return changed ? 'changed' : 'unchanged';
  }

  /**
   * A job's counts: its sync rows, plus its prunes, whose rows went with their sources (kept
   * here, for the last jobs: a job resumed after a restart reports its later prunes only).
   */
  private totals(jobId: number): Record<string, number> {
    const t = this.deps.syncs.totalsOfJob(jobId);
    const pruned = this.prunedByJob.get(jobId);
    if (pruned) {
      t.pages_removed = (t.pages_removed ?? 0) + pruned.pages;
      t.segments_removed = (t.segments_removed ?? 0) + pruned.segments;
    }
    return t;
  }

  private notePrune(jobId: number, segments: number): void {
    const p = this.prunedByJob.get(jobId) ?? { pages: 0, segments: 0 };
    p.pages++;
    p.segments += segments;
    this.prunedByJob.set(jobId, p);
    if (this.prunedByJob.size > PRUNED_JOBS_KEPT) {
      this.prunedByJob.delete(this.prunedByJob.keys().next().value!);
    }
  }

  // --- Prune ---------------------------------------------------------------------------------

  /** The dry run: the sources found gone and the snippets a prune would delete with them. */
  prunePreview(): PrunePreview {
    return {
      ...this.deps.syncs.countPruneCandidates(),
      threshold: this.deps.pruneAfter,
      candidates: this.deps.syncs.listPruneCandidates(PREVIEW_LIMIT),
    };
  }

  /** The operator's confirmation: removes the preview's sources (or those of them named). */
  prune(sourceIds?: readonly number[]): PruneResponse {
    let candidates = this.deps.syncs.listPruneCandidates(PREVIEW_LIMIT);
    if (sourceIds) {
      const wanted = new Set(sourceIds);
      const unknown = sourceIds.filter((id) => !candidates.some((c) => c.id === id));
      if (unknown.length) {
        throw new Unprocessable(
          `Source ${unknown.slice(0, 10).join(', ')} ${unknown.length === 1 ? 'was' : 'were'} not found gone by a sync: only the preview's sources can be pruned`,
        );
      }
      candidates = candidates.filter((c) => wanted.has(c.id));
    }
    const out: PruneResponse = { sources_deleted: 0, snippets_deleted: 0, vectors_deleted: 0 };
    for (const c of candidates) {
      const r = this.pruneSource(c.id, c.url);
      out.sources_deleted++;
      out.snippets_deleted += r.snippets_deleted;
      out.vectors_deleted += r.vectors_deleted;
    }
    this.deps.log.info(
      { component: 'sync' },
      `Pruned ${plural(out.sources_deleted, 'source')} found gone, with ${plural(out.snippets_deleted, 'snippet')}`,
    );
    return out;
  }

  private pruneSource(id: number, url: string) {
    const removed = this.deps.deleter.delete(this.deps.snippets.idsMatching({ source_url: url }));
    this.deps.sources.deleteById(id);
    return removed;
  }
}
