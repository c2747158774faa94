import fs from 'node:fs';
import path from 'node:path';
import { Piscina } from 'piscina';
import type { Embedder } from './embedder.js';
import { siblingModule, workerExecArgv } from './embedder-pool.js';
import { broadcast } from './every-thread.js';
import type {
  EmbedResult,
  EveryThreadOp,
  EveryThreadTask,
  LabelScore,
  LoadMeasurement,
  LoadResult,
  OnnxEntity,
  OnnxTask,
} from './onnx-runtime.js';

/**
 * ONNX models (installed from a hub, run by @huggingface/transformers) on a pool of worker
 * threads, so that inference never blocks the server's event loop. Each thread runs its
 * sessions on one core and keeps every model it loaded until unloaded.
 *
 * This module only imports types from onnx-runtime.ts: the native runtime loads in the worker
 * threads, never in the thread that creates the pool.
 */

/** The worker module holding the ONNX tasks. */
const ONNX_WORKER_FILE = siblingModule('onnx-runtime');

/** How long a task sent to every thread waits for the other threads to take theirs. */
const EVERY_THREAD_TIMEOUT_MS = 60_000;

export interface OnnxRunnerOptions {
  /** The models directory: model directories are given relative to it. */
  modelsRoot: string;
  /** Worker threads, one core each; every one loads the models it runs. Default 1. */
  threads?: number;
}

export interface OnnxLoadMeasurement extends LoadMeasurement {
  /** Vector length of a feature-extraction model (from its warm-up); null otherwise. */
  dimension: number | null;
}

export class OnnxRunner {
  readonly modelsRoot: string;
  readonly threads: number;
  private readonly pool: Piscina;
  private closed = false;

  constructor(options: OnnxRunnerOptions) {
    const threads = options.threads ?? 1;
    if (!Number.isInteger(threads) || threads < 1) {
      throw new RangeError(`threads must be a positive integer, got ${threads}`);
    }
    this.modelsRoot = path.resolve(options.modelsRoot);
    this.threads = threads;
    this.pool = new Piscina({
      filename: ONNX_WORKER_FILE,
      minThreads: threads,
      maxThreads: threads,
      // Workers hold the models: never let them idle out and reload.
      idleTimeout: Infinity,
      execArgv: workerExecArgv(),
    });
  }

  /** Worker threads running now: `threads` while open, 0 once closed. */
  get liveThreads(): number {
    return this.pool.threads.length;
  }

  /**
   * Loads the model on every thread, in parallel. The figures: the slowest thread's load time,
   * the largest RSS growth a thread saw (they load together, so each sees about the total),
   * and the threads' warm-up speeds added up (the pool's throughput).
   */
  async load(request: { dir: string; task: OnnxTask }): Promise<OnnxLoadMeasurement> {
    const results = await this.everyThread<LoadResult>('load', {
      modelsRoot: this.modelsRoot,
      ...request,
    });
    const round1 = (x: number) => Math.round(x * 10) / 10;
    return {
      load_time_ms: Math.max(...results.map((r) => r.load_time_ms)),
      memory_mb: Math.max(...results.map((r) => r.memory_mb)),
      inference_speed: round1(results.reduce((s, r) => s + r.inference_speed, 0)),
      dimension: results[0]!.dimension,
    };
  }

  /** One L2-normalised, mean-pooled vector per text, from a feature-extraction model. */
  async embed(request: { dir: string; texts: string[] }): Promise<{
    vectors: Float32Array[];
    dimension: number;
    threadId: number;
  }> {
    const { packed, dimension, threadId } = await this.run<EmbedResult>('embed', request);
    const vectors = Array.from({ length: request.texts.length }, (_, i) =>
      packed.slice(i * dimension, (i + 1) * dimension),
    );
    return { vectors, dimension, threadId };
  }

  /** Named entities (PERSON, ORG, GPE, MISC) with their character spans in `text`. */
  tokenClassify(request: { dir: string; text: string }): Promise<OnnxEntity[]> {
    return this.run('tokenClassify', request);
  }

  /** Every label of the model with its probability, most likely first. */
  textClassify(request: { dir: string; text: string }): Promise<LabelScore[]> {
    return this.run('textClassify', request);
  }

  /** One score per (query, text) pair from a cross-encoder (a reranker model). */
  rerank(request: { dir: string; query: string; texts: string[] }): Promise<number[]> {
    return this.run('rerank', request);
  }

  /** Frees the model on every thread; answers 1 if it was loaded, 0 if not. */
  async unload(request: { dir: string }): Promise<number> {
    const results = await this.everyThread<string[]>('unload', {
      modelsRoot: this.modelsRoot,
      ...request,
    });
    return new Set(results.flat()).size;
  }

  /** Frees every model on every thread; answers how many distinct models were loaded. */
  async unloadAll(): Promise<number> {
    const results = await this.everyThread<string[]>('unloadAll', undefined);
    return new Set(results.flat()).size;
  }

  /** Waits for running tasks, then stops the threads (their models go with them). */
  async close(): Promise<void> {
    this.closed = true;
    await this.pool.close();
  }

  private run<R>(name: string, request: object): Promise<R> {
    // A closed piscina pool would start a new thread for the task, and keep it.
    if (this.closed) return Promise.reject(new Error('The ONNX runner is closed'));
    return this.pool.run({ modelsRoot: this.modelsRoot, ...request }, { name }) as Promise<R>;
  }

  /** Runs `op` once on each thread (see onEveryThread) and answers their results. */
  private everyThread<R>(op: EveryThreadOp, args: unknown): Promise<R[]> {
    if (this.closed) return Promise.reject(new Error('The ONNX runner is closed'));
    return broadcast(
      this.threads,
      EVERY_THREAD_TIMEOUT_MS,
      { op, args },
      (task: EveryThreadTask) => this.pool.run(task, { name: 'onEveryThread' }) as Promise<R>,
    );
  }
}

export interface OnnxEmbedderOptions {
  /** The models directory. */
  modelsRoot: string;
  /** The model's directory, relative to modelsRoot. */
  dir: string;
  /** Name of the vector space, e.g. `onnx:owner/name@revision`. */
  id: string;
  /** Worker threads, one core each. Default 1. */
  threads?: number;
}

/** A sentence-embedding ONNX model on its own pool of worker threads. */
export class OnnxEmbedder implements Embedder {
  private constructor(
    private readonly runner: OnnxRunner,
    readonly dir: string,
    readonly id: string,
    readonly dimension: number,
    /** Measured when create loaded the model on every thread. */
    readonly loadMeasurement: LoadMeasurement,
  ) {}

  /**
   * Starts the threads and loads the model on each; fails (with the threads stopped) if a file
   * is missing or broken, or if the vectors are not as long as config.json says.
   */
  static async create(options: OnnxEmbedderOptions): Promise<OnnxEmbedder> {
    const runner = new OnnxRunner(options);
    try {
      const { dimension, ...measurement } = await runner.load({
        dir: options.dir,
        task: 'feature-extraction',
      });
      const declared = declaredDimension(path.resolve(runner.modelsRoot, options.dir));
      if (dimension === null || (declared !== null && dimension !== declared)) {
        throw new Error(
          `Model ${options.dir} returns vectors of ${dimension}, its config.json says ${declared}`,
        );
      }
      return new OnnxEmbedder(runner, options.dir, options.id, dimension, measurement);
    } catch (err) {
      await runner.close();
      throw err;
    }
  }

  get threads(): number {
    return this.runner.threads;
  }

  /** Worker threads running now: 0 once closed. */
  get liveThreads(): number {
    return this.runner.liveThreads;
  }

  async embed(texts: string[]): Promise<Float32Array[]> {
    if (texts.length === 0) return [];
    const { vectors, dimension } = await this.runner.embed({ dir: this.dir, texts });
    if (dimension !== this.dimension) {
      throw new Error(`Model ${this.dir} returned vectors of ${dimension}, not ${this.dimension}`);
    }
    return vectors;
  }

  close(): Promise<void> {
    return this.runner.close();
  }
}

/** hidden_size of config.json (d_model or dim in some architectures); null if it has none. */
function declaredDimension(modelDir: string): number | null {
  const config = JSON.parse(fs.readFileSync(path.join(modelDir, 'config.json'), 'utf8')) as Record<
    string,
    unknown
  >;
  const value = config.hidden_size ?? config.d_model ?? config.dim;
  return typeof value === 'number' && Number.isInteger(value) ? value : null;
}
