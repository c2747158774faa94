import os from 'node:os';

/**
 * Background threads (an export, the WAL checkpoints) run at nice 10 so that the server's own
 * thread gets a CPU first when both want one: on 2 cores, a checkpoint's copy next to the marking
 * thread left the event loop waiting tens of ms for a core. On Linux a priority is per thread;
 * elsewhere setPriority(0) would lower the whole process, so nothing is done there.
 */
export const BACKGROUND_THREAD_NICE = 10;

/** Lowers the calling thread's priority; false when not on Linux or not allowed. */
export function lowerThisThreadPriority(nice = BACKGROUND_THREAD_NICE): boolean {
  if (process.platform !== 'linux') return false;
  try {
    // Only ever lowered: raising it back would need privileges a container may not grant.
    if (os.getPriority() >= nice) return true;
    os.setPriority(nice);
    return true;
  } catch {
    return false; // not allowed here (a container's policy): the thread keeps the server's priority
  }
}
