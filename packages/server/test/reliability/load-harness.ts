import { spawn, type ChildProcess } from 'node:child_process';
import { Agent, request } from 'undici';
import WebSocket from 'ws';
import { linkSharedModel, tempDir } from '../helpers.js';
import { spawnCli } from '../redis-helpers.js';
import { until } from '../until.js';

/**
 * What the load checks share: the server as a child process (so the load client never shares
 * its event loop), a hello-world node:http server answering the same client loop as the
 * same-run reference, a closed-loop load client with per-kind latencies, and idle sockets.
 */

export interface ServeChild {
  /** http://127.0.0.1:port */
  url: string;
  dataDir: string;
  /** An administrator's key, from a login. */
  key: string;
  proc: ChildProcess & { output: () => string };
  close: () => Promise<void>;
}

/** `adam serve` in its own process on a free port, logged in as the administrator. */
export async function startServeChild(
  env: Record<string, string> = {},
  dataDir = tempDir(),
): Promise<ServeChild> {
  linkSharedModel(dataDir);
  const proc = spawnCli(['serve'], {
    PORT: '0',
    ADAM_DATA_DIR: dataDir,
    ADAM_WORKERS: '1',
    ...env,
  });
  const exited = new Promise<void>((r) => proc.once('exit', () => r()));
  const port = await until(
    () => /listening on http:\/\/127\.0\.0\.1:(\d+)/.exec(proc.output())?.[1],
    { interval: 50, what: () => `the server to listen (${proc.output()})` },
  );
  const url = `http://127.0.0.1:${port}`;
  const login = await fetch(`${url}/api/v1/auth/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ email: 'admin@example.com', password: 'admin' }),
  });
  const key = ((await login.json()) as { api_key: string }).api_key;
  return {
    url,
    dataDir,
    key,
    proc,
    close: async () => {
      if (proc.exitCode !== null || proc.signalCode !== null) return;
      proc.kill('SIGTERM');
      const t = setTimeout(() => proc.kill('SIGKILL'), 10_000);
      await exited;
      clearTimeout(t);
    },
  };
}

/** The reference: a node:http server in its own process answering `{"status":"ok"}`. */
export async function startHelloWorld(): Promise<{ url: string; close: () => Promise<void> }> {
  const code = `
    const http = require('node:http');
    const body = JSON.stringify({ status: 'ok' });
    const srv = http.createServer((req, res) => {
      req.resume();
      req.on('end', () => {
        res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) });
        res.end(body);
      });
    });
    srv.keepAliveTimeout = 60000;
    srv.listen(0, '127.0.0.1', () => console.log('port ' + srv.address().port));`;
  const proc = spawn(process.execPath, ['-e', code], { stdio: ['ignore', 'pipe', 'inherit'] });
  let out = '';
  proc.stdout.on('data', (d) => (out += d));
  const exited = new Promise<void>((r) => proc.once('exit', () => r()));
  const port = await until(() => /port (\d+)/.exec(out)?.[1], {
    what: 'the hello-world server to listen',
  });
  return {
    url: `http://127.0.0.1:${port}`,
    close: async () => {
      proc.kill('SIGKILL');
      await exited;
    },
  };
}

export interface Call {
  kind: string;
  method?: 'GET' | 'POST' | 'PUT';
  path: string;
  body?: unknown;
  key?: string;
}

export interface CallResult {
  kind: string;
  status: number;
  ms: number;
  body: string;
}

/** Per-kind latencies and statuses of one run. */
export class LoadStats {
  readonly ms = new Map<string, number[]>();
  readonly statuses = new Map<string, Map<number, number>>();
  /** Answers that break the promise: a 5xx, a transport error, or SQLITE_BUSY in a body. */
  readonly bad: CallResult[] = [];
  count = 0;

  add(r: CallResult): void {
    this.count++;
    const list = this.ms.get(r.kind) ?? [];
    list.push(r.ms);
    this.ms.set(r.kind, list);
    const st = this.statuses.get(r.kind) ?? new Map<number, number>();
    st.set(r.status, (st.get(r.status) ?? 0) + 1);
    this.statuses.set(r.kind, st);
    if (r.status >= 500 || r.status === 0 || BUSY.test(r.body)) this.bad.push(r);
  }

  countStatus(status: number): number {
    let n = 0;
    for (const st of this.statuses.values()) n += st.get(status) ?? 0;
    return n;
  }

  /** "list p50 3 / p95 9 / p99 14 ms (n=812)" for each kind. */
  describe(): string {
    return [...this.ms].map(([kind, v]) => `${kind} ${percentiles(v)} (n=${v.length})`).join('; ');
  }
}

/** What SQLite says when a write waited too long for the lock: never to reach a client. */
export const BUSY = /SQLITE_BUSY|database is locked/i;

export function percentile(values: number[], p: number): number {
  if (!values.length) return NaN;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
}

export function percentiles(values: number[]): string {
  const f = (p: number) => percentile(values, p).toFixed(1);
  return `p50 ${f(50)} / p95 ${f(95)} / p99 ${f(99)} ms`;
}

/**
 * A closed loop: `clients` callers, each sending its next call as soon as the previous one
 * answered, until `durationMs` has passed (bounded in time and count, on loopback only).
 */
export async function closedLoop(opts: {
  base: string;
  clients: number;
  durationMs: number;
  next: (client: number, n: number) => Call;
  maxCalls?: number;
}): Promise<LoadStats> {
  const agent = new Agent({ connections: opts.clients, keepAliveTimeout: 30_000 });
  const stats = new LoadStats();
  const deadline = performance.now() + opts.durationMs;
  const maxCalls = opts.maxCalls ?? 1_000_000;
  let sent = 0;
  const one = async (call: Call): Promise<CallResult> => {
    const headers: Record<string, string> = {};
    if (call.key) headers['x-api-key'] = call.key;
    if (call.body !== undefined) headers['content-type'] = 'application/json';
    const t0 = performance.now();
    try {
      const res = await request(`${opts.base}${call.path}`, {
        method: call.method ?? 'GET',
        headers,
        body: call.body === undefined ? undefined : JSON.stringify(call.body),
        dispatcher: agent,
      });
      const body = await res.body.text();
      return { kind: call.kind, status: res.statusCode, ms: performance.now() - t0, body };
    } catch (e) {
      return {
        kind: call.kind,
        status: 0,
        ms: performance.now() - t0,
        body: String((e as Error).message),
      };
    }
  };
  await Promise.all(
    Array.from({ length: opts.clients }, async (_, c) => {
      for (let n = 0; performance.now() < deadline && sent < maxCalls; n++) {
        sent++;
        stats.add(await one(opts.next(c, n)));
      }
    }),
  );
  await agent.close();
  return stats;
}

/** `n` sequential GETs of `path`; their latencies in ms (each status must be 200). */
export async function sequentialGets(base: string, path: string, n: number): Promise<number[]> {
  const agent = new Agent({ connections: 1 });
  const out: number[] = [];
  try {
    for (let i = 0; i < n; i++) {
      const t0 = performance.now();
      const res = await request(`${base}${path}`, { dispatcher: agent });
      await res.body.text();
      if (res.statusCode !== 200) throw new Error(`${path} answered ${res.statusCode}`);
      out.push(performance.now() - t0);
    }
  } finally {
    await agent.close();
  }
  return out;
}

/**
 * Opens `count` authenticated realtime sockets that stay open and idle (their messages are read
 * by `ws` but not looked at), `concurrency` handshakes at a time.
 */
export async function openIdleSockets(
  url: string,
  key: string,
  count: number,
  concurrency = 50,
): Promise<WebSocket[]> {
  const wsUrl = `${url.replace(/^http/, 'ws')}/api/v1/ws`;
  const sockets: WebSocket[] = [];
  let next = 0;
  const openOne = () =>
    new Promise<WebSocket>((resolve, reject) => {
      const ws = new WebSocket(wsUrl, { headers: { 'x-api-key': key } });
      // The first message (initial_state) says the server accepted the key.
      ws.once('message', () => resolve(ws));
      ws.once('error', reject);
      ws.once('close', (code) => reject(new Error(`socket closed with ${code} while opening`)));
    });
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < count) {
        next++;
        sockets.push(await openOne());
      }
    }),
  );
  return sockets;
}

export async function closeSockets(sockets: WebSocket[]): Promise<void> {
  await Promise.all(
    sockets.map(
      (ws) =>
        new Promise<void>((resolve) => {
          if (ws.readyState === WebSocket.CLOSED) return resolve();
          ws.once('close', () => resolve());
          ws.terminate();
        }),
    ),
  );
}

const WORDS = (
  'river mountain harbour lantern orchard violin glacier meadow compass beacon quarry ' +
  'falcon cedar marble thunder saddle prism canyon ember willow'
).split(' ');

/** A short unique article: three sentences, so each save stores new rows. */
export function uniqueText(seed: number): string {
  const w = (i: number) => WORDS[(seed * 7 + i * 13) % WORDS.length]!;
  return (
    `Note ${seed} describes the ${w(1)} near the ${w(2)} and the ${w(3)} beyond it. ` +
    `Travellers who reach the ${w(4)} in spring often speak of the ${w(5)} and its ${w(6)}. ` +
    `Record ${seed} ends with a ${w(7)}, a ${w(8)} and a quiet ${w(9)} at dusk.`
  );
}

/**
 * The mixed load: listing, search, saves, settings reads and a login flood (wrong and right
 * passwords, from one address: the throttle's 429s are expected and counted apart).
 */
export function mixedCall(key: string): (client: number, n: number) => Call {
  return (client, n) => {
    const r = (client * 31 + n * 17) % 20;
    if (r < 6) return { kind: 'list', path: '/api/v1/snippets?limit=20', key };
    if (r < 11) {
      const query = `${WORDS[(client + n) % WORDS.length]} near the ${WORDS[n % WORDS.length]}`;
      return {
        kind: 'search',
        method: 'POST',
        path: '/api/v1/snippets/search',
        key,
        body: { query, k: 10 },
      };
    }
    if (r < 13) {
      return {
        kind: 'save',
        method: 'POST',
        path: '/api/v1/playground/save-segments',
        key,
        body: {
          title: `load ${client}-${n}`,
          language: 'en',
          text: uniqueText(client * 100_000 + n),
          wait: true,
        },
      };
    }
    if (r < 16) return { kind: 'settings', path: '/api/v1/admin/settings', key };
    const right = n % 5 === 0;
    return {
      kind: 'login',
      method: 'POST',
      path: '/api/v1/auth/login',
      body: {
        email: right || n % 2 ? 'admin@example.com' : `nobody${n}@example.com`,
        password: right ? 'admin' : `wrong-${n}`,
      },
    };
  };
}

/** Statuses a kind may answer under load; anything else counts as a failure. */
const EXPECTED: Record<string, readonly number[]> = {
  list: [200],
  search: [200],
  save: [200],
  settings: [200],
  hello: [200],
  login: [200, 401, 429],
};

export interface MixedLoadResult {
  server: LoadStats;
  reference: LoadStats;
  /** Calls that broke the promise: 5xx, transport errors, SQLITE_BUSY, unexpected statuses. */
  failures: CallResult[];
  figure: string;
}

/** Runs the mixed load on `server`, then the same client loop on a hello-world server. */
export async function mixedLoad(
  server: ServeChild,
  clients: number,
  durationMs: number,
): Promise<MixedLoadResult> {
  const loaded = await closedLoop({
    base: server.url,
    clients,
    durationMs,
    next: mixedCall(server.key),
  });
  const hello = await startHelloWorld();
  let reference: LoadStats;
  try {
    reference = await closedLoop({
      base: hello.url,
      clients,
      durationMs: Math.min(durationMs / 2, 5000),
      next: () => ({ kind: 'hello', path: '/' }),
    });
  } finally {
    await hello.close();
  }
  const failures = [...loaded.bad, ...reference.bad];
  for (const stats of [loaded, reference]) {
    for (const [kind, st] of stats.statuses) {
      for (const [status, n] of st) {
        if (!EXPECTED[kind]?.includes(status) && status < 500 && status !== 0) {
          failures.push(
            ...Array.from({ length: n }, () => ({
              kind,
              status,
              ms: 0,
              body: `unexpected ${status}`,
            })),
          );
        }
      }
    }
  }
  const fives = loaded.bad.filter((r) => r.status >= 500).length;
  const busy = loaded.bad.filter((r) => BUSY.test(r.body)).length;
  const figure =
    `${loaded.count} calls, ${fives} 5xx, ${busy} SQLITE_BUSY, ${loaded.countStatus(429)} login 429s; ` +
    `${loaded.describe()} (hello-world ${reference.describe()})`;
  return { server: loaded, reference, failures, figure };
}

export interface IdleSocketsResult {
  /** /health latencies with the sockets open, and with none (the same-run reference). */
  withSockets: number[];
  reference: number[];
  open: number;
  figure: string;
}

/** `count` idle authenticated sockets on `server`, and /health answering `calls` times meanwhile. */
export async function idleSockets(
  server: ServeChild,
  count: number,
  calls = 200,
): Promise<IdleSocketsResult> {
  const reference = await sequentialGets(server.url, '/api/v1/health', calls);
  const t0 = performance.now();
  const sockets = await openIdleSockets(server.url, server.key, count);
  const openedMs = performance.now() - t0;
  try {
    const withSockets = await sequentialGets(server.url, '/api/v1/health', calls);
    const open = sockets.filter((s) => s.readyState === WebSocket.OPEN).length;
    const p95 = percentile(withSockets, 95).toFixed(1);
    const ref = percentile(reference, 95).toFixed(1);
    const figure =
      `${open}/${count} sockets open (in ${Math.round(openedMs)} ms); ` +
      `/health p95 ${p95} ms over ${calls} calls (0 sockets: ${ref} ms)`;
    return { withSockets, reference, open, figure };
  } finally {
    await closeSockets(sockets);
  }
}
