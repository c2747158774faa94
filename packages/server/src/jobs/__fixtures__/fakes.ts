import {
  DEFAULT_PROCESSING_SETTINGS,
  type JobError,
  type JobStats,
  type ProcessingSettings,
} from '@adam/contracts';
import type { Engine } from '../../engine/engine.js';
import type { AnalyzeResult } from '../../pipeline/index.js';
import { FetchError } from '../../scraping/fetch-error.js';
import type { FetchResult, SafeFetcher } from '../../scraping/safe-fetcher.js';
import type { IndexService } from '../../services/index.service.js';
import type { IngestResult, IngestionService } from '../../services/ingestion.service.js';
import type { JobRow } from '../../store/job.repository.js';
import type { SourceRepository } from '../../store/source.repository.js';
import type { JobContext, JobRuntime, RecordDeps, WorkDeps } from '../define-job.js';
import type { ModelInstaller } from '../../queue/model-installer.js';

/** A one-segment analysis of `text`: what the fake engine answers (only the fakes read it). */
export const analysisOf = (text: string): AnalyzeResult =>
  ({
    language: { code: 'en', confidence: 1 },
    segments: [{ text, vector: Float32Array.of(0.6, 0.8) }],
    method: 'regex',
    fallback_reason: null,
    diagnostics: [],
    segmentation_stats: { method: 'regex', counts: { before: 1, after: 1 } },
  }) as unknown as AnalyzeResult;

/**
 * The working half's engine and fetcher: every URL answers a plain-text page unless it is in
 * `failing`, and each fetch waits on `hold(url)` first, so a test can act while a URL is in
 * flight. Records what was fetched and analysed, and the most fetches in flight at once.
 */
export class FakeWork {
  readonly fetched: string[] = [];
  readonly analyzed: string[] = [];
  readonly failing = new Set<string>();
  hold: (url: string) => Promise<void> = () => new Promise((r) => setTimeout(r, 1));
  inFlight = 0;
  maxInFlight = 0;

  readonly deps: WorkDeps = {
    fetcher: {
      fetch: async (url: string): Promise<FetchResult> => {
        this.fetched.push(url);
        this.inFlight++;
        this.maxInFlight = Math.max(this.maxInFlight, this.inFlight);
        try {
          await this.hold(url);
          if (this.failing.has(url)) {
            throw new FetchError('http_status', `${url} answered 500`, url, 500);
          }
          return {
            url,
            status: 200,
            headers: {},
            contentType: 'text/plain',
            body: Buffer.from(`Text of ${url}`),
            redirects: [],
          };
        } finally {
          this.inFlight--;
        }
      },
    } as unknown as SafeFetcher,
    engine: {
      extract: async (res: FetchResult) => ({
        title: `Title of ${res.url}`,
        text: res.body.toString(),
        html: '',
        method: 'plain',
        warnings: [],
        raw: res.body.toString(),
      }),
      analyze: async (text: string) => {
        this.analyzed.push(text);
        return analysisOf(text);
      },
    } as unknown as Engine,
  };
}

/** The recording half's store and index: records every call, stores nothing. */
export class FakeRecord {
  readonly stored: { text: string; jobId: number | null; url: string | null }[] = [];
  readonly sources: { url: string; status: 'ok' | 'failed'; error: string | null }[] = [];
  readonly rebuilds: { reembed: boolean }[] = [];
  flushes = 0;
  optimized = 0;
  /** What a rebuild does while it runs (a test stops or cancels the job from here). */
  duringRebuild: () => void = () => {};

  readonly deps: RecordDeps = {
    ingestion: {
      store: (
        analysis: AnalyzeResult,
        input: { jobId?: number | null; source?: { url?: string | null } },
      ): IngestResult => {
        const n = this.stored.push({
          text: analysis.segments.map((s) => s.text).join(' '),
          jobId: input.jobId ?? null,
          url: input.source?.url ?? null,
        });
        return {
          snippet_ids: [n],
          segments_created: analysis.segments.length,
          duplicates: 0,
          language: 'en',
          method: 'regex',
          fallback_reason: null,
          diagnostics: [],
          counts: { before: 1, after: 1 },
        };
      },
    } as unknown as IngestionService,
    sources: {
      upsertResult: (r: { url: string; status: 'ok' | 'failed'; error: string | null }) => {
        this.sources.push({ url: r.url, status: r.status, error: r.error });
      },
    } as unknown as SourceRepository,
    index: {
      flush: async () => {
        this.flushes++;
      },
      rebuild: async (opts: {
        reembed: boolean;
        onProgress: (done: number, total: number) => void;
        shouldStop: () => boolean;
      }) => {
        this.rebuilds.push({ reembed: opts.reembed });
        opts.onProgress(1, 2);
        this.duringRebuild();
        const stopped = opts.shouldStop();
        if (!stopped) opts.onProgress(2, 2);
        return { total: 2, indexed: stopped ? 1 : 2, reembedded: opts.reembed ? 2 : 0 };
      },
      markOptimized: () => {
        this.optimized++;
      },
    } as unknown as IndexService,
    // install_model is tested against a real server and a fake hub (test/models.test.ts).
    models: {} as ModelInstaller,
  };
}

export function fakeRuntime(
  work: FakeWork,
  record: FakeRecord,
  settings: Partial<ProcessingSettings> = {},
): JobRuntime {
  return {
    work: work.deps,
    record: record.deps,
    settings: () => ({ ...DEFAULT_PROCESSING_SETTINGS, ...settings }),
    rules: () => [],
  };
}

/** A job's context held in memory: `stopping` and `cancel()` are what a worker and a user do. */
export class FakeJobContext implements JobContext {
  readonly job: JobRow;
  readonly workerId = 'test-worker';
  readonly urls: string[];
  readonly doneUrls: Set<string>;
  readonly stats: JobStats = {};
  readonly errors: Omit<JobError, 'at'>[] = [];
  readonly stages: string[] = [];
  result: Record<string, unknown> | null = null;
  stopping = false;
  private wasCancelled = false;

  constructor(opts: { id?: number; urls?: string[]; done?: string[] } = {}) {
    this.job = { id: opts.id ?? 7 } as JobRow;
    this.urls = opts.urls ?? [];
    this.doneUrls = new Set(opts.done ?? []);
  }

  /** Figures recorded and not yet flushed stay out of `stages` (what was written). */
  private pendingStage: string | undefined;
  /** How many times the job's row was written. */
  flushes = 0;

  record(u: Parameters<JobContext['record']>[0]): void {
    if (u.stats) Object.assign(this.stats, u.stats);
    if (u.stage !== undefined) this.pendingStage = u.stage;
  }
  flush(): void {
    this.flushes++;
    if (this.pendingStage !== undefined) this.stages.push(this.pendingStage);
    this.pendingStage = undefined;
  }
  progress(u: Parameters<JobContext['progress']>[0]): void {
    this.record(u);
    this.flush();
  }
  urlDone(url: string): void {
    this.doneUrls.add(url);
  }
  addError(e: Omit<JobError, 'at'>): void {
    this.errors.push(e);
  }
  errorCount(): number {
    return this.errors.length;
  }
  setResult(result: Record<string, unknown>): void {
    this.result = result;
  }
  cancel(): void {
    this.wasCancelled = true;
  }
  cancelled(): boolean {
    return this.wasCancelled;
  }
  shouldStop(): boolean {
    return this.stopping || this.wasCancelled;
  }
}

/** A promise and its resolver: a gate a fake waits at until the test opens it. */
export function gate(): { wait: Promise<void>; open: () => void } {
  let open!: () => void;
  const wait = new Promise<void>((r) => (open = r));
  return { wait, open };
}
