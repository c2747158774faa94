import type { Db } from './db.js';
import { hasTable, quote } from './store-file.js';

/**
 * Tables a restore leaves as they are: `api_keys` so the operator who restores stays logged in
 * (keys of users the backup does not have are dropped), `logs` and `activity` so the restore
 * itself and what led to it stay readable, `schema_migrations` because the copy was migrated to
 * this version, the snippet aggregates because the snippets' triggers redo them as the rows
 * are swapped (whatever the order the tables are copied in), and `models` because it describes
 * the files of the data directory's models/ folder, which a backup does not hold; and
 * `metrics_history`, this machine's record, like the logs.
 */
const KEPT_TABLES: ReadonlySet<string> = new Set([
  'api_keys',
  'logs',
  'activity',
  'schema_migrations',
  'snippet_stats',
  'snippet_hourly',
  'emotion_hourly',
  'emotion_totals',
  'snippet_counts',
  'models',
  'metrics_history',
  'store_probe',
  // The audit trail and its chain's head and anchor: a restore must not erase who did what.
  'audit_log',
  'audit_chain',
]);

/** A row `PRAGMA foreign_key_check` reports: `table` holds a reference with no parent. */
export interface ForeignKeyViolation {
  table: string;
}

/**
 * Replaces every data table of `db` (all but KEPT_TABLES, virtual tables and their shadows)
 * with the same table of the store file `copyFile`, on the columns both have, in one
 * transaction; the full-text index is rebuilt from the new rows. `finish` runs last inside
 * that transaction with the foreign-key violations left: if it throws, nothing changes.
 */
export function replaceDataFrom(
  db: Db,
  copyFile: string,
  finish: (violations: ForeignKeyViolation[]) => void,
): void {
  // Deleting users would cascade to api_keys; the caller sees the foreign keys checked instead.
  db.pragma('foreign_keys = OFF');
  try {
    db.prepare('ATTACH DATABASE ? AS restored').run(copyFile);
    try {
      const saved = new Set(dataTables(db, 'restored'));
      const swapped = dataTables(db, 'main').filter((t) => saved.has(t));
      db.transaction(() => {
        const emailsBefore = usersByEmail(db);
        for (const t of swapped) {
          const theirs = new Set(columnsOf(db, 'restored', t));
          const cols = columnsOf(db, 'main', t)
            .filter((c) => theirs.has(c))
            .map(quote)
            .join(', ');
          db.exec(`DELETE FROM main.${quote(t)}`);
          db.exec(
            `INSERT INTO main.${quote(t)} (${cols}) SELECT ${cols} FROM restored.${quote(t)}`,
          );
        }
        if (swapped.includes('users') && hasTable(db, 'main', 'api_keys')) {
          db.exec('DELETE FROM main.api_keys WHERE user_id NOT IN (SELECT id FROM main.users)');
          // A user id the backup gives to another person (ids are reused after a deletion):
          // that id's kept keys would act as them. Keys follow the person, by email.
          const after = usersByEmail(db);
          const moved = [...emailsBefore].filter(([id, email]) => after.get(id) !== email);
          const drop = db.prepare('DELETE FROM main.api_keys WHERE user_id = ?');
          for (const [id] of moved) drop.run(id);
        }
        if (hasTable(db, 'main', 'snippets_fts'))
          db.exec("INSERT INTO main.snippets_fts(snippets_fts) VALUES ('rebuild')");
        finish(db.prepare('PRAGMA main.foreign_key_check').all() as ForeignKeyViolation[]);
      }).immediate();
    } finally {
      db.exec('DETACH DATABASE restored');
    }
  } finally {
    db.pragma('foreign_keys = ON');
  }
}

/** Each user's id → lower-cased email (empty when the store has no users table). */
function usersByEmail(db: Db): Map<number, string> {
  if (!hasTable(db, 'main', 'users')) return new Map();
  const rows = db.prepare('SELECT id, lower(email) AS email FROM main.users').all() as {
    id: number;
    email: string;
  }[];
  return new Map(rows.map((r) => [r.id, r.email]));
}

/** Ordinary tables of a schema: no SQLite internals, virtual tables or their shadow tables. */
function dataTables(db: Db, schema: string): string[] {
  const rows = db
    .prepare(`SELECT name, sql FROM ${schema}.sqlite_master WHERE type = 'table'`)
    .all() as { name: string; sql: string | null }[];
  const virtual = rows.filter((r) => /^CREATE VIRTUAL TABLE/i.test(r.sql ?? '')).map((r) => r.name);
  return rows
    .map((r) => r.name)
    .filter(
      (n) =>
        !n.startsWith('sqlite_') &&
        !KEPT_TABLES.has(n) &&
        !virtual.some((v) => n === v || n.startsWith(`${v}_`)),
    );
}

function columnsOf(db: Db, schema: string, table: string): string[] {
  return (
    db.prepare(`PRAGMA ${schema}.table_info(${quote(table)})`).all() as { name: string }[]
  ).map((c) => c.name);
}
