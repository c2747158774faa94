import type { JobError, JobStats } from '@adam/contracts';
import type { z } from 'zod';
import type { JobRow } from '../store/job.repository.js';

/** What a running job can do: report, record errors, remember finished URLs, and check whether to stop. */
export interface JobContext {
  readonly job: JobRow;
  readonly workerId: string;
  readonly urls: string[];
  /** URLs finished by an earlier attempt (a restart resumes after them). */
  readonly doneUrls: ReadonlySet<string>;
  readonly stats: JobStats;
  progress(update: {
    progress?: number;
    stage?: string;
    stats?: Partial<JobStats>;
    /** Also sent as segment_progress (the console's second progress bar). */
    segments?: { processed: number; total: number };
  }): void;
  urlDone(url: string): void;
  addError(error: Omit<JobError, 'at'>): void;
  errorCount(): number;
  setResult(result: Record<string, unknown>): void;
  /** True once the job was cancelled or deleted, or its worker is stopping. */
  shouldStop(): boolean;
  cancelled(): boolean;
}

export type JobOutcome =
  | { status: 'completed'; segments_created: number }
  | { status: 'failed'; error: string }
  /** The worker is stopping: the job goes back to the queue and resumes later. */
  | { status: 'interrupted' };

export interface JobDefinition<I = unknown> {
  type: string;
  input: z.ZodType<I>;
  run(input: I, ctx: JobContext): Promise<JobOutcome>;
}

/** A job is defined once and runs the same whichever queue driver picks it up. */
export function defineJob<I>(def: JobDefinition<I>): JobDefinition<I> {
  return def;
}
