/**
 * One task on every thread of a piscina pool. piscina gives a task to any free thread, so the
 * `parties` tasks of one broadcast each hold their thread at a barrier until all have arrived:
 * no thread can take two of them, and every thread runs the task exactly once.
 */

export interface BarrierTask {
  /** An Int32Array(1) counter shared by the `parties` tasks of one broadcast. */
  barrier: SharedArrayBuffer;
  parties: number;
  timeoutMs: number;
}

/** In a worker thread: waits until every task of the broadcast reached its thread. */
export function awaitAllThreads(task: BarrierTask): void {
  const counter = new Int32Array(task.barrier);
  Atomics.add(counter, 0, 1);
  Atomics.notify(counter, 0);
  const deadline = performance.now() + task.timeoutMs;
  for (let seen = Atomics.load(counter, 0); seen < task.parties; seen = Atomics.load(counter, 0)) {
    const left = deadline - performance.now();
    if (left <= 0) {
      throw new Error(`Only ${seen} of ${task.parties} worker threads answered in time`);
    }
    // Blocks this worker thread only, which has nothing else to do meanwhile.
    Atomics.wait(counter, 0, seen, left);
  }
}

/** On the pool's side: sends `threads` copies of one task, each with the shared barrier. */
export function broadcast<T extends object, R>(
  threads: number,
  timeoutMs: number,
  task: T,
  run: (task: T & BarrierTask) => Promise<R>,
): Promise<R[]> {
  const barrierTask = {
    ...task,
    barrier: new SharedArrayBuffer(4),
    parties: threads,
    timeoutMs,
  };
  return Promise.all(Array.from({ length: threads }, () => run(barrierTask)));
}
