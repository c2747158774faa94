import type { JobType, ProcessingSettings } from '@adam/contracts';
import type { z } from 'zod';
import type { Engine } from '../engine/engine.js';
import type { ScrapingRuleLike } from '../scraping/rules.js';
import type { SafeFetcher } from '../scraping/safe-fetcher.js';
import type { IndexService } from '../services/index.service.js';
import type { IngestionService } from '../services/ingestion.service.js';
import type { SourceRepository } from '../store/source.repository.js';
import type { CrawlFrontierRepository } from '../store/crawl-frontier.repository.js';
import type { ModelInstaller } from '../queue/model-installer.js';
import type { DocumentProcessor } from '../services/document-processor.js';
import type { SourceSyncRecorder } from '../queue/source-sync.js';
import type { CrawlSyncRecorder } from '../services/crawl-sync.service.js';
import type { SnippetImporter } from '../services/snippet-importer.js';
import type { RunControl, RunEnd } from '../services/evaluation.service.js';
import type { JobContext, JobOutcome } from '../queue/job-context.js';

// A job's context and outcome are shared with the services that run a job themselves (queue/).
export type { JobContext, JobOutcome };
export { stoppedOutcome } from '../queue/job-context.js';

/** What the working half uses: pure CPU and network, no store, so any process can run it. */
export interface WorkDeps {
  engine: Engine;
  fetcher: SafeFetcher;
}

/** What the recording half uses: the store, the index and the models, which only the server writes. */
export interface RecordDeps {
  ingestion: IngestionService;
  sources: SourceRepository;
  index: IndexService;
  /** The model registry and its files under the data directory (install_model). */
  models: ModelInstaller;
  /** Uploaded files' parsing and storing (process_documents); absent in unit fakes. */
  documents?: DocumentProcessor;
  /** Crawls' frontiers (crawl_site); absent where no crawl runs (unit tests of other jobs). */
  crawlFrontier?: CrawlFrontierRepository;
  /** JSON Lines imports (import_snippets); absent where no import runs (unit fakes). */
  imports?: SnippetImporter;
  /** Applies a re-fetched source's result (sync_sources); absent in unit fakes. */
  syncs?: SourceSyncRecorder;
  /** Applies a crawl's sync results (sync_crawl); absent in unit fakes. */
  crawlSyncs?: CrawlSyncRecorder;
  /** Scores evaluation runs through the live search (evaluation_run); absent in unit fakes. */
  evaluations?: { execute(runId: number, control: RunControl): Promise<RunEnd> };
}

/** The working half's view of its job, the same in the server and in an `adam worker`. */
export interface WorkContext<R> extends WorkDeps {
  readonly jobId: number;
  readonly urls: readonly string[];
  /** Results already recorded by an earlier attempt: skip them. */
  readonly done: ReadonlySet<string>;
  /**
   * What the job's `resumeState` read from the store when this run was handed out (at its
   * start here, at its queueing on Redis); undefined for jobs without one.
   */
  readonly resume?: unknown;
  /** Processing settings and scraping rules as of the job's start (or its queueing, on Redis). */
  readonly settings: ProcessingSettings;
  readonly rules: readonly ScrapingRuleLike[];
  /** Cancelled, deleted, or the worker is stopping: start nothing new. */
  shouldStop(): Promise<boolean>;
  /**
   * Aborted when the job is cancelled or its worker stops: the engine gives up on the job's
   * tasks at once, freeing their threads, rather than at the next URL.
   */
  readonly signal?: AbortSignal;
  /**
   * Hands one result to the recording half: recorded at once by the embedded queue, sent through
   * Redis by a worker. Dropped when the job stopped meanwhile (a cancel keeps nothing more, a
   * stop redoes the unrecorded work later).
   */
  emit(result: R): Promise<void>;
}

/**
 * A job whose working half may run anywhere and whose recording half runs on the server. Its
 * results cross Redis as JSON, so `encode` / `decode` turn them into plain values and back.
 */
export interface DistributedJob<I, R> {
  readonly type: JobType;
  readonly runsOn: 'any';
  readonly input: z.ZodType<I>;
  /** Server side, once the job is taken: first progress and stats. */
  begin(input: I, ctx: JobContext): void;
  /** Working half: produces the job's results through `wctx.emit`. */
  work(input: I, wctx: WorkContext<R>): Promise<void>;
  /** Recording half of one result: rows, vectors, sources, job stats. */
  record(result: R, input: I, ctx: JobContext, deps: RecordDeps): void;
  /** Server side, once the working half ended without error: how the job ends. */
  end(input: I, ctx: JobContext): JobOutcome;
  /** A key for a recorded result, so a worker taking the job over skips it (a URL). */
  resumeKey?(result: R): string | null;
  /**
   * Server side: state rebuilt from what was recorded, handed to the working half (as
   * `WorkContext.resume`) when a run is handed out. Plain JSON: it crosses Redis.
   */
  resumeState?(input: I, jobId: number, deps: RecordDeps): unknown;
  encode(result: R): unknown;
  decode(wire: unknown): R;
}

/** A job only the server may run (it rewrites the index): both halves in one. */
export interface ServerJob<I> {
  readonly type: JobType;
  readonly runsOn: 'server';
  readonly input: z.ZodType<I>;
  run(input: I, ctx: JobContext, deps: RecordDeps): Promise<JobOutcome>;
}

export type JobDefinition<I = unknown, R = unknown> = DistributedJob<I, R> | ServerJob<I>;
/** Any job's definition, as the registry and the drivers hold them (inputs parsed at run time). */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- input and result types vary per job
export type AnyJobDefinition = JobDefinition<any, any>;

/** What the drivers run jobs with in this process. */
export interface JobRuntime {
  work: WorkDeps;
  record: RecordDeps;
  settings: () => ProcessingSettings;
  rules: () => ScrapingRuleLike[];
}

/** A job is defined once and runs the same whichever queue driver picks it up. */
export function defineJob<I, R>(def: DistributedJob<I, R>): DistributedJob<I, R>;
export function defineJob<I>(def: ServerJob<I>): ServerJob<I>;
export function defineJob<I, R>(def: JobDefinition<I, R>): JobDefinition<I, R> {
  return def;
}
