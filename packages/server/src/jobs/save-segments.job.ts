import { z } from 'zod';
import { SaveSegmentsRequest } from '@adam/contracts';
import type { AnalyzeResult } from '../pipeline/index.js';
import { analysisFromWire, analysisToWire, type WireAnalysis } from './analysis-wire.js';
import { defineJob, stoppedOutcome } from './define-job.js';
import { statsWith } from './ingest-stats.js';

const SaveSegmentsInput = z.object({
  title: z.string().default(''),
  language: z.string().default('en'),
  text: z.string(),
  // The request's own rule, so a job queued by any path stores an http(s) link or none.
  source_url: SaveSegmentsRequest.shape.source_url,
});
export type SaveSegmentsInput = z.output<typeof SaveSegmentsInput>;

/** Segment, score, embed and store one pasted text (the playgrounds' "save segments"). */
export const saveSegmentsJob = defineJob<SaveSegmentsInput, AnalyzeResult>({
  type: 'save_segments',
  runsOn: 'any',
  input: SaveSegmentsInput,

  begin(_input, ctx) {
    ctx.progress({ progress: 0.1, stage: 'Segmenting and embedding', stats: { urls_total: 0 } });
  },

  async work(input, wctx) {
    await wctx.emit(await wctx.engine.analyze(input.text, input.language || 'en', wctx.settings));
  },

  record(analysis, input, ctx, deps) {
    const r = deps.ingestion.store(analysis, {
      text: input.text,
      language: input.language || 'en',
      source: { title: input.title || null, url: input.source_url ?? null },
      jobId: ctx.job.id,
    });
    const warning =
      r.segments_created === 0 && r.duplicates === 0
        ? 'No segment passed the quality filters'
        : null;
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
      stats: statsWith(ctx, r, warning),
      progress: 1,
      stage: 'Saved',
      segments: { processed: r.segments_created, total: r.counts.before },
    });
  },

  end(_input, ctx) {
    if (ctx.shouldStop()) return stoppedOutcome(ctx);
    return { status: 'completed', segments_created: ctx.stats.segments_created ?? 0 };
  },

  encode: (analysis) => analysisToWire(analysis),
  decode: (wire) => analysisFromWire(wire as WireAnalysis),
});
