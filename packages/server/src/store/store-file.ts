import Database from 'better-sqlite3';
import type { Db } from './db.js';

/** What a backup counts of a store, besides its vectors. */
interface TableCounts {
  snippets: number;
  users: number;
  rules: number;
  jobs: number;
  sources: number;
}

export const quote = (name: string) => `"${name.replace(/"/g, '""')}"`;

export function hasTable(db: Db, schema: string, name: string): boolean {
  return (
    db
      .prepare(`SELECT 1 FROM ${schema}.sqlite_master WHERE type = 'table' AND name = ?`)
      .get(name) !== undefined
  );
}

/** Opens a store file other than the live one (a backup's copy), runs `fn` on it, closes it. */
export function withStoreFile<T>(file: string, fn: (db: Db) => T): T {
  const db = new Database(file);
  try {
    return fn(db);
  } finally {
    db.close();
  }
}

/** Switches to a rollback journal, so that once closed the file has no -wal beside it. */
export function useRollbackJournal(db: Db): void {
  db.pragma('journal_mode = DELETE');
}

/** The last migration applied; 0 for a file that has none. */
export function schemaVersionOf(db: Db): number {
  if (!hasTable(db, 'main', 'schema_migrations')) return 0;
  return (db.prepare('SELECT MAX(id) FROM schema_migrations').pluck().get() as number | null) ?? 0;
}

/** What SQLite's integrity check finds wrong; empty when the file is sound. */
export function integrityProblems(db: Db): string[] {
  const rows = db.pragma('integrity_check', { simple: false }) as { integrity_check: string }[];
  return rows.map((r) => r.integrity_check).filter((r) => r !== 'ok');
}

export function tableCounts(db: Db): TableCounts {
  const n = (t: string) =>
    hasTable(db, 'main', t)
      ? (db
          .prepare(`SELECT COUNT(*) FROM ${quote(t)}`)
          .pluck()
          .get() as number)
      : 0;
  return {
    snippets: n('snippets'),
    users: n('users'),
    rules: n('scraping_rules'),
    jobs: n('jobs'),
    sources: n('sources'),
  };
}
