import type { AnyJobDefinition, JobContext, JobOutcome, JobRuntime } from './define-job.js';

/**
 * Runs both halves of a job in this process, as the embedded queue does. `signal` is aborted
 * when the job is cancelled or its worker stops (see WorkContext.signal).
 */
export async function runHere(
  def: AnyJobDefinition,
  input: unknown,
  ctx: JobContext,
  runtime: JobRuntime,
  signal?: AbortSignal,
): Promise<JobOutcome> {
  if (def.runsOn === 'server') return def.run(input, ctx, runtime.record);
  def.begin(input, ctx);
  await def.work(input, {
    ...runtime.work,
    jobId: ctx.job.id,
    urls: ctx.urls,
    done: ctx.doneUrls,
    resume: def.resumeState?.(input, ctx.job.id, runtime.record),
    settings: runtime.settings(),
    rules: runtime.rules(),
    shouldStop: async () => ctx.shouldStop(),
    ...(signal && { signal }),
    emit: async (result) => {
      // Stopped while this result was in the making: a cancel keeps nothing more, a stop
      // redoes it later.
      if (!ctx.shouldStop()) def.record(result, input, ctx, runtime.record);
    },
  });
  const outcome = def.end(input, ctx);
  // The job ends once its rows are saved in the index and marked indexed.
  await runtime.record.index.flush();
  return outcome;
}
