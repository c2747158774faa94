import http from 'node:http';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import * as OTPAuth from 'otpauth';
import { startServer, type TestServer } from './helpers.js';
import { until } from './until.js';

let s: TestServer;
const login = (body: unknown) => s.api('/api/v1/auth/login', { method: 'POST', body });

interface TimedAnswer {
  status: number;
  body: any; // eslint-disable-line @typescript-eslint/no-explicit-any
  retryAfter: string | undefined;
  ms: number;
}

/** Logs in from another loopback address (all of 127/8 reaches the server), timing the answer. */
function loginFrom(localAddress: string, body: unknown): Promise<TimedAnswer> {
  const started = performance.now();
  return new Promise((resolve, reject) => {
    const req = http.request(
      `${s.url}/api/v1/auth/login`,
      { method: 'POST', localAddress, headers: { 'content-type': 'application/json' } },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (c: string) => (text += c));
        res.on('end', () =>
          resolve({
            status: res.statusCode ?? 0,
            body: JSON.parse(text),
            retryAfter: res.headers['retry-after'],
            ms: performance.now() - started,
          }),
        );
      },
    );
    req.on('error', reject);
    req.end(JSON.stringify(body));
  });
}
const ADMIN = { email: 'admin@example.com', password: 'admin' };
const WRONG = { email: 'admin@example.com', password: 'wrong' };

beforeEach(async () => {
  s = await startServer();
});
afterEach(async () => {
  await s.close();
});

describe('login', () => {
  it('answers a key, the user and an HttpOnly SameSite=Strict cookie for the default admin', async () => {
    const r = await login({ email: 'admin@example.com', password: 'admin' });
    expect(r.status).toBe(200);
    expect(r.body.requires_2fa).toBe(false);
    expect(r.body.api_key).toMatch(/^adam_[\w-]{43}$/);
    expect(r.body.user).toEqual({
      email: 'admin@example.com',
      name: 'Administrator',
      totp_enabled: false,
      role: 'administrator',
      must_change_password: false,
    });
    const cookie = r.headers.get('set-cookie') ?? '';
    expect(cookie).toContain(`adam_api_key=${r.body.api_key}`);
    expect(cookie).toMatch(/HttpOnly/i);
    expect(cookie).toMatch(/SameSite=Strict/i);
  });

  it('treats the e-mail case-insensitively', async () => {
    expect((await login({ email: 'Admin@Example.com', password: 'admin' })).status).toBe(200);
  });

  it('answers 401 Invalid credentials for a wrong password or an unknown e-mail', async () => {
    for (const body of [
      { email: 'admin@example.com', password: 'wrong' },
      { email: 'nobody@example.com', password: 'admin' },
    ]) {
      const r = await login(body);
      expect(r.status).toBe(401);
      expect(r.body).toEqual({ detail: 'Invalid credentials' });
    }
  });

  it('answers 422 naming the fields for missing, malformed or mistyped input', async () => {
    const missing = await login({});
    expect(missing.status).toBe(422);
    expect(missing.body.errors.map((e: { field: string }) => e.field).sort()).toEqual([
      'email',
      'password',
    ]);

    const badEmail = await login({ email: 'not-an-email', password: 'x' });
    expect(badEmail.status).toBe(422);
    expect(badEmail.body.detail).toContain('email');

    const wrongType = await login({ email: 'admin@example.com', password: 42 });
    expect(wrongType.status).toBe(422);
    expect(wrongType.body.errors[0].field).toBe('password');

    const badCode = await login({
      email: 'admin@example.com',
      password: 'admin',
      totp_code: '12ab',
    });
    expect(badCode.status).toBe(422);
    expect(badCode.body.errors[0].field).toBe('totp_code');
  });

  it('answers 400 with a detail for a body that is not JSON', async () => {
    const r = await s.api('/api/v1/auth/login', {
      method: 'POST',
      rawBody: '{"email":',
      headers: { 'content-type': 'application/json' },
    });
    expect(r.status).toBe(400);
    expect(r.body.detail).toMatch(/JSON/);
  });

  // Was "per e-mail": the limit is now per e-mail and address (every request here comes from 127.0.0.1).
  it('throttles repeated failures per e-mail and address with 429 and Retry-After, even for the right password', async () => {
    for (let i = 0; i < 5; i++) {
      expect((await login({ email: 'admin@example.com', password: `bad${i}` })).status).toBe(401);
    }
    const blocked = await login({ email: 'admin@example.com', password: 'admin' });
    expect(blocked.status).toBe(429);
    expect(Number(blocked.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(blocked.body.detail).toMatch(/Too many failed login attempts/);

    s.clock.advance(15 * 60 * 1000 + 1000);
    expect((await login({ email: 'admin@example.com', password: 'admin' })).status).toBe(200);
  });

  it('throttles repeated failures per client address across e-mails', async () => {
    for (let i = 0; i < 20; i++) {
      expect((await login({ email: `user${i}@example.com`, password: 'x' })).status).toBe(401);
    }
    const r = await login({ email: 'admin@example.com', password: 'admin' });
    expect(r.status).toBe(429);
    expect(r.headers.get('retry-after')).toBeTruthy();
  });

  it('does not let failures from one address lock the right password out from another', async () => {
    for (let i = 0; i < 5; i++) expect((await loginFrom('127.0.0.2', WRONG)).status).toBe(401);
    const attacker = await loginFrom('127.0.0.2', ADMIN);
    expect(attacker.status).toBe(429);
    expect(Number(attacker.retryAfter)).toBeGreaterThan(0);
    expect(attacker.body.detail).toMatch(
      /^Too many failed login attempts\. Try again in \d+ seconds\.$/,
    );

    const admin = await loginFrom('127.0.0.3', ADMIN);
    expect(admin.status).toBe(200);
    expect(admin.body.api_key).toBeTruthy();
    // The attacker's address stays throttled after the administrator's login.
    expect((await loginFrom('127.0.0.2', ADMIN)).status).toBe(429);
  });

  it('counts attempts sent in parallel from one address against its limit', async () => {
    const answers = await Promise.all(
      Array.from({ length: 8 }, (_, i) =>
        loginFrom('127.0.0.2', { email: 'admin@example.com', password: `bad${i}` }),
      ),
    );
    const statuses = answers.map((a) => a.status).sort();
    expect(statuses).toEqual([401, 401, 401, 401, 401, 429, 429, 429]);
  });

  it('delays every attempt on an e-mail failing from many addresses, doubling up to a cap, and still lets the right password in', async () => {
    await s.close();
    s = await startServer({
      config: {
        loginThrottle: {
          windowSeconds: 900,
          perAccountAndAddress: 5,
          perAddress: 20,
          accountDelayAfter: 2,
          accountDelayBaseMs: 400,
          accountDelayMaxMs: 800,
        },
      },
    });
    // Two failures from two addresses: no delay yet; then each attempt waits, from any address.
    await loginFrom('127.0.0.2', WRONG);
    await loginFrom('127.0.0.3', WRONG);
    const third = await loginFrom('127.0.0.4', WRONG);
    expect(third.status).toBe(401);
    expect(third.ms).toBeGreaterThanOrEqual(400);
    expect((await loginFrom('127.0.0.5', WRONG)).ms).toBeGreaterThanOrEqual(800);
    expect((await loginFrom('127.0.0.6', WRONG)).ms).toBeGreaterThanOrEqual(800);

    // An unknown e-mail takes the same path: same answer, same delay.
    await loginFrom('127.0.0.2', { email: 'nobody@example.com', password: 'x' });
    await loginFrom('127.0.0.3', { email: 'nobody@example.com', password: 'x' });
    const unknown = await loginFrom('127.0.0.4', { email: 'nobody@example.com', password: 'x' });
    expect(unknown.status).toBe(401);
    expect(unknown.body).toEqual({ detail: 'Invalid credentials' });
    expect(unknown.ms).toBeGreaterThanOrEqual(400);

    const admin = await loginFrom('127.0.0.7', ADMIN);
    expect(admin.status).toBe(200);
    expect(admin.ms).toBeGreaterThanOrEqual(800);
    // A success forgets the e-mail's failures: the next attempt is not delayed.
    expect((await loginFrom('127.0.0.7', WRONG)).status).toBe(401);

    // The exact delays, from the log (wall-clock upper bounds would be flaky on a busy machine),
    // once the sink has written the last attempt's line.
    const authLog = () =>
      s.adam.db
        .prepare("SELECT message FROM logs WHERE component = 'auth' ORDER BY id")
        .pluck()
        .all() as string[];
    await until(
      () => {
        const log = authLog();
        const success = log.findIndex((m) => m.includes(' logged in from '));
        return success >= 0 && log.slice(success + 1).some((m) => m.startsWith('Failed login'));
      },
      { what: 'the failed login after the success in the logs table' },
    );
    const delays = (email: string) =>
      authLog()
        .filter((m) => m.startsWith(`Login for ${email} `))
        .map((m) => Number(/delayed (\d+) ms/.exec(m)?.[1]));
    expect(delays('admin@example.com')).toEqual([400, 800, 800, 800]);
    expect(delays('nobody@example.com')).toEqual([400]);
  });

  it('writes login successes and failures to the logs table', async () => {
    await login({ email: 'admin@example.com', password: 'nope' });
    await login({ email: 'admin@example.com', password: 'admin' });
    const rows = await until(
      () => {
        const all = s.adam.db
          .prepare(
            "SELECT level, component, message FROM logs WHERE component = 'auth' ORDER BY id",
          )
          .all() as { level: string; message: string }[];
        return all.some((r) => r.message.includes('logged in')) && all;
      },
      { what: 'the login lines in the logs table' },
    );
    expect(rows.some((r) => r.level === 'warning' && r.message.includes('Failed login'))).toBe(
      true,
    );
    expect(rows.some((r) => r.level === 'info' && r.message.includes('logged in'))).toBe(true);
    expect(rows.every((r) => !r.message.includes('nope'))).toBe(true);
  });
});

describe('API keys', () => {
  it('accepts the key from the X-API-Key header or from the cookie', async () => {
    const key = await s.login();
    expect((await s.api('/api/v1/auth/me', { key })).body.email).toBe('admin@example.com');
    const viaCookie = await s.api('/api/v1/auth/me', {
      headers: { cookie: `adam_api_key=${key}` },
    });
    expect(viaCookie.status).toBe(200);
  });

  it('answers 401 without a key, with an unknown key, and after logout', async () => {
    const none = await s.api('/api/v1/auth/me');
    expect(none.status).toBe(401);
    expect(none.body.detail).toBe('Not authenticated');
    expect((await s.api('/api/v1/auth/me', { key: 'adam_forged' })).body.detail).toBe(
      'Invalid API key',
    );

    const key = await s.login();
    const out = await s.api('/api/v1/auth/logout', { method: 'POST', key });
    expect(out.status).toBe(204);
    expect(out.headers.get('set-cookie')).toMatch(/adam_api_key=;/);
    expect((await s.api('/api/v1/auth/me', { key })).status).toBe(401);
  });

  it('protects every admin call', async () => {
    for (const p of [
      '/api/v1/admin/settings',
      '/api/v1/admin/settings/processing',
      '/api/v1/metrics/realtime',
    ]) {
      expect((await s.api(p)).status).toBe(401);
    }
    const put = await s.api('/api/v1/admin/settings/processing', {
      method: 'PUT',
      body: { settings: {} },
    });
    expect(put.status).toBe(401);
  });

  it('rotates the key on refresh: the old one stops working, the new one works', async () => {
    const old = await s.login();
    const r = await s.api('/api/v1/auth/refresh', { method: 'POST', key: old });
    expect(r.status).toBe(200);
    expect(r.body.api_key).not.toBe(old);
    expect(r.body.user.email).toBe('admin@example.com');
    expect(r.headers.get('set-cookie')).toContain(r.body.api_key);
    expect((await s.api('/api/v1/auth/me', { key: old })).status).toBe(401);
    expect((await s.api('/api/v1/auth/me', { key: r.body.api_key })).status).toBe(200);
    // A rotated key cannot be refreshed a second time.
    expect((await s.api('/api/v1/auth/refresh', { method: 'POST', key: old })).status).toBe(401);
  });

  it("refreshes through the cookie and the console's header, without the key", async () => {
    const key = await s.login();
    const r = await s.api('/api/v1/auth/refresh', {
      method: 'POST',
      headers: { cookie: `adam_api_key=${key}`, 'x-requested-with': 'adam-console' },
    });
    expect(r.status).toBe(200);
  });

  it('answers 401 on refresh without a key or with a revoked one', async () => {
    expect((await s.api('/api/v1/auth/refresh', { method: 'POST' })).status).toBe(401);
    const key = await s.login();
    await s.api('/api/v1/auth/logout', { method: 'POST', key });
    expect((await s.api('/api/v1/auth/refresh', { method: 'POST', key })).status).toBe(401);
  });

  it('expires keys after their lifetime; an expired key can still be refreshed within the grace period', async () => {
    const key = await s.login();
    s.clock.advance(s.config.apiKeyTtlSeconds * 1000 + 1000);
    const r = await s.api('/api/v1/auth/me', { key });
    expect(r.status).toBe(401);
    expect(r.body.detail).toBe('API key expired');
    const fresh = await s.api('/api/v1/auth/refresh', { method: 'POST', key });
    expect(fresh.status).toBe(200);
    expect((await s.api('/api/v1/auth/me', { key: fresh.body.api_key })).status).toBe(200);
  });

  it('refuses to refresh a key expired longer than the grace period', async () => {
    const key = await s.login();
    s.clock.advance((s.config.apiKeyTtlSeconds + s.config.refreshGraceSeconds) * 1000 + 1000);
    const r = await s.api('/api/v1/auth/refresh', { method: 'POST', key });
    expect(r.status).toBe(401);
    expect(r.body.detail).toBe('API key expired');
  });
});

describe('password change', () => {
  it('changes the password, ends other sessions and turns off the default-credentials hint', async () => {
    const key = await s.login();
    const other = await s.login();
    expect((await s.api('/api/v1/config/public')).body.default_credentials_in_use).toBe(true);

    const r = await s.api('/api/v1/auth/password', {
      method: 'POST',
      key,
      body: { current_password: 'admin', new_password: 'a-longer-secret' },
    });
    expect(r.status).toBe(204);
    expect((await s.api('/api/v1/auth/me', { key })).status).toBe(200);
    expect((await s.api('/api/v1/auth/me', { key: other })).status).toBe(401);
    expect((await login({ email: 'admin@example.com', password: 'admin' })).status).toBe(401);
    expect((await login({ email: 'admin@example.com', password: 'a-longer-secret' })).status).toBe(
      200,
    );
    const pub = (await s.api('/api/v1/config/public')).body;
    expect(pub.default_credentials_in_use).toBe(false);
    expect(pub.default_credentials).toBeNull();
  });

  it('answers 401 for a wrong current password and 422 for a short new one, changing nothing', async () => {
    const key = await s.login();
    const wrong = await s.api('/api/v1/auth/password', {
      method: 'POST',
      key,
      body: { current_password: 'nope', new_password: 'a-longer-secret' },
    });
    expect(wrong.status).toBe(401);
    expect(wrong.body.detail).toBe('Current password is incorrect');
    const short = await s.api('/api/v1/auth/password', {
      method: 'POST',
      key,
      body: { current_password: 'admin', new_password: 'short' },
    });
    expect(short.status).toBe(422);
    expect(short.body.errors[0].field).toBe('new_password');
    expect((await login({ email: 'admin@example.com', password: 'admin' })).status).toBe(200);
  });
});

describe('two-factor authentication', () => {
  const code = (secret: string, at: number) =>
    new OTPAuth.TOTP({
      secret: OTPAuth.Secret.fromBase32(secret),
      digits: 6,
      period: 30,
      algorithm: 'SHA1',
    }).generate({
      timestamp: at,
    });

  async function enable(key: string): Promise<string> {
    const setup = await s.api('/api/v1/auth/2fa/setup', { method: 'POST', key });
    expect(setup.status).toBe(200);
    expect(setup.body.secret).toMatch(/^[A-Z2-7]+$/);
    expect(setup.body.otpauth_url).toMatch(/^otpauth:\/\/totp\/ADAM:admin%40example\.com\?/);
    expect(setup.body.qr).toMatch(/^data:image\/png;base64,/);
    const r = await s.api('/api/v1/auth/2fa/enable', {
      method: 'POST',
      key,
      body: { code: code(setup.body.secret, s.clock.now()) },
    });
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ totp_enabled: true });
    return setup.body.secret;
  }

  it('asks for a code after enabling, and logs in with a valid code', async () => {
    const key = await s.login();
    const secret = await enable(key);
    expect((await s.api('/api/v1/auth/me', { key })).body.totp_enabled).toBe(true);

    const first = await login({ email: 'admin@example.com', password: 'admin' });
    expect(first.status).toBe(200);
    expect(first.body).toEqual({ api_key: null, user: null, requires_2fa: true, expires_at: null });
    expect(first.headers.get('set-cookie')).toBeNull();

    s.clock.advance(30_000);
    const second = await login({
      email: 'admin@example.com',
      password: 'admin',
      totp_code: code(secret, s.clock.now()),
    });
    expect(second.status).toBe(200);
    expect(second.body.api_key).toBeTruthy();
  });

  it('answers 401 Invalid 2FA code for a wrong code and for a code used before', async () => {
    const key = await s.login();
    const secret = await enable(key);
    const wrong = await login({
      email: 'admin@example.com',
      password: 'admin',
      totp_code: '000000',
    });
    expect(wrong.status).toBe(401);
    expect(wrong.body.detail).toBe('Invalid 2FA code');

    // The code that enabled 2FA was used once already.
    const replay = await login({
      email: 'admin@example.com',
      password: 'admin',
      totp_code: code(secret, s.clock.now()),
    });
    expect(replay.status).toBe(401);
    expect(replay.body.detail).toBe('Invalid 2FA code');

    s.clock.advance(30_000);
    const c = code(secret, s.clock.now());
    expect(
      (await login({ email: 'admin@example.com', password: 'admin', totp_code: c })).status,
    ).toBe(200);
    expect(
      (await login({ email: 'admin@example.com', password: 'admin', totp_code: c })).status,
    ).toBe(401);
  });

  it('refuses to enable with a wrong code, and before setup', async () => {
    const key = await s.login();
    const early = await s.api('/api/v1/auth/2fa/enable', {
      method: 'POST',
      key,
      body: { code: '123456' },
    });
    expect(early.status).toBe(400);
    await s.api('/api/v1/auth/2fa/setup', { method: 'POST', key });
    const wrong = await s.api('/api/v1/auth/2fa/enable', {
      method: 'POST',
      key,
      body: { code: '000000' },
    });
    expect(wrong.status).toBe(401);
    expect((await s.api('/api/v1/auth/me', { key })).body.totp_enabled).toBe(false);
    const malformed = await s.api('/api/v1/auth/2fa/enable', {
      method: 'POST',
      key,
      body: { code: 'abc' },
    });
    expect(malformed.status).toBe(422);
  });

  it('throttles wrong codes on enable', async () => {
    const key = await s.login();
    await s.api('/api/v1/auth/2fa/setup', { method: 'POST', key });
    for (let i = 0; i < 5; i++) {
      await s.api('/api/v1/auth/2fa/enable', { method: 'POST', key, body: { code: '000000' } });
    }
    const r = await s.api('/api/v1/auth/2fa/enable', {
      method: 'POST',
      key,
      body: { code: '000000' },
    });
    expect(r.status).toBe(429);
  });

  it('disables with a valid code, answers 409 for a second setup or disable', async () => {
    const key = await s.login();
    const secret = await enable(key);
    expect((await s.api('/api/v1/auth/2fa/setup', { method: 'POST', key })).status).toBe(409);
    expect(
      (await s.api('/api/v1/auth/2fa/disable', { method: 'POST', key, body: { code: '000000' } }))
        .status,
    ).toBe(401);
    s.clock.advance(30_000);
    const off = await s.api('/api/v1/auth/2fa/disable', {
      method: 'POST',
      key,
      body: { code: code(secret, s.clock.now()) },
    });
    expect(off.status).toBe(200);
    expect(off.body).toEqual({ totp_enabled: false });
    expect((await login({ email: 'admin@example.com', password: 'admin' })).body.requires_2fa).toBe(
      false,
    );
    expect(
      (await s.api('/api/v1/auth/2fa/disable', { method: 'POST', key, body: { code: '123456' } }))
        .status,
    ).toBe(409);
  });
});
