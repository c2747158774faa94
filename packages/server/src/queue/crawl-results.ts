/**
 * What a crawl carries between its working half (jobs/crawler.ts, on the server or an `adam
 * worker`) and its recording half (the crawl_site and sync_crawl jobs' record, and
 * services/crawl-sync.service.ts), so services/ never imports jobs/.
 */
import type { CrawlerSettings, CrawlSkipReason } from '@adam/contracts';
import type { CrawlScope } from '../crawl/scope.js';
import type { AnalyzeResult } from '../pipeline/index.js';
import type { Validators } from '../scraping/page-validators.js';
import type { SyncTarget, SyncWork } from './source-sync.js';

/** What a crawl is asked to do (the crawl_site job's input). */
export interface CrawlPlan {
  start_urls: string[];
  scope: CrawlScope;
  max_depth: number;
  max_pages: number;
  include_patterns: string[];
  exclude_patterns: string[];
  use_sitemaps: boolean;
  language: string;
  crawler: CrawlerSettings;
}

/** A URL the crawl learnt of: queued, or skipped at once (scope, pattern). */
export interface FoundUrl {
  url: string;
  depth: number;
  status: 'pending' | 'skipped';
  reason: CrawlSkipReason | null;
  detail: string | null;
  from: string | null;
}

/** What became of one frontier URL. */
export interface PageOutcome {
  url: string;
  depth: number;
  status: 'fetched' | 'skipped' | 'failed';
  reason: CrawlSkipReason | null;
  http_status: number | null;
  detail: string | null;
  content_hash: string | null;
  /** A request was made for it (robots skips make none). */
  fetched: boolean;
  /** Kept pages: what the server stores, as the URL it was fetched at. */
  page?: { title: string | null; analysis: AnalyzeResult; validators?: Validators };
  /** Failed pages: the job error entry. */
  error?: { type: string; error: string; message: string };
}

/** One result of the working half: a page's outcome and the new URLs it led to (or the seeds). */
export interface CrawlResult {
  page: PageOutcome | null;
  found: FoundUrl[];
  /** The URL requested when it redirected to `page.url`: recorded as a duplicate of it. */
  alias?: { url: string; detail: string };
  /**
   * A crawl's sync (sync_crawl): what re-fetching one of its known pages found, and whether the
   * sitemaps list it (only when they were read in full: else undefined).
   */
  synced?: { work: SyncWork; in_sitemap?: boolean };
  /** A crawl's sync: the last result, sent once every page was visited. */
  finished?: true;
}

/** A known page of a crawl being synced: its validators and segment keys, where it sits. */
export interface SyncPage extends SyncTarget {
  depth: number;
  /** Listed by the sitemaps at the last complete read: leaving them counts as missing. */
  in_sitemap: boolean;
}

/** What a crawl's sync starts from (sync_crawl's resume state). */
export interface CrawlSyncState {
  /** The pages this sync re-fetches (it holds their sources). */
  pages: SyncPage[];
  /** URLs the crawl knows and does not fetch: its other pages, and pages it fetched and skipped. */
  known: string[];
  /** Text hashes of the crawl's pages: a new URL with the same text is a duplicate. */
  hashes: string[];
}

/** The recorded frontier a resumed run starts from: [url, depth, status, fetched, hash]. */
export type ResumeRow = [
  string,
  number,
  'pending' | 'fetched' | 'skipped' | 'failed',
  0 | 1,
  string | null,
];
export interface CrawlResume {
  rows: ResumeRow[];
}
