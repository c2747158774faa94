/** What `eachByHost` runs, and how it tells hosts apart. */
export interface HostLanesOptions<T> {
  items: readonly T[];
  hostOf: (item: T) => string;
  /** Lanes working at once. */
  lanes: number;
  /** Lanes at one host at once (its request slots: more would only queue there). */
  perHost: number;
  /** Checked before each item is taken; true ends every lane. */
  stop: () => Promise<boolean>;
  /** Ms before the host's next request may start (0: now), as its scheduler sees it. */
  waitMs: (host: string) => number;
  /**
   * Works on one item. `leave` says the item no longer needs its host (its request ended): another
   * lane may come to the host meanwhile. It is called anyway when `work` ends.
   */
  work: (item: T, leave: () => void) => Promise<void>;
}

/**
 * Runs `work` over `items` on a number of lanes, each free lane taking the next item of a host
 * that can take a request: one with fewer than `perHost` lanes at it, whose next start is due
 * (hosts in turn), else the one due soonest. A lane never waits on a busy host while another host
 * sits idle, however the items are grouped. Each host's items keep their order.
 */
export async function eachByHost<T>(opts: HostLanesOptions<T>): Promise<void> {
  const queues = new Map<string, { items: T[]; next: number }>();
  for (const item of opts.items) {
    const host = opts.hostOf(item);
    let q = queues.get(host);
    if (!q) queues.set(host, (q = { items: [], next: 0 }));
    q.items.push(item);
  }
  /** Hosts with items left, taken in turn from `cursor`. */
  const ring = [...queues.keys()];
  let cursor = 0;
  const atHost = new Map<string, number>();
  let waiting: (() => void)[] = [];
  const wakeAll = () => {
    const wake = waiting;
    waiting = [];
    for (const w of wake) w();
  };
  // A lane leaving a host frees one slot: one waiting lane is enough to take it. Waking them all
  // sent every idle lane round its loop per request (10 lanes at one host: 8 for nothing).
  const wakeOne = () => waiting.shift()?.();

  /** The next item for a free lane: null when every host with items is full (or none is left). */
  const take = (): { host: string; item: T } | null => {
    let best = -1;
    let bestWait = Infinity;
    for (let k = 0; k < ring.length; k++) {
      const i = (cursor + k) % ring.length;
      const host = ring[i]!;
      if ((atHost.get(host) ?? 0) >= opts.perHost) continue;
      const wait = opts.waitMs(host);
      if (wait < bestWait) {
        best = i;
        bestWait = wait;
        if (wait <= 0) break;
      }
    }
    if (best < 0) return null;
    const host = ring[best]!;
    const q = queues.get(host)!;
    const item = q.items[q.next++]!;
    if (q.next >= q.items.length) {
      ring.splice(best, 1);
      queues.delete(host);
      cursor = ring.length ? best % ring.length : 0;
    } else cursor = ring.length ? (best + 1) % ring.length : 0;
    return { host, item };
  };

  const lane = async () => {
    while (ring.length && !(await opts.stop())) {
      const next = take();
      if (!next) {
        // Every host with items is full: wait for a lane to leave one (or the items to run out).
        await new Promise<void>((resolve) => waiting.push(resolve));
        continue;
      }
      const { host, item } = next;
      atHost.set(host, (atHost.get(host) ?? 0) + 1);
      let left = false;
      const leave = () => {
        if (left) return;
        left = true;
        const n = atHost.get(host)! - 1;
        if (n) atHost.set(host, n);
        else atHost.delete(host);
        wakeOne();
      };
      try {
        await opts.work(item, leave);
      } finally {
        leave();
      }
    }
    // A lane that ends (no items, or a stop) frees the ones waiting to see it too.
    wakeAll();
  };
  const count = Math.max(1, Math.min(opts.lanes, opts.items.length));
  await Promise.all(Array.from({ length: count }, lane));
}
