import { move, transferableSymbol, valueSymbol } from 'piscina';
import { threadId } from 'node:worker_threads';
import { loadBuiltinEmbedderSync, type BuiltinEmbedder } from './builtin-embedder.js';
import {
  prepareBuiltinModelSync,
  type PrepareOptions,
  type SharedModelBytes,
} from './builtin-model.js';

/**
 * Task functions run by the embedder pool's worker threads (named exports, picked with
 * piscina's `name` option), and the per-thread cache of the built-in embedder.
 *
 * Importing this module has no side effect, so another worker entry (e.g. the text pipeline's)
 * can import getWorkerEmbedder and share the one embedder its thread has loaded.
 */

export interface ModelTask extends PrepareOptions {
  dataDir: string;
  /** The model's bytes as another thread of the process loaded them (see offerModelBytes). */
  sharedBytes?: SharedModelBytes;
}

export interface EmbedTask extends ModelTask {
  texts: string[];
}

export interface EmbedTaskResult {
  threadId: number;
  dimension: number;
  /** The vectors back to back (texts.length × dimension), transferred, not copied. */
  packed: Float32Array;
}

export interface PrepareTaskResult {
  threadId: number;
  converted: boolean;
  conversionMs: number;
  loadMs: number;
  /** The bytes this thread's embedder maps: the pool's other threads and its caller map them too. */
  sharedBytes: SharedModelBytes;
  /** This thread read and checksummed the file, rather than map bytes the process had loaded. */
  readHere: boolean;
}

interface ThreadEmbedder {
  embedder: BuiltinEmbedder;
  sharedBytes: SharedModelBytes;
  readHere: boolean;
}

const cacheKey = (dataDir: string, options: PrepareOptions): string =>
  `${dataDir}\0${options.sourcePath ?? ''}`;
const embedders = new Map<string, ThreadEmbedder>();
/**
 * Model bytes the process has already loaded: this thread maps them instead of reading and
 * checksumming the 44 MB file again, when they are still the file's (a thread of the same pool,
 * or of an earlier engine in this process, read them).
 */
let offered: SharedModelBytes | undefined;

/** Tells this thread of model bytes the process loaded (the engine's warm-up hands them over). */
export function offerModelBytes(sharedBytes: SharedModelBytes | undefined): void {
  if (sharedBytes) offered = sharedBytes;
}

function threadEmbedder(task: ModelTask): ThreadEmbedder {
  const key = cacheKey(task.dataDir, task);
  let loaded = embedders.get(key);
  if (loaded === undefined) {
    offerModelBytes(task.sharedBytes);
    const load = loadBuiltinEmbedderSync(task.dataDir, {
      ...(task.sourcePath !== undefined && { sourcePath: task.sourcePath }),
      ...(task.sharedDir !== undefined && { sharedDir: task.sharedDir }),
      ...(offered && { sharedBytes: offered }),
    });
    loaded = { embedder: load.embedder, sharedBytes: load.sharedBytes, readHere: load.readHere };
    offered = load.sharedBytes;
    embedders.set(key, loaded);
  }
  return loaded;
}

/**
 * The built-in embedder of this thread for `dataDir`, loaded on first use (converting the model
 * file if needed) and kept for the thread's life; its ~45 MB are the process's one copy.
 */
export function getWorkerEmbedder(dataDir: string, options: PrepareOptions = {}): BuiltinEmbedder {
  return threadEmbedder({ ...options, dataDir }).embedder;
}

/** Vectors back to back in one buffer, so one transfer moves them all. */
export function packVectors(vectors: readonly Float32Array[], dimension: number): Float32Array {
  const packed = new Float32Array(vectors.length * dimension);
  vectors.forEach((v, i) => packed.set(v, i * dimension));
  return packed;
}

/** Wraps a result so piscina transfers `buffers` instead of copying them. */
export function transferring<T extends object>(value: T, buffers: ArrayBufferLike[]): T {
  return move({ [transferableSymbol]: buffers, [valueSymbol]: value } as never) as unknown as T;
}

/** Converts the model file if needed and loads this thread's embedder. */
export function prepareModel(task: ModelTask): PrepareTaskResult {
  const prepared = prepareBuiltinModelSync(task.dataDir, task);
  const started = performance.now();
  const { sharedBytes, readHere } = threadEmbedder(task);
  return {
    threadId,
    converted: prepared.converted,
    conversionMs: prepared.ms,
    loadMs: performance.now() - started,
    sharedBytes,
    readHere,
  };
}

export function embedTexts(task: EmbedTask): EmbedTaskResult {
  const { embedder } = threadEmbedder(task);
  const packed = packVectors(
    task.texts.map((t) => embedder.embedOne(t)),
    embedder.dimension,
  );
  return transferring({ threadId, dimension: embedder.dimension, packed }, [packed.buffer]);
}

/** The default export is what piscina runs when a task names no function. */
export default embedTexts;
