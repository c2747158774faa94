/**
 * The store's WAL checkpoints, on a thread of their own. better-sqlite3 is synchronous, so an
 * automatic checkpoint runs inside a commit on the event loop and its fsync holds the loop for
 * tens of ms; the server's connection turns that off (wal_autocheckpoint = 0) and this thread,
 * with its own connection to the same file, copies the WAL back into the database instead.
 *
 * PASSIVE only, never RESTART or TRUNCATE: those take the writer lock and reset the WAL header.
 * A server transaction that has read and then writes does not wait on a busy handler: while this
 * thread held the lock it failed at once with SQLITE_BUSY, and after a reset with
 * SQLITE_BUSY_SNAPSHOT ("database is locked", a crawl failed so at 689 of 1,000 pages). The file
 * is kept small by the server's connection instead (journal_size_limit, applied by the writer
 * when it starts the WAL over after a complete checkpoint).
 */
import fs from 'node:fs';
import Database from 'better-sqlite3';
import { lowerThisThreadPriority } from '../lib/thread-priority.js';

export interface CheckpointTask {
  dbFile: string;
  /** Below this WAL file size nothing is done. */
  minWalBytes: number;
}

export interface CheckpointResult {
  mode: 'PASSIVE';
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

/** One tick: the checkpoints it ran (none while the WAL is small). */
export function checkpointTick(task: CheckpointTask): CheckpointResult[] {
  const bytes = walBytes(task.dbFile);
  if (bytes <= task.minWalBytes) return [];
  if (!db) {
    // Housekeeping: a PASSIVE checkpoint holds no lock a writer waits on, so running it at a
    // lower priority delays only the copy, never the server (no priority inversion).
    lowerThisThreadPriority();
    db = new Database(task.dbFile, { fileMustExist: true });
    // Never wait on a reader: what it holds back is copied on a later tick.
    db.pragma('busy_timeout = 0');
  }
  const row = db.prepare('PRAGMA wal_checkpoint(PASSIVE)').get() as Pick<
    CheckpointResult,
    'busy' | 'log' | 'checkpointed'
  >;
  return [{ mode: 'PASSIVE', ...row, walBytes: bytes }];
}

/** piscina's entry (a module needs a default export to be taken as a task module). */
export default checkpointTick;
