import { Piscina } from 'piscina';
import { threadEntry } from '../lib/entry-module.js';
import type { ExactResult, ExactTask } from './exact.worker.js';

/**
 * A one-thread pool (piscina) running a module of this folder, from the compiled .js or from the
 * .ts sources (vitest, tsx; piscina's own .js entry then imports the .ts through tsx's loader,
 * which Node 20 does not apply to a worker's entry file). One thread runs its tasks in the order
 * they were sent. The thread starts at the pool's first task and then stays (idleTimeout
 * Infinity): a pool made while the server starts costs nothing before it listens.
 */
export function startPool(base: string): Piscina {
  const entry = threadEntry(import.meta.url, `./${base}`);
  return new Piscina({
    filename: entry.filename,
    minThreads: 0,
    maxThreads: 1,
    idleTimeout: Infinity,
    // Tasks run in the order sent (the index's and the keyword engine's threads depend on it):
    // piscina otherwise puts a task it could not hand to the busy thread at the queue's tail,
    // after those sent later (an index save ran before the adds sent ahead of it).
    stricterFIFO: true,
    ...(entry.loaderFlags && { execArgv: entry.loaderFlags }),
  });
}

/** Runs the exact side of a recall measure on a one-off thread. */
export async function exactNeighboursOffThread(task: ExactTask): Promise<ExactResult> {
  const pool = startPool('exact.worker');
  try {
    return (await pool.run(task)) as ExactResult;
  } finally {
    await pool.close();
  }
}

/**
 * recall@k of approximate answers against the exact ones: the share of each query's true k
 * nearest that the approximate search found, over all queries.
 */
export async function recallAgainst(
  exact: ExactResult,
  dimension: number,
  approx: (q: Float32Array, k: number) => Promise<ArrayLike<number>>,
): Promise<{ value: number; sample: number }> {
  const n = exact.queryKeys.length;
  let found = 0;
  let wanted = 0;
  for (let i = 0; i < n; i++) {
    const truth = new Set<number>();
    for (let j = 0; j < exact.k; j++) {
      const key = exact.truth[i * exact.k + j]!;
      if (key >= 0) truth.add(key);
    }
    const got = await approx(exact.queries.slice(i * dimension, (i + 1) * dimension), truth.size);
    for (let j = 0; j < got.length; j++) if (truth.has(got[j]!)) found++;
    wanted += truth.size;
  }
  return { value: wanted ? found / wanted : 1, sample: n };
}
