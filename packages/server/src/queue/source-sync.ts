/**
 * What a source's sync carries between its working half (jobs/sync-sources.job.ts, the crawler's
 * sync) and its recording half (services/source-sync.service.ts), so neither imports the other.
 */
import type { SyncCounts, SyncOutcome } from '@adam/contracts';
import { z } from 'zod';
import type { AnalyzeResult } from '../pipeline/index.js';
import { SEGMENT_KEY_CHARS } from '../pipeline/segment-key.js';
import type { Validators } from '../scraping/page-validators.js';
import type { JobRow } from '../store/job.repository.js';

export type { Validators };

/** Known segment keys sent per source; segments of a page past it are simply embedded again. */
export const MAX_KNOWN_SEGMENTS = 5_000;

/** One source to re-fetch: its validators, and the segments it holds (a sync job's input). */
export const SyncTarget = z.object({
  source_id: z.number().int(),
  url: z.string().url(),
  etag: z.string().max(1_000).nullable(),
  last_modified: z.string().max(200).nullable(),
  content_hash: z.string().max(128).nullable(),
  /** segmentKey()s of the segments the source holds: their embedding is skipped. */
  known: z.array(z.string().length(SEGMENT_KEY_CHARS)).max(MAX_KNOWN_SEGMENTS),
});
export type SyncTarget = z.output<typeof SyncTarget>;

/** What re-fetching one source found, as it travels from a worker to the server. */
export type SyncWork =
  | { source_id: number; url: string; outcome: 'unchanged'; validators: Validators }
  | {
      source_id: number;
      url: string;
      outcome: 'changed';
      validators: Validators;
      title: string | null;
      analysis: AnalyzeResult;
      /** The page's links, when asked (a crawl's sync follows those of a changed page). */
      links?: string[];
    }
  | {
      source_id: number;
      url: string;
      outcome: 'missing';
      /** The HTTP status that said so (404, 410), or 0 when the page left the crawl's sitemaps. */
      status: number;
      /** Why it counts as missing, when not an HTTP status. */
      reason?: string;
    }
  | {
      source_id: number;
      url: string;
      outcome: 'failed';
      error: { type: string; error: string; message: string };
    };

/** What recording one result did, for the job's stats and result. */
export interface SyncRecorded {
  /** Why this source's sync failed (its old content kept), or null. */
  failed: string | null;
  segments_added: number;
  /** The job's counts so far, summed over its syncs (the job's result); read when wanted. */
  totals: () => Record<string, number>;
  /** What this source's sync was ('pruned': gone, its source deleted), and its counts. */
  outcome?: SyncOutcome;
  counts?: SyncCounts;
}

/** The server side of a sync (SourceSyncService): applies one source's result. */
export interface SourceSyncRecorder {
  record(work: SyncWork, job: JobRow, opts?: { quiet?: boolean }): SyncRecorded;
}
