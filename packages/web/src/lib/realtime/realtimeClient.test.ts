import { describe, expect, it } from 'vitest';
import { WS_CLOSE_FORBIDDEN, WS_CLOSE_UNAUTHORIZED } from '@adam/contracts';
import { FakeWebSocket } from '../../test/fakeSocket';
import {
  MAX_RECONNECT_ATTEMPTS,
  RealtimeClient,
  parseMessage,
  reconnectDelay,
  type RealtimeClientOptions,
  type RealtimeMessage,
  type RealtimeStatus,
} from './realtimeClient';

/** Lets pending promise callbacks (a ticket's answer) run. */
const settle = () => new Promise<void>((resolve) => setTimeout(resolve, 0));

/** A client on fake sockets and a manual clock: timers run only when the test says so. */
function setup(
  initialKey: string | null = 'key-1',
  getTicket?: RealtimeClientOptions['getTicket'],
) {
  let key = initialKey;
  const timers: { fn: () => void; ms: number }[] = [];
  const sockets: FakeWebSocket[] = [];
  const client = new RealtimeClient({
    url: 'ws://host/api/v1/ws',
    getKey: () => key,
    getTicket,
    createSocket: (url) => {
      const socket = new FakeWebSocket(url);
      sockets.push(socket);
      return socket;
    },
    setTimer: (fn, ms) => {
      timers.push({ fn, ms });
      return timers.length;
    },
    clearTimer: () => {},
  });
  const statuses: RealtimeStatus[] = [];
  client.onStatus((s) => statuses.push(s));
  const runNextTimer = () => {
    const timer = timers.shift();
    if (!timer) throw new Error('no timer scheduled');
    timer.fn();
    return timer.ms;
  };
  return {
    client,
    sockets,
    timers,
    statuses,
    runNextTimer,
    setKey: (next: string | null) => (key = next),
    last: () => sockets[sockets.length - 1]!,
  };
}

describe('RealtimeClient', () => {
  it('connects with the session key as ?api_key= and sends request_update on open', () => {
    const t = setup('k&1');
    t.client.connect();
    expect(t.last().url).toBe('ws://host/api/v1/ws?api_key=k%261');
    expect(t.client.status).toBe('connecting');
    t.last().open();
    expect(t.client.status).toBe('open');
    expect(t.last().sent.map((s) => JSON.parse(s))).toEqual([{ type: 'request_update' }]);
  });

  it('does not connect without a key', () => {
    const t = setup(null);
    t.client.connect();
    expect(t.sockets).toHaveLength(0);
    expect(t.client.status).toBe('idle');
  });

  it('reconnects with backoff 1 s doubling, and gives up after 5 attempts', () => {
    const t = setup();
    t.client.connect();
    const delays: number[] = [];
    for (let i = 0; i < MAX_RECONNECT_ATTEMPTS; i++) {
      t.last().serverClose(1006);
      expect(t.client.status).toBe('reconnecting');
      delays.push(t.runNextTimer());
    }
    expect(delays).toEqual([1000, 2000, 4000, 8000, 16000]);
    expect(t.sockets).toHaveLength(1 + MAX_RECONNECT_ATTEMPTS);
    t.last().serverClose(1006);
    expect(t.client.status).toBe('closed');
    expect(t.timers).toHaveLength(0);
  });

  it('resets the attempt count after a successful open', () => {
    const t = setup();
    t.client.connect();
    t.last().serverClose(1006);
    expect(t.runNextTimer()).toBe(1000);
    t.last().serverClose(1006);
    expect(t.runNextTimer()).toBe(2000);
    t.last().open();
    t.last().serverClose(1006);
    expect(t.runNextTimer()).toBe(1000);
  });

  it.each([401, 403, WS_CLOSE_UNAUTHORIZED, WS_CLOSE_FORBIDDEN])(
    'stops after one auth failure (close %i)',
    (code) => {
      const t = setup();
      t.client.connect();
      t.last().serverClose(code);
      expect(t.client.status).toBe('auth_failed');
      expect(t.timers).toHaveLength(0);
      expect(t.statuses).toContain('auth_failed');
    },
  );

  it('reconnects at once with the new key when the old one was rotated by a refresh', () => {
    const t = setup('old');
    t.client.connect();
    t.last().open();
    t.setKey('new');
    t.last().serverClose(WS_CLOSE_UNAUTHORIZED);
    expect(t.client.status).toBe('connecting');
    expect(t.last().url).toContain('api_key=new');
  });

  it('connect() after an auth failure starts again; disconnect() never reconnects', () => {
    const t = setup();
    t.client.connect();
    t.last().serverClose(WS_CLOSE_UNAUTHORIZED);
    t.client.connect();
    expect(t.client.status).toBe('connecting');
    t.last().open();
    t.client.disconnect();
    expect(t.client.status).toBe('idle');
    expect(t.last().closed).toBe(true);
    expect(t.timers).toHaveLength(0);
  });

  it('delivers parsed messages to listeners', () => {
    const t = setup();
    const received: RealtimeMessage[] = [];
    t.client.onMessage((m) => received.push(m));
    t.client.connect();
    t.last().open();
    t.last().push({ type: 'job_completed', job_id: 3, segments_created: 9, timestamp: 'x' });
    t.last().push('not json');
    expect(received).toEqual([
      { type: 'job_completed', job_id: 3, segments_created: 9, timestamp: 'x' },
    ]);
  });
});

describe('RealtimeClient with tickets', () => {
  it('asks for a fresh ticket before each (re)connect and never puts the key in the URL', async () => {
    const tickets = ['t&1', 't2'];
    const t = setup('key-1', () => Promise.resolve(tickets.shift()!));
    t.client.connect();
    expect(t.client.status).toBe('connecting');
    await settle();
    expect(t.last().url).toBe('ws://host/api/v1/ws?ticket=t%261');
    t.last().open();
    expect(t.last().sent.map((m) => JSON.parse(m))).toEqual([{ type: 'request_update' }]);
    t.last().serverClose(1006);
    t.runNextTimer();
    await settle();
    expect(t.sockets.map((socket) => socket.url)).toEqual([
      'ws://host/api/v1/ws?ticket=t%261',
      'ws://host/api/v1/ws?ticket=t2',
    ]);
    expect(t.sockets.some((socket) => socket.url.includes('key-1'))).toBe(false);
  });

  it.each([401, 403])(
    'treats a %i answer to the ticket call as an authentication failure: no socket, no retry',
    async (status) => {
      const t = setup('key-1', () => Promise.reject(Object.assign(new Error('no'), { status })));
      t.client.connect();
      await settle();
      expect(t.client.status).toBe('auth_failed');
      expect(t.sockets).toHaveLength(0);
      expect(t.timers).toHaveLength(0);
    },
  );

  it('treats any other failure of the ticket call as a failed attempt, retried with backoff', async () => {
    let fail = true;
    const t = setup('key-1', () =>
      fail
        ? Promise.reject(Object.assign(new Error('down'), { status: 0 }))
        : Promise.resolve('ok'),
    );
    t.client.connect();
    await settle();
    expect(t.client.status).toBe('reconnecting');
    expect(t.sockets).toHaveLength(0);
    fail = false;
    expect(t.runNextTimer()).toBe(1000);
    await settle();
    expect(t.last().url).toBe('ws://host/api/v1/ws?ticket=ok');
  });

  it('drops a ticket that arrives after disconnect()', async () => {
    let answer: (ticket: string) => void = () => {};
    const t = setup('key-1', () => new Promise<string>((resolve) => (answer = resolve)));
    t.client.connect();
    t.client.disconnect();
    answer('late');
    await settle();
    expect(t.sockets).toHaveLength(0);
    expect(t.client.status).toBe('idle');
  });
});

describe('parseMessage', () => {
  it('passes unknown types through and drops malformed known ones', () => {
    expect(parseMessage(JSON.stringify({ type: 'something_new', a: 1 }))).toEqual({
      type: 'something_new',
      a: 1,
    });
    expect(parseMessage(JSON.stringify({ type: 'job_progress', job_id: 'x' }))).toBeNull();
    expect(parseMessage(JSON.stringify({ no: 'type' }))).toBeNull();
    expect(parseMessage(42)).toBeNull();
  });

  it('computes the backoff of each attempt', () => {
    expect([1, 2, 3, 4, 5].map(reconnectDelay)).toEqual([1000, 2000, 4000, 8000, 16000]);
  });
});
