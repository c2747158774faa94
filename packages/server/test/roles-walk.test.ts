import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROLES, type Role } from '@adam/contracts';
import { startServer, type TestServer } from './helpers.js';
import { createRoleUser } from './role-users.js';

/**
 * Walks the OpenAPI document the server serves and calls every operation with no key and as
 * each role. A route that declares no role is refused to all (and fails here); one a role may
 * not call answers 403 naming the role it needs. Calls a role may make are sent a malformed JSON
 * body: the guard (onRequest) lets them through, the body parser then answers 400 before any
 * handler runs, so walking every write changes nothing.
 */

/** Reachable without a key: these, and only these, carry no role. */
const PUBLIC = new Set([
  'POST /api/v1/auth/login',
  'POST /api/v1/auth/refresh',
  'GET /api/v1/health',
  'GET /api/v1/ready',
  'GET /health',
  'GET /ready',
  'GET /api/v1/config/public',
  'GET /api/v1/ws',
]);

/** Written out here, not taken from the code under test: what each role may call. */
const MAY: Record<Role, Role[]> = {
  administrator: ['administrator', 'operator', 'viewer'],
  operator: ['operator', 'viewer'],
  viewer: ['viewer'],
};

interface Operation {
  method: string;
  path: string;
  url: string;
  role: string | undefined;
}

let s: TestServer;
let ops: Operation[];
const keys = {} as Record<Role, string>;

beforeAll(async () => {
  s = await startServer();
  keys.administrator = await s.login();
  keys.operator = (await createRoleUser(s, keys.administrator, 'operator')).key;
  keys.viewer = (await createRoleUser(s, keys.administrator, 'viewer')).key;
  const doc = (await s.api('/api/docs/json')).body as {
    paths: Record<string, Record<string, { 'x-required-role'?: string }>>;
  };
  ops = Object.entries(doc.paths).flatMap(([path, methods]) =>
    Object.entries(methods).map(([method, op]) => ({
      method: method.toUpperCase(),
      path,
      // Any id-like parameter: the guard answers before the route looks it up.
      url: path.replace(/\{[^}]+\}/g, '1'),
      role: op['x-required-role'],
    })),
  );
});
afterAll(async () => {
  await s?.close();
});

const name = (op: Operation) => `${op.method} ${op.path}`;

async function call(op: Operation, key?: string) {
  const write = op.method !== 'GET';
  return s.api(op.url, {
    method: op.method,
    key,
    ...(write ? { rawBody: '{not json', headers: { 'content-type': 'application/json' } } : {}),
  });
}

describe('every operation of the OpenAPI document', () => {
  it('declares a role, unless it is one of the public ones', () => {
    expect(ops.length).toBeGreaterThan(90);
    const undeclared = ops.filter(
      (op) => !PUBLIC.has(name(op)) && !ROLES.includes(op.role as Role),
    );
    expect(undeclared.map(name)).toEqual([]);
    expect(ops.filter((op) => op.role !== undefined && PUBLIC.has(name(op))).map(name)).toEqual([]);
  });

  it('answers 401 {detail} without a key', async () => {
    const wrong: string[] = [];
    for (const op of ops.filter((o) => !PUBLIC.has(name(o)))) {
      const r = await call(op);
      if (r.status !== 401 || typeof r.body?.detail !== 'string')
        wrong.push(`${name(op)} ${r.status}`);
    }
    expect(wrong).toEqual([]);
  });

  it.each(ROLES)(
    'answers as %s: 403 naming the missing role, or lets the call through',
    async (role) => {
      const wrong: string[] = [];
      for (const op of ops.filter((o) => !PUBLIC.has(name(o)))) {
        const r = await call(op, keys[role]);
        const needed = op.role as Role;
        if (MAY[role].includes(needed)) {
          if (r.status === 401 || r.status === 403)
            wrong.push(`${name(op)} refused: ${r.status} ${r.body?.detail}`);
        } else if (
          r.status !== 403 ||
          !String(r.body?.detail).includes(`needs the ${needed} role`)
        ) {
          wrong.push(`${name(op)} not refused: ${r.status} ${JSON.stringify(r.body)}`);
        }
      }
      expect(wrong).toEqual([]);
    },
    120_000,
  );

  it('gives user administration to the administrator only, and every write to at least an operator', () => {
    const users = ops.filter((op) => op.path.startsWith('/api/v1/admin/users'));
    expect(users.length).toBeGreaterThanOrEqual(4);
    expect(users.filter((op) => op.role !== 'administrator').map(name)).toEqual([]);
    // A viewer reads only: the POSTs it may make are searches, exports and its own account.
    const viewerWrites = ops
      .filter((op) => op.method !== 'GET' && op.role === 'viewer')
      .map(name)
      .sort();
    expect(viewerWrites).toEqual(
      [
        'DELETE /api/v1/auth/api-keys/{id}',
        'DELETE /api/v1/auth/sessions/{id}',
        'POST /api/v1/auth/api-keys',
        'POST /api/v1/auth/sessions/revoke-others',
        'POST /api/v1/admin/index/search',
        'POST /api/v1/auth/2fa/disable',
        'POST /api/v1/auth/2fa/enable',
        'POST /api/v1/auth/2fa/setup',
        'POST /api/v1/auth/logout',
        'POST /api/v1/auth/password',
        'POST /api/v1/auth/ws-ticket',
        'POST /api/v1/playground/analyze',
        'POST /api/v1/snippets/export',
        'POST /api/v1/snippets/search',
      ].sort(),
    );
  });
});
