/**
 * Counts failures per key in a sliding window. In memory on purpose: it guards one server's
 * login endpoint, and a restart forgetting it costs an attacker a restart they cannot cause.
 */
export class FailureThrottle {
  private readonly failures = new Map<string, number[]>();

  constructor(
    private readonly windowMs: number,
    private readonly now: () => number = Date.now,
  ) {}

  private recent(key: string): number[] {
    const cutoff = this.now() - this.windowMs;
    const list = (this.failures.get(key) ?? []).filter((t) => t > cutoff);
    if (list.length) this.failures.set(key, list);
    else this.failures.delete(key);
    return list;
  }

  /** Seconds until the key may try again, or 0 when it is under its limit. */
  retryAfter(key: string, limit: number): number {
    const list = this.recent(key);
    if (list.length < limit) return 0;
    const oldestThatMatters = list[list.length - limit]!;
    return Math.max(1, Math.ceil((oldestThatMatters + this.windowMs - this.now()) / 1000));
  }

  record(key: string): void {
    const list = this.recent(key);
    list.push(this.now());
    this.failures.set(key, list);
  }

  clear(key: string): void {
    this.failures.delete(key);
  }
}
