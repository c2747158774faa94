import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { startPool } from '../vector/recall.js';
import type { CheckpointResult, CheckpointTask } from './checkpoint.worker.js';
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

export interface OpenOptions {
  /**
   * WAL checkpoints on a worker thread instead of inside commits on this one (for the server's
   * own connection): the automatic checkpoint's fsync would hold the event loop for tens of ms.
   */
  checkpointOffThread?: boolean | Partial<CheckpointSettings>;
}

type CheckpointSettings = Omit<CheckpointTask, 'dbFile'> & {
  intervalMs: number;
  /** The interval while the WAL is above walLimitBytes and still written to. */
  catchUpMs: number;
  /**
   * The -wal file's size on disk once the WAL starts over (journal_size_limit): this connection
   * cuts it back when it writes from the start again after a complete checkpoint.
   */
  walLimitBytes: number;
};

const CHECKPOINT_DEFAULTS: CheckpointSettings = {
  intervalMs: 2_000,
  catchUpMs: 100,
  minWalBytes: 4 * 1024 * 1024,
  walLimitBytes: 16 * 1024 * 1024,
};

/** What the checkpoint thread of a database has done (tests wait on it). */
export interface CheckpointStats {
  /** Ticks the thread has finished, whether or not the WAL was big enough to checkpoint. */
  ticks: number;
  runs: number;
  last: CheckpointResult | null;
  lastError: string | null;
}

const checkpointStats = new WeakMap<Db, CheckpointStats>();

export function checkpointStatsOf(db: Db): CheckpointStats | undefined {
  return checkpointStats.get(db);
}

/** Opens (creating when missing) the SQLite store in WAL mode and applies pending migrations. */
export function openDatabase(
  dataDir: string,
  list: Migration[] = migrations,
  opts: OpenOptions = {},
): Db {
  fs.mkdirSync(dataDir, { recursive: true });
  const db = new Database(path.join(dataDir, 'adam.db'));
  db.pragma('journal_mode = WAL');
  configure(db);
  migrate(db, list);
  if (opts.checkpointOffThread) {
    const settings = opts.checkpointOffThread === true ? {} : opts.checkpointOffThread;
    checkpointOffThread(db, { ...CHECKPOINT_DEFAULTS, ...settings });
  }
  return db;
}

/**
 * Settings every connection to the store gets. Transactions begin IMMEDIATE: another thread
 * writes too (the marking after an index save), and a deferred transaction that has read and
 * then writes gets SQLITE_BUSY_SNAPSHOT at once when that thread committed meanwhile (the busy
 * timeout does not apply to that upgrade); an immediate one waits for the lock, then reads.
 */
function configure(db: Db): void {
  db.pragma('synchronous = NORMAL');
  db.pragma('foreign_keys = ON');
  db.pragma('busy_timeout = 5000');
  const transaction = db.transaction.bind(db);
  // The .immediate variant carries .deferred/.immediate/.exclusive like the default one.
  db.transaction = ((fn: Parameters<typeof transaction>[0]) =>
    transaction(fn).immediate) as typeof db.transaction;
}

/**
 * Another thread's connection to the server's store (no migrations: the server's applied them).
 * It leaves checkpoints to the checkpoint thread, as the server's own connection does.
 */
export function openSecondConnection(dbFile: string): Db {
  const db = new Database(dbFile, { fileMustExist: true });
  configure(db);
  db.pragma('wal_autocheckpoint = 0');
  return db;
}

function checkpointOffThread(db: Db, settings: CheckpointSettings): void {
  db.pragma('wal_autocheckpoint = 0');
  db.pragma(`journal_size_limit = ${Math.floor(settings.walLimitBytes)}`);
  const stats: CheckpointStats = { ticks: 0, runs: 0, last: null, lastError: null };
  checkpointStats.set(db, stats);
  // One thread (piscina, which runs the .ts worker under vitest and tsx as well as the .js).
  const pool = startPool('../store/checkpoint.worker');
  const task: CheckpointTask = { dbFile: db.name, minWalBytes: settings.minWalBytes };
  let timer: NodeJS.Timeout | null = null;
  let stopped = false;
  const next = (ms: number) => {
    if (stopped) return;
    timer = setTimeout(tick, ms);
    timer.unref(); // never what keeps the process alive
  };
  const tick = () => {
    pool.run(task).then(
      (done: CheckpointResult[]) => {
        const before = stats.last;
        stats.ticks += 1;
        stats.runs += done.length;
        stats.last = done.at(-1) ?? stats.last;
        // The WAL starts over only at a write that finds it all copied and no reader in it:
        // while readers keep missing that moment and writes go on, the file grows. Checkpoint
        // often then, so that a write gets that moment (journal_size_limit cuts the file back).
        const behind =
          stats.last !== null &&
          stats.last !== before &&
          stats.last.walBytes > settings.walLimitBytes &&
          stats.last.log !== before?.log;
        next(behind ? settings.catchUpMs : settings.intervalMs);
      },
      (e: unknown) => {
        // A busy checkpoint is a result, not an error: this thread cannot checkpoint (no
        // worker, the file cannot be opened). Checkpoint in commits again rather than let the
        // WAL grow without end.
        stats.lastError = (e as Error).message;
        if (db.open) db.pragma('wal_autocheckpoint = 1000');
      },
    );
  };
  next(settings.intervalMs);
  const close = db.close.bind(db);
  db.close = () => {
    stopped = true;
    if (timer) clearTimeout(timer);
    void pool.destroy();
    // Shutdown: leave the database file whole and the WAL empty.
    try {
      if (db.open) db.pragma('wal_checkpoint(TRUNCATE)');
    } catch {
      // busy: the next open replays the WAL
    }
    return close();
  };
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
