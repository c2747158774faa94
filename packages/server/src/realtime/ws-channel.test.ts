import { EventEmitter } from 'node:events';
import pino from 'pino';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { LiveStats } from '@adam/contracts';
import { Unauthorized } from '../lib/errors.js';
import type { AuthContext } from '../services/auth.service.js';
import type { LogRow } from '../store/log.repository.js';
import { EventBus } from '../lib/event-bus.js';
import { RealtimeHub, toMessage, type ChannelSocket, type RealtimeDeps } from './ws-channel.js';

class FakeSocket extends EventEmitter implements ChannelSocket {
  readyState = 1;
  bufferedAmount = 0;
  sent: Record<string, unknown>[] = [];
  pings = 0;
  closedWith: { code?: number; reason?: string } | null = null;
  terminated = false;
  /** false: like a client whose close frame never arrives, close() leaves the socket closing. */
  answersClose = true;
  paused = false;
  pauses = 0;
  /** Chunks the client sent that are not read yet (in the kernel's buffers, in reality). */
  unread: Buffer[][] = [];

  send(data: string): void {
    this.sent.push(JSON.parse(data) as Record<string, unknown>);
  }
  close(code?: number, reason?: string): void {
    if (this.readyState >= 2) return;
    this.closedWith = { code, reason };
    this.readyState = 2;
    if (!this.answersClose) return;
    this.readyState = 3;
    this.emit('close');
  }
  terminate(): void {
    if (this.readyState === 3) return;
    this.terminated = true;
    this.readyState = 3;
    this.emit('close');
  }
  ping(): void {
    this.pings++;
  }
  pause(): void {
    this.paused = true;
    this.pauses++;
  }
  resume(): void {
    this.paused = false;
    this.read();
  }
  /**
   * Like `ws` on a net socket: chunks are read while not paused, and a chunk being read is read
   * to its end even if the socket is paused meanwhile.
   */
  read(): void {
    while (!this.paused && this.unread.length > 0) {
      for (const message of this.unread.shift()!) this.emit('message', message, false);
    }
  }
  types(): unknown[] {
    return this.sent.map((m) => m.type);
  }
}

const ctx = (id: number, expiresAt = '2999-01-01T00:00:00Z') =>
  ({
    user: { id: 1, email: 'a@b.c' },
    key: { id, expires_at: expiresAt },
  }) as unknown as AuthContext;

let bus: EventBus;
let keys: Map<string, AuthContext>;
let entryListeners: Set<(row: LogRow) => void>;
let hub: RealtimeHub | undefined;

function makeHub(limits: RealtimeDeps['limits'] = {}) {
  hub = new RealtimeHub({
    auth: {
      authenticate: (k) => {
        const c = k ? keys.get(k) : undefined;
        if (!c) throw new Unauthorized(k ? 'Invalid API key' : 'Not authenticated');
        return c;
      },
      redeemTicket: () => {
        throw new Unauthorized('Invalid or expired ticket');
      },
    },
    bus,
    sink: {
      onEntry: (fn) => {
        entryListeners.add(fn);
        return () => entryListeners.delete(fn);
      },
    },
    metrics: {
      realtime: () => ({
        cpuUsage: 1,
        memoryUsage: 2,
        segmentsPerSecond: 0,
        activeJobs: 0,
        jobsPerMinute: 0,
        searchesPerSecond: 0,
        timestamp: 'now',
      }),
    },
    metricsRefreshMs: () => 5000,
    getStats: () => ({ total_snippets: 3 }) as unknown as LiveStats,
    log: pino({ level: 'silent' }),
    // The fake timers' clock: vi.advanceTimersByTimeAsync moves the per-socket limits' time too.
    clock: () => Date.now(),
    limits,
  });
  hub.start();
  return hub;
}

async function connected(key = 'k1'): Promise<FakeSocket> {
  const s = new FakeSocket();
  hub!.connect(s, key);
  await vi.advanceTimersByTimeAsync(0);
  return s;
}

/** `times` client messages sent at once (one chunk), handed over by `ws` as Buffers. */
const say = (s: FakeSocket, text: string, times = 1) => {
  s.unread.push(Array.from({ length: times }, () => Buffer.from(text)));
  s.read();
};
const unreadMessages = (s: FakeSocket) => s.unread.reduce((n, chunk) => n + chunk.length, 0);
const count = (s: FakeSocket, type: string) => s.types().filter((t) => t === type).length;

const logRow = (message: string): LogRow => ({
  timestamp: new Date().toISOString(),
  level: 'info',
  component: 'test',
  message,
});

beforeEach(() => {
  vi.useFakeTimers();
  bus = new EventBus();
  keys = new Map([
    ['k1', ctx(1)],
    ['k2', ctx(2)],
  ]);
  entryListeners = new Set();
});
afterEach(async () => {
  await hub?.close();
  hub = undefined;
  vi.useRealTimers();
});

describe('RealtimeHub', () => {
  it('builds flat messages and keeps a job’s own type apart from the message type', () => {
    expect(toMessage('job_created', { job_id: 1, type: 'process_urls' })).toEqual({
      type: 'job_created',
      job_id: 1,
      job_type: 'process_urls',
      timestamp: expect.any(String),
    });
    expect(toMessage('log_entry', { timestamp: 'T', message: 'm' }).timestamp).toBe('T');
  });

  it('terminates a socket that did not answer the previous ping, and keeps one that did', async () => {
    makeHub({ keepaliveMs: 1000 });
    const dead = await connected('k1');
    const alive = await connected('k2');
    await vi.advanceTimersByTimeAsync(1000);
    expect(dead.pings).toBe(1);
    alive.emit('pong');
    await vi.advanceTimersByTimeAsync(1000);
    expect(dead.terminated).toBe(true);
    expect(alive.terminated).toBe(false);
    expect(alive.pings).toBe(2);
    expect(hub!.stats().clients).toBe(1);
  });

  it('sends at most logEntriesPerSecond log entries a second, then says how many it dropped', async () => {
    makeHub({ logEntriesPerSecond: 5, drainCheckMs: 100 });
    const s = await connected();
    vi.setSystemTime(Math.ceil(Date.now() / 1000) * 1000 + 10);
    for (let i = 0; i < 12; i++) for (const fn of entryListeners) fn(logRow(`line ${i}`));
    expect(s.sent.filter((m) => m.type === 'log_entry')).toHaveLength(5);
    await vi.advanceTimersByTimeAsync(100);
    expect(s.sent.at(-1)).toMatchObject({ type: 'dropped', count: 7 });
    expect(hub!.stats().messages_dropped).toBe(7);
  });

  it('drops messages for a congested socket and reports them once it has drained', async () => {
    makeHub({ maxBufferedBytes: 1000, drainCheckMs: 100 });
    const s = await connected();
    const before = s.sent.length;
    s.bufferedAmount = 5000;
    // Model warnings: forwarded and, unlike job events, not followed by a stats_update.
    for (let i = 0; i < 10; i++) bus.emit('model_warning', { message: `warning ${i}` });
    expect(s.sent.length).toBe(before);
    s.bufferedAmount = 800; // under the limit, but not yet under half of it
    bus.emit('model_warning', { message: 'warning 10' });
    await vi.advanceTimersByTimeAsync(100);
    expect(s.sent.length).toBe(before);
    s.bufferedAmount = 0;
    await vi.advanceTimersByTimeAsync(100);
    await vi.advanceTimersByTimeAsync(100);
    expect(s.sent.slice(before)).toEqual([
      { type: 'dropped', count: 11, timestamp: expect.any(String) },
    ]);
    bus.emit('model_warning', { message: 'warning 11' });
    expect(s.sent.at(-1)).toMatchObject({ type: 'model_warning', message: 'warning 11' });
  });

  it('closes with 4401 a socket whose key stops working without an event', async () => {
    makeHub({ authCheckMs: 1000 });
    const s = await connected('k1');
    keys.delete('k1'); // e.g. revoked by a password change on another session
    await vi.advanceTimersByTimeAsync(1000);
    expect(s.closedWith).toEqual({ code: 4401, reason: 'API key revoked' });
  });

  it('sends a stats_update after a job changes status', async () => {
    makeHub({ statsPushMs: 1000 });
    const s = await connected();
    bus.emit('job_completed', { job_id: 3, segments_created: 4 });
    await vi.advanceTimersByTimeAsync(1000);
    expect(s.types().filter((t) => t === 'stats_update')).toHaveLength(1);
  });

  it('sends one stats_update for a burst of snippet changes, only while someone listens', async () => {
    makeHub({ statsPushMs: 1000 });
    for (let i = 0; i < 5; i++) bus.emit('snippets.added', { ids: [i], job_id: null });
    await vi.advanceTimersByTimeAsync(2000);
    const s = await connected();
    for (let i = 0; i < 5; i++) bus.emit('snippets.added', { ids: [i], job_id: null });
    await vi.advanceTimersByTimeAsync(0);
    for (let i = 0; i < 5; i++) bus.emit('snippets.deleted', { ids: [i] });
    await vi.advanceTimersByTimeAsync(999);
    expect(s.types().filter((t) => t === 'stats_update')).toHaveLength(1);
    await vi.advanceTimersByTimeAsync(1);
    expect(s.types().filter((t) => t === 'stats_update')).toHaveLength(2);
  });

  it('starts metrics.update with the first client and stops it with the last', async () => {
    makeHub();
    const s = await connected();
    await vi.advanceTimersByTimeAsync(5000);
    expect(s.sent.at(-1)).toMatchObject({ type: 'metrics.update', cpuUsage: 1, memoryUsage: 2 });
    s.close();
    expect(vi.getTimerCount()).toBe(3); // keepalive, key check, drain check
  });

  it('answers a burst of request_update with one stats_update, and one more after the interval', async () => {
    makeHub({ updateMinIntervalMs: 500, messagesPerSecond: 1000, messageBurst: 1000 });
    const s = await connected();
    say(s, '{"type":"request_update"}', 50);
    await vi.advanceTimersByTimeAsync(0);
    expect(count(s, 'stats_update')).toBe(1);
    // Asked again within the interval: answered once, at its end.
    say(s, 'request_update', 50);
    await vi.advanceTimersByTimeAsync(499);
    expect(count(s, 'stats_update')).toBe(1);
    await vi.advanceTimersByTimeAsync(1);
    expect(count(s, 'stats_update')).toBe(2);
    await vi.advanceTimersByTimeAsync(5000);
    expect(count(s, 'stats_update')).toBe(2);
  });

  it('stops reading a socket over its rate until its bucket is full, and says so once', async () => {
    makeHub({ messagesPerSecond: 10, messageBurst: 5 });
    const s = await connected();
    const other = await connected('k2');
    // One chunk of 20: 5 answered, the 6th pauses the socket, the rest of the chunk (already
    // read) is dropped with it.
    say(s, '{"type":"ping"}', 20);
    expect(count(s, 'pong')).toBe(5);
    expect(s.paused).toBe(true);
    expect(hub!.stats().client_messages_refused).toBe(15);
    const error = {
      type: 'error',
      message: 'Too many messages: at most 10 a second; the extra ones are dropped',
      timestamp: expect.any(String),
    };
    expect(s.sent.filter((m) => m.type === 'error')).toEqual([error]);
    // While paused nothing is read: what the client sends waits, and costs nothing.
    say(s, '{"type":"ping"}', 3);
    say(s, '{"type":"ping"}', 3);
    expect(unreadMessages(s)).toBe(6);
    expect(hub!.stats().client_messages_refused).toBe(15);
    // Another socket has its own bucket.
    say(other, '{"type":"ping"}', 5);
    expect(count(other, 'pong')).toBe(5);
    expect(other.paused).toBe(false);
    // Read again once the bucket is full (5 messages at 10 a second: 500 ms).
    await vi.advanceTimersByTimeAsync(499);
    expect(s.paused).toBe(true);
    await vi.advanceTimersByTimeAsync(1);
    expect(unreadMessages(s)).toBe(0);
    // 5 of the 6 waiting answered; the 6th paused it again, within the same flood: no new error.
    expect(count(s, 'pong')).toBe(10);
    expect(hub!.stats().client_messages_refused).toBe(16);
    expect(s.pauses).toBe(2);
    expect(s.paused).toBe(true);
    // Later, within its rate, it is read and answered as usual.
    await vi.advanceTimersByTimeAsync(10_000);
    say(s, '{"type":"ping"}', 5);
    expect(count(s, 'pong')).toBe(15);
    expect(s.paused).toBe(false);
    expect(s.pauses).toBe(2);
    expect(s.sent.filter((m) => m.type === 'error')).toEqual([error]);
    expect(s.closedWith).toBeNull();
  });

  it('closes a socket that keeps flooding with 1008 after 5 s, paused time included, and not one that sent a single burst', async () => {
    makeHub({ messagesPerSecond: 20, messageBurst: 40, floodCloseMs: 5000, floodGapMs: 1000 });
    const flood = await connected();
    const burst = await connected('k2');
    flood.answersClose = false;
    say(burst, '{"type":"ping"}', 200);
    // Past the burst at once, then 100 messages a second (five times the rate) for 5 s: the
    // socket is read at 0, 2 s and 4 s, paused in between.
    say(flood, 'request_update', 50);
    for (let t = 100; t < 5000; t += 100) {
      await vi.advanceTimersByTimeAsync(100);
      say(flood, 'request_update', 10);
    }
    expect(flood.closedWith).toBeNull();
    expect(flood.paused).toBe(true);
    expect(flood.pauses).toBe(3);
    await vi.advanceTimersByTimeAsync(100);
    expect(flood.closedWith).toEqual({ code: 1008, reason: 'Too many messages: over 20 a second' });
    expect(hub!.stats().clients).toBe(1);
    // Closed without reading the rest of the flood; cut if the client does not answer in time.
    expect(flood.paused).toBe(true);
    expect(unreadMessages(flood)).toBeGreaterThan(0);
    expect(flood.terminated).toBe(false);
    await vi.advanceTimersByTimeAsync(1000);
    expect(flood.terminated).toBe(true);
    // Later messages of the closed socket cost nothing and answer nothing.
    const sent = flood.sent.length;
    flood.paused = false;
    flood.read();
    expect(flood.sent.length).toBe(sent);
    expect(count(flood, 'error')).toBe(1);
    // One burst: 40 answered, the rest of its chunk dropped, a 2 s pause, and no close.
    expect(burst.closedWith).toBeNull();
    expect(burst.paused).toBe(false);
    expect(count(burst, 'pong')).toBe(40);
  });
});
