import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { roleAllows, type Role } from '@adam/contracts';
import { startServer, type TestServer } from '../helpers.js';
import { createRoleUser, type RoleUser } from '../role-users.js';

/**
 * Privilege escalation, in one file an auditor can read: no path lets a caller act above its
 * role, its key's scope, or past a revocation. Every route is taken from the OpenAPI document
 * the server serves (its `x-required-role`), never from a hand-written list, so a new route is
 * walked the day it is added.
 *
 * Writes are sent a malformed JSON body: the guard decides in onRequest, so a refusal is a
 * 403 before anything runs, and a call let through stops at the body parser (400). Walking every
 * write as every principal changes nothing.
 *
 * Beside it: test/roles-walk.test.ts checks each route declares a role and walks sessions of
 * each role; test/api-keys.test.ts, test/sessions.test.ts and test/users.test.ts check the
 * features themselves. This file walks keys too and puts the refusals in one place.
 */

interface Operation {
  method: string;
  path: string;
  url: string;
  role: Role;
}

let s: TestServer;
let ops: Operation[];
let admin: string;
let operator: RoleUser;
let viewer: RoleUser;
/** Keys of the administrator: their scope is what caps them. */
let readKey: string;
let writeKey: string;
let adminKey: string;
const sockets: WebSocket[] = [];

const name = (op: Operation) => `${op.method} ${op.path}`;

async function newKey(key: string, scope: string) {
  const r = await s.api('/api/v1/auth/api-keys', {
    method: 'POST',
    key,
    body: { name: `${scope} key`, scope },
  });
  expect(r.status, JSON.stringify(r.body)).toBe(201);
  return r.body as { key: { id: number }; secret: string };
}

function call(op: Operation, key: string) {
  const write = op.method !== 'GET';
  return s.api(op.url, {
    method: op.method,
    key,
    ...(write ? { rawBody: '{not json', headers: { 'content-type': 'application/json' } } : {}),
  });
}

/** The operations of `ops` the key is not refused with 403 on. */
async function reachable(list: Operation[], key: string): Promise<string[]> {
  const through: string[] = [];
  for (const op of list) {
    const r = await call(op, key);
    if (r.status !== 403 || typeof r.body?.detail !== 'string') {
      through.push(`${name(op)} ${r.status}`);
    }
  }
  return through;
}

async function openSocket(key: string) {
  const ticket = await s.api('/api/v1/auth/ws-ticket', { method: 'POST', key });
  expect(ticket.status).toBe(200);
  const ws = new WebSocket(`${s.url.replace('http', 'ws')}/api/v1/ws?ticket=${ticket.body.ticket}`);
  sockets.push(ws);
  const closed = new Promise<number>((resolve) => ws.once('close', (code) => resolve(code)));
  await new Promise((resolve, reject) => (ws.once('open', resolve), ws.once('error', reject)));
  // Wrapped: an async function returning the promise itself would wait for the close.
  return { closed };
}

const patchUser = (id: number, body: object) =>
  s.api(`/api/v1/admin/users/${id}`, { method: 'PATCH', key: admin, body });

beforeAll(async () => {
  s = await startServer();
  admin = await s.login();
  operator = await createRoleUser(s, admin, 'operator');
  viewer = await createRoleUser(s, admin, 'viewer');
  readKey = (await newKey(admin, 'read')).secret;
  writeKey = (await newKey(admin, 'write')).secret;
  adminKey = (await newKey(admin, 'admin')).secret;
  const doc = (await s.api('/api/docs/json')).body as {
    paths: Record<string, Record<string, { 'x-required-role'?: string }>>;
  };
  ops = Object.entries(doc.paths).flatMap(([path, methods]) =>
    Object.entries(methods)
      .filter(([, op]) => op['x-required-role'] !== undefined)
      .map(([method, op]) => ({
        method: method.toUpperCase(),
        path,
        url: path.replace(/\{[^}]+\}/g, '1'),
        role: op['x-required-role'] as Role,
      })),
  );
}, 120_000);
afterEach(() => {
  for (const ws of sockets.splice(0)) ws.terminate();
});
afterAll(async () => {
  await s?.close();
});

describe('escalation: every operation above the caller is refused', () => {
  /** What a viewer may not call: every write and every route for operators or administrators. */
  const aboveViewer = () => ops.filter((op) => !roleAllows('viewer', op.role));

  it('walks a document that has writes and administration in it', () => {
    expect(aboveViewer().length).toBeGreaterThan(50);
    expect(adminOnly().length).toBeGreaterThan(15);
    expect(adminOnly().map(name)).toContain('PATCH /api/v1/admin/users/{id}');
  });

  it("refuses every write and admin route to a viewer's session and to a read-scope key", async () => {
    expect(await reachable(aboveViewer(), viewer.key)).toEqual([]);
    // The key belongs to the administrator: its scope alone holds it to reading.
    expect(await reachable(aboveViewer(), readKey)).toEqual([]);
  }, 180_000);

  it("refuses admin routes to an operator, and to an administrator's write-scope key", async () => {
    expect(await reachable(adminOnly(), operator.key)).toEqual([]);
    expect(await reachable(adminOnly(), writeKey)).toEqual([]);
    // The refusal says why: the key's scope, not the user's role.
    const r = await s.api('/api/v1/admin/users', { key: writeKey });
    expect(r.body.detail).toBe(
      'This needs the administrator role; the API key "write key" of admin@example.com (write scope) acts as an operator',
    );
  }, 180_000);

  it('lets no API key, even an admin-scope one, mint keys, change the password, 2FA or end sessions', async () => {
    // Walked: the routes a key is refused on as "needs a login session".
    const sessionOnly: string[] = [];
    for (const op of ops) {
      const r = await call(op, adminKey);
      if (r.status === 403 && String(r.body?.detail).includes('needs a login session')) {
        sessionOnly.push(name(op));
      }
    }
    expect(sessionOnly.sort()).toEqual(
      [
        'POST /api/v1/auth/api-keys',
        'DELETE /api/v1/auth/api-keys/{id}',
        'POST /api/v1/auth/password',
        'POST /api/v1/auth/2fa/setup',
        'POST /api/v1/auth/2fa/enable',
        'POST /api/v1/auth/2fa/disable',
        'DELETE /api/v1/auth/sessions/{id}',
        'POST /api/v1/auth/sessions/revoke-others',
      ].sort(),
    );
    // With a well-formed body too: no key was made.
    const minted = await s.api('/api/v1/auth/api-keys', {
      method: 'POST',
      key: adminKey,
      body: { name: 'child', scope: 'admin' },
    });
    expect(minted.status).toBe(403);
    const list = await s.api('/api/v1/auth/api-keys', { key: admin });
    expect(list.body.items.map((k: { name: string }) => k.name)).not.toContain('child');
  }, 180_000);
});

describe('escalation: changes to a user take effect at once', () => {
  it("caps a demoted administrator's admin key at the next call", async () => {
    const boss = await createRoleUser(s, admin, 'administrator');
    const key = (await newKey(boss.key, 'admin')).secret;
    expect((await s.api('/api/v1/admin/users', { key })).status).toBe(200);

    expect((await patchUser(boss.id, { role: 'operator' })).status).toBe(200);
    const capped = await s.api('/api/v1/admin/users', { key });
    expect(capped.status).toBe(403);
    expect(capped.body.detail).toContain('acts as an operator');
    expect(await reachable(adminOnly(), key)).toEqual([]);
    // Still what an operator may do.
    expect((await s.api('/api/v1/rules/scraping/999999', { method: 'DELETE', key })).status).toBe(
      404,
    );
  }, 180_000);

  it("refuses a disabled user's session, API key and open socket", async () => {
    const user = await createRoleUser(s, admin, 'operator');
    const key = (await newKey(user.key, 'write')).secret;
    const sessionSocket = await openSocket(user.key);
    const keySocket = await openSocket(key);

    expect((await patchUser(user.id, { disabled: true })).status).toBe(200);
    expect(await sessionSocket.closed).toBe(4401);
    expect(await keySocket.closed).toBe(4401);
    for (const k of [user.key, key]) {
      const r = await s.api('/api/v1/snippets', { key: k });
      expect(r.status).toBe(401);
    }
    // Nor can they log in again.
    const login = await s.api('/api/v1/auth/login', {
      method: 'POST',
      body: { email: user.email, password: user.password },
    });
    expect(login.status).toBe(401);
    expect(login.body.detail).toBe('This account is disabled');
  }, 180_000);

  it("answers 404 for another user's session and key ids, everywhere they can be named", async () => {
    const a = await createRoleUser(s, admin, 'operator');
    const b = await createRoleUser(s, admin, 'operator');
    const bKey = await newKey(b.key, 'read');
    const bSession = (await s.api('/api/v1/auth/sessions', { key: b.key })).body.items[0].id;

    const attempts = [
      s.api(`/api/v1/auth/api-keys/${bKey.key.id}`, { method: 'DELETE', key: a.key }),
      s.api(`/api/v1/auth/sessions/${bSession}`, { method: 'DELETE', key: a.key }),
      // An administrator naming B's key under A's id finds nothing either.
      s.api(`/api/v1/admin/users/${a.id}/api-keys/${bKey.key.id}`, {
        method: 'DELETE',
        key: admin,
      }),
    ];
    for (const r of await Promise.all(attempts)) {
      expect(r.status).toBe(404);
      expect(typeof r.body.detail).toBe('string');
    }
    // B's session and key still work.
    expect((await s.api('/api/v1/auth/me', { key: b.key })).status).toBe(200);
    expect((await s.api('/api/v1/snippets', { key: bKey.secret })).status).toBe(200);
  }, 180_000);
});

function adminOnly() {
  return ops.filter((op) => op.role === 'administrator');
}
