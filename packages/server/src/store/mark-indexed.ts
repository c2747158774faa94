import type { SnippetRepository } from './snippet.repository.js';

/**
 * Marking rows indexed after a save: transactions sized to take about MARK_SLICE_MS at the pace
 * the last one went. Marking 200k rows in one transaction (their triggers keep the counts) held
 * the writer 1.7 s; fixed chunks of 250 rows took 6 ms on average but 30-230 ms on a loaded
 * machine or a big store (bench/index-save), where a row costs more.
 */
const MARK_SLICE_MS = 4;
const MARK_ROWS = { first: 64, min: 8, max: 2_000 };

/** The rows of the next marking transaction, from the last one's rows and duration. */
export function nextMarkSlice(rows: number, ms: number): number {
  const fit = ms > 0 ? (rows * MARK_SLICE_MS) / ms : MARK_ROWS.max;
  // At most twice the last: one fast slice (pages already cached) is no pace to rely on.
  return Math.max(MARK_ROWS.min, Math.min(MARK_ROWS.max, 2 * rows, Math.floor(fit)));
}

/** One batch of a flush's keys, marked on the marking thread. */
export interface MarkTask {
  dbFile: string;
  keys: Float64Array;
  /** The rows' indexed_at. */
  at: string;
  /**
   * A bit per key the server's thread changed in the index since the batch was sent (removed,
   * or added again with a vector no save holds yet): those rows are not marked. Shared memory,
   * read inside each transaction, so a change the server writes after it still wins.
   */
  skip: Int32Array | null;
}

export interface MarkResult {
  /** Rows marked (keys skipped or whose row is gone are not). */
  marked: number;
  transactions: number;
  /** The longest transaction, ms. */
  maxMs: number;
}

/** Whether `key`'s bit is set in a skip bitmap (a key past its end is not skipped). */
function skipped(skip: Int32Array | null, key: number): boolean {
  if (!skip || key >= skip.length * 32) return false;
  return (Atomics.load(skip, key >>> 5) & (1 << (key & 31))) !== 0;
}

/** Sets `key`'s bit (a key past the bitmap's end was not in the batch: nothing to skip). */
export function skip(bits: Int32Array, key: number): void {
  if (key < bits.length * 32) Atomics.or(bits, key >>> 5, 1 << (key & 31));
}

/** Keys a flush checks per turn of the event loop while it picks a batch (a lookup each). */
export const PICK_SLICE = 2_000;

/**
 * The keys of `all[from..to)` that `keep` accepts, checked PICK_SLICE at a time with a turn of
 * the event loop between: 20,000 checked at once held the server's loop 5-7 ms, past what a
 * save may cost it.
 */
export async function pickKeys(
  all: readonly number[],
  from: number,
  to: number,
  keep: (key: number) => boolean,
): Promise<Float64Array> {
  const end = Math.min(to, all.length);
  const keys = new Float64Array(Math.max(0, end - from));
  let n = 0;
  for (let i = from; i < end; i += PICK_SLICE) {
    if (i > from) await new Promise<void>((r) => setImmediate(r));
    for (let j = i; j < Math.min(end, i + PICK_SLICE); j++) if (keep(all[j]!)) keys[n++] = all[j]!;
  }
  return n === keys.length ? keys : keys.slice(0, n);
}

/** A bitmap for keys below `size`, in memory the marking thread shares. */
export function skipBitmap(size: number): Int32Array {
  return new Int32Array(new SharedArrayBuffer(4 * Math.max(1, Math.ceil(size / 32))));
}

/**
 * Marks `task.keys` in paced transactions, pausing after each as long as it held the writer's
 * lock, so the server's own writes (which wait on it) get in between.
 */
export function markPaced(
  snippets: SnippetRepository,
  task: Pick<MarkTask, 'keys' | 'at' | 'skip'>,
  time: { clock: () => number; pause: (ms: number) => void },
): MarkResult {
  const result: MarkResult = { marked: 0, transactions: 0, maxMs: 0 };
  let size = MARK_ROWS.first;
  for (let i = 0; i < task.keys.length;) {
    if (i > 0) time.pause(Math.max(1, Math.min(MARK_SLICE_MS * 2, result.maxMs)));
    const slice = Array.from(task.keys.subarray(i, i + size));
    const started = time.clock();
    result.marked += snippets.markIndexed(slice, task.at, (key) => skipped(task.skip, key));
    const ms = time.clock() - started;
    result.transactions++;
    result.maxMs = Math.max(result.maxMs, ms);
    i += slice.length;
    size = nextMarkSlice(size, ms);
  }
  return result;
}
