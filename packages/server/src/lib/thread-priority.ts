import fs from 'node:fs';
import os from 'node:os';

/** The calling thread's kernel id (Linux: /proc/thread-self names it), or null elsewhere. */
export function threadId(): number | null {
  try {
    const tid = Number(fs.readlinkSync('/proc/thread-self').split('/').pop());
    return Number.isInteger(tid) && tid > 0 ? tid : null;
  } catch {
    return null;
  }
}

/**
 * Runs `fn` with the calling thread only (Linux applies a thread id's nice to that thread) at a
 * lower CPU priority, `by` nice steps down: background work such as an index save then yields a
 * shared CPU to the server's event loop at once. The priority is put back after when the system
 * allows it (raising one needs CAP_SYS_NICE or RLIMIT_NICE); otherwise the thread stays lower.
 * Elsewhere than Linux, or where nice cannot be changed, `fn` just runs.
 */
export function withLowerPriority<T>(by: number, fn: () => T): T {
  const tid = threadId();
  let before: number | null = null;
  if (tid !== null) {
    try {
      before = os.getPriority(tid);
      os.setPriority(tid, Math.min(19, before + by));
    } catch {
      before = null;
    }
  }
  try {
    return fn();
  } finally {
    if (tid !== null && before !== null) {
      try {
        os.setPriority(tid, before);
      } catch {
        // Not allowed to raise it back: the thread keeps the lower priority.
      }
    }
  }
}
