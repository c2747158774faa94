import { z } from 'zod';
import { defineJob, stoppedOutcome } from './define-job.js';

const SwitchEmbedderInput = z.object({
  /** The embedding space to move the index to (EmbeddingSpace, with the model's directory). */
  space: z.object({
    id: z.string().min(1),
    dimension: z.number().int().min(1),
    /** The installed ONNX model's absolute directory; null for the built-in embedder. */
    dir: z.string().min(1).nullable(),
  }),
});
export type SwitchEmbedderInput = z.output<typeof SwitchEmbedderInput>;

/**
 * Re-embeds every snippet with another embedding model into a next index built beside the live
 * one, then swaps them and the engine's space in one step (IndexService.switchSpace). Runs on the
 * server only: it rewrites the index, which the server alone writes. Search answers from the old
 * index until the swap. Cancelled or interrupted, it leaves the old index and space as they were
 * (an interrupted one starts over when it runs again).
 */
export const switchEmbedderJob = defineJob<SwitchEmbedderInput>({
  type: 'switch_embedder',
  runsOn: 'server',
  input: SwitchEmbedderInput,

  async run(input, ctx, deps) {
    const { id, dimension, dir } = input.space;
    ctx.progress({ progress: 0, stage: `Re-embedding the snippets with ${id}` });
    const r = await deps.index.switchSpace(
      { id, dimension, model: dir === null ? null : { dir } },
      {
        onProgress: (done, total) =>
          ctx.progress({
            // The last step (swap, rows updated) is left for the completion to show.
            progress: total ? (0.99 * done) / total : 0.99,
            stage: `Re-embedded ${done} of ${total} snippets`,
            segments: { processed: done, total },
          }),
        shouldStop: () => ctx.shouldStop(),
      },
    );
    if (r.status === 'stopped') return stoppedOutcome(ctx);
    ctx.setResult({ embedder: id, dimension, total: r.total, embedded: r.embedded, late: r.late });
    return { status: 'completed', segments_created: 0 };
  },
});
