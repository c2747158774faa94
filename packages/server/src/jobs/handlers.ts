import type { JobStats, ProcessingSettings } from '@adam/contracts';
import { z } from 'zod';
import type { Engine } from '../engine/engine.js';
import type { AnalyzeResult } from '../pipeline/index.js';
import { isFetchError } from '../scraping/fetch-error.js';
import { domainOf, type ScrapingRuleLike } from '../scraping/rules.js';
import type { SafeFetcher } from '../scraping/safe-fetcher.js';
import { fetchUrl } from '../scraping/url-fetch.js';
import type { IndexService } from '../services/index.service.js';
import type { IngestResult, IngestionService } from '../services/ingestion.service.js';
import type { RuleService } from '../services/rule.service.js';
import type { SettingsService } from '../services/settings.service.js';
import type { SourceRepository } from '../store/source.repository.js';
import { defineJob, type JobContext, type JobDefinition, type JobOutcome } from './define-job.js';

/**
 * Each job type has a working half (fetch, extract, analyse, embed: pure, runs in any process:
 * the server's embedded workers or an `adam worker` on another machine) and a recording half
 * (store, index, account: only the server, the single writer). The embedded queue runs both in
 * turn; in the Redis mode the halves meet through Redis.
 */

export interface WorkDeps {
  engine: Engine;
  fetcher: SafeFetcher;
}

export interface RecordDeps {
  ingestion: IngestionService;
  sources: SourceRepository;
  index: IndexService;
}

export interface HandlerDeps extends WorkDeps, RecordDeps {
  settings: SettingsService;
  rules: RuleService;
}

export const ProcessUrlsInput = z.object({
  language: z.string().default('auto'),
  min_quality: z.number().min(0).max(1).nullish(),
});
export type ProcessUrlsInput = z.output<typeof ProcessUrlsInput>;

export const SaveSegmentsInput = z.object({
  title: z.string().default(''),
  language: z.string().default('en'),
  text: z.string(),
  source_url: z.string().nullish(),
});
export type SaveSegmentsInput = z.output<typeof SaveSegmentsInput>;

export const RebuildIndexInput = z.object({
  reembed: z.boolean().default(true),
  /** optimize_index: rebuild the graph from the stored vectors (no re-embedding), then record it. */
  optimize: z.boolean().default(false),
});

/** What processing one URL produced, as it travels from a worker to the server. */
export type UrlWork =
  | { url: string; ok: true; title: string | null; analysis: AnalyzeResult }
  | { url: string; ok: false; error: { type: string; error: string; message: string } };

/** Working half of process_urls for one URL: fetch under the rules, extract, analyse. */
export async function workUrl(
  deps: WorkDeps,
  url: string,
  rules: readonly ScrapingRuleLike[],
  settings: ProcessingSettings,
  language: string,
): Promise<UrlWork> {
  try {
    const page = await fetchUrl(deps.fetcher, url, rules, null, (res, rule) =>
      deps.engine.extract(res, rule),
    );
    const analysis = await deps.engine.analyze(page.content, language, settings);
    return { url, ok: true, title: page.title || null, analysis };
  } catch (e) {
    const err = e as Error;
    return {
      url,
      ok: false,
      error: isFetchError(e)
        ? { type: `fetch_${e.code}`, error: e.code, message: err.message }
        : { type: 'processing', error: err.name || 'Error', message: err.message },
    };
  }
}

const summary = (r: IngestResult) => {
  const accepted = r.diagnostics.find((d) => d.status === 'accepted');
  const rejected = [...r.diagnostics].reverse().find((d) => d.status === 'rejected');
  return {
    segmentation_method: r.method,
    last_fallback_reason: r.fallback_reason,
    last_rejection_reason: rejected?.reason ?? null,
    diagnostic_summary: accepted ? { snippet: accepted.snippet, score: accepted.score } : null,
  };
};

/** One ingestion's figures added to the job's running stats. */
function statsWith(ctx: JobContext, r: IngestResult, warning: string | null): Partial<JobStats> {
  const s = ctx.stats;
  const counts = s.segmentation_stats?.counts ?? { before: 0, after: 0 };
  return {
    segments_created: (s.segments_created ?? 0) + r.segments_created,
    snippets_added: (s.snippets_added ?? 0) + r.segments_created,
    duplicates: (s.duplicates ?? 0) + r.duplicates,
    ...summary(r),
    last_warning: warning ?? s.last_warning ?? null,
    segmentation_stats: {
      method: r.method,
      counts: { before: counts.before + r.counts.before, after: counts.after + r.counts.after },
    },
  };
}

/** Adds one ingestion's figures to the job's running stats. */
function addToStats(ctx: JobContext, r: IngestResult, warning: string | null) {
  ctx.progress({ stats: statsWith(ctx, r, warning) });
}

function safeDomain(url: string): string {
  try {
    return domainOf(url);
  } catch {
    return '';
  }
}

/** Recording half of process_urls for one URL: rows, vectors, source, job stats. */
export function recordUrl(
  deps: RecordDeps,
  ctx: JobContext,
  work: UrlWork,
  input: ProcessUrlsInput,
): void {
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
}

/** How a process_urls job ends, from its stats (the same wherever its URLs were worked). */
export function processUrlsOutcome(ctx: JobContext, deps: RecordDeps): JobOutcome {
  // One save for the job's vectors (and the rows marked indexed with it), off the event loop.
  void deps.index.flush().catch(() => undefined);
  if (ctx.shouldStop()) {
    return ctx.cancelled()
      ? { status: 'completed', segments_created: ctx.stats.segments_created ?? 0 }
      : { status: 'interrupted' };
  }
  const succeeded = ctx.stats.urls_done ?? 0;
  const failed = ctx.stats.urls_failed ?? 0;
  if (succeeded === 0 && failed > 0) {
    return { status: 'failed', error: `None of the ${ctx.urls.length} URLs could be processed` };
  }
  return { status: 'completed', segments_created: ctx.stats.segments_created ?? 0 };
}

/** Runs `fn` over items with at most `limit` at once, starting no new one once `stop()` says so. */
export async function eachLimited<T>(
  items: T[],
  limit: number,
  stop: () => boolean,
  fn: (item: T) => Promise<void>,
) {
  let next = 0;
  const lanes = Array.from({ length: Math.max(1, Math.min(limit, items.length)) }, async () => {
    while (next < items.length && !stop()) await fn(items[next++]!);
  });
  await Promise.all(lanes);
}

export function processUrls(deps: HandlerDeps): JobDefinition<ProcessUrlsInput> {
  return defineJob({
    type: 'process_urls',
    input: ProcessUrlsInput,
    async run(input, ctx) {
      const settings = deps.settings.get('processing');
      const rules = deps.rules.forMatching();
      const todo = ctx.urls.filter((u) => !ctx.doneUrls.has(u));
      ctx.progress({
        stage: `Processing ${todo.length} of ${ctx.urls.length} URLs`,
        stats: { urls_total: ctx.urls.length },
      });
      await eachLimited(
        todo,
        settings.max_concurrent_scrapes,
        () => ctx.shouldStop(),
        async (url) => {
          const work = await workUrl(deps, url, rules, settings, input.language);
          // Stopped while this URL was in flight: a cancel keeps nothing more, a stop redoes it later.
          if (ctx.shouldStop()) return;
          recordUrl(deps, ctx, work, input);
        },
      );
      const outcome = processUrlsOutcome(ctx, deps);
      // The job ends once its rows are saved in the index and marked indexed.
      await deps.index.flush();
      return outcome;
    },
  });
}

/** Recording half of save_segments. */
export function recordSaveSegments(
  deps: RecordDeps,
  ctx: JobContext,
  analysis: AnalyzeResult,
  input: SaveSegmentsInput,
): JobOutcome {
  const r = deps.ingestion.store(analysis, {
    text: input.text,
    language: input.language || 'en',
    source: { title: input.title || null, url: input.source_url ?? null },
    jobId: ctx.job.id,
  });
  void deps.index.flush().catch(() => undefined);
  addToStats(
    ctx,
    r,
    r.segments_created === 0 && r.duplicates === 0 ? 'No segment passed the quality filters' : null,
  );
  ctx.setResult({
    snippet_ids: r.snippet_ids,
    duplicates: r.duplicates,
    diagnostics: {
      method: r.method,
      fallback_reason: r.fallback_reason,
      language: r.language,
      counts: r.counts,
      items: r.diagnostics.slice(0, 200),
    },
  });
  ctx.progress({
    progress: 1,
    stage: 'Saved',
    segments: { processed: r.segments_created, total: r.counts.before },
  });
  return { status: 'completed', segments_created: r.segments_created };
}

export function saveSegments(deps: HandlerDeps): JobDefinition<SaveSegmentsInput> {
  return defineJob({
    type: 'save_segments',
    input: SaveSegmentsInput,
    async run(input, ctx) {
      ctx.progress({ progress: 0.1, stage: 'Segmenting and embedding', stats: { urls_total: 0 } });
      const analysis = await deps.engine.analyze(
        input.text,
        input.language || 'en',
        deps.settings.get('processing'),
      );
      const outcome = recordSaveSegments(deps, ctx, analysis, input);
      // The job ends once its rows are saved in the index and marked indexed.
      await deps.index.flush();
      return outcome;
    },
  });
}

export function rebuildIndex(deps: HandlerDeps): JobDefinition<z.output<typeof RebuildIndexInput>> {
  return defineJob({
    type: 'rebuild_index',
    input: RebuildIndexInput,
    async run(input, ctx) {
      ctx.progress({ progress: 0, stage: 'Rebuilding the index' });
      const r = await deps.index.rebuild({
        reembed: input.reembed,
        onProgress: (done, total) =>
          ctx.progress({
            progress: total ? done / total : 1,
            stage: `Re-indexed ${done} of ${total} snippets`,
            segments: { processed: done, total },
          }),
        shouldStop: () => ctx.shouldStop(),
      });
      if (ctx.shouldStop() && !ctx.cancelled()) return { status: 'interrupted' };
      if (input.optimize) deps.index.markOptimized();
      ctx.setResult({ total: r.total, indexed: r.indexed, reembedded: r.reembedded });
      return { status: 'completed', segments_created: 0 };
    },
  });
}

/** Job types that only the server can run (they rewrite the whole index). */
export const SERVER_ONLY_JOB_TYPES = new Set(['rebuild_index']);
