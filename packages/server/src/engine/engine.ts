import type { ProcessingSettings } from '@adam/contracts';
import { BUILTIN_DIMENSION, BUILTIN_EMBEDDER_ID } from '../embedding/builtin-embedder.js';
import {
  createEmbedderPool,
  siblingModule,
  type EmbedderPool,
} from '../embedding/embedder-pool.js';
import type { Embedder } from '../embedding/embedder.js';
import type { AnalyzeResult } from '../pipeline/index.js';
import { FetchError } from '../scraping/fetch-error.js';
import type { ScrapingRuleLike } from '../scraping/rules.js';
import type { FetchResult } from '../scraping/safe-fetcher.js';
import type { extractResponse } from '../scraping/extract.js';
import type {
  AnalyzeTask,
  ExtractTask,
  ExtractTaskResult,
  RankResult,
  RankTask,
} from './analyze.worker.js';

// Resolved like the embedder's own worker: .ts under vitest/tsx, .js when compiled.
const ANALYZE_WORKER = siblingModule('../engine/analyze.worker');

/**
 * The CPU side of ADAM: text analysis and embeddings on a pool of worker threads. The pool
 * starts on first use, so a server that only answers settings or auth calls never loads the
 * model.
 */
export class Engine implements Embedder {
  readonly id = BUILTIN_EMBEDDER_ID;
  readonly dimension = BUILTIN_DIMENSION;
  private pool: Promise<EmbedderPool> | null = null;
  private busy = 0;
  private completed = 0;

  constructor(private readonly opts: { dataDir: string; threads: number }) {}

  private get(): Promise<EmbedderPool> {
    this.pool ??= createEmbedderPool({
      dataDir: this.opts.dataDir,
      threads: this.opts.threads,
    }).catch((e: unknown) => {
      this.pool = null;
      throw e;
    });
    return this.pool;
  }

  get started(): boolean {
    return this.pool !== null;
  }

  get threads(): number {
    return this.opts.threads;
  }

  stats(): { threads: number; started: boolean; busy: number; completed: number } {
    return {
      threads: this.opts.threads,
      started: this.started,
      busy: this.busy,
      completed: this.completed,
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

  embed(texts: string[]): Promise<Float32Array[]> {
    if (texts.length === 0) return Promise.resolve([]);
    return this.track((pool) => pool.embed(texts));
  }

  analyze(
    text: string,
    language: string,
    settings: ProcessingSettings,
    opts: { entities?: boolean } = {},
  ): Promise<AnalyzeResult> {
    const task: AnalyzeTask = { dataDir: this.opts.dataDir, text, language, settings, ...opts };
    return this.track((pool) =>
      pool.run<AnalyzeResult>(task, { filename: ANALYZE_WORKER, name: 'analyze' }),
    );
  }

  rank(context: string, question: string, language: string, topK: number): Promise<RankResult> {
    const task: RankTask = { dataDir: this.opts.dataDir, context, question, language, topK };
    return this.track((pool) =>
      pool.run<RankResult>(task, { filename: ANALYZE_WORKER, name: 'rank' }),
    );
  }

  /** Extracts a fetched page's text on a worker thread (readability is CPU work). */
  async extract(
    res: FetchResult,
    rule: ScrapingRuleLike | null,
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
    const r = await this.track((pool) =>
      pool.run<ExtractTaskResult>(task, {
        filename: ANALYZE_WORKER,
        name: 'extract',
        transferList: [body.buffer],
      }),
    );
    if (!r.ok) throw new FetchError(r.code, r.message, r.url);
    return r.result;
  }

  async close(): Promise<void> {
    const pool = this.pool;
    this.pool = null;
    if (pool) await (await pool.catch(() => null))?.close();
  }
}
