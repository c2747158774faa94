import { describe, expect, it } from 'vitest';
import { HostScheduler, retryAfterMs, systemClock, type Clock } from './host-scheduler.js';

/** Fake time: sleeps resolve in time order when the test runs the clock. */
class FakeClock implements Clock {
  t = 1_000_000;
  private timers: { at: number; resolve: () => void }[] = [];
  /** `earlyMs`: sleeps end that much before their time (at least 1 ms on), as Node's can. */
  constructor(private readonly earlyMs = 0) {}
  now = () => this.t;
  sleep = (ms: number) =>
    new Promise<void>((resolve) => {
      const at = this.t + (this.earlyMs ? Math.max(1, ms - this.earlyMs) : ms);
      this.timers.push({ at, resolve });
    });
  /** Lets pending promises settle, then fires timers one by one until none is left. */
  async run(): Promise<void> {
    return this.runUntil(Infinity);
  }
  /** Like run, firing only the timers due by `until`; the clock then reads `until`. */
  async runUntil(until: number): Promise<void> {
    for (;;) {
      for (let i = 0; i < 20; i++) await Promise.resolve();
      await new Promise((r) => setImmediate(r));
      this.timers.sort((a, b) => a.at - b.at);
      if (!this.timers.length || this.timers[0]!.at > until) {
        if (until !== Infinity) this.t = Math.max(this.t, until);
        return;
      }
      const next = this.timers.shift()!;
      this.t = Math.max(this.t, next.at);
      next.resolve();
    }
  }
}

/** Runs `n` requests of `durationMs` each through the scheduler; answers their start times. */
async function simulate(
  s: HostScheduler,
  clock: FakeClock,
  n: number,
  durationMs: number,
  host = 'a.test',
) {
  const starts: number[] = [];
  let active = 0;
  let maxActive = 0;
  const all = Array.from({ length: n }, async () => {
    const release = await s.acquire(host);
    s.sent(host);
    starts.push(clock.now());
    active++;
    maxActive = Math.max(maxActive, active);
    await clock.sleep(durationMs);
    active--;
    release();
  });
  const done = Promise.all(all);
  await clock.run();
  await done;
  return { starts, maxActive };
}

const gaps = (starts: number[]) => starts.slice(1).map((t, i) => t - starts[i]!);

describe('HostScheduler', () => {
  it('keeps request starts to one host at least the delay apart', async () => {
    const clock = new FakeClock();
    const s = new HostScheduler({ concurrency: 4, minDelayMs: 1000, maxBackoffMs: 60_000, clock });
    const { starts } = await simulate(s, clock, 6, 10);
    expect(Math.min(...gaps(starts))).toBeGreaterThanOrEqual(1000);
  });

  it('holds at most `concurrency` requests in flight per host', async () => {
    const clock = new FakeClock();
    const s = new HostScheduler({ concurrency: 2, minDelayMs: 10, maxBackoffMs: 60_000, clock });
    const { maxActive, starts } = await simulate(s, clock, 8, 1000);
    expect(maxActive).toBe(2);
    expect(starts).toHaveLength(8);
  });

  it('uses a Crawl-delay longer than the setting, capped at the backoff cap', async () => {
    const clock = new FakeClock();
    const s = new HostScheduler({ concurrency: 2, minDelayMs: 100, maxBackoffMs: 5000, clock });
    s.setCrawlDelay('a.test', 2);
    expect(s.delayOf('a.test')).toBe(2000);
    expect(Math.min(...gaps((await simulate(s, clock, 3, 1)).starts))).toBeGreaterThanOrEqual(2000);
    s.setCrawlDelay('a.test', 3600);
    expect(s.delayOf('a.test')).toBe(5000);
    s.setCrawlDelay('a.test', 0);
    expect(s.delayOf('a.test')).toBe(100);
  });

  it('pauses a host for its Retry-After, in seconds or as a date, within the cap', async () => {
    const clock = new FakeClock();
    const s = new HostScheduler({ concurrency: 1, minDelayMs: 10, maxBackoffMs: 30_000, clock });
    const release = await s.acquire('a.test');
    s.sent('a.test');
    release();
    expect(s.backoff('a.test', '7')).toBe(7000);
    const before = clock.now();
    const { starts } = await simulate(s, clock, 1, 1);
    expect(starts[0]! - before).toBeGreaterThanOrEqual(7000);
    const date = new Date(Date.now() + 12_000).toUTCString();
    expect(s.backoff('a.test', date)).toBeGreaterThanOrEqual(11_000);
    expect(s.backoff('a.test', '99999')).toBe(30_000);
  });

  it('backs off exponentially without Retry-After, and starts over after a success', () => {
    const clock = new FakeClock();
    const s = new HostScheduler({ concurrency: 1, minDelayMs: 1000, maxBackoffMs: 10_000, clock });
    expect([1, 2, 3, 4, 5].map(() => s.backoff('a.test'))).toEqual([
      1000, 2000, 4000, 8000, 10_000,
    ]);
    s.succeeded('a.test');
    expect(s.backoff('a.test')).toBe(1000);
  });

  it('moves requests already waiting for their start after a backoff', async () => {
    const clock = new FakeClock();
    const s = new HostScheduler({ concurrency: 3, minDelayMs: 100, maxBackoffMs: 60_000, clock });
    const t0 = clock.now();
    const starts: number[] = [];
    const reqs = [0, 1, 2].map(async () => {
      const release = await s.acquire('a.test');
      s.sent('a.test');
      starts.push(clock.now() - t0);
      release();
    });
    // The first starts at once; the other two wait for 100 and 200 ms when the 429 arrives.
    await Promise.resolve();
    s.backoff('a.test', '5');
    await clock.run();
    await Promise.all(reqs);
    expect(starts[0]).toBe(0);
    expect(starts.slice(1).every((t) => t >= 5000)).toBe(true);
    expect(Math.min(...gaps(starts.slice(1)))).toBeGreaterThanOrEqual(100);
  });

  it('keeps hosts apart', async () => {
    const clock = new FakeClock();
    const s = new HostScheduler({ concurrency: 1, minDelayMs: 1000, maxBackoffMs: 60_000, clock });
    const t0 = clock.now();
    const [a, b] = await Promise.all([
      s.acquire('a.test').then((r) => (r(), clock.now())),
      s.acquire('b.test').then((r) => (r(), clock.now())),
    ]);
    expect([a - t0, b - t0]).toEqual([0, 0]);
  });
});

describe('retryAfterMs', () => {
  it('reads seconds and HTTP dates, and nothing else', () => {
    expect(retryAfterMs('120', 0)).toBe(120_000);
    expect(retryAfterMs(new Date(90_000).toUTCString(), 30_000)).toBe(60_000);
    expect(retryAfterMs('soon', 0)).toBeNull();
    expect(retryAfterMs('', 0)).toBeNull();
    expect(retryAfterMs(null, 0)).toBeNull();
    expect(retryAfterMs('-5', 0)).toBeNull();
  });
});

describe('HostScheduler.touch', () => {
  it('counts the next start from a request made outside acquire (a redirect hop)', async () => {
    const clock = new FakeClock();
    const s = new HostScheduler({ concurrency: 2, minDelayMs: 100, maxBackoffMs: 60_000, clock });
    const first = await s.acquire('a.test');
    s.sent('a.test');
    const t0 = clock.now();
    clock.t += 60; // the hop goes out 60 ms after the fetch began
    s.touch('a.test');
    first();
    const { starts } = await simulate(s, clock, 1, 1);
    expect(starts[0]! - t0).toBeGreaterThanOrEqual(160);
  });
});

describe('HostScheduler.hop', () => {
  it('spaces a redirect hop from the last start like any request, without a slot', async () => {
    const clock = new FakeClock();
    const s = new HostScheduler({ concurrency: 1, minDelayMs: 100, maxBackoffMs: 60_000, clock });
    const t0 = clock.now();
    await s.acquire('a.test'); // the fetch's slot, held through its hops
    s.sent('a.test');
    const hop = s.hop('a.test').then(() => clock.now() - t0);
    await clock.run();
    expect(await hop).toBe(100);
  });
});

describe('HostScheduler.sent', () => {
  it('spaces the next start from the moment the previous request was really sent', async () => {
    const clock = new FakeClock();
    const s = new HostScheduler({ concurrency: 2, minDelayMs: 100, maxBackoffMs: 60_000, clock });
    const t0 = clock.now();
    await s.acquire('a.test');
    let second: number | null = null;
    const next = s.acquire('a.test').then(() => (second = clock.now() - t0));
    // A busy event loop holds the first request back: it goes out 250 ms after its release.
    await clock.runUntil(t0 + 250);
    expect(second).toBeNull();
    s.sent('a.test');
    await clock.run();
    await next;
    expect(second).toBe(350);
  });

  it('lets the next start go on when a request was never sent (its fetch failed first)', async () => {
    const clock = new FakeClock();
    const s = new HostScheduler({ concurrency: 2, minDelayMs: 100, maxBackoffMs: 60_000, clock });
    const t0 = clock.now();
    const first = await s.acquire('a.test');
    const next = s.acquire('a.test').then(() => clock.now() - t0);
    await clock.runUntil(t0 + 30);
    first(); // e.g. refused by a deny rule before any request
    await clock.run();
    // Spaced from the grant still: a connection may have been tried.
    expect(await next).toBe(100);
  });

  it('holds other starts while a redirect hop is unsent, and frees them when it is given up', async () => {
    const clock = new FakeClock();
    const s = new HostScheduler({ concurrency: 2, minDelayMs: 100, maxBackoffMs: 60_000, clock });
    const t0 = clock.now();
    const giveUp = await s.hop('a.test');
    const next = s.acquire('a.test').then(() => clock.now() - t0);
    await clock.runUntil(t0 + 500);
    giveUp();
    giveUp(); // harmless twice, and after a send
    await clock.run();
    expect(await next).toBe(500);
  });

  it('frees a start waiting on an unsent request when its signal aborts', async () => {
    const clock = new FakeClock();
    const s = new HostScheduler({ concurrency: 2, minDelayMs: 100, maxBackoffMs: 60_000, clock });
    await s.acquire('a.test');
    const ac = new AbortController();
    const next = s.acquire('a.test', ac.signal);
    await clock.runUntil(clock.now() + 200);
    ac.abort(new Error('cancelled'));
    await expect(next).rejects.toThrow('cancelled');
    // Its slot was given back: a third request gets one once the first is sent.
    s.sent('a.test');
    const third = s.acquire('a.test');
    await clock.run();
    await expect(third).resolves.toBeTypeOf('function');
  });
});

describe('HostScheduler on a clock whose timers fire early', () => {
  it('sleeps out its claimed start instead of claiming a start a whole delay later', async () => {
    const clock = new FakeClock(0.5);
    const s = new HostScheduler({ concurrency: 1, minDelayMs: 100, maxBackoffMs: 60_000, clock });
    const t0 = clock.now();
    const { starts } = await simulate(s, clock, 4, 10);
    // Each start at its delay (within the 1 ms a timer's remainder takes), never a delay late.
    const gaps = starts.slice(1).map((t, i) => t - starts[i]!);
    expect(starts[0]).toBe(t0);
    for (const g of gaps) {
      expect(g).toBeGreaterThanOrEqual(100);
      expect(g).toBeLessThan(102);
    }
  });
});

describe('HostScheduler with requests that go out a little after their grant', () => {
  it('starts every request one delay after the last went out, not two', async () => {
    // Two slots, each request written on its connection 1 ms after its grant (the event loop's
    // turn) and answered 3 ms later. A waiting request whose claimed start fell before that
    // send used to claim anew, a whole delay later: 1.5 delays per request instead of one.
    const clock = new FakeClock();
    const s = new HostScheduler({ concurrency: 2, minDelayMs: 20, maxBackoffMs: 60_000, clock });
    const sentAt: number[] = [];
    const lane = async () => {
      for (let i = 0; i < 10; i++) {
        const release = await s.acquire('a.test');
        await clock.sleep(1);
        s.sent('a.test');
        sentAt.push(clock.now());
        await clock.sleep(3);
        release();
      }
    };
    const done = Promise.all([lane(), lane()]);
    await clock.run();
    await done;
    const g = gaps(sentAt);
    expect(Math.min(...g)).toBeGreaterThanOrEqual(20);
    // One delay and the 1 ms send lag each, never a second delay.
    expect(Math.max(...g)).toBeLessThanOrEqual(21);
  });
});

describe('systemClock.sleep', () => {
  /** A signal that counts the 'abort' listeners added to it. */
  function countedSignal() {
    const ac = new AbortController();
    let added = 0;
    const add = ac.signal.addEventListener.bind(ac.signal);
    ac.signal.addEventListener = ((...args: Parameters<typeof add>) => {
      added++;
      add(...args);
    }) as typeof ac.signal.addEventListener;
    return { ac, added: () => added };
  }

  it("listens once to a job's signal, however many sleeps share it", async () => {
    const { ac, added } = countedSignal();
    for (let round = 0; round < 3; round++) {
      await Promise.all(Array.from({ length: 10 }, () => systemClock.sleep(1, ac.signal)));
    }
    expect(added()).toBe(1);
  });

  it('rejects every sleep on the signal with its reason once it aborts, and at once after', async () => {
    const { ac } = countedSignal();
    const sleeps = Array.from({ length: 3 }, () => systemClock.sleep(60_000, ac.signal));
    const done = systemClock.sleep(1, ac.signal);
    await done; // a sleep that ended is not woken again by the abort
    ac.abort(new Error('cancelled'));
    for (const s of sleeps) await expect(s).rejects.toThrow('cancelled');
    await expect(systemClock.sleep(1, ac.signal)).rejects.toThrow('cancelled');
  });
});
