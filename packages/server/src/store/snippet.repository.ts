import type { Db } from './db.js';

export interface SnippetRow {
  id: number;
  text: string;
  text_hash: string;
  theme: string;
  quality_score: number;
  language: string | null;
  word_count: number;
  size_bytes: number;
  source_title: string | null;
  source_url: string | null;
  job_id: number | null;
  metadata: string;
  embedder_id: string | null;
  faiss_id: number | null;
  index_pending: number;
  indexed_at: string | null;
  created_at: string;
  updated_at: string;
}

export type NewSnippet = Omit<
  SnippetRow,
  'id' | 'faiss_id' | 'index_pending' | 'indexed_at' | 'created_at' | 'updated_at'
> & { embedding: Buffer | null };

export interface SnippetFilter {
  theme?: string;
  min_quality?: number;
  /** An FTS5 MATCH expression, already made safe by the caller. */
  match?: string;
  job_id?: number;
  source_url?: string;
  ids?: number[];
  indexed_only?: boolean;
}

export const SNIPPET_SORTS = ['created_at', 'quality_score', 'word_count'] as const;
export type SnippetSort = (typeof SNIPPET_SORTS)[number];

const COLUMNS = `s.id, s.text, s.text_hash, s.theme, s.quality_score, s.language, s.word_count, s.size_bytes,
  s.source_title, s.source_url, s.job_id, s.metadata, s.embedder_id, s.faiss_id, s.index_pending,
  s.indexed_at, s.created_at, s.updated_at`;

export class SnippetRepository {
  constructor(private readonly db: Db) {}

  /** Inserts the rows whose normalised text is new; answers the new ids, in input order (null for duplicates). */
  insertMany(rows: NewSnippet[]): (number | null)[] {
    const now = new Date().toISOString();
    const stmt = this.db.prepare(
      `INSERT OR IGNORE INTO snippets (text, text_hash, theme, quality_score, language, word_count, size_bytes,
         source_title, source_url, job_id, metadata, embedding, embedder_id, index_pending, created_at, updated_at)
       VALUES (@text, @text_hash, @theme, @quality_score, @language, @word_count, @size_bytes,
         @source_title, @source_url, @job_id, @metadata, @embedding, @embedder_id, 1, @now, @now)`,
    );
    return this.db.transaction((rs: NewSnippet[]) =>
      rs.map((r) => {
        const res = stmt.run({ ...r, now });
        return res.changes === 1 ? Number(res.lastInsertRowid) : null;
      }),
    )(rows);
  }

  findById(id: number): SnippetRow | undefined {
    return this.db.prepare(`SELECT ${COLUMNS} FROM snippets s WHERE s.id = ?`).get(id) as
      SnippetRow | undefined;
  }

  findByIds(ids: readonly number[]): SnippetRow[] {
    if (ids.length === 0) return [];
    const out: SnippetRow[] = [];
    for (let i = 0; i < ids.length; i += 500) {
      const chunk = ids.slice(i, i + 500);
      out.push(
        ...(this.db
          .prepare(
            `SELECT ${COLUMNS} FROM snippets s WHERE s.id IN (${chunk.map(() => '?').join(',')})`,
          )
          .all(...chunk) as SnippetRow[]),
      );
    }
    return out;
  }

  findByHashes(hashes: readonly string[]): Map<string, number> {
    const out = new Map<string, number>();
    for (let i = 0; i < hashes.length; i += 500) {
      const chunk = hashes.slice(i, i + 500);
      const rows = this.db
        .prepare(
          `SELECT id, text_hash FROM snippets WHERE text_hash IN (${chunk.map(() => '?').join(',')})`,
        )
        .all(...chunk) as { id: number; text_hash: string }[];
      for (const r of rows) out.set(r.text_hash, r.id);
    }
    return out;
  }

  private where(f: SnippetFilter): { sql: string; params: unknown[]; fts: boolean } {
    const parts: string[] = [];
    const params: unknown[] = [];
    const add = (sql: string, ...values: unknown[]) => {
      parts.push(sql);
      params.push(...values);
    };
    if (f.theme) add('s.theme = ?', f.theme);
    if (f.min_quality !== undefined) add('s.quality_score >= ?', f.min_quality);
    if (f.job_id !== undefined) add('s.job_id = ?', f.job_id);
    if (f.source_url) add('s.source_url = ?', f.source_url);
    if (f.ids) add(`s.id IN (${f.ids.map(Number).filter(Number.isFinite).join(',') || 'NULL'})`);
    if (f.indexed_only) add('s.index_pending = 0');
    if (f.match) add('snippets_fts MATCH ?', f.match);
    return { sql: parts.length ? `WHERE ${parts.join(' AND ')}` : '', params, fts: !!f.match };
  }

  listPage(
    f: SnippetFilter,
    sort: SnippetSort,
    order: 'asc' | 'desc',
    limit: number,
    offset: number,
  ): { rows: SnippetRow[]; total: number } {
    const w = this.where(f);
    const from = w.fts ? 'snippets s JOIN snippets_fts ON snippets_fts.rowid = s.id' : 'snippets s';
    const dir = order === 'asc' ? 'ASC' : 'DESC';
    const rows = this.db
      .prepare(
        `SELECT ${COLUMNS} FROM ${from} ${w.sql} ORDER BY s.${sort} ${dir}, s.id ${dir} LIMIT ? OFFSET ?`,
      )
      .all(...w.params, limit, offset) as SnippetRow[];
    const total = this.db
      .prepare(`SELECT COUNT(*) FROM ${from} ${w.sql}`)
      .pluck()
      .get(...w.params) as number;
    return { rows, total };
  }

  idsMatching(f: SnippetFilter): number[] {
    const w = this.where(f);
    const from = w.fts ? 'snippets s JOIN snippets_fts ON snippets_fts.rowid = s.id' : 'snippets s';
    return this.db
      .prepare(`SELECT s.id FROM ${from} ${w.sql}`)
      .pluck()
      .all(...w.params) as number[];
  }

  idsBelowQuality(threshold: number): number[] {
    return this.db
      .prepare('SELECT id FROM snippets WHERE quality_score < ? ORDER BY id')
      .pluck()
      .all(threshold) as number[];
  }

  /** FTS5 bm25 ranking (best first); scores are bm25's, lower is better. */
  keywordSearch(
    match: string,
    limit: number,
    f: SnippetFilter = {},
  ): { id: number; bm25: number }[] {
    const w = this.where({ ...f, match });
    return this.db
      .prepare(
        `SELECT s.id AS id, bm25(snippets_fts) AS bm25 FROM snippets s JOIN snippets_fts ON snippets_fts.rowid = s.id
         ${w.sql} ORDER BY bm25 LIMIT ?`,
      )
      .all(...w.params, limit) as { id: number; bm25: number }[];
  }

  count(): number {
    return this.db.prepare('SELECT COUNT(*) FROM snippets').pluck().get() as number;
  }

  themeCounts(): Record<string, number> {
    const rows = this.db
      .prepare('SELECT theme, COUNT(*) AS n FROM snippets GROUP BY theme')
      .all() as {
      theme: string;
      n: number;
    }[];
    return Object.fromEntries(rows.map((r) => [r.theme, r.n]));
  }

  embeddings(
    ids: readonly number[],
  ): Map<number, { embedding: Buffer | null; embedder_id: string | null }> {
    const out = new Map<number, { embedding: Buffer | null; embedder_id: string | null }>();
    for (let i = 0; i < ids.length; i += 500) {
      const chunk = ids.slice(i, i + 500);
      const rows = this.db
        .prepare(
          `SELECT id, embedding, embedder_id FROM snippets WHERE id IN (${chunk.map(() => '?').join(',')})`,
        )
        .all(...chunk) as { id: number; embedding: Buffer | null; embedder_id: string | null }[];
      for (const r of rows) out.set(r.id, r);
    }
    return out;
  }

  setEmbeddings(rows: ReadonlyArray<{ id: number; embedding: Buffer; embedder_id: string }>): void {
    const stmt = this.db.prepare(
      'UPDATE snippets SET embedding = ?, embedder_id = ?, updated_at = ? WHERE id = ?',
    );
    const now = new Date().toISOString();
    this.db.transaction(() => {
      for (const r of rows) stmt.run(r.embedding, r.embedder_id, now, r.id);
    })();
  }

  markIndexed(ids: readonly number[], at: string): void {
    const stmt = this.db.prepare(
      'UPDATE snippets SET faiss_id = id, index_pending = 0, indexed_at = ?, updated_at = ? WHERE id = ?',
    );
    this.db.transaction(() => {
      for (const id of ids) stmt.run(at, at, id);
    })();
  }

  markPending(ids: readonly number[]): void {
    const stmt = this.db.prepare(
      'UPDATE snippets SET faiss_id = NULL, index_pending = 1, indexed_at = NULL, updated_at = ? WHERE id = ?',
    );
    const now = new Date().toISOString();
    this.db.transaction(() => {
      for (const id of ids) stmt.run(now, id);
    })();
  }

  markAllPending(): number {
    return this.db
      .prepare('UPDATE snippets SET faiss_id = NULL, index_pending = 1, indexed_at = NULL')
      .run().changes;
  }

  pendingIds(limit: number): number[] {
    return this.db
      .prepare('SELECT id FROM snippets WHERE index_pending = 1 ORDER BY id LIMIT ?')
      .pluck()
      .all(limit) as number[];
  }

  /** Pending ids above `after`, ascending: walks the pending rows while they stay pending. */
  pendingIdsAfter(after: number, limit: number): number[] {
    return this.db
      .prepare('SELECT id FROM snippets WHERE index_pending = 1 AND id > ? ORDER BY id LIMIT ?')
      .pluck()
      .all(after, limit) as number[];
  }

  /** Every row's id, as plain numbers (no row objects: reconciliation reads 1M of them). */
  allIds(): number[] {
    return this.db.prepare('SELECT id FROM snippets').pluck().all() as number[];
  }

  /** Ids of the rows marked indexed. */
  indexedIds(): number[] {
    return this.db
      .prepare('SELECT id FROM snippets WHERE index_pending = 0')
      .pluck()
      .all() as number[];
  }

  /** The database file, for a thread that opens its own read-only connection. */
  databaseFile(): string {
    return this.db.name;
  }

  /** Every row's id and vector key, for reconciling with the index. */
  indexState(): { id: number; faiss_id: number | null; index_pending: number }[] {
    return this.db.prepare('SELECT id, faiss_id, index_pending FROM snippets').all() as {
      id: number;
      faiss_id: number | null;
      index_pending: number;
    }[];
  }

  deleteByIds(ids: readonly number[]): number {
    const stmt = this.db.prepare('DELETE FROM snippets WHERE id = ?');
    return this.db.transaction(() => ids.reduce((n, id) => n + stmt.run(id).changes, 0))();
  }
}
