import type { SourceKind } from '@adam/contracts';
import type { Validators } from '../scraping/page-validators.js';
import { prepared, type Db } from './db.js';
import { NEXT_SOURCE_ID } from './id-floor.repository.js';

export interface SourceRow {
  id: number;
  url: string;
  kind: SourceKind;
  domain: string;
  title: string | null;
  language: string | null;
  segments_count: number;
  last_job_id: number | null;
  last_status: string | null;
  last_error: string | null;
  created_at: string;
  updated_at: string;
  /** Freshness (migration 14; see source-sync.repository.ts). */
  schedule: string;
  next_sync_at: string | null;
  last_sync_at: string | null;
  etag: string | null;
  last_modified: string | null;
  content_hash: string | null;
  missing_count: number;
  sync_job_id: number | null;
}

export class SourceRepository {
  constructor(private readonly db: Db) {}

  /** Records the outcome of processing a URL; segments add up over jobs. */
  upsertResult(r: {
    url: string;
    domain: string;
    title: string | null;
    language: string | null;
    segments: number;
    job_id: number;
    status: 'ok' | 'failed';
    error: string | null;
    /** Set on the first record only: a URL's kind never changes. Default 'web'. */
    kind?: SourceKind;
    /** The page's answer as fetched (ETag, Last-Modified, body hash): its first sync is conditional. */
    validators?: Validators;
  }): void {
    const now = new Date().toISOString();
    const { validators: v, ...row } = r;
    prepared(
      this.db,
      `INSERT INTO sources (id, url, kind, domain, title, language, segments_count, last_job_id, last_status, last_error, created_at, updated_at, etag, last_modified, content_hash)
         VALUES (${NEXT_SOURCE_ID}, @url, @kind, @domain, @title, @language, @segments, @job_id, @status, @error, @now, @now, @etag, @last_modified, @content_hash)
         ON CONFLICT(url) DO UPDATE SET
           title = COALESCE(excluded.title, sources.title),
           language = COALESCE(excluded.language, sources.language),
           segments_count = sources.segments_count + excluded.segments_count,
           last_job_id = excluded.last_job_id, last_status = excluded.last_status,
           last_error = excluded.last_error, updated_at = excluded.updated_at,
           etag = IIF(@fetched, excluded.etag, sources.etag),
           last_modified = IIF(@fetched, excluded.last_modified, sources.last_modified),
           content_hash = IIF(@fetched, excluded.content_hash, sources.content_hash)`,
    ).run({
      ...row,
      kind: r.kind ?? 'web',
      now,
      fetched: v ? 1 : 0,
      etag: v?.etag ?? null,
      last_modified: v?.last_modified ?? null,
      content_hash: v?.content_hash ?? null,
    });
  }

  list(
    f: { search?: string; domain?: string; kind?: SourceKind },
    limit: number,
    offset: number,
  ): { rows: SourceRow[]; total: number } {
    const parts: string[] = [];
    const params: unknown[] = [];
    if (f.search) {
      parts.push("(url LIKE ? ESCAPE '\\' OR title LIKE ? ESCAPE '\\')");
      const like = `%${f.search.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
      params.push(like, like);
    }
    if (f.domain) {
      parts.push('(domain = ? OR domain LIKE ?)');
      params.push(f.domain, `%.${f.domain}`);
    }
    // The list is sorted after filtering (no index orders it); sources_kind narrows a kind's rows.
    if (f.kind) {
      parts.push('kind = ?');
      params.push(f.kind);
    }
    const where = parts.length ? `WHERE ${parts.join(' AND ')}` : '';
    const rows = this.db
      .prepare(`SELECT * FROM sources ${where} ORDER BY updated_at DESC, id DESC LIMIT ? OFFSET ?`)
      .all(...params, limit, offset) as SourceRow[];
    const total = this.db
      .prepare(`SELECT COUNT(*) FROM sources ${where}`)
      .pluck()
      .get(...params) as number;
    return { rows, total };
  }

  findById(id: number): SourceRow | undefined {
    return this.db.prepare('SELECT * FROM sources WHERE id = ?').get(id) as SourceRow | undefined;
  }

  deleteById(id: number): boolean {
    return this.db.prepare('DELETE FROM sources WHERE id = ?').run(id).changes === 1;
  }

  count(): number {
    return this.db.prepare('SELECT COUNT(*) FROM sources').pluck().get() as number;
  }

  /**
   * Sources holding snippets, and sources that hold none because their last fetch failed (a DNS
   * error, a 404): counted apart so the overview's source total is not mistaken for content.
   */
  countByOutcome(): { with_content: number; failed: number } {
    return this.db
      .prepare(
        `SELECT COALESCE(SUM(segments_count > 0), 0) AS with_content,
                COALESCE(SUM(segments_count = 0 AND last_status = 'failed'), 0) AS failed
           FROM sources`,
      )
      .get() as { with_content: number; failed: number };
  }

  /** The sources with the most segments (index sources_segments). */
  listTopBySegments(limit: number): SourceRow[] {
    return this.db
      .prepare(
        'SELECT * FROM sources WHERE segments_count > 0 ORDER BY segments_count DESC, id LIMIT ?',
      )
      .all(limit) as SourceRow[];
  }
}
