import { z } from 'zod';
import { defineJob, type JobContext, type JobOutcome, type RecordDeps } from './define-job.js';

const RebuildIndexInput = z.object({
  reembed: z.boolean().default(true),
  /**
   * Rows queued before optimize_index was its own job type carry `optimize: true`: they still
   * run as an optimisation (no re-embedding is forced here: their input already says false).
   */
  optimize: z.boolean().default(false),
});
export type RebuildIndexInput = z.output<typeof RebuildIndexInput>;

/**
 * The index built again from the store: re-embedding every snippet or from the stored vectors,
 * then recorded as an optimisation when asked. rebuild_index and optimize_index share it.
 */
export async function rebuildIndex(
  opts: { reembed: boolean; optimize: boolean; stage: string },
  ctx: JobContext,
  deps: RecordDeps,
): Promise<JobOutcome> {
  ctx.progress({ progress: 0, stage: opts.stage });
  const r = await deps.index.rebuild({
    reembed: opts.reembed,
    onProgress: (done, total) =>
      ctx.progress({
        progress: total ? done / total : 1,
        stage: `Re-indexed ${done} of ${total} snippets`,
        segments: { processed: done, total },
      }),
    shouldStop: () => ctx.shouldStop(),
  });
  if (ctx.shouldStop() && !ctx.cancelled()) return { status: 'interrupted' };
  if (opts.optimize) deps.index.markOptimized();
  ctx.setResult({ total: r.total, indexed: r.indexed, reembedded: r.reembedded });
  return { status: 'completed', segments_created: 0 };
}

/** Rebuilds the whole index (re-embedding or not): the server alone writes the index. */
export const rebuildIndexJob = defineJob<RebuildIndexInput>({
  type: 'rebuild_index',
  runsOn: 'server',
  input: RebuildIndexInput,
  run: (input, ctx, deps) =>
    rebuildIndex(
      {
        reembed: input.reembed,
        optimize: input.optimize,
        stage: input.optimize ? 'Optimizing the index' : 'Rebuilding the index',
      },
      ctx,
      deps,
    ),
});
