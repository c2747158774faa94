/**
 * crawl_site: crawl a site into the knowledge base (issue 24).
 *
 * How it resumes, in both queue modes. The frontier lives in SQLite (crawl_frontier, migration
 * 15), which only the server writes:
 * - The working half (src/jobs/crawler.ts; the server's or an `adam worker`'s) holds the
 *   frontier in memory and emits one result per page: its outcome (stored, skipped and why,
 *   failed) and the URLs it found that the crawl did not know yet (the seeds come first, as a
 *   result without a page).
 * - The recording half (`record`, on the server) writes them: new URLs inserted once per crawl
 *   (UNIQUE(job_id, url)), the page's row updated, a kept page stored as a 'web' source. The
 *   live counts come from those writes.
 * - `resumeState` reads the recorded frontier back (url, depth, status, fetched, content hash)
 *   and the drivers hand it to the working half when a run is handed out: the embedded queue
 *   at each start (a restart requeues the job), the Redis queue at each queueing (a stopping or
 *   restarted server requeues it after storing the results already sent). The working half
 *   then queues the pending rows and never fetches a recorded page again.
 * - One case fetches again: an `adam worker` that dies mid-crawl, whose job BullMQ hands to
 *   another worker with the data it was queued with. Pages recorded since are fetched again;
 *   `record` keeps a page's first outcome only (its row is no longer pending).
 */
import { emptyCrawlProgress, type CrawlProgress, type JobStats } from '@adam/contracts';
import type { z } from 'zod';
import type { CrawlResult, CrawlResume, ResumeRow } from '../queue/crawl-results.js';
import { Crawler } from './crawler.js';
import { domainOf } from '../scraping/rules.js';
import type { CrawlFrontierRepository } from '../store/crawl-frontier.repository.js';
import { analysisFromWire, analysisToWire, type WireAnalysis } from './analysis-wire.js';
import { defineJob, stoppedOutcome, type JobContext, type RecordDeps } from './define-job.js';
import { statsWith } from './ingest-stats.js';
import { CrawlSiteInput } from '../queue/job-inputs.js';

type Input = z.output<typeof CrawlSiteInput>;

/** The contexts (one per run of a job) whose counts were read from the frontier. */
const counted = new WeakSet<JobContext>();

/** Job error entries kept per crawl: the frontier holds every failure, the job its first ones. */
const MAX_JOB_ERRORS = 100;

type WireResult = Omit<CrawlResult, 'page'> & {
  page:
    | (Omit<NonNullable<CrawlResult['page']>, 'page'> & {
        page?: { title: string | null; analysis: WireAnalysis };
      })
    | null;
};

function frontierOf(deps: RecordDeps): CrawlFrontierRepository {
  if (!deps.crawlFrontier) throw new Error('crawl_site needs the crawl frontier repository');
  return deps.crawlFrontier;
}

function safeDomain(url: string): string {
  try {
    return domainOf(url);
  } catch {
    return '';
  }
}

/** The crawl's figures as its frontier holds them (exact after a restart). */
function progressFromFrontier(frontier: CrawlFrontierRepository, jobId: number): CrawlProgress {
  const c = frontier.counts(jobId);
  const p = emptyCrawlProgress();
  p.discovered = c.total;
  p.queued = c.byStatus.pending ?? 0;
  p.fetched = c.fetched;
  p.stored = c.byStatus.fetched ?? 0;
  for (const r of Object.keys(p.skipped) as (keyof CrawlProgress['skipped'])[])
    p.skipped[r] = c.byReason[r] ?? 0;
  p.depth = c.maxFetchedDepth;
  return p;
}

function report(
  ctx: JobContext,
  input: Input,
  crawl: CrawlProgress,
  extra: Partial<JobStats> = {},
) {
  const done = crawl.discovered - crawl.queued;
  const skipped = Object.values(crawl.skipped).reduce((a, b) => a + b, 0);
  // Pages still to do are bounded by max_pages: the bar fills as the crawl nears either end.
  const todo = Math.min(crawl.queued, Math.max(0, input.max_pages - crawl.fetched));
  ctx.progress({
    stats: {
      ...extra,
      crawl,
      urls_total: crawl.discovered,
      urls_done: crawl.stored,
      urls_failed: crawl.skipped.error,
    } as Partial<JobStats>,
    progress: done + todo ? done / (done + todo) : 0,
    stage:
      `Crawled ${crawl.fetched} pages (depth ${crawl.depth}): ${crawl.stored} stored, ` +
      `${skipped} skipped, ${crawl.queued} queued`,
  });
}

const crawlOf = (ctx: JobContext) =>
  (ctx.stats as { crawl?: CrawlProgress }).crawl ?? emptyCrawlProgress();

/** Crawl a site from start URLs and sitemaps into 'web' sources; see the design above. */
export const crawlSiteJob = defineJob<Input, CrawlResult>({
  type: 'crawl_site',
  runsOn: 'any',
  input: CrawlSiteInput,

  begin(input, ctx) {
    report(ctx, input, crawlOf(ctx));
  },

  async work(input, wctx) {
    await new Crawler(input, wctx).run();
  },

  record(r, input, ctx, deps) {
    const frontier = frontierOf(deps);
    const jobId = ctx.job.id;
    // A run's first result counts from the frontier, not the stored stats: a crash between the
    // two writes would leave them apart.
    let crawl = crawlOf(ctx);
    if (!counted.has(ctx)) {
      counted.add(ctx);
      crawl = progressFromFrontier(frontier, jobId);
    }
    const inserted = frontier.insertNew(
      jobId,
      r.found.map((f) => ({
        url: f.url,
        depth: f.depth,
        status: f.status,
        reason: f.reason,
        detail: f.detail,
        discovered_from: f.from,
      })),
    );
    for (const f of inserted) {
      crawl.discovered++;
      if (f.status === 'pending') crawl.queued++;
      else if (f.reason) crawl.skipped[f.reason]++;
    }
    if (r.alias) {
      const aliased = frontier.find(jobId, r.alias.url);
      if (aliased?.status === 'pending') {
        frontier.recordOutcome(jobId, {
          url: r.alias.url,
          depth: aliased.depth,
          status: 'skipped',
          reason: 'duplicate',
          http_status: null,
          content_hash: null,
          detail: r.alias.detail,
          // The fetch is counted on the page it reached.
          fetched: false,
        });
        crawl.queued = Math.max(0, crawl.queued - 1);
        crawl.skipped.duplicate++;
      }
    }
    let extra: Partial<JobStats> = {};
    const page = r.page;
    const row = page ? frontier.find(jobId, page.url) : undefined;
    // A page recorded already (a worker that took the job over fetched it again) keeps its first outcome.
    if (page && (!row || row.status === 'pending')) {
      let outcome = page;
      const other =
        page.status === 'fetched' && page.content_hash
          ? frontier.hashTakenByOther(jobId, page.content_hash, page.url)
          : null;
      if (other) {
        outcome = {
          ...page,
          status: 'skipped',
          reason: 'duplicate',
          detail: `Same content as ${other}`,
          content_hash: null,
        };
        delete outcome.page;
      }
      if (outcome.status === 'fetched' && outcome.page) {
        const ingest = deps.ingestion.store(outcome.page.analysis, {
          language: input.language,
          onlyLanguage: input.language,
          minQuality: input.min_quality ?? null,
          source: { title: outcome.page.title, url: page.url },
          jobId,
        });
        deps.sources.upsertResult({
          url: page.url,
          kind: 'web',
          domain: safeDomain(page.url),
          title: outcome.page.title,
          language: ingest.language === 'und' ? null : ingest.language,
          segments: ingest.segments_created,
          job_id: jobId,
          status: 'ok',
          error: null,
          ...(outcome.page.validators && { validators: outcome.page.validators }),
        });
        extra = statsWith(ctx, ingest, null);
      }
      if (outcome.error && ctx.errorCount() < MAX_JOB_ERRORS) {
        ctx.addError({ ...outcome.error, url: page.url, diagnostic_summary: null });
      }
      frontier.recordOutcome(jobId, {
        url: page.url,
        depth: page.depth,
        status: outcome.status,
        reason: outcome.reason,
        http_status: outcome.http_status,
        content_hash: outcome.content_hash,
        detail: outcome.detail,
        fetched: outcome.fetched,
      });
      if (!row) crawl.discovered++;
      else crawl.queued = Math.max(0, crawl.queued - 1);
      if (outcome.fetched) {
        crawl.fetched++;
        crawl.depth = Math.max(crawl.depth, page.depth);
      }
      if (outcome.status === 'fetched') crawl.stored++;
      else if (outcome.reason) crawl.skipped[outcome.reason]++;
    }
    report(ctx, input, crawl, extra);
  },

  end(_input, ctx) {
    if (ctx.shouldStop()) return stoppedOutcome(ctx);
    const crawl = crawlOf(ctx);
    if (crawl.stored === 0 && crawl.skipped.error > 0 && crawl.fetched === crawl.skipped.error) {
      return {
        status: 'failed',
        error: `None of the ${crawl.fetched} pages fetched could be processed`,
      };
    }
    return { status: 'completed', segments_created: ctx.stats.segments_created ?? 0 };
  },

  resumeState(_input, jobId, deps): CrawlResume {
    const frontier = frontierOf(deps);
    return {
      rows: frontier
        .listAll(jobId)
        .map((r): ResumeRow => [r.url, r.depth, r.status, r.fetched_at ? 1 : 0, r.content_hash]),
    };
  },

  encode: (r): WireResult =>
    r.page?.page
      ? {
          ...r,
          page: {
            ...r.page,
            page: { ...r.page.page, analysis: analysisToWire(r.page.page.analysis) },
          },
        }
      : (r as WireResult),
  decode: (wire) => {
    const w = wire as WireResult;
    return w.page?.page
      ? {
          ...w,
          page: {
            ...w.page,
            page: { ...w.page.page, analysis: analysisFromWire(w.page.page.analysis) },
          },
        }
      : (w as CrawlResult);
  },
});
