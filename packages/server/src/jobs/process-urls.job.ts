import type { JobStats, ProcessingSettings } from '@adam/contracts';
import { z } from 'zod';
import type { AnalyzeResult } from '../pipeline/index.js';
import { isFetchError } from '../scraping/fetch-error.js';
import { isTaskTimeout } from '../engine/task-deadline.js';
import { validatorsOf, type Validators } from '../scraping/page-validators.js';
import { domainOf, type ScrapingRuleLike } from '../scraping/rules.js';
import { fetchUrl } from '../scraping/url-fetch.js';
import { analysisFromWire, analysisToWire, type WireAnalysis } from './analysis-wire.js';
import { defineJob, stoppedOutcome, type WorkDeps } from './define-job.js';
import { statsWith } from './ingest-stats.js';

const ProcessUrlsInput = z.object({
  language: z.string().default('auto'),
  min_quality: z.number().min(0).max(1).nullish(),
});
export type ProcessUrlsInput = z.output<typeof ProcessUrlsInput>;

/** What processing one URL produced, as it travels from a worker to the server. */
export type UrlWork =
  | {
      url: string;
      ok: true;
      title: string | null;
      analysis: AnalyzeResult;
      /** The page's ETag, Last-Modified and body hash: its first sync is a conditional request. */
      validators?: Validators;
    }
  | { url: string; ok: false; error: { type: string; error: string; message: string } };

type WireUrlWork =
  | Exclude<UrlWork, { ok: true }>
  | (Omit<Extract<UrlWork, { ok: true }>, 'analysis'> & { analysis: WireAnalysis });

/**
 * Working half for one URL: fetch under the rules, extract, analyse, each engine task under the
 * settings' time budget. Never throws.
 */
async function workUrl(
  deps: WorkDeps & { signal?: AbortSignal },
  url: string,
  rules: readonly ScrapingRuleLike[],
  settings: ProcessingSettings,
  language: string,
): Promise<UrlWork> {
  const signal = deps.signal;
  try {
    let validators: Validators | undefined;
    const page = await fetchUrl(
      deps.fetcher,
      url,
      rules,
      null,
      (res, rule) => {
        validators = validatorsOf(res);
        return deps.engine.extract(res, rule, { timeoutS: settings.task_timeout_seconds, signal });
      },
      signal,
    );
    const analysis = await deps.engine.analyze(page.content, language, settings, { signal });
    return { url, ok: true, title: page.title || null, analysis, validators };
  } catch (e) {
    const err = e as Error;
    return {
      url,
      ok: false,
      // A cancel or a stop cut the fetch or a task short: not the page's fault (the result is
      // dropped by emit; a stop redoes the URL later).
      error: signal?.aborted
        ? { type: 'cancelled', error: 'cancelled', message: `Stopped: ${err.message}` }
        : isFetchError(e)
          ? { type: `fetch_${e.code}`, error: e.code, message: err.message }
          : isTaskTimeout(e)
            ? { type: 'task_timeout', error: 'timeout', message: err.message }
            : { type: 'processing', error: err.name || 'Error', message: err.message },
    };
  }
}

/** Runs `fn` over items with at most `limit` at once, starting no new one once `stop()` says so. */
export async function eachLimited<T>(
  items: T[],
  limit: number,
  stop: () => Promise<boolean>,
  fn: (item: T) => Promise<void>,
) {
  let next = 0;
  const lanes = Array.from({ length: Math.max(1, Math.min(limit, items.length)) }, async () => {
    // The index is taken after `stop()` settles: another lane may have taken the last item
    // while this one awaited, so checking the length before the await is not enough.
    while (next < items.length && !(await stop())) {
      if (next >= items.length) return;
      await fn(items[next++]!);
    }
  });
  await Promise.all(lanes);
}

function safeDomain(url: string): string {
  try {
    return domainOf(url);
  } catch {
    return '';
  }
}

/** Fetch, extract, analyse and store every URL of the job; a restart resumes after the done ones. */
export const processUrlsJob = defineJob<ProcessUrlsInput, UrlWork>({
  type: 'process_urls',
  runsOn: 'any',
  input: ProcessUrlsInput,

  begin(_input, ctx) {
    const todo = ctx.urls.filter((u) => !ctx.doneUrls.has(u)).length;
    ctx.progress({
      stage: `Processing ${todo} of ${ctx.urls.length} URLs`,
      stats: { urls_total: ctx.urls.length },
    });
  },

  async work(input, wctx) {
    const todo = wctx.urls.filter((u) => !wctx.done.has(u));
    await eachLimited(
      todo,
      wctx.settings.max_concurrent_scrapes,
      () => wctx.shouldStop(),
      async (url) => {
        await wctx.emit(await workUrl(wctx, url, wctx.rules, wctx.settings, input.language));
      },
    );
  },

  record(work, input, ctx, deps) {
    if (ctx.doneUrls.has(work.url)) return; // a retried worker may send a URL twice
    const total = ctx.urls.length;
    // One progress write per URL (job row, stats and events together), not one per figure: the
    // server thread is what limits ingestion.
    let stats: Partial<JobStats>;
    if (work.ok) {
      const r = deps.ingestion.store(work.analysis, {
        language: input.language,
        onlyLanguage: input.language,
        minQuality: input.min_quality ?? null,
        source: { title: work.title, url: work.url },
        jobId: ctx.job.id,
      });
      deps.sources.upsertResult({
        url: work.url,
        domain: safeDomain(work.url),
        title: work.title,
        language: r.language === 'und' ? null : r.language,
        segments: r.segments_created,
        job_id: ctx.job.id,
        status: 'ok',
        error: null,
        ...(work.validators && { validators: work.validators }),
      });
      const warning =
        r.segments_created === 0 && r.duplicates === 0
          ? `No segment of ${work.url} passed the filters`
          : null;
      stats = { ...statsWith(ctx, r, warning), urls_done: (ctx.stats.urls_done ?? 0) + 1 };
    } else {
      ctx.addError({ ...work.error, url: work.url, diagnostic_summary: null });
      deps.sources.upsertResult({
        url: work.url,
        domain: safeDomain(work.url),
        title: null,
        language: null,
        segments: 0,
        job_id: ctx.job.id,
        status: 'failed',
        error: work.error.message,
      });
      stats = { urls_failed: (ctx.stats.urls_failed ?? 0) + 1 };
    }
    ctx.urlDone(work.url);
    const done = ctx.doneUrls.size;
    ctx.progress({
      stats,
      progress: total ? done / total : 1,
      stage: `Processed ${done} of ${total} URLs`,
      segments: { processed: done, total },
    });
  },

  end(_input, ctx) {
    if (ctx.shouldStop()) return stoppedOutcome(ctx);
    const succeeded = ctx.stats.urls_done ?? 0;
    const failed = ctx.stats.urls_failed ?? 0;
    if (succeeded === 0 && failed > 0) {
      return { status: 'failed', error: `None of the ${ctx.urls.length} URLs could be processed` };
    }
    return { status: 'completed', segments_created: ctx.stats.segments_created ?? 0 };
  },

  resumeKey: (work) => work.url,
  encode: (work): WireUrlWork =>
    work.ok ? { ...work, analysis: analysisToWire(work.analysis) } : work,
  decode: (wire) => {
    const w = wire as WireUrlWork;
    return w.ok ? { ...w, analysis: analysisFromWire(w.analysis) } : w;
  },
});
