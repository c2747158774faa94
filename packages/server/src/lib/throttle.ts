import { isIPv6 } from 'node:net';

/** Past this many keys a new failure sweeps out the keys whose failures all left the window. */
const SWEEP_ABOVE_KEYS = 10_000;

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

  /** Failures of the key still in the window. */
  count(key: string): number {
    return this.recent(key).length;
  }

  /** Seconds until the key may try again, or 0 when it is under its limit. */
  retryAfter(key: string, limit: number): number {
    const list = this.recent(key);
    if (list.length < limit) return 0;
    const oldestThatMatters = list[list.length - limit]!;
    return Math.max(1, Math.ceil((oldestThatMatters + this.windowMs - this.now()) / 1000));
  }

  record(key: string): void {
    // Keys sprayed once (made-up e-mails) would otherwise stay for the life of the process.
    if (this.failures.size > SWEEP_ABOVE_KEYS)
      for (const k of [...this.failures.keys()]) this.recent(k);
    const list = this.recent(key);
    list.push(this.now());
    this.failures.set(key, list);
  }

  /** Takes back the latest failure: an attempt counted up front that turned out right. */
  release(key: string): void {
    const list = this.recent(key);
    list.pop();
    if (!list.length) this.failures.delete(key);
  }

  clear(key: string): void {
    this.failures.delete(key);
  }
}

/**
 * The client a per-address limit counts: the address itself for IPv4, its /64 for IPv6, since
 * one IPv6 host commonly holds a whole /64 and could otherwise take a fresh address per guess.
 */
export function addressBucket(address: string): string {
  const v4 = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  if (v4) return v4[1]!;
  if (!isIPv6(address)) return address;
  const [head = '', tail = ''] = address.split('::');
  const left = head ? head.split(':') : [];
  const right = tail ? tail.split(':') : [];
  const groups = address.includes('::')
    ? [...left, ...Array<string>(8 - left.length - right.length).fill('0'), ...right]
    : left;
  return `${groups
    .slice(0, 4)
    .map((g) => parseInt(g, 16).toString(16))
    .join(':')}::/64`;
}
