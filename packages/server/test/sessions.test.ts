import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { startServer, type TestServer } from './helpers.js';
import { createRoleUser, type RoleUser } from './role-users.js';

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

interface SessionItem {
  id: number;
  user_agent: string | null;
  created_address: string | null;
  last_used_address: string | null;
  created_at: string;
  last_used_at: string | null;
  current: boolean;
}

/** Logs in from a named browser; answers the session's key. */
async function loginAs(user: RoleUser, browser: string): Promise<string> {
  const r = await s.api('/api/v1/auth/login', {
    method: 'POST',
    headers: { 'user-agent': browser },
    body: { email: user.email, password: user.password },
  });
  expect(r.status).toBe(200);
  return r.body.api_key as string;
}

const sessions = async (key: string): Promise<SessionItem[]> => {
  const r = await s.api('/api/v1/auth/sessions', { key });
  expect(r.status).toBe(200);
  return r.body.items;
};
const me = (key: string) => s.api('/api/v1/auth/me', { key });

async function openSocket(key: string) {
  const ticket = await s.api('/api/v1/auth/ws-ticket', { method: 'POST', key });
  const ws = new WebSocket(`${s.url.replace('http', 'ws')}/api/v1/ws?ticket=${ticket.body.ticket}`);
  sockets.push(ws);
  const closed = new Promise<number>((resolve) => ws.once('close', (code) => resolve(code)));
  await new Promise((resolve, reject) => (ws.once('open', resolve), ws.once('error', reject)));
  // Wrapped: an async function answering the promise itself would wait for the close.
  return { closed };
}

describe('sessions', () => {
  it('lists the live sessions with browser, address, created and last seen, marking the current one', async () => {
    const user = await createRoleUser(s, admin, 'viewer');
    const firefox = await loginAs(user, 'Mozilla/5.0 Firefox/140.0');
    const long = await loginAs(user, `Curious/${'x'.repeat(5000)}`);
    const list = await sessions(firefox);
    // createRoleUser's own session, then these two.
    expect(list).toHaveLength(3);
    const mine = list.filter((x) => x.current);
    expect(mine).toHaveLength(1);
    expect(mine[0]).toMatchObject({
      user_agent: 'Mozilla/5.0 Firefox/140.0',
      created_address: '127.0.0.1',
      last_used_address: '127.0.0.1',
      last_used_at: new Date(s.clock.now()).toISOString(),
    });
    expect(mine[0]?.created_at).toEqual(expect.any(String));
    const bounded = list.find((x) => x.user_agent?.startsWith('Curious/'));
    expect(bounded?.user_agent?.length).toBe(256);
    const text = JSON.stringify(list);
    for (const secret of [firefox, long, user.key]) expect(text).not.toContain(secret);
  });

  it("keeps a refreshed session's login time and browser", async () => {
    const user = await createRoleUser(s, admin, 'viewer');
    const key = await loginAs(user, 'Refreshing/1.0');
    const before = (await sessions(key)).find((x) => x.current)!;
    s.clock.advance(5000);
    const refreshed = await s.api('/api/v1/auth/refresh', { method: 'POST', key });
    expect(refreshed.status).toBe(200);
    const after = (await sessions(refreshed.body.api_key)).find((x) => x.current)!;
    expect(after.id).not.toBe(before.id);
    expect(after).toMatchObject({ user_agent: 'Refreshing/1.0', created_at: before.created_at });
  });

  it('revokes one session, then all others; the caller survives', async () => {
    const user = await createRoleUser(s, admin, 'operator');
    const a = await loginAs(user, 'A');
    const b = await loginAs(user, 'B');
    const c = await loginAs(user, 'C');
    const bId = (await sessions(b)).find((x) => x.current)!.id;
    const bSocket = await openSocket(b);
    expect((await s.api(`/api/v1/auth/sessions/${bId}`, { method: 'DELETE', key: a })).status).toBe(
      204,
    );
    expect(await bSocket.closed).toBe(4401);
    expect((await me(b)).status).toBe(401);
    expect((await me(a)).status).toBe(200);
    // Ended already: not found.
    expect((await s.api(`/api/v1/auth/sessions/${bId}`, { method: 'DELETE', key: a })).status).toBe(
      404,
    );

    const others = await s.api('/api/v1/auth/sessions/revoke-others', { method: 'POST', key: a });
    expect(others.status).toBe(200);
    expect(others.body.revoked).toBe(2); // c and createRoleUser's
    expect((await me(c)).status).toBe(401);
    expect((await me(user.key)).status).toBe(401);
    expect((await me(a)).status).toBe(200);
    expect((await sessions(a)).map((x) => x.current)).toEqual([true]);
  });

  it('leaves API keys alone when ending the other sessions', async () => {
    const user = await createRoleUser(s, admin, 'operator');
    const created = await s.api('/api/v1/auth/api-keys', {
      method: 'POST',
      key: user.key,
      body: { name: 'script', scope: 'read' },
    });
    const fresh = await loginAs(user, 'Fresh');
    await s.api('/api/v1/auth/sessions/revoke-others', { method: 'POST', key: fresh });
    expect((await me(created.body.secret)).status).toBe(200);
    // Nor is a key's id a session's.
    expect(
      (
        await s.api(`/api/v1/auth/sessions/${created.body.key.id}`, {
          method: 'DELETE',
          key: fresh,
        })
      ).status,
    ).toBe(404);
  });

  it("answers 404 for another user's session ids", async () => {
    const a = await createRoleUser(s, admin, 'operator');
    const b = await createRoleUser(s, admin, 'operator');
    const bId = (await sessions(b.key)).find((x) => x.current)!.id;
    const r = await s.api(`/api/v1/auth/sessions/${bId}`, { method: 'DELETE', key: a.key });
    expect(r.status).toBe(404);
    expect(r.body.detail).toEqual(expect.any(String));
    expect((await me(b.key)).status).toBe(200);
  });

  it("lets an administrator list and end any user's sessions, and nobody else", async () => {
    const user = await createRoleUser(s, admin, 'operator');
    const second = await loginAs(user, 'Second');
    const socket = await openSocket(second);
    expect((await s.api(`/api/v1/admin/users/${user.id}/sessions`, { key: user.key })).status).toBe(
      403,
    );
    const listed = await s.api(`/api/v1/admin/users/${user.id}/sessions`, { key: admin });
    expect(listed.status).toBe(200);
    expect(listed.body.items).toHaveLength(2);
    expect(listed.body.items.every((x: SessionItem) => !x.current)).toBe(true);
    expect(JSON.stringify(listed.body)).not.toContain(second);

    const ended = await s.api(`/api/v1/admin/users/${user.id}/sessions`, {
      method: 'DELETE',
      key: admin,
    });
    expect(ended.status).toBe(200);
    expect(ended.body.revoked).toBe(2);
    expect(await socket.closed).toBe(4401);
    expect((await me(second)).status).toBe(401);
    expect((await me(user.key)).status).toBe(401);
    expect((await me(admin)).status).toBe(200);
    expect((await s.api('/api/v1/admin/users/999999/sessions', { key: admin })).status).toBe(404);
  });

  it("lets an administrator end one of a user's sessions, and only that user's", async () => {
    const user = await createRoleUser(s, admin, 'operator');
    const other = await createRoleUser(s, admin, 'operator');
    const second = await loginAs(user, 'Second');
    const socket = await openSocket(second);
    const secondId = (await sessions(second)).find((x) => x.current)!.id;
    const otherId = (await sessions(other.key)).find((x) => x.current)!.id;
    const path = (userId: number, id: number) => `/api/v1/admin/users/${userId}/sessions/${id}`;

    // Not an administrator: 403; another user's session id under this user: 404, nothing ended.
    expect((await s.api(path(user.id, secondId), { method: 'DELETE', key: user.key })).status).toBe(
      403,
    );
    const crossed = await s.api(path(user.id, otherId), { method: 'DELETE', key: admin });
    expect(crossed.status).toBe(404);
    expect(crossed.body.detail).toEqual(expect.any(String));
    expect((await me(other.key)).status).toBe(200);
    expect((await s.api(path(user.id, 0), { method: 'DELETE', key: admin })).status).toBe(422);

    const ended = await s.api(path(user.id, secondId), { method: 'DELETE', key: admin });
    expect(ended.status).toBe(204);
    expect(await socket.closed).toBe(4401);
    expect((await me(second)).status).toBe(401);
    // The user's other session goes on.
    expect((await me(user.key)).status).toBe(200);
    expect((await s.api(path(user.id, secondId), { method: 'DELETE', key: admin })).status).toBe(
      404,
    );
  });
});
