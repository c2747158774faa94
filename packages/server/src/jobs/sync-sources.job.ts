import type { ProcessingSettings } from '@adam/contracts';
import { z } from 'zod';
import { isTaskTimeout } from '../engine/task-deadline.js';
import { assertRuleAllowsFetch, ruleMode } from '../scraping/extract.js';
import { isFetchError } from '../scraping/fetch-error.js';
import { validatorsOf } from '../scraping/page-validators.js';
import { matchRule, type ScrapingRuleLike } from '../scraping/rules.js';
import { analysisFromWire, analysisToWire, type WireAnalysis } from './analysis-wire.js';
import { defineJob, stoppedOutcome, type WorkDeps } from './define-job.js';
import { eachLimited } from './process-urls.job.js';
import { SyncTarget, type SyncWork } from '../queue/source-sync.js';

export type { SyncWork };

/** The job's result (its counts) is written after this many sources, and after the last. */
const RESULT_EVERY = 20;
/** Sources per sync job: the scheduler splits a larger due set into several jobs. */
export const SYNC_BATCH = 100;

const SyncSourcesInput = z.object({
  targets: z.array(SyncTarget).max(SYNC_BATCH),
  reason: z.enum(['schedule', 'manual']).default('manual'),
  language: z.string().default('auto'),
});
export type SyncSourcesInput = z.output<typeof SyncSourcesInput>;

type WireSyncWork =
  | Exclude<SyncWork, { outcome: 'changed' }>
  | (Omit<Extract<SyncWork, { outcome: 'changed' }>, 'analysis'> & { analysis: WireAnalysis });

/** Only these answers say a page is gone; anything else failing is transient. */
const GONE_STATUSES = new Set([404, 410]);

/**
 * Working half for one source: a conditional GET (ETag / Last-Modified); a 304 or a body of the
 * same hash is unchanged at the cost of that one request. A changed body is extracted and
 * analysed with the source's known segments, which are not embedded again. Never throws.
 */
export async function syncOne(
  deps: { fetcher: Pick<WorkDeps['fetcher'], 'fetch'>; engine: WorkDeps['engine'] } & {
    signal?: AbortSignal;
  },
  target: SyncTarget,
  rules: readonly ScrapingRuleLike[],
  settings: ProcessingSettings,
  language: string,
  opts: { links?: boolean } = {},
): Promise<SyncWork> {
  const { source_id, url } = target;
  const headers: Record<string, string> = {};
  if (target.etag) headers['if-none-match'] = target.etag;
  if (target.last_modified) headers['if-modified-since'] = target.last_modified;
  try {
    let res;
    try {
      res = await deps.fetcher.fetch(url, {
        headers,
        guard: (hop) => {
          const rule = matchRule(rules, hop.hostname);
          if (rule && ruleMode(rule).mode === 'deny') assertRuleAllowsFetch(hop.href, rule);
        },
      });
    } catch (e) {
      if (isFetchError(e, 'http_status') && GONE_STATUSES.has(e.upstreamStatus ?? 0)) {
        return { source_id, url, outcome: 'missing', status: e.upstreamStatus! };
      }
      throw e;
    }
    if (res.status === 304) {
      const validators = {
        etag: target.etag,
        last_modified: target.last_modified,
        content_hash: target.content_hash,
      };
      return { source_id, url, outcome: 'unchanged', validators };
    }
    const validators = validatorsOf(res);
    if (validators.content_hash === target.content_hash) {
      return { source_id, url, outcome: 'unchanged', validators };
    }
    const rule = matchRule(rules, new URL(res.url).hostname);
    const page = await deps.engine.extract(res, rule, {
      timeoutS: settings.task_timeout_seconds,
      signal: deps.signal,
    });
    const analysis = await deps.engine.analyze(page.text, language, settings, {
      signal: deps.signal,
      known: target.known,
    });
    return {
      source_id,
      url,
      outcome: 'changed',
      validators,
      title: page.title || null,
      analysis,
      ...(opts.links && { links: (page as { links?: string[] }).links ?? [] }),
    };
  } catch (e) {
    const err = e as Error;
    return {
      source_id,
      url,
      outcome: 'failed',
      error: isFetchError(e)
        ? { type: `fetch_${e.code}`, error: e.code, message: err.message }
        : isTaskTimeout(e)
          ? { type: 'task_timeout', error: 'timeout', message: err.message }
          : { type: 'processing', error: err.name || 'Error', message: err.message },
    };
  }
}

/**
 * Re-fetches web sources and applies only what changed: unchanged pages cost one request,
 * changed ones embed only their new segments, gone ones are counted toward the prune, and a
 * transient failure keeps the old content. The server records each result
 * (SourceSyncService.record), only for the sources this job holds.
 */
export const syncSourcesJob = defineJob<SyncSourcesInput, SyncWork>({
  type: 'sync_sources',
  runsOn: 'any',
  input: SyncSourcesInput,

  begin(input, ctx) {
    const todo = input.targets.filter((t) => !ctx.doneUrls.has(t.url)).length;
    ctx.progress({
      stage: `Syncing ${todo} of ${input.targets.length} sources`,
      stats: { urls_total: input.targets.length },
    });
  },

  async work(input, wctx) {
    const todo = input.targets.filter((t) => !wctx.done.has(t.url));
    await eachLimited(
      todo,
      wctx.settings.max_concurrent_scrapes,
      () => wctx.shouldStop(),
      async (target) => {
        await wctx.emit(await syncOne(wctx, target, wctx.rules, wctx.settings, input.language));
      },
    );
  },

  record(work, input, ctx, deps) {
    if (ctx.doneUrls.has(work.url)) return; // a retried worker may send a source twice
    if (!deps.syncs) throw new Error('sync_sources needs the source sync recorder');
    const r = deps.syncs.record(work, ctx.job);
    if (r.failed) {
      ctx.addError({
        ...(work.outcome === 'failed'
          ? work.error
          : { type: 'sync', error: 'sync', message: r.failed }),
        url: work.url,
        diagnostic_summary: null,
      });
    }
    ctx.urlDone(work.url);
    const done = ctx.doneUrls.size;
    const total = input.targets.length;
    // The job's counts every RESULT_EVERY sources and at the last: a row write per source is
    // the larger part of an unchanged page's cost.
    if (done === total || done % RESULT_EVERY === 0) ctx.setResult(r.totals());
    ctx.progress({
      stats: r.failed
        ? { urls_failed: (ctx.stats.urls_failed ?? 0) + 1 }
        : {
            urls_done: (ctx.stats.urls_done ?? 0) + 1,
            segments_created: (ctx.stats.segments_created ?? 0) + r.segments_added,
          },
      progress: total ? done / total : 1,
      stage: `Synced ${done} of ${total} sources`,
      segments: { processed: done, total },
    });
  },

  end(input, ctx) {
    if (ctx.shouldStop()) return stoppedOutcome(ctx);
    const failed = ctx.stats.urls_failed ?? 0;
    if (input.targets.length > 0 && failed === input.targets.length) {
      return { status: 'failed', error: `None of the ${failed} sources could be synced` };
    }
    return { status: 'completed', segments_created: ctx.stats.segments_created ?? 0 };
  },

  resumeKey: (work) => work.url,
  encode: (work): WireSyncWork =>
    work.outcome === 'changed' ? { ...work, analysis: analysisToWire(work.analysis) } : work,
  decode: (wire) => {
    const w = wire as WireSyncWork;
    return w.outcome === 'changed' ? { ...w, analysis: analysisFromWire(w.analysis) } : w;
  },
});
