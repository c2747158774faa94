/**
 * The thread that owns the usearch index (index-client.ts starts it). usearch's calls are
 * synchronous native code — a save of 1M vectors takes seconds — so they run here, one message
 * at a time in arrival order, and the server's event loop never waits on them.
 */
import { checkSaved, type SavedIndexVerifier } from './index-files.js';
import { SavedVectorReader } from './saved-vectors.js';
import { VectorColumns } from './vector-columns.js';
import { VectorIndex, type IndexOptions } from './vector-index.js';

export type IndexRequest =
  | { op: 'open'; dir: string; dimension: number; options: IndexOptions }
  | { op: 'check'; dir: string }
  | { op: 'verify' }
  | { op: 'add'; keys: Float64Array; flat: Float32Array }
  | { op: 'remove'; keys: number[] }
  | { op: 'search'; vector: Float32Array; want: number; breadth?: number }
  | { op: 'fillColumns' }
  | { op: 'scanColumns'; vector: Float32Array; want: number }
  | { op: 'clear' }
  | { op: 'save' };

export type IndexReply = { ok: true; value: unknown } | { ok: false; error: string };

let index: VectorIndex | null = null;
/** The loaded generation's checksums, hashed a step per 'verify' call (between searches). */
let verifier: SavedIndexVerifier | null = null;
/**
 * The same vectors by column, for sparse queries (vector-columns.ts): kept in step with every
 * add and remove; a loaded generation's rows are read into them from its file a step per
 * 'fillColumns' call. Scans answer null until that is done, or after it failed (until a clear).
 */
let columns: VectorColumns | null = null;
let columnFill: SavedVectorReader | null = null;
/** Keys added or removed while the fill runs: the file's older rows of them are skipped. */
let touched: Set<number> | null = null;
let columnsComplete = false;
/** Rows a fill step reads and writes (~4 ms): a search waits at most one step. */
const FILL_STEP_ROWS = 1024;

function stopFill(complete: boolean): void {
  columnFill?.close();
  columnFill = null;
  touched = null;
  columnsComplete = complete;
}

function handle(req: IndexRequest): unknown {
  if (req.op === 'open') {
    verifier?.close();
    const opened = VectorIndex.open(req.dir, req.dimension, req.options, {
      deferChecksums: true,
    });
    index = opened.index;
    verifier = opened.verifier ?? null;
    columns = new VectorColumns(req.dimension);
    stopFill(true);
    const saved = index.size > 0 ? index.viewedFile() : null;
    if (saved) {
      try {
        columnFill = new SavedVectorReader(saved, index.quantization, req.dimension);
        touched = new Set();
        columnsComplete = false;
      } catch {
        stopFill(false);
      }
    }
    return { reset: opened.reset, damaged: opened.damaged, size: index.size };
  }
  if (req.op === 'verify') {
    // done: no checksum left to compare; problem: the loaded files are damaged.
    if (!verifier) return { done: true, problem: null };
    try {
      if (!verifier.step()) return { done: false, problem: null };
      verifier = null;
      return { done: true, problem: null };
    } catch (e) {
      verifier = null;
      return { done: true, problem: (e as Error).message };
    }
  }
  if (req.op === 'check') {
    try {
      checkSaved(req.dir);
      return { problem: null };
    } catch (e) {
      return { problem: (e as Error).message };
    }
  }
  if (!index || !columns) throw new Error('index not open');
  switch (req.op) {
    case 'add':
      index.addFlat(req.keys, req.flat);
      columns.add(req.keys, req.flat);
      for (const k of req.keys) touched?.add(k);
      return null;
    case 'remove':
      columns.remove(req.keys);
      for (const k of req.keys) touched?.add(k);
      return index.remove(req.keys);
    case 'search':
      return index.searchRaw(req.vector, req.want, req.breadth);
    case 'fillColumns':
      return fillStep(columns);
    case 'scanColumns':
      return columnsComplete ? columns.scan(req.vector, req.want) : null;
    case 'clear':
      index.clear();
      columns.clear();
      stopFill(true);
      return null;
    case 'save':
      return index.save();
  }
}

/**
 * One step of reading the loaded file's rows into the columns: true once none is left. While
 * the index still maps its saved file (a view: nothing changed since the load), the step also
 * searches once for one of its rows, so that the graph's walks map the file's pages here, in
 * the background, a step at a time, rather than in the first searches that walk there. At 1M
 * (bench/vector-queries.bench.ts, its mapping table), two-word searches on a fresh mapping took
 * 2.7 / 38 ms (p50 / p95), 2.0 / 3.6 after these walks (977 of them, 1,024 rows apart), and
 * 1.7 / 2.3 with every page they need mapped.
 */
function fillStep(into: VectorColumns): boolean {
  if (!columnFill) return true;
  const skip = touched!;
  try {
    const { done, keys, flat } = columnFill.step(FILL_STEP_ROWS, (key) => !skip.has(key));
    into.add(keys, flat);
    if (done) stopFill(true);
    if (keys.length > 0) walkTowards(flat.subarray(0, into.dimension));
    return done;
  } catch {
    // A file that cannot be read whole: the columns stay partial, so scans answer null.
    stopFill(false);
    return true;
  }
}

/** A walk of the graph towards `row` while the index maps its file (see fillStep). */
function walkTowards(row: Float32Array): void {
  if (!index?.viewedFile()) return;
  try {
    index.searchRaw(row, 1);
  } catch {
    // Only warms the mapping: a search that fails reports it to its caller.
  }
}

/** piscina's entry: one request, answered or thrown. */
export default function run(req: IndexRequest): unknown {
  return handle(req);
}
