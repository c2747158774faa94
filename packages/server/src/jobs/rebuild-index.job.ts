import { z } from 'zod';
import { defineJob } from './define-job.js';

const RebuildIndexInput = z.object({
  reembed: z.boolean().default(true),
  /** optimize_index: rebuild the graph from the stored vectors (no re-embedding), then record it. */
  optimize: z.boolean().default(false),
});
export type RebuildIndexInput = z.output<typeof RebuildIndexInput>;

/** Rebuilds the whole index (re-embedding or not): the server alone writes the index. */
export const rebuildIndexJob = defineJob<RebuildIndexInput>({
  type: 'rebuild_index',
  runsOn: 'server',
  input: RebuildIndexInput,

  async run(input, ctx, deps) {
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
