import { prepared, type Db } from './db.js';

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
  /** The heading path of the page section it was cut from (migration 26); null: none or older. */
  section?: string | null;
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

/** The sorts by a column. */
export const SNIPPET_SORTS = ['created_at', 'quality_score', 'word_count'] as const;
/** `relevance` is bm25 order, and only means something with a text match. */
export type SnippetSort = (typeof SNIPPET_SORTS)[number] | 'relevance';

interface SnippetPage {
  rows: SnippetRow[];
  total: number;
  /** False when `total` is an estimate (see SnippetRepository.total). */
  exact: boolean;
  /**
   * Whether rows lie past the page in the way it was read: after it for an offset or an
   * `after` seek, before it for a `before` seek.
   */
  more: boolean;
}

/** A row's place in a column sort: its sort column's value (unused by created_at) and its id. */
export interface SnippetKey {
  value: number | null;
  id: number;
}

/**
 * Where a page starts: an offset (walks the rows before it), or a keyset seek to the rows just
 * after or just before a row's key in the listing's order (an index seek, whatever the depth).
 */
export type SnippetPosition = number | { after: SnippetKey } | { before: SnippetKey };

/**
 * A keyset condition, as the parts to read one after the other in the walk's order: for a
 * column sort, the key's ties (by id) then the rows past its value. SQLite seeks a row value
 * `(col, id) < (?, ?)` on the column alone and filters the ties row by row (70 ms at 1M rows
 * on a word count), while `col = ? AND id < ?` seeks both in the (col, rowid) index.
 */
function seekParts(
  sort: Exclude<SnippetSort, 'relevance'>,
  dir: 'ASC' | 'DESC',
  key: SnippetKey,
): { sql: string; params: unknown[] }[] {
  const past = dir === 'DESC' ? '<' : '>';
  if (sort === 'created_at') return [{ sql: `s.id ${past} ?`, params: [key.id] }];
  return [
    { sql: `s.${sort} = ? AND s.id ${past} ?`, params: [key.value, key.id] },
    { sql: `s.${sort} ${past} ?`, params: [key.value] },
  ];
}

/** A WHERE clause of `where` (a clause or empty) and one more condition. */
const and = (where: string, cond: string) => (where ? `${where} AND ${cond}` : `WHERE ${cond}`);

/** Totals are counted row by row up to this many; past it they are estimated. */
const COUNT_CAP = 10_000;
/**
 * A text search's total is counted over at most COUNT_CAP / FTS_SCAN_SHARE (2,000) matches: past
 * that, each further match checked against the other filters costs a row read.
 */
const FTS_SCAN_SHARE = 5;
/**
 * A quality threshold leaving at most this many times COUNT_CAP rows is listed by sorting them
 * (see pickIndex): sorting 20,000 rows costs less than walking past a million to find a page.
 */
const SORT_FACTOR = 2;

const COLUMNS = `s.id, s.text, s.text_hash, s.theme, s.quality_score, s.language, s.word_count, s.size_bytes,
  s.source_title, s.source_url, s.job_id, s.metadata, s.section,
  (SELECT e.embedder_id FROM snippet_embeddings e WHERE e.snippet_id = s.id) AS embedder_id,
  s.faiss_id, s.index_pending, s.indexed_at, s.created_at, s.updated_at`;

/** Migration 5's quality decile of a row. */
const BUCKET = 'MIN(9, MAX(0, CAST(s.quality_score * 10 AS INTEGER)))';

const orderBy = (sort: SnippetSort, order: 'asc' | 'desc') => {
  const dir = order === 'asc' ? 'ASC' : 'DESC';
  return sort === 'created_at' ? `s.id ${dir}` : `s.${sort} ${dir}, s.id ${dir}`;
};

/** An estimate to two significant figures: more would claim a precision it does not have. */
const roughly = (n: number): number => {
  if (n < 100) return Math.round(n);
  const unit = 10 ** (Math.floor(Math.log10(n)) - 1);
  return Math.round(n / unit) * unit;
};

/**
 * The rows `sql` answers for `ids`, by id, asked 500 ids at a time (one statement per list
 * length, compiled once: searches read their candidates' vectors this way).
 */
function rowsById<R extends { id: number }>(
  db: Db,
  ids: readonly number[],
  sql: (marks: string) => string,
): Map<number, R> {
  const out = new Map<number, R>();
  for (let i = 0; i < ids.length; i += 500) {
    const chunk = ids.slice(i, i + 500);
    const rows = prepared(db, sql(chunk.map(() => '?').join(','))).all(...chunk) as R[];
    for (const r of rows) out.set(r.id, r);
  }
  return out;
}

export class SnippetRepository {
  private readonly countCap: number;

  /** `countCap` is COUNT_CAP unless a test wants estimates from a small table. */
  constructor(
    private readonly db: Db,
    opts: { countCap?: number } = {},
  ) {
    this.countCap = opts.countCap ?? COUNT_CAP;
  }

  /**
   * Inserts the rows whose normalised text is new; answers the new ids, in input order (null for
   * duplicates). created_at never goes below the newest row's, even if the clock steps back, so
   * id order is created_at order (listPage relies on it).
   */
  insertMany(rows: NewSnippet[]): (number | null)[] {
    const clock = new Date().toISOString();
    const newest = prepared(this.db, 'SELECT created_at FROM snippets ORDER BY id DESC LIMIT 1')
      .pluck()
      .get() as string | undefined;
    const now = newest && newest > clock ? newest : clock;
    const insert = (withId: boolean) =>
      prepared(
        this.db,
        `INSERT OR IGNORE INTO snippets (${withId ? 'id, ' : ''}text, text_hash, theme, quality_score, language, word_count, size_bytes,
         source_title, source_url, job_id, metadata, section, index_pending, created_at, updated_at)
       VALUES (${withId ? '@id, ' : ''}@text, @text_hash, @theme, @quality_score, @language, @word_count, @size_bytes,
         @source_title, @source_url, @job_id, @metadata, @section, 1, @now, @now)`,
      );
    const vector = prepared(
      this.db,
      'INSERT INTO snippet_embeddings (snippet_id, embedding, embedder_id) VALUES (?, ?, ?)',
    );
    // A deleted id is never given again (migration 11): the first row goes above the floor
    // when the newest snippets were deleted, the next ones follow it.
    const floor = prepared(
      this.db,
      'SELECT high FROM snippet_id_floor WHERE high >= COALESCE((SELECT MAX(id) FROM snippets), 0)',
    );
    return this.db.transaction((rs: NewSnippet[]) => {
      const high = floor.pluck().get() as number | undefined;
      let next = high === undefined ? null : high + 1;
      return rs.map(({ embedding, embedder_id, ...r }) => {
        const res =
          next === null
            ? insert(false).run({ ...r, section: r.section ?? null, now })
            : insert(true).run({ ...r, section: r.section ?? null, now, id: next });
        if (res.changes !== 1) return null;
        next = null;
        const id = Number(res.lastInsertRowid);
        if (embedding) vector.run(id, embedding, embedder_id);
        return id;
      });
    })(rows);
  }

  /** The store's file: an export reads it on a thread and a connection of its own. */
  get file(): string {
    return this.db.name;
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
      // One statement per list length (at most 500), compiled once: every search reads its k.
      out.push(
        ...(prepared(
          this.db,
          `SELECT ${COLUMNS} FROM snippets s WHERE s.id IN (${chunk.map(() => '?').join(',')})`,
        ).all(...chunk) as SnippetRow[]),
      );
    }
    return out;
  }

  /**
   * Up to `limit` rows with `after < id <= through`, in id order: a keyset page (a seek on the
   * rowid, never an OFFSET walk), so reading every row a page at a time stays linear.
   */
  pageAfterId(after: number, through: number, limit: number): SnippetRow[] {
    return prepared(
      this.db,
      `SELECT ${COLUMNS} FROM snippets s WHERE s.id > ? AND s.id <= ? ORDER BY s.id LIMIT ?`,
    ).all(after, through, limit) as SnippetRow[];
  }

  /** The highest id in the store (0 when empty). */
  maxId(): number {
    return prepared(this.db, 'SELECT COALESCE(MAX(id), 0) FROM snippets').pluck().get() as number;
  }

  /** Which of `ids` have a row (ids only: no row is read). */
  existingIds(ids: readonly number[]): Set<number> {
    const out = new Set<number>();
    for (let i = 0; i < ids.length; i += 500) {
      const chunk = ids.slice(i, i + 500);
      const found = this.db
        .prepare(`SELECT id FROM snippets WHERE id IN (${chunk.map(() => '?').join(',')})`)
        .pluck()
        .all(...chunk) as number[];
      for (const id of found) out.add(id);
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

  private where(f: SnippetFilter): {
    sql: string;
    params: unknown[];
    fts: boolean;
    /** Whether anything but the text match narrows the rows. */
    rowFilter: boolean;
  } {
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
    const rowFilter = parts.length > 0;
    if (f.match) add('snippets_fts MATCH ?', f.match);
    return {
      sql: parts.length ? `WHERE ${parts.join(' AND ')}` : '',
      params,
      fts: !!f.match,
      rowFilter,
    };
  }

  /**
   * One page of a listing and its total. Sorting by created_at is sorting by id: insertMany
   * stamps created_at non-decreasing in id, so the order is the same as `created_at, id` and
   * every index, and FTS, already yields rows in it. The page's ids come from an index (or
   * FTS) walked in the order asked for, the rows are read after, 50 at most.
   */
  listPage(
    f: SnippetFilter,
    sort: SnippetSort,
    order: 'asc' | 'desc',
    limit: number,
    at: SnippetPosition,
  ): SnippetPage {
    // Relevance is bm25 order: without a text match there is none, and newest first stands in.
    if (sort === 'relevance' && !f.match) sort = 'created_at';
    // One row past the page says whether there is more.
    const { ids, total, exact } =
      typeof at === 'number'
        ? this.offsetIds(f, sort, order, limit + 1, at)
        : this.seekIds(f, sort, order, limit + 1, at);
    const more = ids.length > limit;
    const page = ids.slice(0, limit);
    if (typeof at !== 'number' && 'before' in at) page.reverse();
    return { rows: this.rowsInOrder(page), total, exact, more };
  }

  private offsetIds(
    f: SnippetFilter,
    sort: SnippetSort,
    order: 'asc' | 'desc',
    limit: number,
    offset: number,
  ): { ids: number[]; total: number; exact: boolean } {
    if (f.match) return this.searchPage(f, f.match, sort, order, limit, offset);
    return { ids: this.pageIds(f, sort, order, limit, offset), ...this.total(f) };
  }

  /**
   * Ids of a keyset page, in the walk's order (a `before` seek walks backwards from the key),
   * and the listing's total as an offset page counts it. Relevance has no key: its pages are
   * offsets (bm25 scores every match either way).
   */
  private seekIds(
    f: SnippetFilter,
    sort: SnippetSort,
    order: 'asc' | 'desc',
    limit: number,
    at: { after: SnippetKey } | { before: SnippetKey },
  ): { ids: number[]; total: number; exact: boolean } {
    if (sort === 'relevance') throw new Error('a listing by relevance pages by offset');
    const before = 'before' in at;
    const key = before ? at.before : at.after;
    const walk = before === (order === 'desc') ? 'asc' : 'desc';
    // A text search's total is estimated from the same walk as its first page's (by date: in
    // the order asked, as far as a page; else newest first), so every page answers the same.
    const byId = sort === 'created_at';
    const { total, exact } = f.match
      ? this.searchPage(f, f.match, 'created_at', byId ? order : 'desc', byId ? limit : 0, 0)
      : this.total(f);
    const parts = seekParts(sort, walk === 'asc' ? 'ASC' : 'DESC', key);
    const ids: number[] = [];
    for (const part of parts) {
      if (ids.length >= limit) break;
      const want = limit - ids.length;
      ids.push(
        ...(f.match
          ? this.searchSeek(f, f.match, sort, walk, want, part, exact)
          : this.pageIds(f, sort, walk, want, 0, part)),
      );
    }
    return { ids, total, exact };
  }

  private rowsInOrder(ids: number[]): SnippetRow[] {
    const byId = new Map(this.findByIds(ids).map((r) => [r.id, r]));
    return ids.map((id) => byId.get(id)).filter((r): r is SnippetRow => !!r);
  }

  /** Ids of a page without text search: one index, picked by hand (see pickIndex). */
  private pageIds(
    f: SnippetFilter,
    sort: SnippetSort,
    order: 'asc' | 'desc',
    limit: number,
    offset: number,
    seek?: { sql: string; params: unknown[] },
  ): number[] {
    const w = this.residual(f);
    const index = this.pickIndex(f, sort);
    const where = seek ? and(w.sql, seek.sql) : w.sql;
    return this.db
      .prepare(
        `SELECT s.id FROM snippets s ${index} ${where} ORDER BY ${orderBy(sort, order)} LIMIT ? OFFSET ?`,
      )
      .pluck()
      .all(...w.params, ...(seek?.params ?? []), limit, offset) as number[];
  }

  /**
   * A page of a text search and its total, from one walk of the FTS rowids newest first (so a
   * prefix query, whose set-up costs FTS5 a merge of every matching term's list, pays it once).
   * The walk stops once it has the page (in id order) and has looked at 2,000 matches; the
   * other filters are checked on each row on the way. Its total is exact when the walk ran out
   * of matches, else estimated: the FTS matches extrapolated from how far back in ids the scan
   * reached, times the share of them passing the other filters (in the scan, or from the kept
   * counts for a job or a source).
   */
  private searchPage(
    f: SnippetFilter,
    match: string,
    sort: SnippetSort,
    order: 'asc' | 'desc',
    limit: number,
    offset: number,
  ): { ids: number[]; total: number; exact: boolean } {
    const w = this.residual(f);
    const byId = sort === 'created_at';
    const dir = byId && order === 'asc' ? 'ASC' : 'DESC';
    const scan = this.countCap / FTS_SCAN_SHARE;
    const walk = w.sql
      ? this.db.prepare(
          `SELECT f.rowid AS id, (${w.sql.replace(/^WHERE /, '')}) AS ok
           FROM snippets_fts f CROSS JOIN snippets s ON s.id = f.rowid
           WHERE f.snippets_fts MATCH ? ORDER BY f.rowid ${dir}`,
        )
      : this.db.prepare(
          `SELECT rowid AS id, 1 AS ok FROM snippets_fts WHERE snippets_fts MATCH ? ORDER BY rowid ${dir}`,
        );
    const ids: number[] = [];
    let scanned = 0;
    let passed = 0;
    let passedInScan = 0;
    let lastScanned = 0;
    let exhausted = true;
    for (const r of walk.iterate(...w.params, match) as Iterable<{ id: number; ok: number }>) {
      if (scanned >= scan) {
        exhausted = false;
        break;
      }
      if (scanned < scan) lastScanned = r.id;
      scanned++;
      if (!r.ok) continue;
      if (scanned <= scan) passedInScan++;
      if (byId && passed >= offset && passed < offset + limit) ids.push(r.id);
      passed++;
    }
    let total = passed;
    if (!exhausted) {
      const { lo, hi } = this.db
        .prepare(
          'SELECT (SELECT MIN(id) FROM snippets) AS lo, (SELECT MAX(id) FROM snippets) AS hi',
        )
        .get() as { lo: number; hi: number };
      const reached = dir === 'DESC' ? hi - lastScanned + 1 : lastScanned - lo + 1;
      const matches = (scan * (hi - lo + 1)) / Math.max(1, reached);
      // A job's or a source's rows sit together in ids, so a sample of the newest matches says
      // little about them: their share comes from the kept counts instead.
      const clustered = f.job_id !== undefined || !!f.source_url;
      const share = clustered
        ? this.estimate({ ...f, match: undefined }) / Math.max(1, this.statsCount())
        : passedInScan / scan;
      total = Math.max(passed, Math.min(this.statsCount(), roughly(matches * share)));
    }
    if (byId && !exhausted && passed < offset + limit) {
      // A deeper page than the scan reached: FTS5 skips to it itself, ~20× faster than rows
      // stepped through here (page 1,001 of a word in 350k rows: 2.7 ms against 55).
      const page = w.sql
        ? `SELECT f.rowid FROM snippets_fts f CROSS JOIN snippets s ON s.id = f.rowid
           WHERE f.snippets_fts MATCH ? AND (${w.sql.replace(/^WHERE /, '')})
           ORDER BY f.rowid ${dir} LIMIT ? OFFSET ?`
        : `SELECT rowid FROM snippets_fts WHERE snippets_fts MATCH ? ORDER BY rowid ${dir} LIMIT ? OFFSET ?`;
      const deep = prepared(this.db, page)
        .pluck()
        .all(match, ...w.params, limit, offset) as number[];
      return { ids: deep, total, exact: false };
    }
    if (byId) return { ids, total, exact: exhausted };
    if (sort === 'relevance')
      return { ids: this.searchRanked(f, match, order, limit, offset), total, exact: exhausted };
    return {
      ids: this.searchSorted(f, match, sort, order, limit, offset, exhausted),
      total,
      exact: exhausted,
    };
  }

  /**
   * A page of a text search sorted by a column. Few matches (the walk above ran out): they are
   * sorted. Many: the column's index is walked and each row checked, by asking FTS about it
   * when the query has no prefix term (a seek per row), else against the set of every match (a
   * prefix term costs FTS5 a full merge per question, so it is asked once).
   */
  private searchSorted(
    f: SnippetFilter,
    match: string,
    sort: SnippetSort,
    order: 'asc' | 'desc',
    limit: number,
    offset: number,
    few: boolean,
    seek?: { sql: string; params: unknown[] },
  ): number[] {
    const r = this.residual(f);
    const w = seek ? { sql: and(r.sql, seek.sql), params: [...r.params, ...seek.params] } : r;
    const andW = w.sql.replace(/^WHERE/, 'AND');
    if (few)
      return this.db
        .prepare(
          `SELECT s.id FROM snippets_fts f CROSS JOIN snippets s ON s.id = f.rowid
           WHERE f.snippets_fts MATCH ? ${andW}
           ORDER BY ${orderBy(sort, order)} LIMIT ? OFFSET ?`,
        )
        .pluck()
        .all(match, ...w.params, limit, offset) as number[];
    const index = this.pickIndex(f, sort);
    if (!match.includes('*')) {
      const probe =
        'EXISTS (SELECT 1 FROM snippets_fts WHERE snippets_fts MATCH ? AND rowid = s.id)';
      return this.db
        .prepare(
          `SELECT s.id FROM snippets s ${index} ${and(w.sql, probe)}
           ORDER BY ${orderBy(sort, order)} LIMIT ? OFFSET ?`,
        )
        .pluck()
        .all(...w.params, match, limit, offset) as number[];
    }
    const matching = new Set(
      this.db
        .prepare('SELECT rowid FROM snippets_fts WHERE snippets_fts MATCH ?')
        .pluck()
        .all(match) as number[],
    );
    const ids: number[] = [];
    let passed = 0;
    const rows = this.db
      .prepare(`SELECT s.id FROM snippets s ${index} ${w.sql} ORDER BY ${orderBy(sort, order)}`)
      .pluck()
      .iterate(...w.params) as Iterable<number>;
    for (const id of rows) {
      if (!matching.has(id)) continue;
      if (passed >= offset) ids.push(id);
      if (++passed >= offset + limit) break;
    }
    return ids;
  }

  /**
   * A keyset page of a text search, in the walk's order. By date: the FTS rowids walked from
   * the key (a seek in FTS5's own order), the other filters checked on each. By a column: as
   * searchSorted, with the key's condition added.
   */
  private searchSeek(
    f: SnippetFilter,
    match: string,
    sort: Exclude<SnippetSort, 'relevance'>,
    walk: 'asc' | 'desc',
    limit: number,
    seek: { sql: string; params: unknown[] },
    few: boolean,
  ): number[] {
    if (sort !== 'created_at') return this.searchSorted(f, match, sort, walk, limit, 0, few, seek);
    const w = this.residual(f);
    const dir = walk === 'asc' ? 'ASC' : 'DESC';
    const past = walk === 'asc' ? '>' : '<';
    // As an integer: FTS5 ignores a rowid bound given as a REAL (see keywordScores).
    const key = BigInt(seek.params[0] as number);
    const sql = w.sql
      ? `SELECT f.rowid FROM snippets_fts f CROSS JOIN snippets s ON s.id = f.rowid
         WHERE f.snippets_fts MATCH ? AND f.rowid ${past} ? ${w.sql.replace(/^WHERE/, 'AND')}
         ORDER BY f.rowid ${dir} LIMIT ?`
      : `SELECT rowid FROM snippets_fts WHERE snippets_fts MATCH ? AND rowid ${past} ?
         ORDER BY rowid ${dir} LIMIT ?`;
    return this.db
      .prepare(sql)
      .pluck()
      .all(match, key, ...w.params, limit) as number[];
  }

  /**
   * A page of a text search in bm25 order ("desc": best first). FTS5 scores every match to
   * rank them, so this costs in proportion to the matches (a listing sorted by date does not).
   */
  private searchRanked(
    f: SnippetFilter,
    match: string,
    order: 'asc' | 'desc',
    limit: number,
    offset: number,
  ): number[] {
    const w = this.residual(f);
    const and = w.sql.replace(/^WHERE/, 'AND');
    const dir = order === 'asc' ? 'DESC' : 'ASC';
    const sql = w.sql
      ? `SELECT f.rowid FROM snippets_fts f CROSS JOIN snippets s ON s.id = f.rowid
         WHERE f.snippets_fts MATCH ? ${and} ORDER BY bm25(f.snippets_fts) ${dir}, f.rowid DESC LIMIT ? OFFSET ?`
      : `SELECT rowid FROM snippets_fts WHERE snippets_fts MATCH ?
         ORDER BY bm25(snippets_fts) ${dir}, rowid DESC LIMIT ? OFFSET ?`;
    return this.db
      .prepare(sql)
      .pluck()
      .all(match, ...w.params, limit, offset) as number[];
  }

  /** The filters other than text search, as a WHERE clause on `s`. */
  private residual(f: SnippetFilter): { sql: string; params: unknown[] } {
    const { sql, params } = this.where({ ...f, match: undefined });
    return { sql, params };
  }

  /**
   * The index a listing walks. SQLite, without statistics on how quality is spread, would take
   * `theme = ? AND quality_score >= ?` for a narrow range and sort a third of the table; the
   * page is read fastest by walking the equality's index in the order asked for and checking
   * the rest on the way, unless the quality threshold leaves few rows (then those are sorted).
   */
  private pickIndex(f: SnippetFilter, sort: SnippetSort): string {
    const by = f.job_id !== undefined ? 'job' : f.source_url ? 'source' : f.theme ? 'theme' : null;
    if (f.ids) return '';
    if (sort === 'created_at' && f.min_quality !== undefined) {
      const few = this.estimate({ ...f, ids: undefined }) <= this.countCap * SORT_FACTOR;
      if (few) return `INDEXED BY ${by ? `snippets_${by}_quality` : 'snippets_quality'}`;
    }
    if (!by && sort === 'created_at')
      // Ids and index_pending alone (migration 33) when nothing else is checked on the way.
      return f.min_quality === undefined ? 'INDEXED BY snippets_id' : 'NOT INDEXED';
    if (!by)
      return `INDEXED BY ${sort === 'quality_score' ? 'snippets_quality' : 'snippets_words'}`;
    if (sort === 'quality_score') return `INDEXED BY snippets_${by}_quality`;
    if (sort === 'word_count' && by === 'theme') return 'INDEXED BY snippets_theme_words';
    // No (job or source, word_count) index: that rarer sort reads the job's rows and sorts them.
    return `INDEXED BY snippets_${by}_id`;
  }

  /**
   * The total of a listing: read from the counts kept by triggers when the filter is one they
   * hold, else counted when under COUNT_CAP, else estimated (`exact: false`).
   */
  total(f: SnippetFilter): { total: number; exact: boolean } {
    if (f.match) {
      const page = this.searchPage(f, f.match, 'created_at', 'desc', 0, 0);
      return { total: page.total, exact: page.exact };
    }
    const kept = this.keptCount(f);
    if (kept) return kept;
    const w = this.residual(f);
    const index = f.ids
      ? ''
      : this.pickIndex(f, f.min_quality !== undefined ? 'quality_score' : 'created_at');
    const n = this.db
      .prepare(`SELECT COUNT(*) FROM (SELECT 1 FROM snippets s ${index} ${w.sql} LIMIT ?)`)
      .pluck()
      .get(...w.params, this.countCap) as number;
    if (n < this.countCap) return { total: n, exact: true };
    return { total: Math.max(this.countCap, roughly(this.estimate(f))), exact: false };
  }

  /** Totals the aggregate tables answer (exactly, or estimated when a count would be long). */
  private keptCount(f: SnippetFilter): { total: number; exact: boolean } | null {
    const has = (Object.keys(f) as (keyof SnippetFilter)[]).filter(
      (k) => f[k] !== undefined && f[k] !== false && f[k] !== '',
    );
    const only = (...keys: (keyof SnippetFilter)[]) => has.every((k) => keys.includes(k));
    if (only('theme', 'indexed_only') && !f.indexed_only)
      return { total: this.statsCount(f.theme), exact: true };
    if (only('theme', 'indexed_only'))
      return {
        total: this.statsCount(f.theme) - this.facetCount('pending', f.theme),
        exact: true,
      };
    if (only('theme', 'min_quality')) return this.qualityCount(f.theme, f.min_quality!);
    if (only('job_id')) return { total: this.facetCount('job', String(f.job_id)), exact: true };
    if (only('source_url')) return { total: this.facetCount('source', f.source_url!), exact: true };
    return null;
  }

  /** All rows and the rows waiting for the index, from the trigger-kept counts (no scan). */
  indexCounts(): { total: number; pending: number } {
    return { total: this.statsCount(), pending: this.facetCount('pending') };
  }

  /** Rows of a theme (or all), from migration 5's aggregates. */
  private statsCount(theme?: string): number {
    return this.db
      .prepare(`SELECT COALESCE(SUM(n), 0) FROM snippet_stats ${theme ? 'WHERE theme = ?' : ''}`)
      .pluck()
      .get(...(theme ? [theme] : [])) as number;
  }

  /** A count kept by migration 7's triggers; pending without a theme sums every theme. */
  private facetCount(facet: 'job' | 'source' | 'pending', value?: string): number {
    return this.db
      .prepare(
        `SELECT COALESCE(SUM(n), 0) FROM snippet_counts WHERE facet = ? ${value !== undefined ? 'AND value = ?' : ''}`,
      )
      .pluck()
      .get(facet, ...(value !== undefined ? [value] : [])) as number;
  }

  /**
   * Rows at or above a quality (of a theme, or all): the deciles of snippet_stats above the
   * threshold's decile, plus that decile's rows at or above it, counted on whichever side of the
   * threshold is narrower (nothing to count when it sits on a decile's edge). Estimated by
   * interpolation when that side holds more than COUNT_CAP rows.
   */
  private qualityCount(
    theme: string | undefined,
    min: number,
    rough = false,
  ): { total: number; exact: boolean } {
    const k = this.db
      .prepare(`SELECT ${BUCKET.replace('s.quality_score', '?')}`)
      .pluck()
      .get(min) as number;
    const bucket = this.db
      .prepare(
        `SELECT COALESCE(SUM(IIF(quality_bucket > ?, n, 0)), 0) AS above,
           COALESCE(SUM(IIF(quality_bucket = ?, n, 0)), 0) AS at
         FROM snippet_stats ${theme ? 'WHERE theme = ?' : ''}`,
      )
      .get(k, k, ...(theme ? [theme] : [])) as { above: number; at: number };
    if (bucket.at === 0) return { total: bucket.above, exact: true };
    const lo = k / 10;
    const hi = (k + 1) / 10;
    const share = k === 9 ? Math.min(1, (1 - min) / 0.1) : (hi - min) / 0.1;
    const interpolated = { total: roughly(bucket.above + bucket.at * share), exact: false };
    if (rough) return interpolated;
    // Below the threshold in its decile, or at and above it: the narrower of the two.
    const countBelow = min - lo <= hi - min;
    const parts = [`${BUCKET} = ?`];
    const params: unknown[] = [k];
    if (theme) {
      parts.push('s.theme = ?');
      params.push(theme);
    }
    if (countBelow) {
      parts.push('s.quality_score < ?');
      params.push(min);
      if (k > 0) {
        parts.push('s.quality_score >= ?');
        params.push(lo - 0.01);
      }
    } else {
      parts.push('s.quality_score >= ?');
      params.push(min);
      if (k < 9) {
        parts.push('s.quality_score < ?');
        params.push(hi + 0.01);
      }
    }
    const index = theme ? 'snippets_theme_quality' : 'snippets_quality';
    const n = this.db
      .prepare(
        `SELECT COUNT(*) FROM (SELECT 1 FROM snippets s INDEXED BY ${index} WHERE ${parts.join(' AND ')} LIMIT ?)`,
      )
      .pluck()
      .get(...params, this.countCap) as number;
    if (n < this.countCap)
      return { total: bucket.above + (countBelow ? bucket.at - n : n), exact: true };
    return interpolated;
  }

  /**
   * Matches of a filter without text search, estimated from the kept counts as if the filters
   * were independent: to choose a plan, and as the total past COUNT_CAP.
   */
  private estimate(f: SnippetFilter): number {
    const all = this.statsCount();
    if (all === 0) return 0;
    let n =
      f.min_quality !== undefined
        ? this.qualityCount(f.theme, f.min_quality, true).total
        : this.statsCount(f.theme);
    if (f.job_id !== undefined) n *= this.facetCount('job', String(f.job_id)) / all;
    if (f.source_url) n *= this.facetCount('source', f.source_url) / all;
    if (f.indexed_only) n *= 1 - this.facetCount('pending') / all;
    if (f.ids) n = Math.min(n, f.ids.length);
    return n;
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
    if (!w.rowFilter) {
      // No row filter: the FTS table alone answers, without a join per matching row.
      return this.db
        .prepare(
          `SELECT rowid AS id, bm25(snippets_fts) AS bm25 FROM snippets_fts
           WHERE snippets_fts MATCH ? ORDER BY bm25 LIMIT ?`,
        )
        .all(match, limit) as { id: number; bm25: number }[];
    }
    return this.db
      .prepare(
        `SELECT s.id AS id, bm25(snippets_fts) AS bm25 FROM snippets s JOIN snippets_fts ON snippets_fts.rowid = s.id
         ${w.sql} ORDER BY bm25 LIMIT ?`,
      )
      .all(...w.params, limit) as { id: number; bm25: number }[];
  }

  /** bm25 of these rows for a MATCH expression (lower is better); rows without a match are absent. */
  keywordScores(match: string, ids: readonly number[]): Map<number, number> {
    const out = new Map<number, number>();
    for (let i = 0; i < ids.length; i += 500) {
      const chunk = ids.slice(i, i + 500);
      const rows = this.db
        .prepare(
          `SELECT rowid AS id, bm25(snippets_fts) AS bm25 FROM snippets_fts
           WHERE snippets_fts MATCH ? AND rowid IN (${chunk.map(() => '?').join(',')})`,
        )
        // As integers: FTS5 ignores a rowid constraint bound as a JS number (a REAL) and
        // answers every match, which a one-element IN (rewritten to `=`) would hit.
        .all(match, ...chunk.map(BigInt)) as { id: number; bm25: number }[];
      for (const r of rows) out.set(r.id, r.bm25);
    }
    return out;
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

  /** Stored vectors (in the side table of migration 7); null for a row never embedded. */
  embeddings(
    ids: readonly number[],
  ): Map<number, { id: number; embedding: Buffer | null; embedder_id: string | null }> {
    return rowsById(
      this.db,
      ids,
      (marks) => `SELECT s.id, e.embedding, e.embedder_id FROM snippets s
           LEFT JOIN snippet_embeddings e ON e.snippet_id = s.id WHERE s.id IN (${marks})`,
    );
  }

  /**
   * The stored vectors of those of `ids` that have one, from the vectors' table alone: a
   * search's candidates read here, one random page each, where `embeddings` also walks the rows'
   * table (two pages each: at 1M rows that is most of a hybrid search's reads).
   */
  storedVectors(
    ids: readonly number[],
  ): Map<number, { id: number; embedding: Buffer; embedder_id: string | null }> {
    return rowsById(
      this.db,
      ids,
      (marks) => `SELECT snippet_id AS id, embedding, embedder_id FROM snippet_embeddings
           WHERE snippet_id IN (${marks})`,
    );
  }

  setEmbeddings(rows: ReadonlyArray<{ id: number; embedding: Buffer; embedder_id: string }>): void {
    // Only rows that exist: the side table's foreign key would refuse the others.
    const vector = this.db.prepare(
      `INSERT INTO snippet_embeddings (snippet_id, embedding, embedder_id)
       SELECT id, ?, ? FROM snippets WHERE id = ?
       ON CONFLICT (snippet_id) DO UPDATE SET embedding = excluded.embedding, embedder_id = excluded.embedder_id`,
    );
    const touch = this.db.prepare('UPDATE snippets SET updated_at = ? WHERE id = ?');
    const now = new Date().toISOString();
    this.db.transaction(() => {
      for (const r of rows) {
        vector.run(r.embedding, r.embedder_id, r.id);
        touch.run(now, r.id);
      }
    })();
  }

  /**
   * Marks rows indexed in one transaction, but not those `skip` names when asked inside it;
   * answers how many rows changed.
   */
  markIndexed(ids: readonly number[], at: string, skip?: (id: number) => boolean): number {
    // Prepared once: compiling it (and its count triggers) took longer than a small slice's rows.
    const stmt = prepared(
      this.db,
      'UPDATE snippets SET faiss_id = id, index_pending = 0, indexed_at = ?, updated_at = ? WHERE id = ?',
    );
    return this.db.transaction(() => {
      let n = 0;
      for (const id of ids) if (!skip?.(id)) n += stmt.run(at, at, id).changes;
      return n;
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

  /** Deletes the rows and records them in vector_deletions, in one transaction. */
  deleteByIds(ids: readonly number[]): number {
    const stmt = this.db.prepare('DELETE FROM snippets WHERE id = ?');
    const journal = this.db.prepare('INSERT INTO vector_deletions (key) VALUES (?)');
    return this.db.transaction(() =>
      ids.reduce((n, id) => {
        const changes = stmt.run(id).changes;
        if (changes) journal.run(id);
        return n + changes;
      }, 0),
    )();
  }

  /** The newest vector_deletions entry (0 when empty): a save started now holds those before. */
  lastVectorDeletion(): number {
    return Number(
      this.db.prepare('SELECT COALESCE(MAX(seq), 0) FROM vector_deletions').pluck().get(),
    );
  }

  /** Keys of snippets deleted since the last index save. */
  vectorDeletions(): number[] {
    return this.db.prepare('SELECT DISTINCT key FROM vector_deletions').pluck().all() as number[];
  }

  /** Forgets the deletions up to `seq`: a saved index no longer holds their vectors. */
  forgetVectorDeletions(seq: number): void {
    this.db.prepare('DELETE FROM vector_deletions WHERE seq <= ?').run(seq);
  }
}
