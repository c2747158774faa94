import type { CrawlSync, SyncCounts } from '@adam/contracts';
import { prepared, type Db } from './db.js';

export interface CrawlRow {
  id: number;
  plan: string;
  schedule: string;
  next_sync_at: string | null;
  last_sync_at: string | null;
  sync_job_id: number | null;
  created_at: string;
}

/** A crawl page this sync re-fetches, with its source's validators. */
export interface CrawlPageTargetRow {
  url: string;
  source_id: number;
  depth: number;
  in_sitemap: number;
  etag: string | null;
  last_modified: string | null;
  content_hash: string | null;
  /** The segmentation its snippets were cut with (pipeline/segmentation-version.ts). */
  segmentation: number;
}

const ACTIVE_JOB =
  "SELECT 1 FROM jobs j WHERE j.id = c.sync_job_id AND j.status IN ('pending', 'processing')";

/** The skip reasons of a fetched page that a sync does not fetch again. */
const SKIPPED_AFTER_FETCH = "('duplicate', 'noindex', 'too_large')";

const COUNT_COLUMNS = [
  'pages_added',
  'pages_changed',
  'pages_unchanged',
  'pages_removed',
  'pages_failed',
  'segments_added',
  'segments_kept',
  'segments_removed',
  'reembedded',
  'pages_resegmented',
] as const satisfies readonly (keyof SyncCounts)[];

/** Crawls kept fresh (migration 19): their plans, schedules, pages and syncs. */
export class CrawlSyncRepository {
  constructor(private readonly db: Db) {}

  /** Runs `fn` in one transaction (nested: a savepoint). */
  atomically<T>(fn: () => T): T {
    return this.db.transaction(fn)();
  }

  find(id: number): CrawlRow | undefined {
    return prepared(this.db, 'SELECT * FROM crawls WHERE id = ?').get(id) as CrawlRow | undefined;
  }

  /**
   * Makes the crawl of a finished crawl_site job a crawl that can be synced: its plan, and its
   * pages as its frontier recorded them (stored pages, and the URLs it fetched and skipped).
   */
  create(id: number, plan: string, at: string): void {
    this.db.transaction(() => {
      prepared(this.db, 'INSERT INTO crawls (id, plan, created_at) VALUES (?, ?, ?)').run(
        id,
        plan,
        at,
      );
      prepared(
        this.db,
        `INSERT OR IGNORE INTO crawl_pages (crawl_id, url, source_id, depth, text_hash)
           SELECT f.job_id, f.url, CASE WHEN f.status = 'fetched' THEN s.id END, f.depth,
                  CASE WHEN f.status = 'fetched' THEN f.content_hash END
           FROM crawl_frontier f LEFT JOIN sources s ON s.url = f.url
           WHERE f.job_id = ? AND ((f.status = 'fetched' AND s.id IS NOT NULL)
              OR (f.status = 'skipped' AND f.reason IN ${SKIPPED_AFTER_FETCH}))`,
      ).run(id);
    })();
  }

  setSchedule(id: number, schedule: string, nextSyncAt: string | null): void {
    prepared(this.db, 'UPDATE crawls SET schedule = ?, next_sync_at = ? WHERE id = ?').run(
      schedule,
      nextSyncAt,
      id,
    );
  }

  setNextSyncAt(id: number, nextSyncAt: string | null): void {
    prepared(this.db, 'UPDATE crawls SET next_sync_at = ? WHERE id = ?').run(nextSyncAt, id);
  }

  listDue(nowIso: string, limit: number): { id: number; schedule: string }[] {
    return prepared(
      this.db,
      `SELECT id, schedule FROM crawls
         WHERE next_sync_at IS NOT NULL AND next_sync_at <= ? AND schedule != 'off'
         ORDER BY next_sync_at, id LIMIT ?`,
    ).all(nowIso, limit) as { id: number; schedule: string }[];
  }

  /** The pending or processing sync job holding the crawl, if any. */
  activeSyncJob(id: number): number | null {
    const jobId = prepared(
      this.db,
      `SELECT c.sync_job_id FROM crawls c WHERE c.id = ? AND EXISTS (${ACTIVE_JOB})`,
    )
      .pluck()
      .get(id) as number | null | undefined;
    return jobId ?? null;
  }

  claim(id: number, jobId: number): void {
    prepared(this.db, 'UPDATE crawls SET sync_job_id = ? WHERE id = ?').run(jobId, id);
  }

  release(id: number, jobId: number, at: string): void {
    prepared(
      this.db,
      'UPDATE crawls SET sync_job_id = NULL, last_sync_at = ? WHERE id = ? AND sync_job_id = ?',
    ).run(at, id, jobId);
  }

  holds(id: number, jobId: number): boolean {
    return (
      prepared(this.db, 'SELECT 1 FROM crawls WHERE id = ? AND sync_job_id = ?')
        .pluck()
        .get(id, jobId) === 1
    );
  }

  /**
   * The sources of the crawl's pages that no pending or processing job holds (what
   * SourceSyncRepository.listFree answers for a list of ids), found from the crawl's pages by its
   * key, then each source by id. listFree's json_each join reads the whole list once per source:
   * 8 s for a crawl of 5,000 pages, on the server's event loop.
   */
  freePageSourceIds(id: number): number[] {
    return prepared(
      this.db,
      `SELECT s.id FROM crawl_pages p JOIN sources s ON s.id = p.source_id
         WHERE p.crawl_id = ? AND s.kind = 'web' AND (s.sync_job_id IS NULL OR NOT EXISTS (
           SELECT 1 FROM jobs j WHERE j.id = s.sync_job_id AND j.status IN ('pending', 'processing')))
         ORDER BY s.id`,
    )
      .pluck()
      .all(id) as number[];
  }

  sourceIdOf(url: string): number | null {
    return (
      (prepared(this.db, 'SELECT id FROM sources WHERE url = ?').pluck().get(url) as
        number | undefined) ?? null
    );
  }

  countPages(id: number): number {
    return prepared(
      this.db,
      'SELECT COUNT(*) FROM crawl_pages WHERE crawl_id = ? AND source_id IS NOT NULL',
    )
      .pluck()
      .get(id) as number;
  }

  /** The crawl's pages whose sources this job holds: what it re-fetches. */
  listTargets(id: number, jobId: number): CrawlPageTargetRow[] {
    return prepared(
      this.db,
      `SELECT p.url, p.source_id, p.depth, p.in_sitemap, s.etag, s.last_modified, s.content_hash,
           s.segmentation
         FROM crawl_pages p JOIN sources s ON s.id = p.source_id
         WHERE p.crawl_id = ? AND s.sync_job_id = ? ORDER BY p.depth, p.url`,
    ).all(id, jobId) as CrawlPageTargetRow[];
  }

  /** The crawl's pages of these sources (the ones a sync being queued is about to hold). */
  listTargetsOf(id: number, sourceIds: readonly number[]): CrawlPageTargetRow[] {
    return prepared(
      this.db,
      `SELECT p.url, p.source_id, p.depth, p.in_sitemap, s.etag, s.last_modified, s.content_hash,
           s.segmentation
         FROM crawl_pages p JOIN sources s ON s.id = p.source_id
         WHERE p.crawl_id = ? AND p.source_id IN (SELECT value FROM json_each(?))
         ORDER BY p.depth, p.url`,
    ).all(id, JSON.stringify(sourceIds)) as CrawlPageTargetRow[];
  }

  /** Every URL of the crawl, and its pages' text hashes. */
  listKnown(id: number): { urls: string[]; hashes: string[] } {
    const rows = prepared(this.db, 'SELECT url, text_hash FROM crawl_pages WHERE crawl_id = ?').all(
      id,
    ) as { url: string; text_hash: string | null }[];
    return {
      urls: rows.map((r) => r.url),
      hashes: rows.flatMap((r) => (r.text_hash ? [r.text_hash] : [])),
    };
  }

  addPage(
    id: number,
    p: { url: string; source_id: number | null; depth: number; text_hash: string | null },
  ): void {
    prepared(
      this.db,
      `INSERT INTO crawl_pages (crawl_id, url, source_id, depth, text_hash)
         VALUES (@id, @url, @source_id, @depth, @text_hash)
         ON CONFLICT (crawl_id, url) DO UPDATE SET source_id = COALESCE(excluded.source_id, source_id),
           text_hash = COALESCE(excluded.text_hash, text_hash)`,
    ).run({ ...p, id });
  }

  /** Marks the page listed; a page marked already is not written again (each sync asks). */
  markInSitemap(id: number, url: string): void {
    prepared(
      this.db,
      'UPDATE crawl_pages SET in_sitemap = 1 WHERE crawl_id = ? AND url = ? AND in_sitemap = 0',
    ).run(id, url);
  }

  /** markInSitemap for many pages of the crawl, in one statement. */
  markAllInSitemap(id: number, urls: readonly string[]): void {
    prepared(
      this.db,
      `UPDATE crawl_pages SET in_sitemap = 1
         WHERE crawl_id = ? AND in_sitemap = 0 AND url IN (SELECT value FROM json_each(?))`,
    ).run(id, JSON.stringify(urls));
  }

  startSync(id: number, jobId: number, at: string): void {
    prepared(
      this.db,
      "INSERT INTO crawl_syncs (crawl_id, job_id, started_at, outcome) VALUES (?, ?, ?, 'running')",
    ).run(id, jobId, at);
  }

  /** Adds one page's counts to the job's sync of the crawl. */
  addCounts(jobId: number, c: Partial<SyncCounts>): void {
    const set = COUNT_COLUMNS.map((k) => `${k} = ${k} + @${k}`).join(', ');
    const params = Object.fromEntries(COUNT_COLUMNS.map((k) => [k, c[k] ?? 0]));
    prepared(this.db, `UPDATE crawl_syncs SET ${set} WHERE job_id = @job_id`).run({
      ...params,
      job_id: jobId,
    });
  }

  endSync(
    jobId: number,
    at: string,
    outcome: CrawlSync['outcome'],
    error: string | null,
  ): CrawlSync | undefined {
    return prepared(
      this.db,
      'UPDATE crawl_syncs SET ended_at = ?, outcome = ?, error = ? WHERE job_id = ? RETURNING *',
    ).get(at, outcome, error, jobId) as CrawlSync | undefined;
  }

  /** A crawl's syncs, newest first; one whose job ended without finishing reads 'stopped'. */
  listSyncs(id: number, limit: number): CrawlSync[] {
    return prepared(
      this.db,
      `SELECT y.id, y.crawl_id, y.job_id, y.started_at, y.ended_at, y.error,
           ${COUNT_COLUMNS.map((k) => `y.${k}`).join(', ')},
           CASE WHEN y.outcome = 'running' AND NOT EXISTS (SELECT 1 FROM jobs j
             WHERE j.id = y.job_id AND j.status IN ('pending', 'processing'))
             THEN 'stopped' ELSE y.outcome END AS outcome
         FROM crawl_syncs y WHERE y.crawl_id = ? ORDER BY y.id DESC LIMIT ?`,
    ).all(id, limit) as CrawlSync[];
  }
}
