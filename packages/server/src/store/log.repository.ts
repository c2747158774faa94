import { prepared, type Db } from './db.js';

export type LogLevel = 'debug' | 'info' | 'warning' | 'error';

export interface LogRow {
  timestamp: string;
  level: LogLevel;
  component: string;
  message: string;
}

/** The lines a logs page is cut from. */
export interface LogFilter {
  /** ISO timestamp: lines at or after it. */
  since: string;
  /** null: every level. */
  level: LogLevel | null;
  /** A substring of the message or the component, case-insensitive for ASCII (LIKE); '' = any. */
  q: string;
}

/**
 * A search first reads this many of the newest lines of the range: a term common enough to fill
 * the page there costs no more than that.
 */
const SEARCH_WINDOW = 5_000;
/**
 * A term rarer than this many candidate lines of the trigram index is looked up through it (a
 * cost that follows the candidates); a commoner one by reading the range newest first.
 */
const SEARCH_CANDIDATES_MAX = 20_000;

const COLUMNS = 'l.timestamp, l.level, l.component, l.message';
const ORDER = 'ORDER BY l.timestamp DESC, l.id DESC';
const like = (t: string) =>
  `(${t}.message LIKE @like ESCAPE '\\' OR ${t}.component LIKE @like ESCAPE '\\')`;

export class LogRepository {
  private readonly insertStmt;

  constructor(private readonly db: Db) {
    this.insertStmt = db.prepare(
      'INSERT INTO logs (timestamp, level, component, message) VALUES (@timestamp, @level, @component, @message)',
    );
  }

  insertMany(rows: LogRow[]): void {
    this.db.transaction((rs: LogRow[]) => {
      for (const r of rs) this.insertStmt.run(r);
    })(rows);
  }

  listRecent(limit: number): LogRow[] {
    return this.db
      .prepare('SELECT timestamp, level, component, message FROM logs ORDER BY id DESC LIMIT ?')
      .all(limit) as LogRow[];
  }

  deleteOlderThan(iso: string): number {
    return this.db.prepare('DELETE FROM logs WHERE timestamp < ?').run(iso).changes;
  }

  /**
   * Lines `offset` to `offset + limit` of the matching ones, newest first (timestamp, then id),
   * duplicates dropped: of the matching lines with the same timestamp and message only the last
   * stored one is kept. One fixed order and one rule for what is kept: each page is a slice of
   * the same sequence, so no line shows on two pages and none is skipped.
   *
   * Without a search term, the (level, timestamp) or timestamp index yields the lines in order
   * and the read stops at the page. With one: first the newest SEARCH_WINDOW lines of the range;
   * if they hold the page, done; else, for a term of 3+ characters with few candidates in the
   * trigram index, those candidates; else the whole range newest first.
   */
  listPage(filter: LogFilter, offset: number, limit: number): LogRow[] {
    const level = filter.level !== null;
    const params = {
      since: filter.since,
      level: filter.level,
      like: `%${filter.q.replace(/[\\%_]/g, (c) => `\\${c}`)}%`,
      match: trigramMatch(filter.q),
      offset,
      limit,
      window: SEARCH_WINDOW,
      cap: SEARCH_CANDIDATES_MAX,
    };
    const search = filter.q !== '';
    const inRange = (t: string) =>
      `${t}.timestamp >= @since${level ? ` AND ${t}.level = @level` : ''}`;
    // Duplicates among the lines this filter keeps: the one with the highest id stays.
    const newerTwin = `NOT EXISTS (SELECT 1 FROM logs d WHERE d.timestamp = l.timestamp
      AND d.message = l.message AND d.id > l.id${level ? ' AND d.level = @level' : ''}
      ${search ? `AND ${like('d')}` : ''})`;
    const run = (sql: string) => prepared(this.db, sql).all(params) as LogRow[];
    const count = (sql: string) => prepared(this.db, sql).pluck().get(params) as number;

    const scan = `SELECT ${COLUMNS} FROM logs l WHERE ${inRange('l')}
      ${search ? `AND ${like('l')}` : ''} AND ${newerTwin} ${ORDER} LIMIT @limit OFFSET @offset`;
    if (!search) return run(scan);

    const windowed = run(`SELECT ${COLUMNS} FROM (SELECT * FROM logs WHERE ${inRange('logs')}
      ORDER BY timestamp DESC, id DESC LIMIT @window) l
      WHERE ${like('l')} AND ${newerTwin} ${ORDER} LIMIT @limit OFFSET @offset`);
    if (windowed.length === limit) return windowed;
    const inWindow = count(
      `SELECT COUNT(*) FROM (SELECT 1 FROM logs WHERE ${inRange('logs')} LIMIT @window)`,
    );
    if (inWindow < SEARCH_WINDOW) return windowed; // the window was the whole range

    if (params.match !== null) {
      const candidates = count(
        'SELECT COUNT(*) FROM (SELECT rowid FROM logs_fts WHERE logs_fts MATCH @match LIMIT @cap)',
      );
      if (candidates < SEARCH_CANDIDATES_MAX) {
        // The unary + keeps SQLite off the timestamp index: the candidates lead, then a sort.
        return run(`SELECT ${COLUMNS} FROM logs l
          WHERE l.id IN (SELECT rowid FROM logs_fts WHERE logs_fts MATCH @match)
          AND +l.timestamp >= @since${level ? ' AND +l.level = @level' : ''} AND ${like('l')}
          AND ${newerTwin} ${ORDER} LIMIT @limit OFFSET @offset`);
      }
    }
    return run(scan);
  }
}

/**
 * The trigram index's query for lines holding every 3-character piece of `q` (detail=none
 * answers no phrase, so a candidate may hold them apart: LIKE checks each); null under 3.
 */
export function trigramMatch(q: string): string | null {
  const chars = Array.from(q);
  if (chars.length < 3) return null;
  const grams = new Set<string>();
  for (let i = 0; i + 3 <= chars.length; i++) grams.add(chars.slice(i, i + 3).join(''));
  return [...grams].map((g) => `"${g.replace(/"/g, '""')}"`).join(' AND ');
}
