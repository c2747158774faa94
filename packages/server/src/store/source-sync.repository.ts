import type { LastSync, SourceSync, SyncCounts, SyncOutcome } from '@adam/contracts';
import { prepared, type Db } from './db.js';
import type { SourceRow } from './source.repository.js';

/** What a sync job needs of a source to re-fetch it conditionally. */
export interface SyncTargetRow {
  id: number;
  url: string;
  etag: string | null;
  last_modified: string | null;
  content_hash: string | null;
  /** The segmentation its snippets were cut with (pipeline/segmentation-version.ts). */
  segmentation: number;
}

export interface PruneCandidateRow {
  id: number;
  url: string;
  missing_count: number;
  snippets: number;
}

const ACTIVE_JOB =
  "SELECT 1 FROM jobs j WHERE j.id = s.sync_job_id AND j.status IN ('pending', 'processing')";

/**
 * The freshness side of sources (migration 14): schedules, conditional-fetch validators, the
 * sync job holding a source, missing counts, and the history of syncs.
 */
export class SourceSyncRepository {
  constructor(private readonly db: Db) {}

  setSchedule(id: number, schedule: string, nextSyncAt: string | null): boolean {
    return (
      prepared(this.db, 'UPDATE sources SET schedule = ?, next_sync_at = ? WHERE id = ?').run(
        schedule,
        nextSyncAt,
        id,
      ).changes === 1
    );
  }

  setNextSyncAt(id: number, nextSyncAt: string | null): void {
    prepared(this.db, 'UPDATE sources SET next_sync_at = ? WHERE id = ?').run(nextSyncAt, id);
  }

  /** Scheduled web sources due at `nowIso`, the longest overdue first (index sources_next_sync). */
  listDue(nowIso: string, limit: number): { id: number; schedule: string }[] {
    return prepared(
      this.db,
      `SELECT id, schedule FROM sources
         WHERE next_sync_at IS NOT NULL AND next_sync_at <= ? AND kind = 'web' AND schedule != 'off'
         ORDER BY next_sync_at, id LIMIT ?`,
    ).all(nowIso, limit) as { id: number; schedule: string }[];
  }

  /** The pending or processing sync job that holds the source, if any. */
  findActiveSyncJob(sourceId: number): number | null {
    const id = prepared(
      this.db,
      `SELECT s.sync_job_id FROM sources s WHERE s.id = ? AND EXISTS (${ACTIVE_JOB})`,
    )
      .pluck()
      .get(sourceId) as number | null | undefined;
    return id ?? null;
  }

  /** Of `ids`, the web sources no active sync job holds. */
  listFree(ids: readonly number[]): number[] {
    if (!ids.length) return [];
    return prepared(
      this.db,
      `SELECT s.id FROM sources s, json_each(?) w ON w.value = s.id
         WHERE s.kind = 'web' AND (s.sync_job_id IS NULL OR NOT EXISTS (${ACTIVE_JOB}))
         ORDER BY s.id`,
    )
      .pluck()
      .all(JSON.stringify(ids)) as number[];
  }

  claim(ids: readonly number[], jobId: number): void {
    prepared(
      this.db,
      'UPDATE sources SET sync_job_id = ? WHERE id IN (SELECT value FROM json_each(?))',
    ).run(jobId, JSON.stringify(ids));
  }

  holds(sourceId: number, jobId: number): boolean {
    return (
      prepared(this.db, 'SELECT 1 FROM sources WHERE id = ? AND sync_job_id = ?')
        .pluck()
        .get(sourceId, jobId) === 1
    );
  }

  /** The job is done with the source: the next sync may take it. */
  releaseSource(sourceId: number, jobId: number): void {
    prepared(this.db, 'UPDATE sources SET sync_job_id = NULL WHERE id = ? AND sync_job_id = ?').run(
      sourceId,
      jobId,
    );
  }

  listTargets(ids: readonly number[]): SyncTargetRow[] {
    return prepared(
      this.db,
      `SELECT s.id, s.url, s.etag, s.last_modified, s.content_hash, s.segmentation
         FROM sources s, json_each(?) w ON w.value = s.id ORDER BY s.id`,
    ).all(JSON.stringify(ids)) as SyncTargetRow[];
  }

  /** A source row as SourceRepository reads it, from a statement prepared once (the sync's hot path). */
  findSource(id: number): SourceRow | undefined {
    return prepared(this.db, 'SELECT * FROM sources WHERE id = ?').get(id) as SourceRow | undefined;
  }

  /** Runs `fn` in one transaction (nested: a savepoint): a sync's writes commit once. */
  atomically<T>(fn: () => T): T {
    return this.db.transaction(fn)();
  }

  countSegments(url: string): number {
    return prepared(this.db, 'SELECT COUNT(*) FROM snippets WHERE source_url = ?')
      .pluck()
      .get(url) as number;
  }

  /** The snippets a page's source holds now, with their text hashes. */
  listSegments(url: string): { id: number; text_hash: string }[] {
    return prepared(this.db, 'SELECT id, text_hash FROM snippets WHERE source_url = ?').all(
      url,
    ) as { id: number; text_hash: string }[];
  }

  /** A fetch that answered: the validators for the next one; the page is there again. */
  saveFetch(
    id: number,
    v: { etag: string | null; last_modified: string | null; content_hash: string | null },
    at: string,
  ): void {
    prepared(
      this.db,
      `UPDATE sources SET etag = @etag, last_modified = @last_modified,
         content_hash = COALESCE(@content_hash, content_hash), missing_count = 0,
         last_sync_at = @at WHERE id = @id`,
    ).run({ ...v, id, at });
  }

  /** The segmentation a source's snippets are cut with (pipeline/segmentation-version.ts). */
  segmentationOf(id: number): number {
    return (prepared(this.db, 'SELECT segmentation FROM sources WHERE id = ?').pluck().get(id) ??
      0) as number;
  }

  setSegmentation(id: number, version: number): void {
    prepared(this.db, 'UPDATE sources SET segmentation = ? WHERE id = ?').run(version, id);
  }

  setSegmentsCount(id: number, count: number, title: string | null, at: string): void {
    prepared(
      this.db,
      'UPDATE sources SET segments_count = ?, title = COALESCE(?, title), updated_at = ? WHERE id = ?',
    ).run(count, title, at, id);
  }

  /** One more sync in a row that found the page gone; answers the new count. */
  markMissing(id: number, at: string): number {
    return (
      (prepared(
        this.db,
        'UPDATE sources SET missing_count = missing_count + 1, last_sync_at = ? WHERE id = ? RETURNING missing_count',
      )
        .pluck()
        .get(at, id) as number | undefined) ?? 0
    );
  }

  markAttempt(id: number, at: string): void {
    prepared(this.db, 'UPDATE sources SET last_sync_at = ? WHERE id = ?').run(at, id);
  }

  insertSync(
    s: SyncCounts & {
      source_id: number;
      job_id: number | null;
      started_at: string;
      ended_at: string | null;
      outcome: SyncOutcome;
      error: string | null;
    },
  ): number {
    return Number(
      prepared(
        this.db,
        `INSERT INTO source_syncs (source_id, job_id, started_at, ended_at, outcome, pages_added,
           pages_changed, pages_unchanged, pages_removed, pages_failed, segments_added,
           segments_kept, segments_removed, reembedded, pages_resegmented, error)
         VALUES (@source_id, @job_id, @started_at, @ended_at, @outcome, @pages_added,
           @pages_changed, @pages_unchanged, @pages_removed, @pages_failed, @segments_added,
           @segments_kept, @segments_removed, @reembedded, @pages_resegmented, @error)`,
      ).run({ ...s, pages_resegmented: s.pages_resegmented ?? 0 }).lastInsertRowid,
    );
  }

  /** A sync job's counts, summed over the sources it synced. */
  totalsOfJob(jobId: number): Record<string, number> {
    const row = prepared(
      this.db,
      `SELECT COUNT(*) AS sources, TOTAL(pages_added) AS pages_added,
           TOTAL(pages_changed) AS pages_changed, TOTAL(pages_unchanged) AS pages_unchanged,
           TOTAL(pages_removed) AS pages_removed, TOTAL(pages_failed) AS pages_failed,
           TOTAL(segments_added) AS segments_added, TOTAL(segments_kept) AS segments_kept,
           TOTAL(segments_removed) AS segments_removed, TOTAL(reembedded) AS reembedded,
           TOTAL(pages_resegmented) AS pages_resegmented
         FROM source_syncs WHERE job_id = ?`,
    ).get(jobId) as Record<string, number>;
    return row;
  }

  listSyncs(sourceId: number, limit: number): SourceSync[] {
    return prepared(
      this.db,
      'SELECT * FROM source_syncs WHERE source_id = ? ORDER BY id DESC LIMIT ?',
    ).all(sourceId, limit) as SourceSync[];
  }

  /** Each of these sources' latest sync. */
  lastSyncs(sourceIds: readonly number[]): Map<number, LastSync> {
    const out = new Map<number, LastSync>();
    if (!sourceIds.length) return out;
    const rows = prepared(
      this.db,
      `SELECT y.* FROM source_syncs y
         WHERE y.id IN (SELECT MAX(id) FROM source_syncs
                        WHERE source_id IN (SELECT value FROM json_each(?)) GROUP BY source_id)`,
    ).all(JSON.stringify(sourceIds)) as SourceSync[];
    for (const { id: _id, source_id, started_at: _s, ...rest } of rows) out.set(source_id, rest);
    return out;
  }

  /** How many sources are found gone, and the snippets they hold. */
  countPruneCandidates(): { sources: number; snippets: number } {
    return prepared(
      this.db,
      `SELECT COUNT(*) AS sources, COALESCE(SUM(
         (SELECT COUNT(*) FROM snippets n WHERE n.source_url = s.url)), 0) AS snippets
       FROM sources s WHERE s.missing_count > 0`,
    ).get() as { sources: number; snippets: number };
  }

  /** Sources found gone by their last syncs, with the snippets a prune would delete. */
  listPruneCandidates(limit: number): PruneCandidateRow[] {
    return prepared(
      this.db,
      `SELECT s.id, s.url, s.missing_count,
           (SELECT COUNT(*) FROM snippets n WHERE n.source_url = s.url) AS snippets
         FROM sources s WHERE s.missing_count > 0 ORDER BY s.id LIMIT ?`,
    ).all(limit) as PruneCandidateRow[];
  }
}
