import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import * as OTPAuth from 'otpauth';
import WebSocket from 'ws';
import { startServer, type TestServer } from './helpers.js';
import { createRoleUser } from './role-users.js';
import { until } from './until.js';

let s: TestServer;
let admin: string;
const sockets: WebSocket[] = [];

// One server for the file: each test makes its own users (random e-mails). The last-admin test,
// which changes the first administrator, runs last.
beforeAll(async () => {
  s = await startServer();
  admin = await s.login();
});
afterEach(() => {
  for (const ws of sockets.splice(0)) ws.terminate();
});
afterAll(async () => {
  await s?.close();
});

const users = (key: string) => s.api('/api/v1/admin/users', { key });
const patch = (key: string, id: number, body: unknown) =>
  s.api(`/api/v1/admin/users/${id}`, { method: 'PATCH', key, body });
const me = (key: string) => s.api('/api/v1/auth/me', { key });
const adminId = async () =>
  (await users(admin)).body.items.find((u: { email: string }) => u.email === 'admin@example.com')
    .id as number;

describe('user administration', () => {
  it('creates a user whose one-time password opens nothing but the password change', async () => {
    const created = await s.api('/api/v1/admin/users', {
      method: 'POST',
      key: admin,
      body: { email: 'Vera@Example.com', name: 'Vera', role: 'viewer' },
    });
    expect(created.status).toBe(201);
    expect(created.body.user).toMatchObject({
      email: 'vera@example.com',
      role: 'viewer',
      must_change_password: true,
      disabled_at: null,
    });
    const otp = created.body.one_time_password as string;
    expect(otp.length).toBeGreaterThanOrEqual(20);

    const login = await s.api('/api/v1/auth/login', {
      method: 'POST',
      body: { email: 'vera@example.com', password: otp },
    });
    expect(login.body.user).toMatchObject({ role: 'viewer', must_change_password: true });
    const key = login.body.api_key as string;
    const refused = await s.api('/api/v1/snippets', { key });
    expect(refused.status).toBe(403);
    expect(refused.body.detail).toMatch(/one-time password/);
    expect((await me(key)).status).toBe(200);

    const changed = await s.api('/api/v1/auth/password', {
      method: 'POST',
      key,
      body: { current_password: otp, new_password: 'vera-chose-this' },
    });
    expect(changed.status).toBe(204);
    expect((await s.api('/api/v1/snippets', { key })).status).toBe(200);
    expect((await me(key)).body.must_change_password).toBe(false);
    // The same e-mail twice is a conflict.
    const again = await s.api('/api/v1/admin/users', {
      method: 'POST',
      key: admin,
      body: { email: 'vera@example.com', name: 'Vera 2', role: 'operator' },
    });
    expect(again.status).toBe(409);
  });

  it('refuses user administration to an operator and every write to a viewer', async () => {
    const operator = await createRoleUser(s, admin, 'operator');
    const viewer = await createRoleUser(s, admin, 'viewer');
    const listed = await users(operator.key);
    expect(listed.status).toBe(403);
    expect(listed.body.detail).toMatch(/needs the administrator role/);
    const promote = await patch(operator.key, operator.id, { role: 'administrator' });
    expect(promote.status).toBe(403);
    expect((await me(operator.key)).body.role).toBe('operator');

    const write = await s.api('/api/v1/rules/scraping/1', { method: 'DELETE', key: viewer.key });
    expect(write.status).toBe(403);
    expect(write.body.detail).toMatch(/needs the operator role/);
    // The operator may do that write (404: there is no rule 1).
    expect(
      (await s.api('/api/v1/rules/scraping/1', { method: 'DELETE', key: operator.key })).status,
    ).toBe(404);
  });

  it('applies a role change at once to an open session', async () => {
    const user = await createRoleUser(s, admin, 'operator');
    expect(
      (await s.api('/api/v1/sources/jobs/cancel_pending', { method: 'POST', key: user.key }))
        .status,
    ).toBe(200);
    expect((await patch(admin, user.id, { role: 'viewer' })).body.role).toBe('viewer');
    const after = await s.api('/api/v1/sources/jobs/cancel_pending', {
      method: 'POST',
      key: user.key,
    });
    expect(after.status).toBe(403);
    expect(after.body.detail).toMatch(/needs the operator role/);
    expect((await patch(admin, user.id, { role: 'administrator' })).status).toBe(200);
    expect((await users(user.key)).status).toBe(200);
    // Back down: the last-admin test needs the first administrator to be the only one.
    expect((await patch(admin, user.id, { role: 'viewer' })).status).toBe(200);
  });

  it("ends a disabled user's sessions at once and lets them back in when enabled", async () => {
    const user = await createRoleUser(s, admin, 'operator');
    const ticket = await s.api('/api/v1/auth/ws-ticket', { method: 'POST', key: user.key });
    const ws = new WebSocket(
      `${s.url.replace('http', 'ws')}/api/v1/ws?ticket=${ticket.body.ticket}`,
    );
    sockets.push(ws);
    const closed = new Promise<number>((resolve) => ws.once('close', (code) => resolve(code)));
    await new Promise((resolve, reject) => (ws.once('open', resolve), ws.once('error', reject)));

    const disabled = await patch(admin, user.id, { disabled: true });
    expect(disabled.status).toBe(200);
    expect(disabled.body.disabled_at).toEqual(expect.any(String));
    const refused = await me(user.key);
    expect(refused.status).toBe(401);
    expect(refused.body.detail).toBeTruthy();
    expect(await closed).toBe(4401);
    const login = await s.api('/api/v1/auth/login', {
      method: 'POST',
      body: { email: user.email, password: user.password },
    });
    expect(login.status).toBe(401);
    expect(login.body.detail).toMatch(/disabled/);

    expect((await patch(admin, user.id, { disabled: false })).body.disabled_at).toBeNull();
    // The old session stays ended; a new login works.
    expect((await me(user.key)).status).toBe(401);
    expect((await me(await s.login(user.email, user.password))).status).toBe(200);
  });

  it("gives each user their own two-factor authentication, the same code as the administrator's", async () => {
    const viewer = await createRoleUser(s, admin, 'viewer');
    const setup = await s.api('/api/v1/auth/2fa/setup', { method: 'POST', key: viewer.key });
    expect(setup.status).toBe(200);
    const code = (at: number) =>
      new OTPAuth.TOTP({
        secret: OTPAuth.Secret.fromBase32(setup.body.secret),
        digits: 6,
        period: 30,
        algorithm: 'SHA1',
      }).generate({ timestamp: at });
    const enable = await s.api('/api/v1/auth/2fa/enable', {
      method: 'POST',
      key: viewer.key,
      body: { code: code(s.clock.now()) },
    });
    expect(enable.status).toBe(200);
    const credentials = { email: viewer.email, password: viewer.password };
    const first = await s.api('/api/v1/auth/login', { method: 'POST', body: credentials });
    expect(first.body).toMatchObject({ requires_2fa: true, api_key: null });
    s.clock.advance(30_000);
    const second = await s.api('/api/v1/auth/login', {
      method: 'POST',
      body: { ...credentials, totp_code: code(s.clock.now()) },
    });
    expect(second.status).toBe(200);
    expect(second.body.user).toMatchObject({ role: 'viewer', totp_enabled: true });
    // The administrator's own login is untouched by the viewer's second factor.
    expect((await me(await s.login())).body.totp_enabled).toBe(false);
  });

  it('answers 404 for an unknown user and 422 for an unknown role', async () => {
    expect((await patch(admin, 999, { name: 'x' })).status).toBe(404);
    const bad = await s.api('/api/v1/admin/users', {
      method: 'POST',
      key: admin,
      body: { email: 'x@example.com', name: 'X', role: 'root' },
    });
    expect(bad.status).toBe(422);
  });
});

describe('realtime channel by role', () => {
  function open(key: string) {
    const ws = new WebSocket(
      `${s.url.replace('http', 'ws')}/api/v1/ws?api_key=${encodeURIComponent(key)}`,
    );
    sockets.push(ws);
    const messages: { type: string; message?: string }[] = [];
    ws.on('message', (d) => messages.push(JSON.parse(String(d))));
    const closed = new Promise<number>((resolve) => ws.once('close', (code) => resolve(code)));
    return { ws, messages, closed };
  }

  it('sends log lines to an operator, not to a viewer', async () => {
    const viewer = open((await createRoleUser(s, admin, 'viewer')).key);
    const operator = open((await createRoleUser(s, admin, 'operator')).key);
    await until(() => viewer.messages.some((m) => m.type === 'initial_state'));
    await until(() => operator.messages.some((m) => m.type === 'initial_state'));
    s.adam.log.warn({ component: 'jobs' }, 'Marker line for roles');
    await until(() => operator.messages.some((m) => m.message === 'Marker line for roles'));
    // The viewer's pong leaves after the broadcast: had the line been sent, it came first.
    viewer.ws.send(JSON.stringify({ type: 'ping' }));
    await until(() => viewer.messages.some((m) => m.type === 'pong'));
    expect(viewer.messages.filter((m) => m.type === 'log_entry')).toEqual([]);
  });

  it('refuses a user who must still change their one-time password', async () => {
    const created = await s.api('/api/v1/admin/users', {
      method: 'POST',
      key: admin,
      body: { email: 'new@example.com', name: 'New', role: 'operator' },
    });
    const key = await s.login('new@example.com', created.body.one_time_password);
    expect(await open(key).closed).toBe(4403);
  });
});

// Last: it leaves the first administrator a viewer.
describe('the last active administrator', () => {
  it('never leaves the store without an active administrator', async () => {
    const id = await adminId();
    for (const change of [{ role: 'operator' }, { disabled: true }]) {
      const r = await patch(admin, id, change);
      expect(r.status).toBe(409);
      expect(r.body.detail).toMatch(/last active administrator/);
    }
    const del = await s.api(`/api/v1/admin/users/${id}`, { method: 'DELETE', key: admin });
    expect(del.status).toBe(409);
    expect((await me(admin)).body.role).toBe('administrator');

    // With a second administrator the first may step down, and then that one is the last.
    const second = await createRoleUser(s, admin, 'administrator');
    expect((await patch(admin, id, { role: 'viewer' })).status).toBe(200);
    expect((await patch(second.key, second.id, { disabled: true })).status).toBe(409);
    // A disabled administrator does not count.
    const third = await createRoleUser(s, second.key, 'administrator');
    expect((await patch(second.key, third.id, { disabled: true })).status).toBe(200);
    expect(
      (await s.api(`/api/v1/admin/users/${second.id}`, { method: 'DELETE', key: second.key }))
        .status,
    ).toBe(409);
    expect(
      (await s.api(`/api/v1/admin/users/${third.id}`, { method: 'DELETE', key: second.key }))
        .status,
    ).toBe(204);
    const left = (await users(second.key)).body.items.map((u: { email: string }) => u.email);
    expect(left).toEqual(expect.arrayContaining(['admin@example.com', second.email]));
    expect(left).not.toContain(third.email);
  });
});
