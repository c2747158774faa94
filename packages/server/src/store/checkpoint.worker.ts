/**
 * The store's WAL checkpoints, on a thread of their own. better-sqlite3 is synchronous, so an
 * automatic checkpoint runs inside a commit on the event loop and its fsync holds the loop for
 * tens of ms; the server's connection turns that off (wal_autocheckpoint = 0) and this thread,
 * with its own connection to the same file, copies the WAL back into the database instead.
 */
import fs from 'node:fs';
import Database from 'better-sqlite3';

export interface CheckpointTask {
  dbFile: string;
  /** Below this WAL file size nothing is done. */
  minWalBytes: number;
  /** Above this WAL file size, once everything is copied, the file is truncated to 0. */
  truncateWalBytes: number;
}

export interface CheckpointResult {
  mode: 'PASSIVE' | 'TRUNCATE';
  /** 1 when the checkpoint could not finish (a reader or writer was in the way). */
  busy: number;
  /** Frames in the WAL, and how many of them are now in the database file. */
  log: number;
  checkpointed: number;
  walBytes: number;
}

// The thread's own connection, kept between ticks.
let db: Database.Database | null = null;

function walBytes(dbFile: string): number {
  try {
    return fs.statSync(`${dbFile}-wal`).size;
  } catch {
    return 0; // no WAL file (yet, or after the last connection closed)
  }
}

function checkpoint(mode: CheckpointResult['mode'], bytes: number): CheckpointResult {
  const row = db!.prepare(`PRAGMA wal_checkpoint(${mode})`).get() as Pick<
    CheckpointResult,
    'busy' | 'log' | 'checkpointed'
  >;
  return { mode, ...row, walBytes: bytes };
}

/** One tick: the checkpoints it ran (none while the WAL is small). */
export function checkpointTick(task: CheckpointTask): CheckpointResult[] {
  const bytes = walBytes(task.dbFile);
  if (bytes <= task.minWalBytes) return [];
  if (!db) {
    db = new Database(task.dbFile, { fileMustExist: true });
    // Never wait: a busy TRUNCATE holds the writer lock while it waits, so the server's writes
    // would wait too. A busy checkpoint is simply tried again on the next tick.
    db.pragma('busy_timeout = 0');
  }
  const done = [checkpoint('PASSIVE', bytes)];
  const r = done[0]!;
  // A PASSIVE checkpoint leaves the file at its size (writers reuse it from the start); only a
  // file grown past the cap, e.g. by a long reader, is cut back, once there is nothing to copy.
  if (bytes > task.truncateWalBytes && r.busy === 0 && r.log === r.checkpointed) {
    done.push(checkpoint('TRUNCATE', walBytes(task.dbFile)));
  }
  return done;
}

/** piscina's entry (a module needs a default export to be taken as a task module). */
export default checkpointTick;
