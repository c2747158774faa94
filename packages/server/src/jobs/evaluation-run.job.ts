import { z } from 'zod';
import { defineJob, stoppedOutcome } from './define-job.js';

const EvaluationRunInput = z.object({ run_id: z.number().int().positive() });
export type EvaluationRunInput = z.output<typeof EvaluationRunInput>;

/**
 * Scores an evaluation run against the live index. A server job: its searches go through the
 * server's snippet service (the index and keyword engine only the server holds), in both queue
 * modes.
 */
export const evaluationRunJob = defineJob<EvaluationRunInput>({
  type: 'evaluation_run',
  runsOn: 'server',
  input: EvaluationRunInput,

  async run(input, ctx, deps) {
    if (!deps.evaluations) return { status: 'failed', error: 'Evaluations are not available here' };
    ctx.progress({ progress: 0, stage: 'Scoring the evaluation set' });
    const end = await deps.evaluations.execute(input.run_id, {
      progress: (done, total) =>
        ctx.progress({
          progress: total ? done / total : 1,
          stage: `Searched ${done} of ${total} queries`,
        }),
      shouldStop: () => ctx.shouldStop(),
      cancelled: () => ctx.cancelled(),
    });
    if (end.status === 'failed') return end;
    if (end.status === 'cancelled' || end.status === 'interrupted') return stoppedOutcome(ctx);
    ctx.setResult({ run_id: input.run_id, queries: end.queries, modes: end.modes });
    return { status: 'completed', segments_created: 0 };
  },
});
