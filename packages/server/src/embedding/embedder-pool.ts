import { Piscina } from 'piscina';
import { entryModule, threadEntry } from '../lib/entry-module.js';
import type { PrepareOptions, SharedModelBytes } from './builtin-model.js';
import { BUILTIN_DIMENSION, BUILTIN_EMBEDDER_ID } from './builtin-embedder.js';
import type { Embedder } from './embedder.js';
import type {
  EmbedTask,
  EmbedTaskResult,
  ModelTask,
  PrepareTaskResult,
} from './embedder.worker.js';

/**
 * The built-in embedder on a pool of worker threads (piscina), so that embedding never blocks
 * the server's event loop. Each worker loads the model once (getWorkerEmbedder) and keeps it;
 * vectors come back in one transferred buffer per batch.
 *
 * Works from the compiled JS (dist/embedding/*.js) and from the .ts sources (vitest, tsx): a
 * .ts worker cannot run in Node 20 without a loader, so then workers start with tsx and the
 * adam-source export condition (see entryModule).
 */

/** The file a pool loads for a thread module next to this one (see threadEntry). */
export function siblingModule(baseName: string): string {
  return threadEntry(import.meta.url, `./${baseName}`).filename;
}

/** The worker module holding the embedding tasks. */
export const EMBEDDER_WORKER_FILE = siblingModule('embedder.worker');

/** Node flags for a worker thread: how a .ts worker runs under vitest or tsx. */
export function workerExecArgv(): string[] | undefined {
  // Compiled: inherit the parent's flags, as Node does.
  return entryModule(import.meta.url, './embedder.worker').loaderFlags;
}

interface EmbedderPoolOptions extends PrepareOptions {
  dataDir: string;
  /** Worker threads; they map one copy of the model (~45 MB) for the process. Default 1. */
  threads?: number;
  /**
   * The pool's default worker module, for tasks run with `run` without a filename (e.g. a
   * text-pipeline entry that imports getWorkerEmbedder). Embedding tasks always use
   * EMBEDDER_WORKER_FILE.
   */
  workerFile?: string;
}

interface PoolRunOptions {
  /** Module to run the task in (absolute path or file URL); default: the pool's worker file. */
  filename?: string;
  /** Exported function to call; default: the module's default export. */
  name?: string;
  /** Buffers of the task to transfer rather than copy. */
  transferList?: ArrayBufferLike[];
  /**
   * Aborting it drops the task from the queue, or, once it runs, terminates its thread: the pool
   * starts a fresh one in its place.
   */
  signal?: AbortSignal;
}

interface PoolEmbedResult {
  vectors: Float32Array[];
  /** The worker thread that computed them. */
  threadId: number;
}

/**
 * The model bytes the last pool of this process prepared: the next pool's threads map them
 * (when they are still its file's) rather than read and checksum the file again.
 */
let lastSharedBytes: SharedModelBytes | undefined;

export class EmbedderPool implements Embedder {
  readonly id = BUILTIN_EMBEDDER_ID;
  readonly dimension = BUILTIN_DIMENSION;
  readonly threads: number;
  private readonly pool: Piscina;
  private readonly model: ModelTask;

  private constructor(options: EmbedderPoolOptions) {
    const threads = options.threads ?? 1;
    if (!Number.isInteger(threads) || threads < 1) {
      throw new RangeError(`threads must be a positive integer, got ${threads}`);
    }
    this.threads = threads;
    this.model = { dataDir: options.dataDir };
    if (options.sourcePath !== undefined) this.model.sourcePath = options.sourcePath;
    this.pool = new Piscina({
      filename: options.workerFile ?? EMBEDDER_WORKER_FILE,
      minThreads: threads,
      maxThreads: threads,
      // Workers hold the model: never let them idle out and reload it.
      idleTimeout: Infinity,
      execArgv: workerExecArgv(),
    });
  }

  /**
   * Starts the pool and makes sure the model file exists, converting it in a worker if needed
   * (~8 s, once per data directory) rather than on the caller's thread.
   */
  static async create(options: EmbedderPoolOptions): Promise<EmbedderPool> {
    const pool = new EmbedderPool(options);
    try {
      await pool.prepare();
    } catch (err) {
      await pool.close();
      throw err;
    }
    return pool;
  }

  /**
   * Converts the model if needed and loads it in one worker; the others map the same bytes at
   * their first use (every embedding task carries them).
   */
  async prepare(): Promise<PrepareTaskResult> {
    const task: ModelTask = {
      ...this.model,
      ...(lastSharedBytes && { sharedBytes: lastSharedBytes }),
    };
    const result = await this.run<PrepareTaskResult>(task, {
      filename: EMBEDDER_WORKER_FILE,
      name: 'prepareModel',
    });
    this.model.sharedBytes = lastSharedBytes = result.sharedBytes;
    return result;
  }

  /** The model's bytes the pool's threads map, once prepared: the caller's thread can map them. */
  get sharedBytes(): SharedModelBytes | undefined {
    return this.model.sharedBytes;
  }

  async embed(texts: string[]): Promise<Float32Array[]> {
    if (texts.length === 0) return [];
    return (await this.embedOnWorker(texts)).vectors;
  }

  /** Like embed, and tells which worker thread did the work. */
  async embedOnWorker(texts: string[]): Promise<PoolEmbedResult> {
    const task: EmbedTask = { ...this.model, texts };
    const result = await this.run<EmbedTaskResult>(task, {
      filename: EMBEDDER_WORKER_FILE,
      name: 'embedTexts',
    });
    const { packed, dimension } = result;
    // Copies of 1.5 KB each: every vector owns its buffer, as native consumers expect.
    const vectors = Array.from({ length: texts.length }, (_, i) =>
      packed.slice(i * dimension, (i + 1) * dimension),
    );
    return { vectors, threadId: result.threadId };
  }

  /**
   * Runs any exported function of a worker module on the pool's threads: the task must be
   * structured-cloneable and the function pure (input in, result out). A function there can
   * call getWorkerEmbedder to reuse the thread's loaded embedder.
   */
  run<R>(task: unknown, options: PoolRunOptions = {}): Promise<R> {
    return this.pool.run(task, {
      ...(options.filename !== undefined && { filename: options.filename }),
      ...(options.name !== undefined && { name: options.name }),
      ...(options.transferList !== undefined && {
        transferList: options.transferList as ArrayBuffer[],
      }),
      ...(options.signal !== undefined && { signal: options.signal }),
    }) as Promise<R>;
  }

  /** Waits for running tasks, then stops the threads. */
  async close(): Promise<void> {
    await this.pool.close();
  }
}

/** The built-in embedder on `threads` worker threads (default 1), ready to embed. */
export function createEmbedderPool(options: EmbedderPoolOptions): Promise<EmbedderPool> {
  return EmbedderPool.create(options);
}
