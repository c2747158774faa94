/**
 * Marks rows indexed after a vector-index save, on a thread of its own with its own connection.
 * On the server's thread the marking of a million rows took 14 s of CPU in 4 ms slices, and the
 * first write after a 1 GB save waited half a second in the kernel (ext4 allocating for the WAL
 * while the device was busy with the save and the old generation's removal): all of it held the
 * event loop. Here it holds only this thread; the server's writes wait on the lock at most one
 * short transaction, and its transactions are BEGIN IMMEDIATE (db.ts), so a commit from here
 * never leaves them with a stale snapshot.
 */
import { openSecondConnection } from './db.js';
import { markPaced, type MarkResult, type MarkTask } from './mark-indexed.js';
import { SnippetRepository } from './snippet.repository.js';

const sleeper = new Int32Array(new SharedArrayBuffer(4));

export function markIndexedTask(task: MarkTask): MarkResult {
  // A connection per batch: a few hundred microseconds against a batch of seconds, and nothing
  // held open on a store the server may close or restore between two flushes.
  const db = openSecondConnection(task.dbFile);
  try {
    return markPaced(new SnippetRepository(db), task, {
      clock: () => performance.now(),
      pause: (ms) => void Atomics.wait(sleeper, 0, 0, ms),
    });
  } finally {
    db.close();
  }
}

/** piscina's entry (a module needs a default export to be taken as a task module). */
export default markIndexedTask;
