import { describe, expect, it } from 'vitest';
import { eachByHost } from './host-lanes.js';
import { HostScheduler } from './host-scheduler.js';

/** Lets every pending promise settle. */
const settle = async () => {
  for (let i = 0; i < 5; i++) await new Promise((r) => setImmediate(r));
};

/** Items `host/n`, grouped by host as a crawl's level is. */
const grouped = (hosts: string[], n: number) =>
  hosts.flatMap((h) => Array.from({ length: n }, (_, i) => `${h}/${i}`));
const hostOf = (item: string) => item.split('/')[0]!;

/** Work that runs until the test ends it: what started, what is running per host. */
function manualWork() {
  const started: string[] = [];
  const running = new Map<string, () => void>();
  let maxAtHost = 0;
  const atHost = () => {
    const per = new Map<string, number>();
    for (const item of running.keys()) per.set(hostOf(item), (per.get(hostOf(item)) ?? 0) + 1);
    return per;
  };
  const work = (item: string) =>
    new Promise<void>((resolve) => {
      started.push(item);
      running.set(item, () => {
        running.delete(item);
        resolve();
      });
      maxAtHost = Math.max(maxAtHost, ...atHost().values());
    });
  return { started, running, work, atHost, maxAtHost: () => maxAtHost };
}

describe('eachByHost', () => {
  it('spreads the lanes over the hosts, at most perHost at each, each host in order', async () => {
    const m = manualWork();
    const done = eachByHost({
      items: grouped(['a', 'b', 'c'], 6),
      hostOf,
      lanes: 5,
      perHost: 2,
      stop: async () => false,
      waitMs: () => 0,
      work: m.work,
    });
    await settle();
    // Grouped by host, yet every host is worked on at once.
    expect(m.running.size).toBe(5);
    expect([...m.atHost().keys()].sort()).toEqual(['a', 'b', 'c']);
    while (m.running.size) {
      [...m.running.values()][0]!();
      await settle();
    }
    await done;
    expect(m.started).toHaveLength(18);
    expect(m.maxAtHost()).toBe(2);
    for (const h of ['a', 'b', 'c'])
      expect(m.started.filter((i) => hostOf(i) === h)).toEqual(grouped([h], 6));
  });

  it('sends a lane to the host due soonest', async () => {
    const m = manualWork();
    const wait: Record<string, number> = { a: 500, b: 0, c: 200 };
    const done = eachByHost({
      items: grouped(['a', 'b', 'c'], 1),
      hostOf,
      lanes: 1,
      perHost: 2,
      stop: async () => false,
      waitMs: (h) => wait[h]!,
      work: m.work,
    });
    for (let i = 0; i < 3; i++) {
      await settle();
      const [item, end] = [...m.running.entries()][0]!;
      wait[hostOf(item)] = 1_000;
      end();
    }
    await done;
    expect(m.started).toEqual(['b/0', 'c/0', 'a/0']);
  });

  it('lets another lane to a host once a lane leaves it, before its work ends', async () => {
    const m = manualWork();
    const done = eachByHost({
      items: grouped(['a'], 3),
      hostOf,
      lanes: 3,
      perHost: 1,
      stop: async () => false,
      waitMs: () => 0,
      work: (item, leave) => {
        const p = m.work(item);
        leave();
        return p;
      },
    });
    await settle();
    expect(m.started).toEqual(['a/0', 'a/1', 'a/2']);
    for (const end of [...m.running.values()]) end();
    await done;
  });

  it('wakes one waiting lane per slot a leaving lane frees, not every idle lane', async () => {
    // One host, 2 slots, 10 lanes (a crawl's sync of one site): 8 lanes wait. Each item's end
    // frees one slot; waking all 8 sent each round its loop (a stop check, a take) per item.
    const m = manualWork();
    let stops = 0;
    const items = grouped(['a'], 20);
    const done = eachByHost({
      items,
      hostOf,
      lanes: 10,
      perHost: 2,
      stop: async () => (stops++, false),
      waitMs: () => 0,
      work: m.work,
    });
    await settle();
    expect(m.running.size).toBe(2);
    while (m.running.size) {
      [...m.running.values()][0]!();
      await settle();
      expect(m.running.size).toBeLessThanOrEqual(2);
    }
    await done;
    expect(m.started).toEqual(items);
    // A check per item taken, per lane at its start and once more at its end, and per lane woken
    // in turn: well under one per waiting lane per item (8 × 20 more).
    expect(stops).toBeLessThanOrEqual(items.length + 3 * 10);
  });

  it('holds a lane back from a full host, and takes nothing after a stop', async () => {
    const m = manualWork();
    let stop = false;
    const done = eachByHost({
      items: grouped(['a'], 4),
      hostOf,
      lanes: 3,
      perHost: 1,
      stop: async () => stop,
      waitMs: () => 0,
      work: m.work,
    });
    await settle();
    expect(m.started).toEqual(['a/0']);
    m.running.get('a/0')!();
    await settle();
    expect(m.started).toEqual(['a/0', 'a/1']);
    stop = true;
    m.running.get('a/1')!();
    await done;
    expect(m.started).toEqual(['a/0', 'a/1']);
  });
});

describe('HostScheduler.waitMs', () => {
  it('answers when a new start could be granted: claimed starts, the delay and a backoff', async () => {
    let t = 1_000;
    const sched = new HostScheduler({
      concurrency: 4,
      minDelayMs: 100,
      maxBackoffMs: 60_000,
      clock: { now: () => t, sleep: () => new Promise<void>(() => {}) },
    });
    expect(sched.waitMs('a.test')).toBe(0);
    const release = await sched.acquire('a.test');
    sched.sent('a.test');
    expect(sched.waitMs('a.test')).toBe(100);
    t += 40;
    expect(sched.waitMs('a.test')).toBe(60);
    expect(sched.waitMs('b.test')).toBe(0);
    sched.backoff('a.test', '2');
    expect(sched.waitMs('a.test')).toBe(2_000);
    release();
  });
});
