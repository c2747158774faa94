import { DEFAULT_PROCESSING_SETTINGS, type ProcessingSettings } from '@adam/contracts';
import {
  BUILTIN_DIMENSION,
  BUILTIN_EMBEDDER_ID,
  loadCheckedBuiltinEmbedder,
  type BuiltinEmbedder,
} from '../embedding/builtin-embedder.js';
import {
  createEmbedderPool,
  siblingModule,
  type EmbedderPool,
} from '../embedding/embedder-pool.js';
import type { Embedder } from '../embedding/embedder.js';
import { broadcast } from '../embedding/every-thread.js';
import type { AnalyzeResult } from '../pipeline/index.js';
import { FetchError } from '../scraping/fetch-error.js';
import type { ScrapingRuleLike } from '../scraping/rules.js';
import type { FetchResult } from '../scraping/safe-fetcher.js';
import type { extractResponse } from '../scraping/extract.js';
import {
  ROBOTS_MAX_BYTES,
  robotsFromCompiled,
  type CompiledRobots,
  type RobotsRules,
} from '../crawl/robots.js';
import type { ParsedSitemap } from '../crawl/sitemap.js';
import type {
  AnalyzeTask,
  EmbedSpaceTask,
  EmbedSpaceResult,
  ExtractTask,
  ExtractTaskResult,
  RankResult,
  RankTask,
  RerankTask,
  RobotsTask,
  SitemapTask,
  SitemapTaskResult,
  WarmTask,
} from './analyze.worker.js';
import type { AnalyzeSectionsTask } from './analyze.worker.js';
import type {
  DocumentSection,
  ParseDocumentResult,
  ParseDocumentTask,
  SectionsAnalysis,
} from '../documents/document-task.js';
import { DocumentError, type ParsedDocument } from '../documents/parsed-document.js';
import {
  startCell,
  TaskStopped,
  TaskTimeout,
  watchDeadline,
  type TaskKind,
} from './task-deadline.js';

/** How a caller bounds one task: its budget, and a signal that gives up on it (a cancel). */
export interface TaskOptions {
  /** Seconds the task may run once a thread began it; default: the engine's setting. */
  timeoutS?: number;
  /** Aborting it stops the task at once: a running one's thread is replaced. */
  signal?: AbortSignal;
}

/**
 * A vector space: which model makes the vectors, and their length. Vectors of two spaces never
 * compare, so a row's stored embedding carries its space's id and the index holds one space.
 */
export interface EmbeddingSpace {
  /** `builtin-384`, or `onnx:<repo>@<revision>` for an installed model. */
  id: string;
  dimension: number;
  /** null for the built-in embedder; an installed ONNX model's absolute directory otherwise. */
  model: null | { dir: string };
}

export const BUILTIN_SPACE: EmbeddingSpace = Object.freeze({
  id: BUILTIN_EMBEDDER_ID,
  dimension: BUILTIN_DIMENSION,
  model: null,
});

/** The space id of an ONNX model installed from a hub repository at a revision. */
export const onnxSpaceId = (repo: string, revision: string): string => `onnx:${repo}@${revision}`;

/** Threads busy with a long analysis reach the unload broadcast when they finish it. */
const UNLOAD_TIMEOUT_MS = 120_000;

// Resolved like the embedder's own worker: .ts under vitest/tsx, .js when compiled.
const ANALYZE_WORKER = siblingModule('../engine/analyze.worker');

/**
 * A text up to this many words (a search query, say) is embedded on the calling thread: ~0.1 ms
 * with the built-in embedder, so a search never queues behind the workers' ingestion.
 */
export const IN_THREAD_MAX_WORDS = 64;
// A "word" can be any length: the character cap keeps a pathological one off the event loop.
const IN_THREAD_MAX_CHARS = 1_000;

function isShortText(text: string): boolean {
  return (
    text.length <= IN_THREAD_MAX_CHARS && (text.match(/\S+/g)?.length ?? 0) <= IN_THREAD_MAX_WORDS
  );
}

/**
 * The CPU side of ADAM: text analysis and embeddings on a pool of worker threads, and a copy of
 * the built-in embedder on this thread for short texts. start() (called by buildApp) starts the
 * threads, loads the model and the pipeline's modules in each, then the copy here, so no
 * request waits on a lazy start; a call before it finished waits for the pool.
 *
 * Embeds in its current space (`space`); useSpace switches it for every later task (each task
 * carries its space, so one started before a switch finishes in the old one, and says so).
 */
export class Engine implements Embedder {
  private current: EmbeddingSpace;
  private packs: Readonly<Record<string, string>> = {};
  /**
   * Single texts embedded (queries) and the space that made each vector: a search that began
   * before a switch gets its text embedded again in the new space (inCurrentSpace).
   */
  private readonly madeIn = new WeakMap<Float32Array, { space: EmbeddingSpace; text: string }>();
  private pool: Promise<EmbedderPool> | null = null;
  private starting: Promise<void> | null = null;
  /** The built-in embedder on this thread (mapping the pool's bytes), once start() loaded it. */
  private local: BuiltinEmbedder | null = null;
  private ready = false;
  private closed = false;
  private busy = 0;
  private completed = 0;
  private inThread = 0;

  /** Every task on the pool, so that close() can stop them rather than wait for them. */
  private readonly inFlight = new Set<AbortController>();
  private replaced = 0;
  private markNeeded: () => void = () => {};
  private readonly needed = new Promise<void>((resolve) => (this.markNeeded = resolve));

  constructor(
    private readonly opts: {
      dataDir: string;
      threads: number;
      space?: EmbeddingSpace;
      /** The task budget (the processing setting); read at each task. */
      taskTimeoutS?: () => number;
      /** Told of each task stopped past its budget (the log says which, and on what). */
      onTimeout?: (e: TaskTimeout) => void;
    },
  ) {
    this.current = opts.space ?? BUILTIN_SPACE;
  }

  get id(): string {
    return this.current.id;
  }

  get dimension(): number {
    return this.current.dimension;
  }

  get space(): EmbeddingSpace {
    return this.current;
  }

  /**
   * Every later task embeds in `space` (the switch job calls it as the new index goes in);
   * tasks already running finish in the space they started with.
   */
  /**
   * The installed language packs' model directories by language: analysis and ranking tasks
   * recognise entities with them (the model registry sets them as packs come and go).
   */
  setLanguagePacks(packs: Readonly<Record<string, string>>): void {
    this.packs = { ...packs };
  }

  get languagePacks(): Readonly<Record<string, string>> {
    return this.packs;
  }

  useSpace(space: EmbeddingSpace): void {
    this.current = space;
  }

  /** Resolves when the pool is first asked for: by start(), or by the first task. */
  whenFirstNeeded(): Promise<void> {
    return this.needed;
  }

  private get(): Promise<EmbedderPool> {
    this.markNeeded();
    this.pool ??= createEmbedderPool({
      dataDir: this.opts.dataDir,
      threads: this.opts.threads,
    }).catch((e: unknown) => {
      this.pool = null;
      throw e;
    });
    return this.pool;
  }

  /**
   * Starts the pool (converting the model in a worker the first time), warms every thread (its
   * model and the pipeline's modules), then loads the model on this thread for short texts.
   * Later calls answer the same promise; after a failure the next call tries again.
   */
  start(): Promise<void> {
    this.starting ??= this.warmUp().catch((e: unknown) => {
      this.starting = null;
      // Closed while starting: the pool's tasks were cut short on purpose.
      if (!this.closed) throw e;
    });
    return this.starting;
  }

  private async warmUp(): Promise<void> {
    const pool = await this.get();
    // One task per thread, all at once: each loads on its own thread while the others are busy.
    await Promise.all(
      Array.from({ length: this.opts.threads }, () =>
        this.runTask<number>(pool, 'warm', this.warmTask(pool), { budget: null }),
      ),
    );
    if (this.closed) return;
    // The model's bytes were read and checksummed by the pool's first thread (0.2–1.7 s of the
    // loop when done here): this thread maps the same memory.
    const bytes = pool.sharedBytes;
    if (!bytes) throw new Error("The engine's pool did not load the built-in model");
    this.local ??= loadCheckedBuiltinEmbedder(bytes.bytes);
    this.ready = true;
  }

  /** A thread's first task: its models loaded (the built-in one mapped from the pool's bytes). */
  private warmTask(pool: EmbedderPool): WarmTask {
    const { sharedBytes } = pool;
    return { dataDir: this.opts.dataDir, space: this.current, ...(sharedBytes && { sharedBytes }) };
  }

  get started(): boolean {
    return this.pool !== null;
  }

  get threads(): number {
    return this.opts.threads;
  }

  /**
   * `ready`: every thread and the in-thread query embedder are loaded; `in_thread`: short texts
   * embedded on this thread so far.
   */
  stats(): {
    threads: number;
    started: boolean;
    ready: boolean;
    busy: number;
    completed: number;
    in_thread: number;
  } {
    return {
      threads: this.opts.threads,
      started: this.started,
      ready: this.ready,
      busy: this.busy,
      completed: this.completed,
      in_thread: this.inThread,
    };
  }

  private async track<T>(fn: (pool: EmbedderPool) => Promise<T>): Promise<T> {
    const pool = await this.get();
    this.busy++;
    try {
      return await fn(pool);
    } finally {
      this.busy--;
      this.completed++;
    }
  }

  /** Threads stopped and replaced because a task ran past its budget, since the start. */
  get threadsReplaced(): number {
    return this.replaced;
  }

  private budgetS(timeoutS: number | undefined): number {
    return (
      timeoutS ?? this.opts.taskTimeoutS?.() ?? DEFAULT_PROCESSING_SETTINGS.task_timeout_seconds
    );
  }

  /**
   * Runs one task of the worker module on the pool. With a budget, a task that runs past it is
   * aborted: piscina terminates its thread and starts a fresh one, and the caller gets a
   * TaskTimeout. Aborting `signal` gives up on it at once the same way (TaskStopped).
   */
  private async runTask<T>(
    pool: EmbedderPool,
    name: string,
    task: object,
    opts: {
      budget: { kind: TaskKind; seconds: number } | null;
      signal?: AbortSignal;
      transferList?: ArrayBufferLike[];
    },
  ): Promise<T> {
    const kind = opts.budget?.kind ?? 'task';
    if (opts.signal?.aborted) throw new TaskStopped(kind, 'given up before it started');
    const controller = new AbortController();
    const cell = startCell();
    const stopWatch = opts.budget
      ? watchDeadline(cell, opts.budget.seconds * 1000, () =>
          controller.abort(new TaskTimeout(opts.budget!.kind, opts.budget!.seconds)),
        )
      : () => undefined;
    const giveUp = () =>
      controller.abort(new TaskStopped(kind, 'its job was cancelled or stopped'));
    opts.signal?.addEventListener('abort', giveUp, { once: true });
    this.inFlight.add(controller);
    try {
      return await pool.run<T>(
        { ...task, started: cell },
        {
          filename: ANALYZE_WORKER,
          name,
          signal: controller.signal,
          ...(opts.transferList && { transferList: opts.transferList }),
        },
      );
    } catch (e) {
      const reason: unknown = controller.signal.reason;
      if (reason instanceof TaskTimeout) {
        this.replaced++;
        this.opts.onTimeout?.(reason);
        // The fresh thread loads its models before the next task's clock starts, not during it.
        if (!this.closed)
          this.runTask(pool, 'warm', this.warmTask(pool), { budget: null }).catch(() => undefined);
      }
      if (reason instanceof TaskTimeout || reason instanceof TaskStopped) throw reason;
      throw e;
    } finally {
      stopWatch();
      opts.signal?.removeEventListener('abort', giveUp);
      this.inFlight.delete(controller);
    }
  }

  /**
   * One text's vector: on this thread when it is short (≤ IN_THREAD_MAX_WORDS words) and the
   * in-thread embedder is loaded, otherwise on a worker. The search path's entry.
   */
  async embedQuery(text: string): Promise<Float32Array> {
    return (await this.embed([text]))[0]!;
  }

  /** Only the built-in space is loaded on this thread: an ONNX model's queries go to a worker. */
  private embedHere(text: string): Float32Array | null {
    if (!this.local || this.current.model || !isShortText(text)) return null;
    this.inThread++;
    return this.local.embedOne(text);
  }

  /**
   * In the current space: a single short text on this thread (see embedQuery) when that space
   * is the built-in one, anything else on a worker.
   */
  async embed(texts: string[]): Promise<Float32Array[]> {
    if (texts.length === 0) return [];
    const space = this.current;
    if (texts.length === 1) {
      const here = this.embedHere(texts[0]!);
      const vector = here ?? (await this.embedWith(space, texts))[0]!;
      this.madeIn.set(vector, { space, text: texts[0]! });
      return [vector];
    }
    return this.embedWith(space, texts);
  }

  /** Embeds in `space`, current or not (the switch job fills the next index with it). */
  async embedWith(
    space: EmbeddingSpace,
    texts: string[],
    opts: TaskOptions = {},
  ): Promise<Float32Array[]> {
    if (texts.length === 0) return [];
    const task: EmbedSpaceTask = { dataDir: this.opts.dataDir, space, texts };
    const budget = { kind: 'embedding' as const, seconds: this.budgetS(opts.timeoutS) };
    const r = await this.track((pool) =>
      this.runTask<EmbedSpaceResult>(pool, 'embedSpace', task, { budget, signal: opts.signal }),
    );
    if (space.model && r.dimension !== space.dimension) {
      throw new Error(
        `The model in ${space.model.dir} makes ${r.dimension}-d vectors, ${space.id} expects ${space.dimension}`,
      );
    }
    return Array.from({ length: texts.length }, (_, i) =>
      r.packed.slice(i * r.dimension, (i + 1) * r.dimension),
    );
  }

  /**
   * A query vector this engine made in a space it has left since (a search that began before a
   * switch) is embedded again in the current one; any other vector is answered as it is.
   */
  async inCurrentSpace(vector: Float32Array): Promise<Float32Array> {
    const made = this.madeIn.get(vector);
    if (!made || made.space.id === this.current.id) return vector;
    return (await this.embed([made.text]))[0]!;
  }

  analyze(
    text: string,
    language: string,
    settings: ProcessingSettings,
    opts: { entities?: boolean; known?: string[] } & Pick<TaskOptions, 'signal'> = {},
  ): Promise<AnalyzeResult> {
    const task: AnalyzeTask = {
      dataDir: this.opts.dataDir,
      space: this.current,
      packs: this.packs,
      text,
      language,
      settings,
      ...(opts.entities !== undefined && { entities: opts.entities }),
      ...(opts.known && { known: opts.known }),
    };
    // The budget comes with the settings the job runs with (a Redis worker has no store).
    const budget = {
      kind: 'analysis' as const,
      seconds: this.budgetS(settings.task_timeout_seconds),
    };
    return this.track((pool) =>
      this.runTask<AnalyzeResult>(pool, 'analyze', task, { budget, signal: opts.signal }),
    );
  }

  rank(
    context: string,
    question: string,
    language: string,
    topK: number,
    opts: TaskOptions = {},
  ): Promise<RankResult> {
    const task: RankTask = {
      dataDir: this.opts.dataDir,
      space: this.current,
      packs: this.packs,
      context,
      question,
      language,
      topK,
    };
    const budget = { kind: 'ranking' as const, seconds: this.budgetS(opts.timeoutS) };
    return this.track((pool) =>
      this.runTask<RankResult>(pool, 'rank', task, { budget, signal: opts.signal }),
    );
  }

  /**
   * One score per (query, text) pair from the reranker model in `dir`, on a worker thread (the
   * model loads there on first use), under the ranking budget.
   */
  rerank(dir: string, query: string, texts: string[], opts: TaskOptions = {}): Promise<number[]> {
    const task: RerankTask = { dir, query, texts };
    const budget = { kind: 'ranking' as const, seconds: this.budgetS(opts.timeoutS) };
    return this.track((pool) =>
      this.runTask<number[]>(pool, 'rerankPairs', task, { budget, signal: opts.signal }),
    );
  }

  /**
   * Frees the ONNX models (embedding space, language packs) the worker threads hold; each loads
   * again at its next use. Answers how many distinct models were freed.
   */
  async unloadOnnxModels(): Promise<number> {
    if (!this.pool) return 0;
    const pool = await this.get();
    const freed = await broadcast(this.opts.threads, UNLOAD_TIMEOUT_MS, {}, (task) =>
      this.runTask<string[]>(pool, 'unloadOnnx', task, { budget: null }),
    );
    return new Set(freed.flat()).size;
  }

  /** Extracts a fetched page's text on a worker thread (readability is CPU work). */
  async extract(
    res: FetchResult,
    rule: ScrapingRuleLike | null,
    opts: TaskOptions = {},
  ): Promise<ReturnType<typeof extractResponse>> {
    const body = new Uint8Array(res.body.byteLength);
    body.set(res.body);
    const task: ExtractTask = {
      url: res.url,
      status: res.status,
      contentType: res.contentType,
      body,
      rule,
    };
    const budget = { kind: 'extraction' as const, seconds: this.budgetS(opts.timeoutS) };
    const r = await this.track((pool) =>
      this.runTask<ExtractTaskResult>(pool, 'extract', task, {
        budget,
        signal: opts.signal,
        transferList: [body.buffer],
      }),
    );
    if (!r.ok) throw new FetchError(r.code, r.message, r.url);
    return r.result;
  }

  /**
   * Parses a fetched sitemap on a worker thread (inflating `.xml.gz` there, bounded), under the
   * extraction budget: a sitemap of 50 MiB is CPU work the event loop must not wait on.
   */
  async parseSitemap(
    bytes: Uint8Array,
    meta: { url: string; contentType: string; gz?: boolean },
    opts: TaskOptions = {},
  ): Promise<ParsedSitemap> {
    const body = new Uint8Array(bytes.byteLength);
    body.set(bytes);
    const task: SitemapTask = {
      url: meta.url,
      contentType: meta.contentType,
      gz: meta.gz ?? false,
      body,
    };
    const budget = { kind: 'extraction' as const, seconds: this.budgetS(opts.timeoutS) };
    const r = await this.track((pool) =>
      this.runTask<SitemapTaskResult>(pool, 'sitemap', task, {
        budget,
        signal: opts.signal,
        transferList: [body.buffer],
      }),
    );
    if (!r.ok) throw new FetchError(r.code, r.message, r.url);
    return r.result;
  }

  /**
   * Reads a fetched robots.txt for `userAgent` on a worker thread, under the extraction budget:
   * a hostile file (500 KiB of 50,000 lines, long patterns) is CPU work the event loop must not
   * wait on. Only the bytes the parse reads cross to the thread; the lookup comes back.
   */
  async parseRobots(
    bytes: Uint8Array,
    userAgent: string,
    opts: TaskOptions = {},
  ): Promise<RobotsRules> {
    // One byte past the bound tells the parse that the file was cut there.
    const kept = bytes.subarray(0, ROBOTS_MAX_BYTES + 1);
    const body = new Uint8Array(kept.byteLength);
    body.set(kept);
    const task: RobotsTask = { body, userAgent };
    const budget = { kind: 'extraction' as const, seconds: this.budgetS(opts.timeoutS) };
    const compiled = await this.track((pool) =>
      this.runTask<CompiledRobots>(pool, 'robots', task, {
        budget,
        signal: opts.signal,
        transferList: [body.buffer],
      }),
    );
    return robotsFromCompiled(compiled);
  }

  /**
   * Parses an uploaded file on a worker thread, which reads it from `path` itself (the event loop
   * never holds its bytes), under the extraction budget. A file that cannot be read throws a
   * DocumentError saying why.
   */
  async parseDocument(
    file: Pick<ParseDocumentTask, 'path' | 'type' | 'options'>,
    opts: TaskOptions = {},
  ): Promise<ParsedDocument> {
    const task: ParseDocumentTask = { path: file.path, type: file.type, options: file.options };
    const budget = { kind: 'extraction' as const, seconds: this.budgetS(opts.timeoutS) };
    const r = await this.track((pool) =>
      this.runTask<ParseDocumentResult>(pool, 'parseDocumentFile', task, {
        budget,
        signal: opts.signal,
      }),
    );
    if (!r.ok) throw new DocumentError(r.code, r.message);
    return r.document;
  }

  /**
   * Analyses a document's sections as one text (see analyze) and says where each segment
   * begins (its page and heading), under the analysis budget.
   */
  analyzeSections(
    sections: DocumentSection[],
    language: string,
    settings: ProcessingSettings,
    opts: Pick<TaskOptions, 'signal'> = {},
  ): Promise<SectionsAnalysis> {
    const task: AnalyzeSectionsTask = {
      dataDir: this.opts.dataDir,
      space: this.current,
      packs: this.packs,
      sections,
      language,
      settings,
    };
    const budget = {
      kind: 'analysis' as const,
      seconds: this.budgetS(settings.task_timeout_seconds),
    };
    return this.track((pool) =>
      this.runTask<SectionsAnalysis>(pool, 'analyzeSections', task, {
        budget,
        signal: opts.signal,
      }),
    );
  }

  async close(): Promise<void> {
    this.closed = true;
    this.ready = false;
    this.local = null;
    // Shutting down waits for no task, least of all one stuck on a hostile page.
    for (const c of this.inFlight) c.abort(new TaskStopped('task', 'the engine is closing'));
    const pool = this.pool;
    this.pool = null;
    if (pool) await (await pool.catch(() => null))?.close();
  }
}
