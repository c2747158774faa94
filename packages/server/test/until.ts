type Truthy<T> = Exclude<T, false | null | undefined | 0 | ''>;

export interface UntilOptions {
  /**
   * Give up after this many ms (default 60 s): a hang detector, not a race, so a loaded machine
   * never fails a wait that would have succeeded.
   */
  timeout?: number;
  /** Ms between probes (default 25). */
  interval?: number;
  /** What is awaited, for the timeout's message (a function is read at the timeout). */
  what?: string | (() => string);
}

/**
 * Probes until `probe` answers a truthy value and returns it; fails with the last value seen
 * after `timeout`. The one poller of the tests: a condition awaited, never a fixed sleep.
 */
export async function until<T>(
  probe: () => T | Promise<T>,
  { timeout = 60_000, interval = 25, what = 'condition' }: UntilOptions = {},
): Promise<Truthy<T>> {
  const deadline = performance.now() + timeout;
  let last: T | undefined;
  let lastError: unknown;
  for (;;) {
    try {
      last = await probe();
      lastError = undefined;
      if (last) return last as Truthy<T>;
    } catch (e) {
      lastError = e;
    }
    if (performance.now() >= deadline) {
      const seen = lastError ? `threw ${String(lastError)}` : `last ${JSON.stringify(last)}`;
      const awaited = typeof what === 'function' ? what() : what;
      throw new Error(`Timed out after ${timeout} ms waiting for ${awaited} (${seen})`);
    }
    await new Promise((r) => setTimeout(r, interval));
  }
}
