import { move, transferableSymbol, valueSymbol } from 'piscina';
import { threadId } from 'node:worker_threads';
import { loadBuiltinEmbedderSync, type BuiltinEmbedder } from './builtin-embedder.js';
import { prepareBuiltinModelSync, type PrepareOptions } from './builtin-model.js';

/**
 * Task functions run by the embedder pool's worker threads (named exports, picked with
 * piscina's `name` option), and the per-thread cache of the built-in embedder.
 *
 * Importing this module has no side effect, so another worker entry (e.g. the text pipeline's)
 * can import getWorkerEmbedder and share the one embedder its thread has loaded.
 */

export interface ModelTask extends PrepareOptions {
  dataDir: string;
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
}

const embedders = new Map<string, BuiltinEmbedder>();
const cacheKey = (dataDir: string, options: PrepareOptions): string =>
  `${dataDir}\0${options.sourcePath ?? ''}`;

/**
 * The built-in embedder of this thread for `dataDir`, loaded on first use (converting the model
 * file if needed) and kept for the thread's life: ~45 MB per thread, shared by every task.
 */
export function getWorkerEmbedder(dataDir: string, options: PrepareOptions = {}): BuiltinEmbedder {
  const key = cacheKey(dataDir, options);
  let embedder = embedders.get(key);
  if (embedder === undefined) {
    embedder = loadBuiltinEmbedderSync(dataDir, options).embedder;
    embedders.set(key, embedder);
  }
  return embedder;
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
  const key = cacheKey(task.dataDir, task);
  const prepared = prepareBuiltinModelSync(task.dataDir, task);
  let loadMs = 0;
  if (!embedders.has(key)) {
    const loaded = loadBuiltinEmbedderSync(task.dataDir, task);
    embedders.set(key, loaded.embedder);
    loadMs = loaded.loadMs;
  }
  return { threadId, converted: prepared.converted, conversionMs: prepared.ms, loadMs };
}

export function embedTexts(task: EmbedTask): EmbedTaskResult {
  const embedder = getWorkerEmbedder(task.dataDir, task);
  const packed = packVectors(
    task.texts.map((t) => embedder.embedOne(t)),
    embedder.dimension,
  );
  return transferring({ threadId, dimension: embedder.dimension, packed }, [packed.buffer]);
}

/** The default export is what piscina runs when a task names no function. */
export default embedTexts;
