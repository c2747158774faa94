import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { startServer, type TestServer } from './helpers.js';
import { createRoleUser } from './role-users.js';

let s: TestServer;
let admin: string;
const sockets: WebSocket[] = [];

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

const create = (key: string, body: unknown) =>
  s.api('/api/v1/auth/api-keys', { method: 'POST', key, body });
const list = (key: string) => s.api('/api/v1/auth/api-keys', { key });
/** An operator write that answers 404 when let through: the refusal is all that is tested. */
const operatorWrite = (key: string) =>
  s.api('/api/v1/rules/scraping/999999', { method: 'DELETE', key });

async function newKey(key: string, scope: string, extra: object = {}) {
  const r = await create(key, { name: `${scope} key`, scope, ...extra });
  expect(r.status, JSON.stringify(r.body)).toBe(201);
  return r.body as {
    key: { id: number; prefix: string; created_at: string; expires_at: string };
    secret: string;
  };
}

function openSocket(key: Promise<string> | string) {
  return (async () => {
    const ticket = await s.api('/api/v1/auth/ws-ticket', { method: 'POST', key: await key });
    expect(ticket.status).toBe(200);
    const ws = new WebSocket(
      `${s.url.replace('http', 'ws')}/api/v1/ws?ticket=${ticket.body.ticket}`,
    );
    sockets.push(ws);
    const closed = new Promise<number>((resolve) => ws.once('close', (code) => resolve(code)));
    await new Promise((resolve, reject) => (ws.once('open', resolve), ws.once('error', reject)));
    return { ws, closed };
  })();
}

describe('API keys', () => {
  it('shows the secret once, lists the prefix but never the secret, and records the last use', async () => {
    const created = await newKey(admin, 'read', { name: 'nightly export', expires_in_days: 30 });
    expect(created.secret).toMatch(/^adam_[A-Za-z0-9_-]{40,}$/);
    expect(created.key).toMatchObject({
      name: 'nightly export',
      scope: 'read',
      prefix: created.secret.slice(0, 12),
      last_used_at: null,
      revoked_at: null,
    });
    const days = (Date.parse(created.key.expires_at) - Date.parse(created.key.created_at)) / 864e5;
    expect(days).toBe(30);

    expect((await s.api('/api/v1/snippets', { key: created.secret })).status).toBe(200);
    const listed = await list(admin);
    expect(listed.status).toBe(200);
    expect(JSON.stringify(listed.body)).not.toContain(created.secret);
    expect(JSON.stringify(listed.body)).not.toContain(created.secret.slice(12));
    const item = listed.body.items.find((k: { id: number }) => k.id === created.key.id);
    expect(item.last_used_at).toBe(new Date(s.clock.now()).toISOString());
    expect(item.last_used_address).toBe('127.0.0.1');
    // Written at most once a minute: a call 30 s later leaves it, one past the minute moves it.
    const first = item.last_used_at;
    s.clock.advance(30_000);
    await s.api('/api/v1/snippets', { key: created.secret });
    const again = (await list(admin)).body.items.find(
      (k: { id: number }) => k.id === created.key.id,
    );
    expect(again.last_used_at).toBe(first);
    s.clock.advance(31_000);
    await s.api('/api/v1/snippets', { key: created.secret });
    const moved = (await list(admin)).body.items.find(
      (k: { id: number }) => k.id === created.key.id,
    );
    expect(moved.last_used_at).toBe(new Date(s.clock.now()).toISOString());
  });

  it('caps a call at the scope: a read key cannot write, a write key cannot administer users', async () => {
    const read = await newKey(admin, 'read');
    const refused = await operatorWrite(read.secret);
    expect(refused.status).toBe(403);
    expect(refused.body.detail).toMatch(/needs the operator role/);
    expect(refused.body.detail).toMatch(/read scope\) acts as a viewer/);

    const write = await newKey(admin, 'write');
    expect((await operatorWrite(write.secret)).status).toBe(404);
    const users = await s.api('/api/v1/admin/users', { key: write.secret });
    expect(users.status).toBe(403);
    expect(users.body.detail).toMatch(/needs the administrator role/);

    const full = await newKey(admin, 'admin');
    expect((await s.api('/api/v1/admin/users', { key: full.secret })).status).toBe(200);
  });

  it("refuses a scope above the user's role, and caps a key at its user's role", async () => {
    const operator = await createRoleUser(s, admin, 'operator');
    const above = await create(operator.key, { name: 'too much', scope: 'admin' });
    expect(above.status).toBe(403);
    expect(above.body.detail).toMatch(/admin scope needs the administrator role/);
    const viewer = await createRoleUser(s, admin, 'viewer');
    expect((await create(viewer.key, { name: 'w', scope: 'write' })).status).toBe(403);
    const read = await newKey(viewer.key, 'read');
    expect((await operatorWrite(read.secret)).status).toBe(403);
    // An operator's write key, the operator then made a viewer: the key acts as a viewer at once.
    const write = await newKey(operator.key, 'write');
    expect((await operatorWrite(write.secret)).status).toBe(404);
    const demoted = await s.api(`/api/v1/admin/users/${operator.id}`, {
      method: 'PATCH',
      key: admin,
      body: { role: 'viewer' },
    });
    expect(demoted.status).toBe(200);
    const after = await operatorWrite(write.secret);
    expect(after.status).toBe(403);
    expect(after.body.detail).toMatch(/acts as a viewer/);
  });

  it('validates the name, scope and expiry', async () => {
    for (const body of [
      { name: '', scope: 'read' },
      { name: 'x', scope: 'root' },
      { name: 'x', scope: 'read', expires_in_days: 0 },
      { name: 'x', scope: 'read', expires_in_days: 366 },
      { name: 'x', scope: 'read', never: true },
    ]) {
      const r = await create(admin, body);
      expect(r.status, JSON.stringify(body)).toBe(422);
      expect(typeof r.body.detail).toBe('string');
    }
  });

  it('lets a key neither mint keys, nor refresh, nor touch the password, 2FA or sessions', async () => {
    const key = (await newKey(admin, 'admin')).secret;
    const refusals = [
      await create(key, { name: 'child', scope: 'read' }),
      await s.api('/api/v1/auth/password', {
        method: 'POST',
        key,
        body: { current_password: 'admin', new_password: 'something-new' },
      }),
      await s.api('/api/v1/auth/2fa/setup', { method: 'POST', key }),
      await s.api('/api/v1/auth/sessions/revoke-others', { method: 'POST', key }),
      await s.api('/api/v1/auth/refresh', { method: 'POST', key }),
    ];
    for (const r of refusals) {
      expect(r.status).toBe(403);
      expect(r.body.detail).toMatch(/API key/);
    }
    // Still working: the refresh did not spend it.
    expect((await s.api('/api/v1/auth/me', { key })).status).toBe(200);
    expect(
      (await list(admin)).body.items.filter((k: { name: string }) => k.name === 'child'),
    ).toEqual([]);
  });

  it("revokes at once: the key's socket closes and its next call is 401", async () => {
    const created = await newKey(admin, 'read');
    const socket = await openSocket(created.secret);
    const revoked = await s.api(`/api/v1/auth/api-keys/${created.key.id}`, {
      method: 'DELETE',
      key: admin,
    });
    expect(revoked.status).toBe(204);
    expect(await socket.closed).toBe(4401);
    const after = await s.api('/api/v1/snippets', { key: created.secret });
    expect(after.status).toBe(401);
    const item = (await list(admin)).body.items.find(
      (k: { id: number }) => k.id === created.key.id,
    );
    expect(item.revoked_at).toEqual(expect.any(String));
  });

  it('stops the keys of a disabled user, and expired keys', async () => {
    const user = await createRoleUser(s, admin, 'operator');
    const key = (await newKey(user.key, 'write')).secret;
    expect((await s.api('/api/v1/snippets', { key })).status).toBe(200);
    expect(
      (
        await s.api(`/api/v1/admin/users/${user.id}`, {
          method: 'PATCH',
          key: admin,
          body: { disabled: true },
        })
      ).status,
    ).toBe(200);
    expect((await s.api('/api/v1/snippets', { key })).status).toBe(401);
    // Enabled again, the key stays revoked: disabling ended it for good.
    await s.api(`/api/v1/admin/users/${user.id}`, {
      method: 'PATCH',
      key: admin,
      body: { disabled: false },
    });
    expect((await s.api('/api/v1/snippets', { key })).status).toBe(401);

    const short = (await newKey(admin, 'read', { expires_in_days: 1 })).secret;
    expect((await s.api('/api/v1/snippets', { key: short })).status).toBe(200);
    s.clock.advance(86_400_000 + 1000);
    const expired = await s.api('/api/v1/snippets', { key: short });
    expect(expired.status).toBe(401);
    expect(expired.body.detail).toBe('API key expired');
    admin = await s.login();
  });

  it("answers 404 for another user's key ids, and lets an administrator see and revoke them", async () => {
    const a = await createRoleUser(s, admin, 'operator');
    const b = await createRoleUser(s, admin, 'operator');
    const bKey = await newKey(b.key, 'read');
    const stolen = await s.api(`/api/v1/auth/api-keys/${bKey.key.id}`, {
      method: 'DELETE',
      key: a.key,
    });
    expect(stolen.status).toBe(404);
    // A session's id is no API key either.
    const sessions = await s.api('/api/v1/auth/sessions', { key: a.key });
    const sessionId = sessions.body.items[0].id;
    expect(
      (await s.api(`/api/v1/auth/api-keys/${sessionId}`, { method: 'DELETE', key: a.key })).status,
    ).toBe(404);
    expect((await s.api('/api/v1/snippets', { key: bKey.secret })).status).toBe(200);

    // An operator may not look at anyone's keys.
    expect((await s.api(`/api/v1/admin/users/${b.id}/api-keys`, { key: a.key })).status).toBe(403);
    const listed = await s.api(`/api/v1/admin/users/${b.id}/api-keys`, { key: admin });
    expect(listed.status).toBe(200);
    expect(listed.body.items.map((k: { id: number }) => k.id)).toEqual([bKey.key.id]);
    expect(JSON.stringify(listed.body)).not.toContain(bKey.secret);
    // B's key under A's id is not found.
    expect(
      (
        await s.api(`/api/v1/admin/users/${a.id}/api-keys/${bKey.key.id}`, {
          method: 'DELETE',
          key: admin,
        })
      ).status,
    ).toBe(404);
    expect((await s.api('/api/v1/admin/users/999999/api-keys', { key: admin })).status).toBe(404);
    const revoked = await s.api(`/api/v1/admin/users/${b.id}/api-keys/${bKey.key.id}`, {
      method: 'DELETE',
      key: admin,
    });
    expect(revoked.status).toBe(204);
    expect((await s.api('/api/v1/snippets', { key: bKey.secret })).status).toBe(401);
  });
});
