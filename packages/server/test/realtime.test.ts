import { afterEach, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { DEFAULT_RESOURCES_SETTINGS, ServerMessage } from '@adam/contracts';
import { ARTICLES } from './corpus.js';
import { startServer, type TestServer } from './helpers.js';
import { until } from './until.js';

/* eslint-disable @typescript-eslint/no-explicit-any */
type Msg = Record<string, any>;

/** A `ws` client that keeps every message so a test can wait for the one it expects. */
class TestClient {
  readonly messages: Msg[] = [];
  readonly opened: Promise<void>;
  readonly closed: Promise<{ code: number; reason: string }>;
  private waiters: (() => void)[] = [];

  constructor(readonly ws: WebSocket) {
    this.opened = new Promise((resolve, reject) => {
      ws.once('open', () => resolve());
      ws.once('unexpected-response', (_req, res) =>
        reject(new Error(`upgrade refused with HTTP ${res.statusCode}`)),
      );
      ws.once('error', reject);
    });
    this.closed = new Promise((resolve) =>
      ws.once('close', (code, reason) => resolve({ code, reason: reason.toString() })),
    );
    ws.on('message', (data) => {
      this.messages.push(JSON.parse(String(data)) as Msg);
      for (const w of this.waiters.splice(0)) w();
    });
  }

  /** Resolves with (and consumes) the first message matching `pred`, waiting for it if needed. */
  // A hang detector: long, since a loaded machine can delay a message by seconds.
  async next(pred: (m: Msg) => boolean, timeoutMs = 60_000): Promise<Msg> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const i = this.messages.findIndex(pred);
      if (i >= 0) return this.messages.splice(i, 1)[0]!;
      const left = deadline - Date.now();
      if (left <= 0) {
        const seen = this.messages.map((m) => m.type).join(', ');
        throw new Error(`no matching message within ${timeoutMs} ms (have: ${seen})`);
      }
      await new Promise<void>((resolve) => {
        const t = setTimeout(resolve, left);
        this.waiters.push(() => (clearTimeout(t), resolve()));
      });
    }
  }

  type(type: string, timeoutMs?: number) {
    return this.next((m) => m.type === type, timeoutMs);
  }

  send(msg: unknown) {
    this.ws.send(typeof msg === 'string' ? msg : JSON.stringify(msg));
  }
}

let s: TestServer;
let key: string;
const clients: TestClient[] = [];

async function setup(env: Record<string, string> = {}) {
  s = await startServer({ env });
  key = await s.login();
}

function open(query = '', headers: Record<string, string> = {}): TestClient {
  const url = `${s.url.replace('http', 'ws')}/api/v1/ws${query}`;
  const c = new TestClient(new WebSocket(url, { headers }));
  clients.push(c);
  return c;
}

const withKey = (k = key) => open(`?api_key=${encodeURIComponent(k)}`);

afterEach(async () => {
  for (const c of clients.splice(0)) c.ws.terminate();
  await s?.close();
});

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

const VOLCANOES = [
  'A volcano is a rupture in the crust of a planetary-mass object, such as Earth, that allows hot lava, volcanic ash, and gases to escape from a magma chamber below the surface.',
  'On Earth, volcanoes are most often found where tectonic plates are diverging or converging, and most are found underwater.',
  'Erupting volcanoes can pose many hazards, not only in the immediate vicinity of the eruption. One such hazard is that volcanic ash can be a threat to aircraft.',
  'Large eruptions can affect atmospheric temperature as ash and droplets of sulfuric acid obscure the Sun and cool the lower atmosphere of the Earth.',
].join(' ');

describe('realtime channel', () => {
  it('sends initial_state with live stats on connect, and stats_update on request_update', async () => {
    await setup();
    const c = withKey();
    const init = await c.type('initial_state');
    expect(init.stats).toMatchObject({
      total_snippets: 0,
      total_vectors: 0,
      pending_index: 0,
      jobs: { pending: 0, processing: 0, completed: 0, failed: 0, cancelled: 0 },
      workers: expect.objectContaining({ mode: 'embedded' }),
      metrics: { cpuUsage: expect.any(Number), memoryUsage: expect.any(Number) },
      uptime_s: expect.any(Number),
    });
    expect(Date.parse(init.timestamp)).not.toBeNaN();

    const saved = await s.api('/api/v1/playground/save-segments', {
      method: 'POST',
      key,
      body: { title: 'Volcanoes', language: 'en', text: VOLCANOES },
    });
    expect(saved.status).toBe(200);
    // Saving may finish in the background: ask until the counts show it.
    const upd = await until(
      async () => {
        c.send({ type: 'request_update' });
        const u = await c.type('stats_update');
        return u.stats.total_snippets > 0 && u;
      },
      { interval: 250, what: 'a stats_update counting the saved snippets' },
    );
    expect(upd.stats.total_snippets).toBe(upd.stats.total_vectors + upd.stats.pending_index);

    c.send('request_update');
    expect((await c.type('stats_update')).stats.total_snippets).toBe(upd.stats.total_snippets);
  });

  it('opens the socket and then closes it with 4401 for a bad or missing key', async () => {
    await setup();
    const bad = withKey('adam_not-a-real-key');
    await bad.opened;
    expect(await bad.closed).toEqual({ code: 4401, reason: 'Invalid API key' });

    const none = open();
    await none.opened;
    expect(await none.closed).toEqual({ code: 4401, reason: 'Not authenticated' });
    expect(bad.messages).toEqual([]);
  });

  it('takes the key from the login cookie or the X-API-Key header too', async () => {
    await setup();
    const byCookie = open('', { cookie: `adam_api_key=${key}` });
    expect((await byCookie.type('initial_state')).stats).toBeDefined();
    const byHeader = open('', { 'x-api-key': key });
    expect((await byHeader.type('initial_state')).stats).toBeDefined();
  });

  it('closes the sockets of a key with 4401 on logout, and only those', async () => {
    await setup();
    const other = await s.login();
    const c = withKey();
    const d = withKey(other);
    await c.type('initial_state');
    await d.type('initial_state');
    const r = await s.api('/api/v1/auth/logout', { method: 'POST', key });
    expect(r.status).toBeLessThan(300);
    expect(await c.closed).toEqual({ code: 4401, reason: 'API key revoked' });
    d.send({ type: 'request_update' });
    await d.type('stats_update');
    expect(d.ws.readyState).toBe(WebSocket.OPEN);
  });

  it('closes the old key’s socket when the key is refreshed; the new key connects', async () => {
    await setup();
    const c = withKey();
    await c.type('initial_state');
    const r = await s.api('/api/v1/auth/refresh', { method: 'POST', key });
    expect(r.status).toBe(200);
    expect(await c.closed).toEqual({ code: 4401, reason: 'API key revoked' });
    const fresh = withKey(r.body.api_key as string);
    await fresh.type('initial_state');
  });

  it('closes with 4401 once the key has expired', async () => {
    await setup();
    const c = withKey();
    await c.type('initial_state');
    s.clock.advance(s.config.apiKeyTtlSeconds * 1000 + 1000);
    c.send({ type: 'request_update' });
    expect(await c.closed).toEqual({ code: 4401, reason: 'API key expired' });
  });

  it('forwards settings.updated with its section', async () => {
    await setup();
    const c = withKey();
    await c.type('initial_state');
    const r = await s.api('/api/v1/admin/settings/processing', {
      method: 'PUT',
      key,
      body: { settings: { embedding_batch_size: 16 } },
    });
    expect(r.status).toBe(200);
    const m = await c.type('settings.updated');
    expect(m).toEqual({
      type: 'settings.updated',
      section: 'processing',
      timestamp: expect.any(String),
    });
  });

  it('forwards job and model events flat, with their fields, and keeps internal events in', async () => {
    await setup();
    const c = withKey();
    await c.type('initial_state');
    const { bus } = s.adam;
    bus.emit('job_progress', {
      job_id: 7,
      progress: 42.5,
      stage: 'embedding',
      stats: { urls_done: 3 },
      segmentation_method: 'smart',
      last_fallback_reason: null,
    });
    bus.emit('job_created', {
      job_id: 8,
      type: 'process_urls',
      status: 'pending',
      priority: 'high',
    });
    bus.emit('workers.changed', { running: 2 });
    bus.emit('auth.key_revoked', { key_id: 999_999 });
    bus.emit('segment_progress', { job_id: 7, processed: 10, total: 40, stage: 'segmenting' });
    bus.emit('job_completed', { job_id: 7, segments_created: 12 });
    bus.emit('job_failed', { job_id: 9, error: 'boom' });
    bus.emit('job_cancelled', { job_id: 10 });
    bus.emit('job_deleted', { job_id: 10 });
    bus.emit('model_warning', { message: 'Model not ready' });

    expect(await c.type('job_progress')).toEqual({
      type: 'job_progress',
      job_id: 7,
      progress: 42.5,
      stage: 'embedding',
      stats: { urls_done: 3 },
      segmentation_method: 'smart',
      last_fallback_reason: null,
      timestamp: expect.any(String),
    });
    expect(await c.type('job_created')).toMatchObject({
      job_id: 8,
      job_type: 'process_urls',
      status: 'pending',
      priority: 'high',
    });
    expect(await c.type('segment_progress')).toMatchObject({
      processed: 10,
      total: 40,
      stage: 'segmenting',
    });
    expect(await c.type('job_completed')).toMatchObject({ job_id: 7, segments_created: 12 });
    expect(await c.type('job_failed')).toMatchObject({ job_id: 9, error: 'boom' });
    expect(await c.type('job_cancelled')).toMatchObject({ job_id: 10 });
    expect(await c.type('job_deleted')).toMatchObject({ job_id: 10 });
    expect(await c.type('model_warning')).toMatchObject({ message: 'Model not ready' });
    // Everything above arrived in order after the internal events: none of those was sent (the
    // job events also schedule a stats_update with the new job counts).
    expect(c.messages.filter((m) => m.type !== 'log_entry' && m.type !== 'stats_update')).toEqual(
      [],
    );
    expect(c.ws.readyState).toBe(WebSocket.OPEN);
  });

  it('pushes stats_update after snippets change, at most once a second', async () => {
    await setup();
    const c = withKey();
    await c.type('initial_state');
    for (let i = 0; i < 20; i++) s.adam.bus.emit('snippets.added', { ids: [i], job_id: null });
    const first = await c.type('stats_update');
    const t0 = Date.now();
    for (let i = 0; i < 20; i++) s.adam.bus.emit('snippets.deleted', { ids: [i] });
    await c.type('stats_update');
    expect(Date.now() - t0).toBeGreaterThan(850);
    await sleep(300);
    expect(c.messages.filter((m) => m.type === 'stats_update')).toEqual([]);
    expect(first.stats.total_snippets).toBe(0);
  });

  it('sends log lines as log_entry', async () => {
    await setup();
    const c = withKey();
    await c.type('initial_state');
    s.adam.log.warn({ component: 'jobs' }, 'Disk is getting full');
    expect(
      await c.next((m) => m.type === 'log_entry' && m.message === 'Disk is getting full'),
    ).toEqual({
      type: 'log_entry',
      level: 'warning',
      component: 'jobs',
      message: 'Disk is getting full',
      timestamp: expect.any(String),
    });
  });

  it('never writes the api_key of the URL to the logs', async () => {
    await setup({ ADAM_LOG_LEVEL: 'debug' });
    const secret = `SECRET${Date.now()}`;
    const good = withKey();
    await good.type('initial_state');
    const bad = withKey(secret);
    await bad.closed;
    // The same URL without an upgrade, an upgrade to a route that is not the channel, and one
    // to no route at all.
    expect((await s.api(`/api/v1/ws?api_key=${secret}`)).status).toBe(426);
    for (const p of [`/api/v1/health?api_key=${secret}`, `/api/v1/nope?api_key=${secret}`]) {
      const ws = new WebSocket(`${s.url.replace('http', 'ws')}${p}`);
      await new Promise((r) => (ws.once('unexpected-response', r), ws.once('error', r)));
      ws.terminate();
    }
    good.send('{nope');
    await good.type('error');
    good.ws.close();
    await good.closed;
    // The log sink writes its batch every 250 ms: wait for the lines this test causes.
    const rows = await until(
      () => {
        const all = s.adam.db.prepare('SELECT message FROM logs').pluck().all() as string[];
        // Both lines: they may reach the table in different batches.
        return (
          all.some((m) => m.includes('Realtime connection refused: Invalid API key')) &&
          all.some((m) => m.includes('/api/v1/ws?api_key=[REDACTED] 426')) &&
          all
        );
      },
      { what: 'the refused connection and the redacted request in the logs table' },
    );
    expect(rows.filter((m) => m.includes(secret) || m.includes(key))).toEqual([]);
    // Proof that the URLs were logged at all, redacted.
    expect(rows.some((m) => m.includes('/api/v1/ws?api_key=[REDACTED] 426'))).toBe(true);
    expect(rows.some((m) => m.includes('Realtime connection refused: Invalid API key'))).toBe(true);
  });

  it('answers a malformed or unknown message with an error and stays open', async () => {
    await setup();
    const c = withKey();
    await c.type('initial_state');
    c.send('{not json');
    expect((await c.type('error')).message).toMatch(/Malformed message/);
    c.send({ type: 'launch_rockets' });
    expect((await c.type('error')).message).toBe("Unknown message type 'launch_rockets'");
    c.send([1, 2]);
    expect((await c.type('error')).message).toMatch(/Malformed message/);
    c.send({ type: 'request_update' });
    await c.type('stats_update');
    expect(c.ws.readyState).toBe(WebSocket.OPEN);
  });

  it('drops messages for a client that stops reading, stays responsive, and tells it later', async () => {
    await setup();
    const slow = withKey();
    const fast = withKey();
    await slow.type('initial_state');
    await fast.type('initial_state');
    const raw = (slow.ws as unknown as { _socket: { pause(): void; resume(): void } })._socket;
    raw.pause();

    const big = 'x'.repeat(8192);
    const n = 4000; // ~32 MB, well past what the kernel buffers of a loopback socket hold
    // In chunks, so the reading client (in this same process) gets to read in between.
    for (let i = 0; i < n; i++) {
      s.adam.bus.emit('job_progress', {
        job_id: 1,
        progress: i,
        stage: 'flood',
        stats: { big },
        segmentation_method: null,
        last_fallback_reason: null,
      });
      if (i % 20 === 19) await new Promise((r) => setTimeout(r, 2));
    }
    // Answered while the slow client's backlog is still unread: a send waiting on it would hang here.
    const health = await s.api('/api/v1/health');
    expect(health.body.components.realtime.details).toMatchObject({ clients: 2 });
    expect(health.body.components.realtime.details.messages_dropped).toBeGreaterThan(0);
    // The reading client got everything.
    await fast.next((m) => m.type === 'job_progress' && m.progress === n - 1);

    raw.resume();
    const notice = await slow.type('dropped');
    expect(notice.count).toBeGreaterThan(0);
    const got = () => slow.messages.filter((m) => m.type === 'job_progress').length;
    const dropped = () =>
      [notice, ...slow.messages.filter((m) => m.type === 'dropped')].reduce(
        (a, m) => a + (m.count as number),
        0,
      );
    // Every job_progress either arrives or is counted as dropped (with maybe a metrics tick).
    await until(() => got() + dropped() >= n, {
      what: () => `${n} job_progress received or dropped (${got()} + ${dropped()})`,
    });
    expect(got()).toBeLessThan(n);
    expect(fast.messages.some((m) => m.type === 'dropped')).toBe(false);
  });

  it('pushes metrics.update at the resources refresh period, re-read when it changes', async () => {
    await setup();
    const c = withKey();
    await c.type('initial_state');
    const period = async () =>
      (await s.api('/api/v1/health')).body.components.realtime.details.metrics_period_ms;
    // The timer's period, not a race against the clock: a loaded machine may deliver late.
    expect(await period()).toBe(DEFAULT_RESOURCES_SETTINGS.metrics_refresh_ms);
    const r = await s.api('/api/v1/admin/settings/resources', {
      method: 'PUT',
      key,
      body: { settings: { metrics_refresh_ms: 1000 } },
    });
    expect(r.status).toBe(200);
    await until(async () => (await period()) === 1000, { what: 'the 1 s metrics period' });
    const m = await c.type('metrics.update');
    expect(m).toMatchObject({ cpuUsage: expect.any(Number), memoryUsage: expect.any(Number) });
  });

  it('reports itself in /health and answers 426 to a plain GET', async () => {
    await setup();
    const c = withKey();
    await c.type('initial_state');
    const h = await s.api('/api/v1/health');
    expect(h.body.components.realtime).toMatchObject({
      status: 'healthy',
      details: { clients: 1, messages_sent: expect.any(Number), messages_dropped: 0 },
    });
    expect((await s.api('/api/v1/ws', { key })).status).toBe(426);
  });

  it('closes open sockets with 1001 when the server shuts down', async () => {
    await setup();
    const c = withKey();
    await c.type('initial_state');
    const closing = s.close();
    expect(await c.closed).toMatchObject({ code: 1001 });
    await closing;
    s = undefined as unknown as TestServer;
  });
});

describe('contract', () => {
  it('sends a real job’s life as messages that match the ServerMessage schema', async () => {
    await setup();
    const c = withKey();
    const seen: Msg[] = [];
    c.ws.on('message', (d) => seen.push(JSON.parse(String(d)) as Msg));
    await c.opened;
    await c.type('initial_state');
    const r = await s.api('/api/v1/playground/save-segments', {
      method: 'POST',
      key,
      body: { title: 'Contract', text: ARTICLES.databases, wait: true },
    });
    expect(r.body.status).toBe('completed');
    await c.type('job_completed');
    c.send({ type: 'request_update' });
    await c.type('stats_update');
    const all = seen;
    expect(all.map((m) => m.type)).toEqual(
      expect.arrayContaining([
        'initial_state',
        'job_created',
        'job_progress',
        'segment_progress',
        'job_completed',
        'stats_update',
      ]),
    );
    for (const m of all) {
      const parsed = ServerMessage.safeParse(m);
      expect(parsed.success, `${m.type}: ${JSON.stringify(parsed.error?.issues)}`).toBe(true);
    }
  });
});
