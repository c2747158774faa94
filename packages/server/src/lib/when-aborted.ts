/** Each signal's waiters: one 'abort' listener per signal, however many waits share it. */
const abortWaiters = new WeakMap<AbortSignal, Set<() => void>>();

/**
 * Calls `fn` once `signal` aborts; answers the function that stops waiting. A crawl's job signal
 * is shared by all its fetches, sleeps and waits: adding and removing a listener of their own per
 * request was a measurable part of an unchanged re-sync's CPU.
 */
export function whenAborted(signal: AbortSignal, fn: () => void): () => void {
  let waiting = abortWaiters.get(signal);
  if (!waiting) {
    const fns = new Set<() => void>();
    waiting = fns;
    abortWaiters.set(signal, fns);
    signal.addEventListener(
      'abort',
      () => {
        for (const f of [...fns]) f();
        fns.clear();
      },
      { once: true },
    );
  }
  const set = waiting;
  set.add(fn);
  return () => set.delete(fn);
}
