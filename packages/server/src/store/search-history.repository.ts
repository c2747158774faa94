import type Database from 'better-sqlite3';
import {
  normalizeQuery,
  WEAK_SIMILARITY,
  type SearchHistoryEntry,
  type SearchHistoryQuery,
  type SearchHistoryRerank,
  type SearchMode,
  type SearchOutcome,
} from '@adam/contracts';

/** A search as it is written: one row. */
export interface SearchHistoryRecord {
  at: string;
  user_id: number | null;
  query: string;
  query_norm: string;
  mode: SearchMode;
  filters: Record<string, unknown> | null;
  k: number;
  result_count: number;
  top_score: number | null;
  best_similarity: number | null;
  keyword_matches: number;
  result_ids: number[];
  latency_ms: number;
  rerank: SearchHistoryRerank | null;
}

interface Row {
  id: number;
  at: string;
  user_id: number | null;
  query: string;
  mode: SearchMode;
  filters: string | null;
  k: number;
  result_count: number;
  top_score: number | null;
  best_similarity: number | null;
  keyword_matches: number;
  result_ids: string;
  latency_ms: number;
  rerank: string | null;
}

export interface QueryGroupRow {
  normalized: string;
  query: string;
  mode: SearchMode;
  count: number;
  avg_latency_ms: number;
  avg_results: number;
  last_at: string;
}

/** The SQL of "found something, but only weak matches" (the contract's SearchOutcome). */
const WEAK_SQL = `(result_count > 0 AND keyword_matches = 0
  AND (best_similarity IS NULL OR best_similarity < ${WEAK_SIMILARITY}))`;
const OUTCOME_SQL: Record<SearchOutcome, string | null> = {
  all: null,
  empty: 'result_count = 0',
  weak: WEAK_SQL,
};

export class SearchHistoryRepository {
  private readonly insert: Database.Statement;

  constructor(private readonly db: Database.Database) {
    this.insert = db.prepare(
      `INSERT INTO search_history (at, user_id, query, query_norm, mode, filters, k, result_count,
         top_score, best_similarity, keyword_matches, result_ids, latency_ms, rerank)
       VALUES (@at, @user_id, @query, @query_norm, @mode, @filters, @k, @result_count,
         @top_score, @best_similarity, @keyword_matches, @result_ids, @latency_ms, @rerank)`,
    );
  }

  /** All in one transaction: one commit (one fsync) for a buffer's worth of searches. */
  insertMany(records: readonly SearchHistoryRecord[]): void {
    this.db.transaction(() => {
      for (const r of records) {
        this.insert.run({
          ...r,
          filters: r.filters ? JSON.stringify(r.filters) : null,
          result_ids: JSON.stringify(r.result_ids),
          rerank: r.rerank ? JSON.stringify(r.rerank) : null,
        });
      }
    })();
  }

  /** Newest first, entries older than `beforeId` when given; one more than `limit` tells a next page. */
  listPage(q: SearchHistoryQuery, beforeId: number | null): SearchHistoryEntry[] {
    const clauses: string[] = [];
    const params: Record<string, unknown> = { limit: q.limit + 1 };
    if (beforeId !== null) {
      clauses.push('id < @beforeId');
      params.beforeId = beforeId;
    }
    if (q.q) {
      // instr, not LIKE: the text is matched as it is, no character in it is a wildcard. On the
      // normalised text, lower-cased by JavaScript: SQLite's lower() knows ASCII only.
      clauses.push('instr(query_norm, @q) > 0');
      params.q = normalizeQuery(q.q);
    }
    if (q.mode) {
      clauses.push('mode = @mode');
      params.mode = q.mode;
    }
    const outcome = OUTCOME_SQL[q.outcome];
    if (outcome) clauses.push(outcome);
    if (q.from) {
      clauses.push('at >= @from');
      params.from = new Date(q.from).toISOString();
    }
    if (q.to) {
      clauses.push('at <= @to');
      params.to = new Date(q.to).toISOString();
    }
    const where = clauses.length ? `WHERE ${clauses.join(' AND ')}` : '';
    const rows = this.db
      .prepare(`SELECT * FROM search_history ${where} ORDER BY id DESC LIMIT @limit`)
      .all(params) as Row[];
    return rows.map(toEntry);
  }

  count(since: string): { searches: number; empty: number; weak: number } {
    return this.db
      .prepare(
        `SELECT count(*) AS searches,
           coalesce(sum(result_count = 0), 0) AS empty,
           coalesce(sum(${WEAK_SQL}), 0) AS weak
         FROM search_history WHERE at >= ?`,
      )
      .get(since) as { searches: number; empty: number; weak: number };
  }

  /**
   * Searches since `since` grouped by normalised query, most frequent first (then the latest).
   * `query` and `mode` are the latest search's: SQLite takes bare columns from the max(id) row.
   */
  topQueries(since: string, outcome: SearchOutcome, limit: number): QueryGroupRow[] {
    const extra = OUTCOME_SQL[outcome];
    return this.db
      .prepare(
        `SELECT query_norm AS normalized, query, mode, max(id) AS last_id, count(*) AS count,
           avg(latency_ms) AS avg_latency_ms, avg(result_count) AS avg_results, max(at) AS last_at
         FROM search_history WHERE at >= ? ${extra ? `AND ${extra}` : ''}
         GROUP BY query_norm ORDER BY count DESC, last_id DESC LIMIT ?`,
      )
      .all(since, limit) as QueryGroupRow[];
  }

  /** A normalised query's latencies since `since`, lowest first. */
  latencies(normalized: string, since: string): number[] {
    return this.db
      .prepare(
        `SELECT latency_ms FROM search_history WHERE query_norm = ? AND at >= ?
         ORDER BY latency_ms`,
      )
      .pluck()
      .all(normalized, since) as number[];
  }

  slowest(since: string, limit: number): SearchHistoryEntry[] {
    const rows = this.db
      .prepare(`SELECT * FROM search_history WHERE at >= ? ORDER BY latency_ms DESC LIMIT ?`)
      .all(since, limit) as Row[];
    return rows.map(toEntry);
  }

  deleteById(id: number): boolean {
    return this.db.prepare('DELETE FROM search_history WHERE id = ?').run(id).changes > 0;
  }

  deleteAll(): number {
    return this.db.prepare('DELETE FROM search_history').run().changes;
  }

  /** At most `batch` of the rows older than `cutoff`, oldest first: a short write each. */
  deleteOlderThan(cutoff: string, batch: number): number {
    return this.db
      .prepare(
        `DELETE FROM search_history WHERE id IN
           (SELECT id FROM search_history WHERE at < ? ORDER BY at LIMIT ?)`,
      )
      .run(cutoff, batch).changes;
  }
}

function toEntry(r: Row): SearchHistoryEntry {
  const empty = r.result_count === 0;
  const weak =
    !empty &&
    r.keyword_matches === 0 &&
    (r.best_similarity === null || r.best_similarity < WEAK_SIMILARITY);
  return {
    id: r.id,
    at: r.at,
    user_id: r.user_id,
    query: r.query,
    mode: r.mode,
    filters: r.filters ? (JSON.parse(r.filters) as Record<string, unknown>) : null,
    k: r.k,
    result_count: r.result_count,
    top_score: r.top_score,
    best_similarity: r.best_similarity,
    keyword_matches: r.keyword_matches,
    result_ids: JSON.parse(r.result_ids) as number[],
    latency_ms: r.latency_ms,
    rerank: r.rerank ? (JSON.parse(r.rerank) as SearchHistoryRerank) : null,
    outcome: empty ? 'empty' : weak ? 'weak' : 'ok',
  };
}
