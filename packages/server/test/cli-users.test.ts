import path from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseUserCommand, UsageError } from '../src/cli-users.js';
import { killCliProcesses, runCli } from './cli-run.js';
import { startServer, type TestServer } from './helpers.js';

/** Each command is a process of its own: seconds apiece on a busy machine. */
const CLI_TEST_MS = 180_000;

afterAll(killCliProcesses);

/** Runs `adam ...args` on the data dir, as an operator at a terminal would. */
const adam = runCli;

const oneTimePassword = (out: string) =>
  /One-time password \(shown once\): (\S+)/.exec(out)?.[1] ?? null;

interface AuditRow {
  user_email: string | null;
  action: string;
  target: string | null;
  address: string;
  outcome: string;
  detail: string | null;
}

function cliAudit(dataDir: string): AuditRow[] {
  const db = new Database(path.join(dataDir, 'adam.db'), { readonly: true });
  try {
    return db
      .prepare("SELECT * FROM audit_log WHERE action LIKE 'cli user%' ORDER BY id")
      .all() as AuditRow[];
  } finally {
    db.close();
  }
}

let s: TestServer;
let admin: string;

// The server runs on the data dir throughout: these commands are how an operator locked out of
// the console gets back in, so they must work beside it.
beforeAll(async () => {
  s = await startServer();
  admin = await s.login();
});
afterAll(async () => {
  await s?.close();
});

describe('adam user commands beside a running server', () => {
  it(
    'creates a user whose one-time password must be changed at first login, and lists them',
    async () => {
      const r = await adam(s.dataDir, 'user', 'create', 'Ops@Example.com', '--role', 'operator');
      expect(r.code, r.err).toBe(0);
      expect(r.out).toContain('Created the operator ops@example.com');
      const password = oneTimePassword(r.out);
      expect(password).toMatch(/^[\w-]{20,}$/);

      const key = await s.login('ops@example.com', password!);
      expect((await s.api('/api/v1/snippets', { key })).body.detail).toContain(
        'Change your one-time password first',
      );
      const me = await s.api('/api/v1/auth/me', { key });
      expect(me.body).toMatchObject({ role: 'operator', must_change_password: true });

      const list = await adam(s.dataDir, 'users');
      expect(list.code).toBe(0);
      const lines = list.out.split('\n');
      expect(lines).toContainEqual(
        expect.stringMatching(/^ID\s+EMAIL\s+ROLE\s+STATUS\s+LAST LOGIN$/),
      );
      const row = lines.find((l) => l.includes('ops@example.com'))!;
      // The login just made is in the trail under the user's id: that is the last login shown.
      expect(row).toMatch(/^\d+\s+ops@example\.com\s+operator\s+one-time password\s+20\d\d-/);
      expect(lines.find((l) => l.includes('admin@example.com'))).toMatch(/administrator\s+active/);
    },
    CLI_TEST_MS,
  );

  it(
    'refuses a second user with the same e-mail: one line, exit 1, recorded as failed',
    async () => {
      const r = await adam(s.dataDir, 'user', 'create', 'ops@example.com', '--role', 'viewer');
      expect(r.code).toBe(1);
      expect(r.err.trim()).toBe('Error: A user with the e-mail ops@example.com already exists');
      expect(cliAudit(s.dataDir).at(-1)).toMatchObject({
        user_email: 'cli',
        action: 'cli user create',
        target: 'ops@example.com',
        address: 'cli',
        outcome: 'failed',
      });
    },
    CLI_TEST_MS,
  );

  it(
    'resets a password: the old sessions and API keys end, the new one-time password opens',
    async () => {
      const created = await adam(
        s.dataDir,
        'user',
        'create',
        'locked@example.com',
        '--role',
        'administrator',
      );
      const first = oneTimePassword(created.out)!;
      let session = await s.login('locked@example.com', first);
      await s.api('/api/v1/auth/password', {
        method: 'POST',
        key: session,
        body: { current_password: first, new_password: 'forgotten-later' },
      });
      session = await s.login('locked@example.com', 'forgotten-later');
      const apiKey = await s.api('/api/v1/auth/api-keys', {
        method: 'POST',
        key: session,
        body: { name: 'script', scope: 'read' },
      });
      expect(apiKey.status).toBe(201);

      const r = await adam(s.dataDir, 'user', 'reset-password', 'locked@example.com');
      expect(r.code, r.err).toBe(0);
      expect(r.out).toContain('sessions and API keys are ended');
      const next = oneTimePassword(r.out)!;
      expect(next).not.toBe(first);

      expect((await s.api('/api/v1/auth/me', { key: session })).status).toBe(401);
      expect((await s.api('/api/v1/snippets', { key: apiKey.body.secret })).status).toBe(401);
      const old = await s.api('/api/v1/auth/login', {
        method: 'POST',
        body: { email: 'locked@example.com', password: 'forgotten-later' },
      });
      expect(old.status).toBe(401);
      const back = await s.login('locked@example.com', next);
      expect((await s.api('/api/v1/auth/me', { key: back })).body.must_change_password).toBe(true);
      expect(cliAudit(s.dataDir).at(-1)).toMatchObject({
        action: 'cli user reset-password',
        target: 'locked@example.com',
        outcome: 'ok',
      });
    },
    CLI_TEST_MS,
  );

  it(
    'changes a role, taking effect at the open session’s next call',
    async () => {
      const r0 = await adam(
        s.dataDir,
        'user',
        'create',
        'demoted@example.com',
        '--role',
        'operator',
      );
      const first = oneTimePassword(r0.out)!;
      const key = await s.login('demoted@example.com', first);
      await s.api('/api/v1/auth/password', {
        method: 'POST',
        key,
        body: { current_password: first, new_password: 'demoted-password' },
      });
      const write = () => s.api('/api/v1/rules/scraping/999999', { method: 'DELETE', key });
      expect((await write()).status).toBe(404);

      const r = await adam(s.dataDir, 'user', 'set-role', 'demoted@example.com', 'viewer');
      expect(r.code, r.err).toBe(0);
      expect(r.out).toContain('demoted@example.com is now a viewer (was operator)');
      const refused = await write();
      expect(refused.status).toBe(403);
      expect(refused.body.detail).toContain('needs the operator role');
      expect(JSON.parse(cliAudit(s.dataDir).at(-1)!.detail!)).toEqual({ role: 'viewer' });
    },
    CLI_TEST_MS,
  );

  it(
    'disables and enables: a disabled user is refused, then logs in again',
    async () => {
      const r0 = await adam(s.dataDir, 'user', 'create', 'away@example.com', '--role', 'viewer');
      const password = oneTimePassword(r0.out)!;
      const key = await s.login('away@example.com', password);

      const off = await adam(s.dataDir, 'user', 'disable', 'away@example.com');
      expect(off.code, off.err).toBe(0);
      const refused = await s.api('/api/v1/auth/me', { key });
      expect(refused.status).toBe(401);
      expect(
        (
          await s.api('/api/v1/auth/login', {
            method: 'POST',
            body: { email: 'away@example.com', password },
          })
        ).body.detail,
      ).toBe('This account is disabled');
      expect((await adam(s.dataDir, 'users')).out).toMatch(/away@example\.com\s+viewer\s+disabled/);

      const on = await adam(s.dataDir, 'user', 'enable', 'away@example.com');
      expect(on.code, on.err).toBe(0);
      expect(on.out).toContain('away@example.com is enabled');
      // The keys disabling ended stay ended; the password opens again.
      expect((await s.api('/api/v1/auth/me', { key })).status).toBe(401);
      const again = await s.login('away@example.com', password);
      expect((await s.api('/api/v1/auth/me', { key: again })).status).toBe(200);
    },
    CLI_TEST_MS,
  );

  it(
    'never leaves no active administrator: demoting or disabling the last one exits 1',
    async () => {
      // Only admin@example.com and locked@example.com are administrators: demote one first.
      expect(
        (await adam(s.dataDir, 'user', 'set-role', 'locked@example.com', 'operator')).code,
      ).toBe(0);
      for (const args of [
        ['user', 'set-role', 'admin@example.com', 'viewer'],
        ['user', 'disable', 'admin@example.com'],
      ]) {
        const r = await adam(s.dataDir, ...args);
        expect(r.code).toBe(1);
        expect(r.err.trim()).toBe(
          'Error: This is the last active administrator: make another user an administrator first',
        );
      }
      expect((await s.api('/api/v1/auth/me', { key: admin })).body.role).toBe('administrator');
      expect(
        cliAudit(s.dataDir)
          .slice(-2)
          .map((e) => [e.action, e.outcome]),
      ).toEqual([
        ['cli user set-role', 'failed'],
        ['cli user disable', 'failed'],
      ]);
    },
    CLI_TEST_MS,
  );

  it(
    'names an unknown user in one line and exits 1',
    async () => {
      const r = await adam(s.dataDir, 'user', 'disable', 'nobody@example.com');
      expect(r.code).toBe(1);
      expect(r.err.trim()).toBe('Error: User nobody@example.com not found');
    },
    CLI_TEST_MS,
  );

  it(
    'refuses a malformed command with exit 2 and the usage, touching nothing',
    async () => {
      const before = cliAudit(s.dataDir).length;
      const r = await adam(s.dataDir, 'user', 'create', 'new@example.com', '--role', 'root');
      expect(r.code).toBe(2);
      expect(r.err).toContain('Unknown role "root": one of administrator|operator|viewer');
      expect(r.err).toContain('user create EMAIL --role ROLE');
      expect(r.out).not.toContain('Data directory');
      expect(cliAudit(s.dataDir).length).toBe(before);
    },
    CLI_TEST_MS,
  );
});

describe('reading a user command line', () => {
  it.each([
    [
      ['create', 'new@example.com'],
      'user create --role needs a role: administrator|operator|viewer',
    ],
    [
      ['create', 'not-an-email', '--role', 'viewer'],
      'user create: email must be a valid e-mail address',
    ],
    [['create', 'new@example.com', '--role'], '--role needs a value'],
    [['set-role', 'ops@example.com'], 'user set-role needs a role'],
    [['set-role', 'ops@example.com', 'viewer', 'extra'], 'user set-role: unexpected "extra"'],
    [['promote', 'ops@example.com'], 'Unknown user action "promote"'],
    [[], 'user needs an action'],
    [['disable'], 'user disable needs an e-mail address'],
    [['disable', 'ops@example.com', '--role', 'viewer'], 'user disable has no --role'],
  ])('refuses user %j', (args, message) => {
    expect(() => parseUserCommand('user', args)).toThrow(UsageError);
    expect(() => parseUserCommand('user', args)).toThrow(message);
  });

  it('reads each command, with --name or its default and --role=value', () => {
    expect(parseUserCommand('users', [])).toEqual({ kind: 'list' });
    expect(() => parseUserCommand('users', ['x'])).toThrow('users takes no arguments');
    expect(parseUserCommand('user', ['create', ' Ann@Example.com', '--role=viewer'])).toEqual({
      kind: 'create',
      email: 'ann@example.com',
      name: 'Ann',
      role: 'viewer',
    });
    expect(
      parseUserCommand('user', [
        'create',
        'a@example.com',
        '--name',
        'Ann Lee',
        '--role',
        'operator',
      ]),
    ).toMatchObject({ name: 'Ann Lee', role: 'operator' });
    expect(parseUserCommand('user', ['set-role', 'a@example.com', 'administrator'])).toEqual({
      kind: 'set-role',
      email: 'a@example.com',
      role: 'administrator',
    });
    expect(parseUserCommand('user', ['reset-password', 'a@example.com']).kind).toBe(
      'reset-password',
    );
    expect(parseUserCommand('user', ['enable', 'a@example.com']).kind).toBe('enable');
  });
});
