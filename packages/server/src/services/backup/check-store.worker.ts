/**
 * A backup's store checked on a thread of its own: SQLite's integrity check reads every page
 * (seconds on a store of gigabytes) and better-sqlite3 is synchronous, so on the server's thread
 * it would hold every request for that long. Read-only: a check never changes the file its
 * checksum was just proved on.
 */
import Database from 'better-sqlite3';
import { lowerThisThreadPriority } from '../../lib/thread-priority.js';
import { integrityProblems, schemaVersionOf, tableCounts } from '../../store/store-file.js';

export interface StoreCheckTask {
  dbFile: string;
}

export type StoreCheckResult =
  | { ok: true; problems: string[]; counts: ReturnType<typeof tableCounts>; schema: number }
  | { ok: false; error: string };

export function checkStore(task: StoreCheckTask): StoreCheckResult {
  lowerThisThreadPriority();
  try {
    const db = new Database(task.dbFile, { readonly: true, fileMustExist: true });
    try {
      return {
        ok: true,
        problems: integrityProblems(db).slice(0, 3),
        counts: tableCounts(db),
        schema: schemaVersionOf(db),
      };
    } finally {
      db.close();
    }
  } catch (e) {
    return { ok: false, error: (e as Error).message };
  }
}

export default checkStore;
