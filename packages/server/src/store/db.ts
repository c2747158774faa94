import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { migrations, type Migration } from './migrations/index.js';

export type Db = Database.Database;

const statements = new WeakMap<Db, Map<string, Database.Statement>>();

/**
 * The statement for `sql`, prepared once per database. Preparing an INSERT on snippets compiles
 * its triggers (FTS, counts, analytics): more than running it. Only for SQL every caller runs in
 * the same mode: pluck() and raw() change the statement for all its later users.
 */
export function prepared(db: Db, sql: string): Database.Statement {
  let byText = statements.get(db);
  if (!byText) statements.set(db, (byText = new Map()));
  let stmt = byText.get(sql);
  if (!stmt) byText.set(sql, (stmt = db.prepare(sql)));
  return stmt;
}

/** Opens (creating when missing) the SQLite store in WAL mode and applies pending migrations. */
export function openDatabase(dataDir: string, list: Migration[] = migrations): Db {
  fs.mkdirSync(dataDir, { recursive: true });
  const db = new Database(path.join(dataDir, 'adam.db'));
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = NORMAL');
  db.pragma('foreign_keys = ON');
  db.pragma('busy_timeout = 5000');
  migrate(db, list);
  return db;
}

export function migrate(db: Db, list: Migration[]): number[] {
  db.exec(
    'CREATE TABLE IF NOT EXISTS schema_migrations (id INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at TEXT NOT NULL)',
  );
  const done = new Set(
    db
      .prepare('SELECT id FROM schema_migrations')
      .pluck()
      .all()
      .map((v) => Number(v)),
  );
  const applied: number[] = [];
  for (const m of [...list].sort((a, b) => a.id - b.id)) {
    if (done.has(m.id)) continue;
    db.transaction(() => {
      db.exec(m.sql);
      db.prepare('INSERT INTO schema_migrations (id, name, applied_at) VALUES (?, ?, ?)').run(
        m.id,
        m.name,
        new Date().toISOString(),
      );
    })();
    applied.push(m.id);
  }
  return applied;
}
