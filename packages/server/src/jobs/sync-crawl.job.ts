/**
 * sync_crawl: a crawl run again to keep it fresh (issue 24). The working half is the crawler in
 * its sync mode (src/jobs/crawler.ts, runSync): known pages are re-fetched conditionally by
 * sync_sources' syncOne, new URLs crawled as in a first crawl. The recording half is
 * CrawlSyncService.record: a known page's result goes to the sources' own sync recorder (the
 * same rules as a source's sync), a new page is stored as crawl_site stores it.
 *
 * Resume: the job holds its pages' sources, and each recorded page releases its own; the state
 * handed to a resumed run (`resumeState`) lists only the pages still held, every other URL of the
 * crawl as known. The last result (`finished`) closes the sync's record and releases the crawl.
 */
import type { z } from 'zod';
import type { CrawlResult, CrawlSyncState } from '../queue/crawl-results.js';
import { Crawler } from './crawler.js';
import type { CrawlSyncRecorder } from '../services/crawl-sync.service.js';
import { analysisFromWire, analysisToWire, type WireAnalysis } from './analysis-wire.js';
import { defineJob, stoppedOutcome, type RecordDeps } from './define-job.js';
import { SyncCrawlInput } from '../queue/job-inputs.js';

type Input = z.output<typeof SyncCrawlInput>;

function recorderOf(deps: RecordDeps): CrawlSyncRecorder {
  if (!deps.crawlSyncs) throw new Error('sync_crawl needs the crawl sync recorder');
  return deps.crawlSyncs;
}

type Wire = unknown;

/** The analyses a result carries (a new page's, a changed known page's) cross Redis as wire. */
function mapAnalyses(r: CrawlResult, to: 'wire' | 'live'): CrawlResult {
  const conv = (a: never) =>
    to === 'wire' ? analysisToWire(a) : analysisFromWire(a as unknown as WireAnalysis);
  let out = r;
  if (r.page?.page) {
    out = {
      ...out,
      page: { ...r.page, page: { ...r.page.page, analysis: conv(r.page.page.analysis as never) } },
    } as CrawlResult;
  }
  if (r.synced?.work.outcome === 'changed') {
    const w = r.synced.work;
    out = {
      ...out,
      synced: { ...r.synced, work: { ...w, analysis: conv(w.analysis as never) } },
    } as CrawlResult;
  }
  return out;
}

/** Re-syncs a crawl: see the design above. */
export const syncCrawlJob = defineJob<Input, CrawlResult>({
  type: 'sync_crawl',
  runsOn: 'any',
  input: SyncCrawlInput,

  begin(input, ctx) {
    ctx.progress({ stage: `Syncing crawl ${input.crawl_id}` });
  },

  async work(input, wctx) {
    const state = (wctx.resume as CrawlSyncState | undefined) ?? {
      pages: [],
      known: [],
      hashes: [],
    };
    await new Crawler(input.plan, wctx, undefined, state).run();
  },

  record(r, input, ctx, deps) {
    const recorder = recorderOf(deps);
    const failed = recorder.record(input.crawl_id, r, ctx.job, input.plan.language);
    const url = r.synced?.work.url ?? r.page?.url;
    if (failed && url)
      ctx.addError({ type: 'sync', error: 'sync', message: failed, url, diagnostic_summary: null });
    const done = (ctx.stats.urls_done ?? 0) + (url && !failed ? 1 : 0);
    // The figures are recorded exact at each result; the row and its event follow at most every
    // PROGRESS_EVERY_MS, at the last result and at the end (see end).
    ctx.record({
      stage: r.finished
        ? `Synced crawl ${input.crawl_id}`
        : `Syncing crawl ${input.crawl_id}: ${done} pages done`,
      stats: { urls_done: done, urls_failed: (ctx.stats.urls_failed ?? 0) + (failed ? 1 : 0) },
    });
    if (r.finished || recorder.progressDue(ctx.job.id)) ctx.flush();
  },

  end(input, ctx) {
    // The figures recorded since the last write (a stopped sync ends without its last result).
    const stopped = ctx.shouldStop();
    ctx.progress({
      stage: stopped
        ? `Syncing crawl ${input.crawl_id}: ${ctx.stats.urls_done ?? 0} pages done`
        : `Synced crawl ${input.crawl_id}`,
    });
    if (stopped) return stoppedOutcome(ctx);
    return { status: 'completed', segments_created: ctx.stats.segments_created ?? 0 };
  },

  resumeState(input, jobId, deps): CrawlSyncState {
    return recorderOf(deps).state(input.crawl_id, jobId);
  },

  encode: (r): Wire => mapAnalyses(r, 'wire'),
  decode: (wire) => mapAnalyses(wire as CrawlResult, 'live'),
});
