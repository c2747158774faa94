/**
 * The thread that owns the usearch index (index-client.ts starts it). usearch's calls are
 * synchronous native code — a save of 1M vectors takes seconds — so they run here, one message
 * at a time in arrival order, and the server's event loop never waits on them.
 */
import { checkSaved, type SavedIndexVerifier } from './index-files.js';
import { VectorIndex, type IndexOptions } from './vector-index.js';

export type IndexRequest =
  | { op: 'open'; dir: string; dimension: number; options: IndexOptions }
  | { op: 'check'; dir: string }
  | { op: 'verify' }
  | { op: 'add'; keys: Float64Array; flat: Float32Array }
  | { op: 'remove'; keys: number[] }
  | { op: 'search'; vector: Float32Array; want: number }
  | { op: 'clear' }
  | { op: 'save' };

export type IndexReply = { ok: true; value: unknown } | { ok: false; error: string };

let index: VectorIndex | null = null;
/** The loaded generation's checksums, hashed a step per 'verify' call (between searches). */
let verifier: SavedIndexVerifier | null = null;

function handle(req: IndexRequest): unknown {
  if (req.op === 'open') {
    verifier?.close();
    const opened = VectorIndex.open(req.dir, req.dimension, req.options, {
      deferChecksums: true,
    });
    index = opened.index;
    verifier = opened.verifier ?? null;
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
  if (!index) throw new Error('index not open');
  switch (req.op) {
    case 'add':
      index.addFlat(req.keys, req.flat);
      return null;
    case 'remove':
      return index.remove(req.keys);
    case 'search':
      return index.searchRaw(req.vector, req.want);
    case 'clear':
      index.clear();
      return null;
    case 'save':
      return index.save();
  }
}

/** piscina's entry: one request, answered or thrown. */
export default function run(req: IndexRequest): unknown {
  return handle(req);
}
