/**
 * Politeness towards each host a crawl visits: at most `concurrency` requests in flight, their
 * starts at least the host's delay apart (the setting, or robots.txt's Crawl-delay when longer),
 * and after a 429 or 503 a pause honouring Retry-After (seconds or an HTTP date, capped at
 * `maxBackoffMs`), doubling from the delay when the site gives none. Time comes from an injected
 * clock so tests run on fake time.
 *
 * A start counts when the request actually goes out (`sent`, from the fetcher's send hook), not
 * when the scheduler lets it go: a busy event loop can hold a released request back until the
 * next one is released, and both would reach the site together. So once a start is granted, no
 * other start to that host is granted before the first is sent (or given up) and the delay has
 * passed since.
 */

import { whenAborted } from '../lib/when-aborted.js';

export interface Clock {
  now(): number;
  /** Resolves after `ms`; rejects with the signal's reason once it is aborted. */
  sleep(ms: number, signal?: AbortSignal): Promise<void>;
}

export const systemClock: Clock = {
  // Monotonic: a wall-clock step must not shorten a host's delay.
  now: () => performance.now(),
  sleep: (ms, signal) =>
    new Promise<void>((resolve, reject) => {
      if (signal?.aborted) return reject(signal.reason as Error);
      const stopWaiting = signal
        ? whenAborted(signal, () => {
            clearTimeout(t);
            reject(signal.reason as Error);
          })
        : null;
      const t = setTimeout(() => {
        stopWaiting?.();
        resolve();
      }, ms);
    }),
};

export interface HostSchedulerOptions {
  concurrency: number;
  minDelayMs: number;
  maxBackoffMs: number;
  clock?: Clock;
}

interface HostState {
  active: number;
  delayMs: number;
  /** The earliest time the next request may start. */
  nextStartAt: number;
  /** When the last request started (-Infinity before the first). */
  lastStartAt: number;
  /** No request starts before this (a 429/503 backoff). */
  pausedUntil: number;
  /** The grant whose request has not gone out yet (0: none); it holds every other start. */
  unsent: number;
  /** Starts waiting for the unsent request to go out. */
  sendWaiting: (() => void)[];
  /** 429/503 answers in a row (reset by any other answer). */
  failures: number;
  waiting: (() => void)[];
}

/** The wait a Retry-After header asks for, in ms (null when absent or unreadable). */
export function retryAfterMs(value: string | null | undefined, now: number): number | null {
  if (!value) return null;
  const v = value.trim();
  if (v === '') return null;
  let digits = true;
  for (const ch of v) if (ch < '0' || ch > '9') digits = false;
  if (digits) return v.length > 9 ? Number.MAX_SAFE_INTEGER : Number(v) * 1000;
  // An HTTP date is ~29 characters and names its day or month ('-5' alone is not one).
  if (v.length > 64 || !/[a-z]/i.test(v)) return null;
  const at = Date.parse(v);
  return Number.isNaN(at) ? null : Math.max(0, at - now);
}

export class HostScheduler {
  private readonly hosts = new Map<string, HostState>();
  private readonly clock: Clock;
  private grants = 0;

  constructor(private readonly opts: HostSchedulerOptions) {
    this.clock = opts.clock ?? systemClock;
  }

  private state(host: string): HostState {
    let h = this.hosts.get(host);
    if (!h) {
      h = {
        active: 0,
        delayMs: this.opts.minDelayMs,
        nextStartAt: 0,
        lastStartAt: -Infinity,
        pausedUntil: -Infinity,
        unsent: 0,
        sendWaiting: [],
        failures: 0,
        waiting: [],
      };
      this.hosts.set(host, h);
    }
    return h;
  }

  /** The site's Crawl-delay (seconds) raises the host's delay, within the backoff cap. */
  setCrawlDelay(host: string, seconds: number | null): void {
    const asked = seconds === null ? 0 : Math.min(seconds * 1000, this.opts.maxBackoffMs);
    const h = this.state(host);
    h.delayMs = Math.max(this.opts.minDelayMs, asked);
    // Requests that claimed their start under the old delay wait more when they wake (acquire).
    h.nextStartAt = Math.max(h.nextStartAt, h.lastStartAt + h.delayMs);
  }

  delayOf(host: string): number {
    return this.state(host).delayMs;
  }

  /**
   * Ms before a new start to the host could be granted (0: now), after the starts already
   * claimed, the delay and any backoff; free slots aside. A crawl sends its lanes to hosts due
   * soonest; the rule itself stays with `acquire`.
   */
  waitMs(host: string): number {
    const h = this.hosts.get(host);
    if (!h) return 0;
    return Math.max(0, h.nextStartAt - this.clock.now(), this.earliest(h) - this.clock.now());
  }

  /**
   * Waits for a free slot and the host's next start time; answers the release to call once
   * the request ended (whatever its outcome). The request must report its going out (`sent`).
   */
  async acquire(host: string, signal?: AbortSignal): Promise<() => void> {
    const h = this.state(host);
    while (h.active >= this.opts.concurrency) await this.wait(h.waiting, signal);
    h.active++;
    let released = false;
    let grant = 0;
    const release = () => {
      if (released) return;
      released = true;
      this.giveUp(h, grant);
      h.active--;
      h.waiting.shift()?.();
    };
    try {
      grant = await this.claim(h, signal);
    } catch (e) {
      release();
      throw e;
    }
    return release;
  }

  /**
   * The host answered 429 or 503: no request starts before the pause ends. Answers the pause
   * in ms: Retry-After when given (capped), else the delay doubled per failure in a row.
   */
  backoff(host: string, retryAfter?: string | null): number {
    const h = this.state(host);
    h.failures++;
    const now = this.clock.now();
    // An HTTP date is wall-clock time.
    const asked = retryAfterMs(retryAfter, Date.now());
    const exponential = Math.max(h.delayMs, 500) * 2 ** Math.min(h.failures - 1, 20);
    const pause = Math.min(this.opts.maxBackoffMs, Math.max(asked ?? exponential, h.delayMs));
    // Every waiting request waits for the pause's end too (see acquire).
    h.pausedUntil = Math.max(h.pausedUntil, now + pause);
    h.nextStartAt = Math.max(h.nextStartAt, h.pausedUntil);
    return pause;
  }

  /**
   * A request to the host went out just now outside `acquire` (or its answer came, when the
   * connection took long): the next start is counted from it.
   */
  touch(host: string): void {
    const h = this.state(host);
    const now = this.clock.now();
    h.lastStartAt = now;
    h.nextStartAt = Math.max(h.nextStartAt, now + h.delayMs);
  }

  /**
   * The granted request to the host went out just now (its headers were written): the next
   * start is counted from this moment, and the starts held for it may go on.
   */
  sent(host: string): void {
    const h = this.state(host);
    this.touch(host);
    this.giveUp(h, h.unsent);
  }

  /**
   * Waits until a request to the host may start, without a slot of its own: a redirect hop of a
   * fetch that holds one (possibly on another host). The start counts like any other; answers
   * the function to call if the hop never went out (its fetch failed before), harmless after.
   */
  async hop(host: string, signal?: AbortSignal): Promise<() => void> {
    const h = this.state(host);
    const grant = await this.claim(h, signal);
    return () => this.giveUp(h, grant);
  }

  /**
   * Claims the host's next start and waits for it. The start is claimed at once (no other
   * request can take it meanwhile). On waking, the rule is checked again against what happened
   * meanwhile (a request not yet sent, a redirect hop, a late start, a longer Crawl-delay, a
   * backoff): if it no longer holds, the request claims anew. Answers the grant, unsent.
   */
  private async claim(h: HostState, signal?: AbortSignal): Promise<number> {
    for (;;) {
      if (h.unsent) {
        await this.wait(h.sendWaiting, signal);
        continue;
      }
      const startAt = Math.max(this.clock.now(), h.nextStartAt, this.earliest(h));
      h.nextStartAt = startAt + h.delayMs;
      // Slept out: the claimed start, then what the rule asks since (the request before went
      // out a little after its own start, a backoff came). A timer firing early, or a start
      // pushed back by a send's lag, is waited for, not claimed anew a whole delay later: that
      // made two slots at a 20 ms delay start a request every 30–36 ms.
      let now = this.clock.now();
      let due = startAt;
      while (now < due && !h.unsent) {
        await this.clock.sleep(due - now, signal);
        now = this.clock.now();
        due = Math.max(startAt, this.earliest(h));
      }
      if (h.unsent) continue;
      h.lastStartAt = now;
      h.nextStartAt = Math.max(h.nextStartAt, now + h.delayMs);
      h.unsent = ++this.grants;
      return h.unsent;
    }
  }

  /**
   * The grant's request went out or never will: the starts held for it may go on (from its
   * grant time at the earliest, kept in lastStartAt: a connection may have been tried).
   */
  private giveUp(h: HostState, grant: number): void {
    if (!grant || h.unsent !== grant) return;
    h.unsent = 0;
    for (const wake of h.sendWaiting.splice(0)) wake();
  }

  /** Waits until `queue`'s turn comes (a slot freed, a request sent), or the signal aborts. */
  private wait(queue: (() => void)[], signal?: AbortSignal): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      if (signal?.aborted) return reject(signal.reason as Error);
      const wake = () => {
        stopWaiting?.();
        resolve();
      };
      const stopWaiting = signal
        ? whenAborted(signal, () => {
            const i = queue.indexOf(wake);
            if (i >= 0) queue.splice(i, 1);
            reject(signal.reason as Error);
          })
        : null;
      queue.push(wake);
    });
  }

  /** The earliest time a request may start now. */
  private earliest(h: HostState): number {
    return Math.max(h.lastStartAt + h.delayMs, h.pausedUntil);
  }

  /** Any answer but 429/503: the run of failures ends. */
  succeeded(host: string): void {
    this.state(host).failures = 0;
  }
}
