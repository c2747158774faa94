import type { ProcessingSettings } from '@adam/contracts';
import type { AnalyzeResult } from '../pipeline/index.js';
import type { ScrapingRuleLike } from '../scraping/rules.js';
import type { UrlWork } from './handlers.js';

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
  type: 'process_urls' | 'save_segments';
  urls: string[];
  input: Record<string, unknown>;
  rules: ScrapingRuleLike[];
  settings: ProcessingSettings;
}

type WireAnalysis = Omit<AnalyzeResult, 'segments'> & {
  segments: (Omit<AnalyzeResult['segments'][number], 'vector'> & { vector: string })[];
};
export type WireUrlWork =
  | Exclude<UrlWork, { ok: true }>
  | { url: string; ok: true; title: string | null; analysis: WireAnalysis };

export type WorkerMessage =
  | { kind: 'started'; job_id: number; worker_id: string }
  | { kind: 'progress'; job_id: number; worker_id: string; stage: string }
  | { kind: 'url'; job_id: number; worker_id: string; work: WireUrlWork }
  | { kind: 'analysis'; job_id: number; worker_id: string; analysis: WireAnalysis }
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
  host: string;
  pid: number;
  seen_at: number;
}

const vecToB64 = (v: Float32Array) =>
  Buffer.from(v.buffer, v.byteOffset, v.byteLength).toString('base64');
const b64ToVec = (s: string) => {
  const b = Buffer.from(s, 'base64');
  return new Float32Array(b.buffer.slice(b.byteOffset, b.byteOffset + b.byteLength));
};

export function analysisToWire(a: AnalyzeResult): WireAnalysis {
  return { ...a, segments: a.segments.map((s) => ({ ...s, vector: vecToB64(s.vector) })) };
}

export function analysisFromWire(a: WireAnalysis): AnalyzeResult {
  return { ...a, segments: a.segments.map((s) => ({ ...s, vector: b64ToVec(s.vector) })) };
}

export function urlWorkToWire(w: UrlWork): WireUrlWork {
  return w.ok ? { ...w, analysis: analysisToWire(w.analysis) } : w;
}

export function urlWorkFromWire(w: WireUrlWork): UrlWork {
  return w.ok ? { ...w, analysis: analysisFromWire(w.analysis) } : w;
}

/** BullMQ priority: lower runs first. */
export const BULL_PRIORITY = { high: 1, normal: 2, low: 3 } as const;
