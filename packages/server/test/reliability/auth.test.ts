/**
 * Auth promises (issue 13): throttling with Retry-After, one answer and one timing for unknown
 * users and wrong passwords, TOTP replay and drift, dead keys refused everywhere (open sockets
 * included), cookie flags, no change from a cross-site request, foreign-origin sockets refused,
 * no key or ticket in any log line, and the realtime ticket. Time moves on the server's
 * injected clock, never by waiting.
 */
import http from 'node:http';
import { Writable } from 'node:stream';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import { afterAll, afterEach, beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import WebSocket from 'ws';
import * as OTPAuth from 'otpauth';
import pino from 'pino';
import { DEFAULT_PASSWORD_HASH_COST } from '../../src/lib/password.js';
import { startServer, testClock, type TestServer } from '../helpers.js';
import { until } from '../until.js';
import { report } from './report.js';

/* eslint-disable @typescript-eslint/no-explicit-any */

const ADMIN = { email: 'admin@example.com', password: 'admin' };
const WRONG = { email: 'admin@example.com', password: 'wrong-password' };
const UNKNOWN = { email: 'nobody@example.com', password: 'wrong-password' };
const FOREIGN = 'http://evil.example';

const sockets: WebSocket[] = [];
afterEach(() => {
  for (const ws of sockets.splice(0)) ws.terminate();
});

/**
 * Three servers for the file (starting one costs seconds on a busy machine), each check on its
 * own addresses and moving the clock past what the checks before it left behind:
 * A default settings; P behind a trusted proxy; C debug logging, for the log scan.
 */
let A: TestServer;
let P: TestServer;
let C: TestServer;
beforeAll(async () => {
  [A, P, C] = await Promise.all([
    startServer({ clock: testClock() }),
    startServer({ clock: testClock(), env: { ADAM_TRUST_PROXY: 'loopback' } }),
    startServer({ clock: testClock(), env: { ADAM_LOG_LEVEL: 'debug' } }),
  ]);
});
afterAll(async () => {
  await Promise.all([A, P, C].filter(Boolean).map((s) => s.close()));
});

/** Moves past the login throttle's window: earlier checks' failures no longer count. */
const forgetFailures = (s: TestServer) =>
  s.clock.advance((s.config.loginThrottle.windowSeconds + 1) * 1000);

interface Answer {
  status: number;
  headers: http.IncomingHttpHeaders;
  text: string;
  body: any;
  ms: number;
}

/** One request from a chosen loopback address (all of 127/8 reaches the server), timed. */
function request(
  s: TestServer,
  p: string,
  opts: {
    method?: string;
    from?: string;
    headers?: Record<string, string>;
    body?: unknown;
    raw?: string | Buffer;
  } = {},
): Promise<Answer> {
  const headers: Record<string, string> = { ...opts.headers };
  let payload: string | Buffer | undefined = opts.raw;
  if (opts.body !== undefined) {
    headers['content-type'] = 'application/json';
    payload = JSON.stringify(opts.body);
  }
  const started = performance.now();
  return new Promise((resolve, reject) => {
    const req = http.request(
      `${s.url}${p}`,
      { method: opts.method ?? 'GET', localAddress: opts.from, headers },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (c: string) => (text += c));
        res.on('end', () => {
          let body: unknown = text;
          try {
            body = text ? JSON.parse(text) : null;
          } catch {
            // not JSON
          }
          resolve({
            status: res.statusCode ?? 0,
            headers: res.headers,
            text,
            body,
            ms: performance.now() - started,
          });
        });
      },
    );
    req.on('error', reject);
    req.end(payload);
  });
}

const loginFrom = (s: TestServer, from: string, body: unknown, headers?: Record<string, string>) =>
  request(s, '/api/v1/auth/login', { method: 'POST', from, body, headers });

/** A realtime socket that keeps its messages and its close. */
class Sock {
  readonly ws: WebSocket;
  readonly messages: any[] = [];
  /** 'open', or the HTTP status that refused the upgrade. */
  readonly opened: Promise<'open' | number>;
  readonly closed: Promise<{ code: number; reason: string }>;

  constructor(s: TestServer, query = '', headers: Record<string, string> = {}) {
    this.ws = new WebSocket(`${s.url.replace('http', 'ws')}/api/v1/ws${query}`, { headers });
    sockets.push(this.ws);
    this.opened = new Promise((resolve, reject) => {
      this.ws.once('open', () => resolve('open'));
      this.ws.once('unexpected-response', (req, res) => {
        resolve(res.statusCode ?? 0);
        req.destroy();
      });
      this.ws.once('error', reject);
    });
    this.closed = new Promise((resolve) =>
      this.ws.once('close', (code, reason) => resolve({ code, reason: reason.toString() })),
    );
    this.ws.on('message', (data) => this.messages.push(JSON.parse(String(data))));
  }

  /** Resolves once initial_state came (the socket was accepted), or rejects on close. */
  async ready(): Promise<void> {
    await Promise.race([
      until(() => this.messages.some((m) => m.type === 'initial_state'), {
        what: 'initial_state',
      }),
      this.closed.then((c) => {
        throw new Error(`closed ${c.code} ${c.reason}`);
      }),
    ]);
  }

  /** The close code within 5 s, or 'open' if it stayed open. */
  async closeCode(): Promise<number | 'open'> {
    const t = new Promise<'open'>((r) => setTimeout(() => r('open'), 5000).unref());
    const c = await Promise.race([this.closed, t]);
    return c === 'open' ? c : c.code;
  }
}

const ticketFor = async (s: TestServer, key: string) => {
  const r = await s.api('/api/v1/auth/ws-ticket', { method: 'POST', key });
  if (r.status !== 200) throw new Error(`ws-ticket: ${r.status} ${JSON.stringify(r.body)}`);
  return r.body.ticket as string;
};

const median = (xs: number[]) => {
  const v = [...xs].sort((a, b) => a - b);
  const m = Math.floor(v.length / 2);
  return v.length % 2 ? v[m]! : (v[m - 1]! + v[m]!) / 2;
};

describe('auth: throttling', () => {
  it('refuses with 429 and a Retry-After that is exactly when the next attempt is accepted, per account+address and per address', async () => {
    const s = A;
    forgetFailures(s);
    const failures: string[] = [];
    let runs = 0;
    const want = (what: string, got: number, expected: number) => {
      runs++;
      if (got !== expected) failures.push(`${what}: ${got}, expected ${expected}`);
    };

    // Per (account, address): 5 failures, then even the right password waits.
    // Sent together: each is counted before its password is checked.
    const together = async (what: string, n: number, send: (i: number) => Promise<Answer>) => {
      for (const r of await Promise.all(Array.from({ length: n }, (_, i) => send(i))))
        want(what, r.status, 401);
    };
    await together('pair failure', 5, () => loginFrom(s, '127.0.0.2', WRONG));
    const pair = await loginFrom(s, '127.0.0.2', ADMIN);
    want('pair throttled', pair.status, 429);
    const pairWait = Number(pair.headers['retry-after']);
    runs++;
    if (!(Number.isInteger(pairWait) && pairWait > 0))
      failures.push(`Retry-After ${pair.headers['retry-after']}`);
    // Not locked out from elsewhere: the throttle never refuses an account as a whole.
    want('other address', (await loginFrom(s, '127.0.0.3', ADMIN)).status, 200);
    s.clock.advance((pairWait - 1) * 1000);
    const early = await loginFrom(s, '127.0.0.2', ADMIN);
    want('pair 1 s early', early.status, 429);
    want('pair Retry-After 1 s early', Number(early.headers['retry-after']), 1);
    s.clock.advance(1000);
    want('pair at Retry-After', (await loginFrom(s, '127.0.0.2', ADMIN)).status, 200);

    // Per address, across e-mails (one failure each: no e-mail reaches its own limit).
    await together('address failure', 20, (i) =>
      loginFrom(s, '127.0.0.4', { email: `user${i}@example.com`, password: 'x' }),
    );
    const addr = await loginFrom(s, '127.0.0.4', ADMIN);
    want('address throttled', addr.status, 429);
    const addrWait = Number(addr.headers['retry-after']);
    want('address not locking others', (await loginFrom(s, '127.0.0.5', ADMIN)).status, 200);
    s.clock.advance((addrWait - 1) * 1000);
    want('address 1 s early', (await loginFrom(s, '127.0.0.4', ADMIN)).status, 429);
    s.clock.advance(1000);
    want('address at Retry-After', (await loginFrom(s, '127.0.0.4', ADMIN)).status, 200);

    // X-Forwarded-For is not believed without ADAM_TRUST_PROXY: it cannot spread an attack.
    await together('spoofed XFF failure', 5, (i) =>
      loginFrom(s, '127.0.0.6', WRONG, { 'x-forwarded-for': `198.51.100.${i}` }),
    );
    const spoofed = await loginFrom(s, '127.0.0.6', ADMIN, { 'x-forwarded-for': '198.51.100.99' });
    want('spoofed XFF still throttled', spoofed.status, 429);

    // Behind a trusted proxy, the client it names is what is counted.
    forgetFailures(P);
    const via = (client: string, body: unknown) =>
      loginFrom(P, '127.0.0.2', body, { 'x-forwarded-for': client });
    await together('proxied failure', 5, () => via('203.0.113.5', WRONG));
    want('proxied client throttled', (await via('203.0.113.5', ADMIN)).status, 429);
    want('other proxied client', (await via('203.0.113.6', ADMIN)).status, 200);

    report({
      check: 'auth: login throttle + Retry-After',
      runs,
      failures: failures.length,
      figure: `account+address: Retry-After ${pairWait} s, refused at ${pairWait - 1} s, accepted at ${pairWait} s; address: Retry-After ${addrWait} s, same; spoofed XFF ignored`,
    });
    expect(failures).toEqual([]);
  });
});

describe('auth: unknown user vs wrong password', () => {
  it('answers both the same, in the same time', async () => {
    // At the default hashing cost, as served: scrypt is then most of a login's time, as in
    // production. At the tests' cheap cost the comparison would measure the machine's noise.
    const s = await startServer({
      clock: testClock(),
      env: { ADAM_PASSWORD_HASH_COST: String(DEFAULT_PASSWORD_HASH_COST) },
    });
    onTestFinished(() => s.close());
    const N = 8;
    const times = { unknown: [] as number[], wrong: [] as number[] };
    const answers: Record<'unknown' | 'wrong', Answer[]> = { unknown: [], wrong: [] };
    // A warm-up each (the dummy hash is computed on first use), then interleaved pairs; the
    // clock moves past the throttle window after each so no limit or delay ever applies.
    for (let i = -1; i < N; i++) {
      for (const which of ['unknown', 'wrong'] as const) {
        const r = await loginFrom(s, '127.0.0.2', which === 'unknown' ? UNKNOWN : WRONG);
        s.clock.advance((s.config.loginThrottle.windowSeconds + 1) * 1000);
        if (i < 0) continue;
        times[which].push(r.ms);
        answers[which].push(r);
      }
    }
    const shape = (a: Answer) => {
      const { date: _date, ...headers } = a.headers;
      return JSON.stringify({ status: a.status, text: a.text, headers });
    };
    const shapes = new Set([...answers.unknown, ...answers.wrong].map(shape));
    const u = median(times.unknown);
    const w = median(times.wrong);
    // The median of each pair's ratio: the pair ran back to back, under the same load.
    const ratio = median(times.unknown.map((t, i) => t / times.wrong[i]!));
    const failures = (shapes.size === 1 ? 0 : 1) + (ratio >= 0.67 && ratio <= 1.5 ? 0 : 1);
    report({
      check: 'auth: unknown user vs wrong password',
      runs: 2 * N,
      failures,
      figure: `same answer ${shapes.size === 1 ? 'yes' : 'NO'}; unknown/wrong median ${u.toFixed(0)}/${w.toFixed(0)} ms (pair ratio median ${ratio.toFixed(2)}, bounds 0.67-1.5)`,
    });
    expect([...shapes]).toHaveLength(1);
    expect(answers.unknown[0]!.status).toBe(401);
    expect(ratio).toBeGreaterThanOrEqual(0.67);
    expect(ratio).toBeLessThanOrEqual(1.5);
  });
});

describe('auth: cookie flags', () => {
  it('sets HttpOnly, SameSite=Strict, Path=/api on login, refresh and logout, and Secure exactly when served over https', async () => {
    const [plain, proxied] = [A, P];
    forgetFailures(plain);
    forgetFailures(proxied);
    const failures: string[] = [];
    let runs = 0;
    const https = { 'x-forwarded-proto': 'https' };
    const cases: [string, TestServer, Record<string, string>, boolean][] = [
      ['plain http', plain, {}, false],
      ['untrusted X-Forwarded-Proto', plain, https, false],
      ['trusted proxy, http', proxied, {}, false],
      ['trusted proxy, https', proxied, https, true],
    ];
    for (const [name, s, headers, secure] of cases) {
      const login = await request(s, '/api/v1/auth/login', {
        method: 'POST',
        body: ADMIN,
        headers,
      });
      const key = login.body.api_key as string;
      const refresh = await request(s, '/api/v1/auth/refresh', {
        method: 'POST',
        headers: { ...headers, 'x-api-key': key },
      });
      const logout = await request(s, '/api/v1/auth/logout', {
        method: 'POST',
        headers: { ...headers, 'x-api-key': refresh.body.api_key },
      });
      for (const [call, r] of [
        ['login', login],
        ['refresh', refresh],
        ['logout', logout],
      ] as const) {
        runs++;
        const cookie = String(r.headers['set-cookie'] ?? '');
        const flags = cookie.split(';').map((f) => f.trim().toLowerCase());
        const ok =
          cookie.startsWith('adam_api_key=') &&
          flags.includes('httponly') &&
          flags.includes('samesite=strict') &&
          flags.includes('path=/api') &&
          flags.includes('secure') === secure;
        if (!ok) failures.push(`${name} ${call}: ${cookie}`);
      }
    }
    report({
      check: 'auth: cookie flags',
      runs,
      failures: failures.length,
      figure: `HttpOnly+SameSite=Strict+Path=/api on ${runs} cookies; Secure on https only (2 cases × 3 calls)`,
    });
    expect(failures).toEqual([]);
  });
});

describe('auth: TOTP', () => {
  it('refuses a replayed code (login, enable, disable) and accepts exactly one step of drift', async () => {
    const s = A;
    forgetFailures(s);
    const clock = s.clock;
    // Mid-step, so "the previous step" is 30 s back whatever the rounding.
    clock.advance(30_000 + ((45_000 - (clock.now() % 30_000)) % 30_000));
    const key = await s.login();
    const outcomes: { what: string; got: number; want: number }[] = [];
    const check = (what: string, got: number, want: number) => outcomes.push({ what, got, want });
    const totp = (secret: string) =>
      new OTPAuth.TOTP({
        secret: OTPAuth.Secret.fromBase32(secret),
        digits: 6,
        period: 30,
        algorithm: 'SHA1',
      });
    const code = (secret: string, offsetSteps = 0) =>
      totp(secret).generate({ timestamp: clock.now() + offsetSteps * 30_000 });
    const post = (p: string, body?: unknown) => s.api(p, { method: 'POST', key, body });
    const login = (totp_code: string) =>
      loginFrom(s, '127.0.0.2', { ...ADMIN, totp_code }).then((r) => r.status);

    const secret = (await post('/api/v1/auth/2fa/setup')).body.secret as string;
    const first = code(secret);
    check('enable', (await post('/api/v1/auth/2fa/enable', { code: first })).status, 200);
    check(
      'disable replaying the enable code',
      (await post('/api/v1/auth/2fa/disable', { code: first })).status,
      401,
    );
    check('login replaying the enable code', await login(first), 401);

    clock.advance(90_000);
    check('login 2 steps back', await login(code(secret, -2)), 401);
    check('login 2 steps ahead', await login(code(secret, 2)), 401);
    const back = code(secret, -1);
    check('login 1 step back', await login(back), 200);
    check('login replay', await login(back), 401);
    const ahead = code(secret, 1);
    check('login 1 step ahead', await login(ahead), 200);
    check('login replay', await login(ahead), 401);
    check(
      'disable replaying a login code',
      (await post('/api/v1/auth/2fa/disable', { code: ahead })).status,
      401,
    );

    clock.advance(150_000);
    const now = code(secret);
    check('disable', (await post('/api/v1/auth/2fa/disable', { code: now })).status, 200);
    const secret2 = (await post('/api/v1/auth/2fa/setup')).body.secret as string;
    // The step is burnt for the account, whatever the secret.
    check(
      'enable in a used step',
      (await post('/api/v1/auth/2fa/enable', { code: code(secret2) })).status,
      401,
    );
    clock.advance(30_000);
    check(
      'enable next step',
      (await post('/api/v1/auth/2fa/enable', { code: code(secret2) })).status,
      200,
    );

    const bad = outcomes.filter((o) => o.got !== o.want);
    const replays = outcomes.filter((o) => /replay|used step/.test(o.what));
    report({
      check: 'auth: TOTP replay and drift window',
      runs: outcomes.length,
      failures: bad.length,
      figure: `±1 step accepted, ±2 refused; ${replays.filter((o) => o.got === 401).length}/${replays.length} replays refused`,
    });
    expect(bad).toEqual([]);
  });
});

describe('auth: secrets in logs', () => {
  it('never writes a key, a ticket or a password to the logs table or the server output', async () => {
    const s = C;
    // Every line pino writes, as JSON, beside the logs table and stdout.
    const raw: string[] = [];
    const stream = (s.adam.log as any)[pino.symbols.streamSym] as {
      add: (d: { level: string; stream: Writable }) => void;
    };
    stream.add({
      level: 'debug',
      stream: new Writable({
        write(chunk: Buffer, _enc, done) {
          raw.push(String(chunk));
          done();
        },
      }),
    });

    const secrets: string[] = [];
    const wrongPassword = `Wrong-${Date.now()}-pass`;
    secrets.push(wrongPassword);
    await s.api('/api/v1/auth/login', {
      method: 'POST',
      body: { ...ADMIN, password: wrongPassword },
    });
    const key = await s.login();
    secrets.push(key);
    const refreshed = await s.api('/api/v1/auth/refresh', { method: 'POST', key });
    const key2 = refreshed.body.api_key as string;
    secrets.push(key2);
    const forged = `adam_${'Z'.repeat(43)}`;
    secrets.push(forged);
    await s.api('/api/v1/auth/me', { key: forged });
    await s.api('/api/v1/auth/me', { key }); // the rotated one
    await s.api(`/api/v1/nope?api_key=${key2}`);

    const byKey = new Sock(s, `?api_key=${encodeURIComponent(key2)}`);
    await byKey.ready();
    await new Sock(s, `?api_key=${forged}`).closed;
    const ticket = await ticketFor(s, key2);
    secrets.push(ticket);
    const byTicket = new Sock(s, `?ticket=${ticket}`);
    await byTicket.ready();
    await new Sock(s, `?ticket=${ticket}`).closed; // reused
    const spare = await ticketFor(s, key2);
    secrets.push(spare);
    await s.api(`/api/v1/ws?ticket=${spare}`); // a plain GET: 426
    await s.api(`/api/v1/nope?ticket=${spare}&api_key=${key2}`);
    await new Sock(s, `?ticket=${spare}`, { origin: FOREIGN }).opened; // 403
    byKey.ws.send('{nope');
    await until(() => byKey.messages.some((m) => m.type === 'error'), { what: 'error message' });
    await s.api('/api/v1/auth/logout', { method: 'POST', key: key2 });
    await byKey.closed;

    // The sink writes its batch every 250 ms: wait for the last action's line.
    const table = await until(
      () => {
        const all = s.adam.db.prepare('SELECT message FROM logs').pluck().all() as string[];
        return all.some((m) => m.includes('logged out')) && all;
      },
      { what: 'the logout line in the logs table' },
    );
    const lines = [...table, ...raw];
    const hits = lines.filter((line) => secrets.some((x) => line.includes(x)));
    report({
      check: 'auth: no key/ticket/password in logs',
      runs: lines.length,
      failures: hits.length,
      figure: `${hits.length} hits for ${secrets.length} secrets in ${lines.length} log lines (table ${table.length} + pino ${raw.length})`,
    });
    expect(hits).toEqual([]);
    // The lines were written at all: the redacted URLs and the refusals are there.
    expect(raw.some((l) => l.includes('ticket=[REDACTED]'))).toBe(true);
    expect(
      table.some((m) => m.includes('Realtime connection refused: Invalid or expired ticket')),
    ).toBe(true);
    expect(table.some((m) => m.includes('api_key=[REDACTED]'))).toBe(true);
  });
});
/** Every table but the log lines, hashed: a change anywhere in the store shows. */
function storeSnapshot(s: TestServer): Record<string, string> {
  const tables = s.adam.db
    .prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'")
    .pluck()
    .all() as string[];
  const out: Record<string, string> = {};
  for (const t of tables) {
    // Log lines (and their search index) are written by the requests themselves; the machine's
    // metrics are sampled on a timer.
    if (t === 'logs' || t.startsWith('logs_') || t === 'metrics_history') continue;
    // The audit trail records every refused call (its chain head moves with it): only an
    // entry for a call that went through is a change.
    if (t === 'audit_chain') continue;
    const rows = s.adam.db
      .prepare(`SELECT * FROM "${t}"${t === 'audit_log' ? " WHERE outcome = 'ok'" : ''}`)
      .all();
    out[t] = createHash('sha256').update(JSON.stringify(rows)).digest('hex').slice(0, 12);
  }
  const files = fs
    .readdirSync(s.dataDir, { recursive: true })
    .map(String)
    .filter((f) => !/\.db-(wal|shm)$|^logs?\//.test(f))
    .sort();
  out['data dir files'] = files.join(',');
  return out;
}

describe('auth: cross-site requests', () => {
  let s: TestServer;
  let key: string;
  beforeAll(async () => {
    s = C;
    key = await s.login();
  });

  it('changes nothing from any write operation sent as a form or text/plain with only the cookie', async () => {
    const doc = (await s.api('/api/docs/json')).body as {
      paths: Record<string, Record<string, unknown>>;
    };
    const writes: [string, string][] = [];
    for (const [p, ops] of Object.entries(doc.paths)) {
      for (const method of Object.keys(ops)) {
        if (['post', 'put', 'patch', 'delete'].includes(method))
          writes.push([method.toUpperCase(), p.replace(/\{[^}]+\}/g, '1')]);
      }
    }
    // Something for the writes to act on: a rule and a snippet with id 1.
    await s.api('/api/v1/admin/rules', {
      method: 'POST',
      key,
      body: { name: 'r', pattern: 'example.com', type: 'include' },
    });
    await s.api('/api/v1/playground/save-segments', {
      method: 'POST',
      key,
      body: { title: 'T', language: 'en', text: 'A short sentence about volcanoes.', wait: true },
    });
    await s.api('/api/v1/auth/me', { key });
    const before = storeSnapshot(s);

    const boundary = '----adam-cross-site';
    const forms: [string, string, string][] = [
      ['text/plain', 'text/plain', '{"email":"a@b.c","password":"x","settings":{}}'],
      ['urlencoded', 'application/x-www-form-urlencoded', 'a=1&settings=x'],
      [
        'multipart',
        `multipart/form-data; boundary=${boundary}`,
        `--${boundary}\r\nContent-Disposition: form-data; name="a"\r\n\r\n1\r\n--${boundary}--\r\n`,
      ],
    ];
    const origins: [string, string | undefined][] = [
      ['foreign', FOREIGN],
      ['null', 'null'],
      ['none', undefined],
    ];
    const accepted: string[] = [];
    let runs = 0;
    for (const [method, p] of writes) {
      for (const [form, type, raw] of forms) {
        for (const [originName, origin] of origins) {
          const headers: Record<string, string> = {
            cookie: `adam_api_key=${key}`,
            'content-type': type,
          };
          if (origin) headers.origin = origin;
          const r = await request(s, p, { method, headers, raw });
          runs++;
          if (r.status < 400 || r.status >= 500)
            accepted.push(`${method} ${p} ${form} origin=${originName}: ${r.status}`);
        }
      }
    }
    const after = storeSnapshot(s);
    const changed = Object.keys(before).filter((t) => before[t] !== after[t]);
    report({
      check: 'auth: cross-site writes with the cookie',
      runs: runs + 1,
      failures: accepted.length + (changed.length ? 1 : 0),
      figure: `${accepted.length} accepted / ${writes.length} writes × ${forms.length} forms × ${origins.length} origins; ${changed.length} tables changed`,
    });
    expect(writes.length).toBeGreaterThan(20);
    expect(accepted).toEqual([]);
    expect(changed).toEqual([]);
    // The cookie still works: the requests were refused, not the session.
    expect(
      (await s.api('/api/v1/auth/me', { headers: { cookie: `adam_api_key=${key}` } })).status,
    ).toBe(200);
  });

  it('refuses socket upgrades from a foreign origin or Origin: null, with cookie, key or ticket', async () => {
    const refused: string[] = [];
    let runs = 0;
    for (const origin of [FOREIGN, 'null']) {
      const ticket = await ticketFor(s, key);
      const ways: [string, string, Record<string, string>][] = [
        ['cookie', '', { cookie: `adam_api_key=${key}` }],
        ['?api_key=', `?api_key=${encodeURIComponent(key)}`, {}],
        ['X-API-Key', '', { 'x-api-key': key }],
        ['?ticket=', `?ticket=${ticket}`, {}],
      ];
      for (const [how, query, headers] of ways) {
        runs++;
        const got = await new Sock(s, query, { ...headers, origin }).opened;
        if (got !== 403) refused.push(`${origin} ${how}: ${got}`);
      }
      // The refused upgrade did not spend the ticket: it still opens from the console's origin.
      runs++;
      const own = new Sock(s, `?ticket=${ticket}`, { origin: s.url });
      await own.ready().catch((e: Error) => refused.push(`own origin after refusal: ${e.message}`));
    }
    report({
      check: 'auth: foreign-origin WebSocket handshakes',
      runs,
      failures: refused.length,
      figure: `${runs - 2 - refused.length}/${runs - 2} foreign/null-origin upgrades refused 403 (cookie, ?api_key=, header, ticket)`,
    });
    expect(refused).toEqual([]);
  });
});

describe('auth: realtime ticket', () => {
  it('opens one socket once, within 30 s, and that socket dies with its key', async () => {
    const s = C;
    const key = await s.login();
    const outcomes: { what: string; ok: boolean }[] = [];
    const expectClose = async (what: string, sock: Sock) => {
      const code = await sock.closeCode();
      outcomes.push({ what: `${what} (${code})`, ok: code === 4401 && sock.messages.length === 0 });
    };

    const r = await s.api('/api/v1/auth/ws-ticket', { method: 'POST', key });
    outcomes.push({
      what: 'ticket shape',
      ok: r.status === 200 && /^adamt_[\w-]{43}$/.test(r.body.ticket) && r.body.expires_in === 30,
    });
    const first = new Sock(s, `?ticket=${r.body.ticket}`);
    await first.ready().then(
      () => outcomes.push({ what: 'first use', ok: true }),
      (e: Error) => outcomes.push({ what: `first use: ${e.message}`, ok: false }),
    );
    await expectClose('reused', new Sock(s, `?ticket=${r.body.ticket}`));
    await expectClose('unknown', new Sock(s, `?ticket=adamt_${'A'.repeat(43)}`));
    await expectClose('empty', new Sock(s, '?ticket=', { cookie: `adam_api_key=${key}` }));

    const late = await ticketFor(s, key);
    s.clock.advance(30_000);
    await expectClose('expired', new Sock(s, `?ticket=${late}`));
    const inTime = await ticketFor(s, key);
    s.clock.advance(29_000);
    const second = new Sock(s, `?ticket=${inTime}`);
    await second.ready().then(
      () => outcomes.push({ what: 'used at 29 s', ok: true }),
      (e: Error) => outcomes.push({ what: `used at 29 s: ${e.message}`, ok: false }),
    );

    // Asking for a ticket: the key in the header, or the cookie with the console's header.
    const viaCookie = await s.api('/api/v1/auth/ws-ticket', {
      method: 'POST',
      headers: { cookie: `adam_api_key=${key}`, 'x-requested-with': 'adam-console' },
    });
    outcomes.push({ what: 'cookie + console header', ok: viaCookie.status === 200 });
    const cookieOnly = await s.api('/api/v1/auth/ws-ticket', {
      method: 'POST',
      headers: { cookie: `adam_api_key=${key}` },
    });
    outcomes.push({ what: `cookie alone ${cookieOnly.status}`, ok: cookieOnly.status === 403 });
    const none = await s.api('/api/v1/auth/ws-ticket', { method: 'POST' });
    outcomes.push({ what: `no key ${none.status}`, ok: none.status === 401 });

    await s.api('/api/v1/auth/logout', { method: 'POST', key });
    for (const [what, sock] of [
      ['first socket after logout', first],
      ['second socket after logout', second],
    ] as const) {
      const code = await sock.closeCode();
      outcomes.push({ what: `${what} (${code})`, ok: code === 4401 });
    }

    const bad = outcomes.filter((o) => !o.ok);
    report({
      check: 'auth: realtime ticket',
      runs: outcomes.length,
      failures: bad.length,
      figure: `256-bit, 30 s, single use: ${outcomes.length - bad.length}/${outcomes.length} (reused/expired/unknown → 4401; logout closes ticket sockets)`,
    });
    expect(bad).toEqual([]);
  });
});

describe('auth: dead keys', () => {
  it('refuses a revoked, rotated, expired or password-changed key everywhere and closes its open sockets with 4401', async () => {
    // Last on C: it moves the clock a day on and changes the password.
    const s = C;
    let password = ADMIN.password;
    const causes: [string, (key: string) => Promise<void>][] = [
      ['logout', async (key) => void (await s.api('/api/v1/auth/logout', { method: 'POST', key }))],
      [
        'refresh',
        async (key) => void (await s.api('/api/v1/auth/refresh', { method: 'POST', key })),
      ],
      ['expiry', async () => s.clock.advance((s.config.apiKeyTtlSeconds + 1) * 1000)],
      [
        'password change',
        async () => {
          // Another session of the same user changes the password: this one ends.
          const other = await s.login(ADMIN.email, password);
          const next = `new-password-${Date.now()}`;
          const r = await s.api('/api/v1/auth/password', {
            method: 'POST',
            key: other,
            body: { current_password: password, new_password: next },
          });
          if (r.status !== 204) throw new Error(`password change: ${r.status}`);
          password = next;
        },
      ],
    ];
    const failures: string[] = [];
    let runs = 0;
    let socketsClosed = 0;
    let socketsOpened = 0;
    for (const [cause, kill] of causes) {
      const key = await s.login(ADMIN.email, password);
      const cookie = { cookie: `adam_api_key=${key}` };
      const open = {
        api_key: new Sock(s, `?api_key=${encodeURIComponent(key)}`),
        header: new Sock(s, '', { 'x-api-key': key }),
        cookie: new Sock(s, '', cookie),
        ticket: new Sock(s, `?ticket=${await ticketFor(s, key)}`),
      };
      for (const sock of Object.values(open)) await sock.ready();
      socketsOpened += 4;
      const unusedTicket = await ticketFor(s, key);
      await kill(key);
      // Expiry has no event: the socket learns it on its next message (or the periodic check).
      for (const sock of Object.values(open)) sock.ws.send('{"type":"request_update"}');
      for (const [how, sock] of Object.entries(open)) {
        runs++;
        const code = await sock.closeCode();
        if (code === 4401) socketsClosed++;
        else failures.push(`${cause}: open ${how} socket ${code}`);
      }
      const http = {
        header: await s.api('/api/v1/auth/me', { key }),
        cookie: await s.api('/api/v1/auth/me', { headers: cookie }),
        'ticket request': await s.api('/api/v1/auth/ws-ticket', { method: 'POST', key }),
      };
      for (const [how, r] of Object.entries(http)) {
        runs++;
        if (r.status !== 401) failures.push(`${cause}: ${how} answered ${r.status}`);
      }
      const handshakes = {
        api_key: new Sock(s, `?api_key=${encodeURIComponent(key)}`),
        header: new Sock(s, '', { 'x-api-key': key }),
        cookie: new Sock(s, '', cookie),
        'ticket issued before': new Sock(s, `?ticket=${unusedTicket}`),
      };
      for (const [how, sock] of Object.entries(handshakes)) {
        runs++;
        const code = await sock.closeCode();
        if (code !== 4401) failures.push(`${cause}: new ${how} socket ${code}`);
        if (sock.messages.length) failures.push(`${cause}: ${how} socket got messages`);
      }
    }
    report({
      check: 'auth: revoked/rotated/expired/password-changed key refused',
      runs,
      failures: failures.length,
      figure: `0 accepted of ${runs - socketsOpened} uses of dead keys; ${socketsClosed}/${socketsOpened} open sockets closed 4401`,
    });
    expect(failures).toEqual([]);
  });
});
