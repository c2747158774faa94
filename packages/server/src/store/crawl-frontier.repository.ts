import type { CrawlSkipReason, FrontierEntry, FrontierStatus } from '@adam/contracts';
import { prepared, type Db } from './db.js';

export interface FrontierRow {
  url: string;
  depth: number;
  status: FrontierStatus;
  reason: CrawlSkipReason | null;
  http_status: number | null;
  content_hash: string | null;
  detail: string | null;
  discovered_from: string | null;
  fetched_at: string | null;
}

/** One URL a crawl learnt of, as the working half reports it. */
export interface NewFrontierEntry {
  url: string;
  depth: number;
  status: 'pending' | 'skipped';
  reason: CrawlSkipReason | null;
  detail: string | null;
  discovered_from: string | null;
}

/** Counts of a crawl's frontier, by status and by skip reason. */
export interface FrontierCounts {
  total: number;
  byStatus: Record<string, number>;
  byReason: Record<string, number>;
  fetched: number;
  maxFetchedDepth: number;
}

/** A crawl's frontier rows (migration 15); only the server writes them. */
export class CrawlFrontierRepository {
  constructor(private readonly db: Db) {}

  /** Inserts the URLs not known yet; answers those inserted (a URL is known once per crawl). */
  insertNew(jobId: number, entries: readonly NewFrontierEntry[]): NewFrontierEntry[] {
    const stmt = prepared(
      this.db,
      `INSERT OR IGNORE INTO crawl_frontier (job_id, url, depth, status, reason, detail, discovered_from)
         VALUES (@job_id, @url, @depth, @status, @reason, @detail, @discovered_from)`,
    );
    // One transaction for a page's links: one commit instead of one per URL.
    return this.db.transaction(() =>
      entries.filter((e) => stmt.run({ job_id: jobId, ...e }).changes > 0),
    )();
  }

  find(jobId: number, url: string): FrontierRow | undefined {
    return prepared(
      this.db,
      `SELECT url, depth, status, reason, http_status, content_hash, detail, discovered_from, fetched_at
         FROM crawl_frontier WHERE job_id = ? AND url = ?`,
    ).get(jobId, url) as FrontierRow | undefined;
  }

  /** Whether another URL of the crawl was kept with this content. */
  hashTakenByOther(jobId: number, hash: string, url: string): string | null {
    const row = prepared(
      this.db,
      `SELECT url FROM crawl_frontier
         WHERE job_id = ? AND content_hash = ? AND url <> ? AND status = 'fetched' LIMIT 1`,
    ).get(jobId, hash, url) as { url: string } | undefined;
    return row?.url ?? null;
  }

  /** A page's outcome; the row is created when the URL was not known (a redirect target). */
  recordOutcome(
    jobId: number,
    o: {
      url: string;
      depth: number;
      status: Exclude<FrontierStatus, 'pending'>;
      reason: CrawlSkipReason | null;
      http_status: number | null;
      content_hash: string | null;
      detail: string | null;
      fetched: boolean;
    },
  ): void {
    prepared(
      this.db,
      `INSERT INTO crawl_frontier (job_id, url, depth, status, reason, http_status, content_hash, detail, fetched_at)
         VALUES (@job_id, @url, @depth, @status, @reason, @http_status, @content_hash, @detail, @fetched_at)
         ON CONFLICT(job_id, url) DO UPDATE SET
           status = excluded.status, reason = excluded.reason, http_status = excluded.http_status,
           content_hash = excluded.content_hash, detail = excluded.detail,
           fetched_at = excluded.fetched_at`,
    ).run({
      job_id: jobId,
      ...o,
      fetched_at: o.fetched ? new Date().toISOString() : null,
    });
  }

  counts(jobId: number): FrontierCounts {
    const rows = prepared(
      this.db,
      `SELECT status, reason, COUNT(*) AS n, COUNT(fetched_at) AS fetched,
              MAX(CASE WHEN fetched_at IS NOT NULL THEN depth END) AS depth
         FROM crawl_frontier WHERE job_id = ? GROUP BY status, reason`,
    ).all(jobId) as {
      status: string;
      reason: string | null;
      n: number;
      fetched: number;
      depth: number | null;
    }[];
    const counts: FrontierCounts = {
      total: 0,
      byStatus: {},
      byReason: {},
      fetched: 0,
      maxFetchedDepth: 0,
    };
    for (const r of rows) {
      counts.total += r.n;
      counts.byStatus[r.status] = (counts.byStatus[r.status] ?? 0) + r.n;
      if (r.reason) counts.byReason[r.reason] = (counts.byReason[r.reason] ?? 0) + r.n;
      counts.fetched += r.fetched;
      if (r.depth !== null) counts.maxFetchedDepth = Math.max(counts.maxFetchedDepth, r.depth);
    }
    return counts;
  }

  /** Every row of the crawl in discovery order (what a resumed working half starts from). */
  listAll(
    jobId: number,
  ): Pick<FrontierRow, 'url' | 'depth' | 'status' | 'content_hash' | 'fetched_at'>[] {
    return prepared(
      this.db,
      `SELECT url, depth, status, content_hash, fetched_at FROM crawl_frontier
         WHERE job_id = ? ORDER BY id`,
    ).all(jobId) as Pick<FrontierRow, 'url' | 'depth' | 'status' | 'content_hash' | 'fetched_at'>[];
  }

  listPage(
    jobId: number,
    f: { status?: FrontierStatus; reason?: CrawlSkipReason },
    limit: number,
    offset: number,
  ): { rows: FrontierEntry[]; total: number } {
    const where = ['job_id = @job_id'];
    const params: Record<string, unknown> = { job_id: jobId };
    if (f.status) {
      where.push('status = @status');
      params.status = f.status;
    }
    if (f.reason) {
      where.push('reason = @reason');
      params.reason = f.reason;
    }
    const total = (
      prepared(
        this.db,
        `SELECT COUNT(*) AS n FROM crawl_frontier WHERE ${where.join(' AND ')}`,
      ).get(params) as { n: number }
    ).n;
    const rows = prepared(
      this.db,
      `SELECT url, depth, status, reason, http_status, detail, discovered_from
         FROM crawl_frontier WHERE ${where.join(' AND ')} ORDER BY id LIMIT @limit OFFSET @offset`,
    ).all({ ...params, limit, offset }) as FrontierEntry[];
    return { rows, total };
  }
}
