import type { JobType, ProcessingSettings } from '@adam/contracts';
import type { ScrapingRuleLike } from '../scraping/rules.js';

/**
 * What the server and `adam worker` processes say to each other through Redis. Jobs go out on a
 * BullMQ queue carrying everything the work needs (input, rules and settings at queue time);
 * results come back on a Redis list that only the server reads and writes to the store.
 */
export const QUEUE_NAME = 'adam-jobs';
export const RESULTS = 'adam:results';
export const RESULTS_PROCESSING = 'adam:results:processing';
export const WORKERS_HASH = 'adam:workers';
export const CONTROL_CHANNEL = 'adam:control';
export const cancelKey = (jobId: number) => `adam:cancel:${jobId}`;
export const doneKey = (jobId: number) => `adam:done:${jobId}`;
/** A worker not heard from for this long is no longer listed. */
export const WORKER_STALE_MS = 20_000;
export const WORKER_HEARTBEAT_MS = 5_000;

export interface RemoteJobData {
  job_id: number;
  type: JobType;
  urls: string[];
  input: Record<string, unknown>;
  rules: ScrapingRuleLike[];
  settings: ProcessingSettings;
  /** The job's resumeState at queueing (see DistributedJob.resumeState). */
  resume?: unknown;
}

export type WorkerMessage =
  | { kind: 'started'; job_id: number; worker_id: string }
  | { kind: 'progress'; job_id: number; worker_id: string; stage: string }
  /** One result of the job's working half, as its definition encodes it. */
  | { kind: 'result'; job_id: number; worker_id: string; result: unknown }
  /** A task of the job ran past its budget: its thread was replaced, the job goes on. */
  | { kind: 'task_timeout'; job_id: number; worker_id: string; message: string }
  | {
      kind: 'done';
      job_id: number;
      worker_id: string;
      outcome: 'finished' | 'interrupted' | 'cancelled' | 'error';
      error?: string;
    };

export interface WorkerInfoWire {
  id: string;
  status: 'idle' | 'busy' | 'stopping';
  current_job: number | null;
  started_at: string;
  processed: number;
  failed: number;
  /** Tasks stopped past their budget since the worker started. */
  task_timeouts: number;
  host: string;
  pid: number;
  seen_at: number;
}

/** BullMQ priority: lower runs first. */
export const BULL_PRIORITY = { high: 1, normal: 2, low: 3 } as const;
