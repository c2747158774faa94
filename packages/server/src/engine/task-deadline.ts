/**
 * Time budgets of the engine's worker-thread tasks. The clock of a task starts when its thread
 * begins it (not when it was queued behind other tasks or while a fresh thread loads its
 * modules): the thread writes the time into a shared cell, and the engine's timer reads it.
 */

import { AppError } from '../lib/errors.js';

/** What a task was doing, as its timeout message says it. */
export type TaskKind = 'extraction' | 'analysis' | 'embedding' | 'ranking';

/**
 * A task ran past its budget: its thread was stopped and replaced. A 422 when a request waited
 * on it (the playground): the input is what the engine could not handle in time.
 */
export class TaskTimeout extends AppError {
  constructor(
    readonly kind: TaskKind,
    readonly seconds: number,
  ) {
    const what = kind.charAt(0).toUpperCase() + kind.slice(1);
    super(422, `${what} took longer than ${seconds} s; its worker thread was stopped and replaced`);
    this.name = 'TaskTimeout';
  }
}

/** The caller gave up on a task (its job was cancelled or its worker is stopping). */
export class TaskStopped extends Error {
  constructor(kind: TaskKind | 'task', why: string) {
    super(`The ${kind} was stopped: ${why}`);
    this.name = 'TaskStopped';
  }
}

export const isTaskTimeout = (e: unknown): e is TaskTimeout => e instanceof TaskTimeout;

/** A task that carries the cell its thread writes its start time into. */
export interface TimedTask {
  started?: SharedArrayBuffer;
}

/** A cell for one task: 0 until a thread begins it, then Date.now() of that moment. */
export function startCell(): SharedArrayBuffer {
  return new SharedArrayBuffer(8);
}

/** On the worker thread, first thing in a task: its budget starts now. */
export function markStarted(task: TimedTask): void {
  if (task.started) Atomics.store(new BigInt64Array(task.started), 0, BigInt(Date.now()));
}

/** When a thread began the task (ms since the epoch), or null while it waits in the queue. */
function startedAt(cell: SharedArrayBuffer): number | null {
  const t = Number(Atomics.load(new BigInt64Array(cell), 0));
  return t === 0 ? null : t;
}

// A queued task is looked at again this often until a thread begins it.
const QUEUED_RECHECK_MS = 250;

/**
 * Calls `expire` once the task whose start `cell` records has run `budgetMs` since it began.
 * Answers a function that cancels the watch.
 */
export function watchDeadline(
  cell: SharedArrayBuffer,
  budgetMs: number,
  expire: () => void,
): () => void {
  let timer: NodeJS.Timeout;
  const check = () => {
    const t0 = startedAt(cell);
    const left = t0 === null ? null : t0 + budgetMs - Date.now();
    if (left !== null && left <= 0) return expire();
    timer = setTimeout(check, left ?? Math.min(budgetMs, QUEUED_RECHECK_MS));
    timer.unref();
  };
  timer = setTimeout(check, budgetMs);
  timer.unref();
  return () => clearTimeout(timer);
}
