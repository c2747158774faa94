import { spawn } from 'node:child_process';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import {
  AuditService,
  REFUSED_PER_ADDRESS_PER_MINUTE,
  REFUSED_PER_MINUTE,
} from '../src/services/audit.service.js';
import { AuditRepository, type AuditRecord } from '../src/store/audit.repository.js';
import { openDatabase, type Db } from '../src/store/db.js';
import { linkSharedModel, startServer, tempDir, type TestServer } from './helpers.js';
import { createRoleUser, type RoleUser } from './role-users.js';
import { adamNodeArgs } from './source-entry.js';

const serverRoot = path.resolve(import.meta.dirname, '..');
let s: TestServer;
let adminKey: string;
let viewer: RoleUser;

beforeAll(async () => {
  s = await startServer();
  adminKey = await s.login();
  viewer = await createRoleUser(s, adminKey, 'viewer');
});
afterAll(() => s?.close());

const search = async (query: string) => {
  const r = await s.api(`/api/v1/admin/audit?${query}`, { key: adminKey });
  expect(r.status).toBe(200);
  return r.body as { entries: Record<string, any>[]; next_cursor: string | null }; // eslint-disable-line @typescript-eslint/no-explicit-any
};

describe('audit trail', () => {
  it('records a settings change with the changed fields before and after', async () => {
    const r = await s.api('/api/v1/admin/settings/security', {
      method: 'PUT',
      key: adminKey,
      body: { settings: { audit_retention_days: 90 } },
    });
    expect(r.status).toBe(200);
    const page = await search('action=' + encodeURIComponent('PUT /admin/settings/:section'));
    const e = page.entries[0]!;
    expect(e).toMatchObject({
      user_email: 'admin@example.com',
      key_kind: 'session',
      target: 'security',
      status: 200,
      outcome: 'ok',
      address: '127.0.0.1',
      detail: { changes: { audit_retention_days: { before: 365, after: 90 } } },
    });
    expect(e.key_id).toBeTypeOf('number');
  });

  it('redacts secret-like settings fields', async () => {
    const { changedFields } = await import('../src/services/audit.service.js');
    expect(
      changedFields(
        { smtp_password: 'old', api_token: 'a', same: 1, title: 'x' },
        { smtp_password: 'new', api_token: 'b', same: 1, title: 'y' },
      ),
    ).toEqual({
      smtp_password: { before: '[redacted]', after: '[redacted]' },
      api_token: { before: '[redacted]', after: '[redacted]' },
      title: { before: 'x', after: 'y' },
    });
  });

  it('records a failed login with the email tried, never the password', async () => {
    const r = await s.api('/api/v1/auth/login', {
      method: 'POST',
      body: { email: 'mallory@example.com', password: 'hunter2-secret' },
    });
    expect(r.status).toBe(401);
    const page = await search('user=mallory@example.com');
    expect(page.entries).toHaveLength(1);
    expect(page.entries[0]).toMatchObject({
      action: 'POST /auth/login',
      outcome: 'refused',
      status: 401,
      user_id: null,
    });
    expect(JSON.stringify(page.entries[0])).not.toContain('hunter2');
  });

  it('records a successful login with the user id and the session it opened', async () => {
    const key = await s.login(viewer.email, viewer.password);
    const me = await s.api('/api/v1/auth/sessions', { key });
    const current = me.body.items.find((x: { current: boolean }) => x.current);
    const page = await search(
      `user=${viewer.id}&outcome=ok&action=${encodeURIComponent('POST /auth/login')}`,
    );
    expect(page.entries[0]).toMatchObject({
      user_id: viewer.id,
      user_email: viewer.email,
      key_id: current.id,
      key_kind: 'session',
      status: 200,
      detail: null,
    });
  });

  it('records a refused call (403) naming who, and does not record reads', async () => {
    const before = (await search('limit=500')).entries.length;
    const ok = await s.api('/api/v1/admin/settings', { key: viewer.key });
    expect(ok.status).toBe(200);
    const searched = await s.api('/api/v1/snippets/search', {
      method: 'POST',
      key: viewer.key,
      body: { query: 'x' },
    });
    expect(searched.status).toBeLessThan(500);
    expect((await search('limit=500')).entries.length).toBe(before);

    const refused = await s.api('/api/v1/admin/settings/general', {
      method: 'PUT',
      key: viewer.key,
      body: { settings: { api_title: 'x' } },
    });
    expect(refused.status).toBe(403);
    const page = await search(`user=${viewer.id}&outcome=refused`);
    expect(page.entries[0]).toMatchObject({
      user_email: viewer.email,
      action: 'PUT /admin/settings/:section',
      target: 'general',
      status: 403,
      detail: { detail: refused.body.detail },
    });
  });

  it('filters and pages newest first with a cursor', async () => {
    for (const n of [1, 2, 3, 4, 5]) {
      await s.api('/api/v1/admin/settings/security', {
        method: 'PUT',
        key: adminKey,
        body: { settings: { audit_retention_days: 100 + n } },
      });
    }
    const filter = 'target=security&outcome=ok&user=admin@example.com';
    const first = await search(`${filter}&limit=2`);
    expect(first.entries).toHaveLength(2);
    expect(first.entries[0]!.detail.changes.audit_retention_days.after).toBe(105);
    expect(first.entries[1]!.detail.changes.audit_retention_days.after).toBe(104);
    const second = await search(`${filter}&limit=2&cursor=${first.next_cursor}`);
    expect(second.entries.map((e) => e.detail.changes.audit_retention_days.after)).toEqual([
      103, 102,
    ]);
    const all = await search(`${filter}&limit=500`);
    expect(all.entries).toHaveLength(6);
    expect(all.next_cursor).toBeNull();
    const none = await search(`${filter}&from=2100-01-01T00:00:00Z`);
    expect(none.entries).toHaveLength(0);
    const bad = await s.api('/api/v1/admin/audit?cursor=abc', { key: adminKey });
    expect(bad.status).toBe(422);
  });

  it('exports every row as CSV (formula cells escaped) and JSON Lines', async () => {
    // A tried email that a spreadsheet would run as a formula.
    await s.api('/api/v1/auth/login', {
      method: 'POST',
      body: { email: '=HYPERLINK("x")@example.com', password: 'wrong-password' },
    });
    const total = (await search('limit=500')).entries.length;
    const csv = await fetch(`${s.url}/api/v1/admin/audit/export?format=csv`, {
      headers: { 'x-api-key': adminKey },
    });
    expect(csv.status).toBe(200);
    expect(csv.headers.get('content-type')).toContain('text/csv');
    const lines = (await csv.text()).trimEnd().split('\r\n');
    expect(lines[0]).toBe(
      'id,at,user_id,user_email,key_id,key_kind,action,target,address,status,outcome,detail,prev_hash,hash',
    );
    expect(lines).toHaveLength(total + 1);
    expect(lines.some((l) => l.includes(`"'=HYPERLINK(""x"")@example.com"`))).toBe(true);

    const jsonl = await s.api('/api/v1/admin/audit/export?format=jsonl&outcome=ok', {
      key: adminKey,
    });
    const rows = (jsonl.body as string)
      .trimEnd()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(rows.length).toBe((await search('outcome=ok&limit=500')).entries.length);
    expect(rows.every((r) => r.outcome === 'ok')).toBe(true);
  });

  it('gives the audit routes to administrators only', async () => {
    for (const p of ['/api/v1/admin/audit', '/api/v1/admin/audit/verify']) {
      expect((await s.api(p, { key: viewer.key })).status).toBe(403);
    }
  });

  it('verify finds an edited row and a deleted row, and is ok after pruning', async () => {
    const verify = async () => (await s.api('/api/v1/admin/audit/verify', { key: adminKey })).body;
    expect(await verify()).toMatchObject({ ok: true, problem: null });
    const db = s.adam.db;
    const ids = db.prepare('SELECT id FROM audit_log ORDER BY id').pluck().all() as number[];
    const victim = ids[3]!;

    const saved = db.prepare('SELECT * FROM audit_log WHERE id = ?').get(victim) as Record<
      string,
      unknown
    >;
    db.prepare("UPDATE audit_log SET outcome = 'ok', status = 200 WHERE id = ?").run(victim);
    expect(await verify()).toMatchObject({ ok: false, problem: 'edited', broken_id: victim });

    db.prepare('DELETE FROM audit_log WHERE id = ?').run(victim);
    expect(await verify()).toMatchObject({ ok: false, problem: 'deleted', broken_id: victim + 1 });
    const cols = Object.keys(saved);
    db.prepare(
      `INSERT INTO audit_log (${cols.join(',')}) VALUES (${cols.map((c) => '@' + c).join(',')})`,
    ).run(saved);
    expect(await verify()).toMatchObject({ ok: true });

    // The last row deleted: the chain's head still names it.
    const last = ids[ids.length - 1]!;
    const lastRow = db.prepare('SELECT * FROM audit_log WHERE id = ?').get(last) as Record<
      string,
      unknown
    >;
    db.prepare('DELETE FROM audit_log WHERE id = ?').run(last);
    expect(await verify()).toMatchObject({ ok: false, problem: 'deleted' });
    db.prepare(
      `INSERT INTO audit_log (${cols.join(',')}) VALUES (${cols.map((c) => '@' + c).join(',')})`,
    ).run(lastRow);

    // Retention: everything written so far is past it once the clock moves a year on.
    s.clock.advance(400 * 86400_000);
    adminKey = await s.login();
    await s.api('/api/v1/admin/settings/security', {
      method: 'PUT',
      key: adminKey,
      body: { settings: { audit_retention_days: 30 } },
    });
    const audit = new AuditService({
      audit: new AuditRepository(db),
      log: s.adam.log,
      now: s.clock.now,
    });
    expect(audit.prune(30)).toBeGreaterThan(0);
    const after = await verify();
    expect(after).toMatchObject({ ok: true, checked: 2 });
    expect(after.anchor_id).toBeGreaterThan(0);
  });

  it('keeps the trail across a restore and records the restore', async () => {
    const b = await s.api('/api/v1/admin/maintenance/backup', { method: 'POST', key: adminKey });
    expect(b.status).toBeLessThan(300);
    const before = (await search('limit=500')).entries.length;
    const backups = await s.api('/api/v1/admin/maintenance/backups', { key: adminKey });
    const id = backups.body.backups?.[0]?.id ?? backups.body[0]?.id;
    const r = await s.api(`/api/v1/admin/maintenance/restore/${id}`, {
      method: 'POST',
      key: adminKey,
    });
    expect(r.status).toBe(200);
    const page = await search('limit=500');
    expect(page.entries.length).toBe(before + 1);
    expect(page.entries[0]).toMatchObject({
      action: 'POST /admin/maintenance/restore/:id',
      target: id,
    });
    expect((await s.api('/api/v1/admin/audit/verify', { key: adminKey })).body.ok).toBe(true);
  });
});

describe('the command line', () => {
  it('records a command that changes the data, as "cli"', async () => {
    const dataDir = tempDir();
    linkSharedModel(dataDir);
    const child = spawn(process.execPath, [...adamNodeArgs('cli'), 'backup'], {
      cwd: serverRoot,
      env: { ...process.env, ADAM_WEB_DIST: '', ADAM_DATA_DIR: dataDir },
      stdio: 'ignore',
    });
    const code = await new Promise((resolve) => child.on('exit', resolve));
    expect(code).toBe(0);
    const db = new Database(path.join(dataDir, 'adam.db'));
    try {
      expect(
        db.prepare('SELECT user_email, address, action, outcome FROM audit_log').all(),
      ).toEqual([{ user_email: 'cli', address: 'cli', action: 'cli backup', outcome: 'ok' }]);
    } finally {
      db.close();
    }
  });
});

describe('refused calls past the flood bound', () => {
  let db: Db;
  const refused = (address: string): AuditRecord => ({
    user_id: null,
    user_email: null,
    key_id: null,
    key_kind: null,
    action: 'GET /admin/users',
    target: null,
    address,
    status: 401,
    outcome: 'refused',
    detail: null,
  });
  const summaries = () =>
    (
      db
        .prepare(
          "SELECT address, detail FROM audit_log WHERE action = 'refused calls (summarised)'",
        )
        .all() as { address: string; detail: string }[]
    ).map((r) => ({ address: r.address, ...JSON.parse(r.detail) }));
  const rows = () => db.prepare('SELECT COUNT(*) FROM audit_log').pluck().get() as number;

  beforeAll(() => {
    db = openDatabase(tempDir());
  });
  afterEach(() => {
    vi.useRealTimers();
    db.prepare('DELETE FROM audit_log').run();
  });
  afterAll(() => db.close());

  it("writes the last minute's summary at the minute's end with no later refused call", () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date'] });
    vi.setSystemTime(new Date('2026-11-27T10:00:10Z'));
    const audit = new AuditService({ audit: new AuditRepository(db), log: s.adam.log });
    for (let i = 0; i < REFUSED_PER_ADDRESS_PER_MINUTE + 5; i++) audit.record(refused('10.0.0.9'));
    expect(rows()).toBe(REFUSED_PER_ADDRESS_PER_MINUTE);

    vi.advanceTimersByTime(49_000);
    expect(summaries()).toEqual([]);
    vi.advanceTimersByTime(1_001);
    expect(summaries()).toEqual([
      { address: '10.0.0.9', suppressed: 5, minute_of: '2026-11-27T10:00:00.000Z' },
    ]);
    // Written once: the next minute's refused call finds nothing left to summarise.
    audit.record(refused('10.0.0.9'));
    vi.advanceTimersByTime(120_000);
    expect(summaries()).toHaveLength(1);
    expect(rows()).toBe(REFUSED_PER_ADDRESS_PER_MINUTE + 2);
    audit.close();
  });

  it("leaves it to the next minute's refused call when one comes first, written once", () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date'] });
    vi.setSystemTime(new Date('2026-11-27T10:00:59.900Z'));
    const audit = new AuditService({ audit: new AuditRepository(db), log: s.adam.log });
    for (let i = 0; i < REFUSED_PER_ADDRESS_PER_MINUTE + 2; i++) audit.record(refused('10.0.0.7'));
    // The clock passes the minute before the timer runs (a busy event loop).
    vi.setSystemTime(new Date('2026-11-27T10:01:00.500Z'));
    audit.record(refused('10.0.0.7'));
    vi.advanceTimersByTime(180_000);
    expect(summaries()).toEqual([
      { address: '10.0.0.7', suppressed: 2, minute_of: '2026-11-27T10:00:00.000Z' },
    ]);
    audit.close();
  });

  it('counts past the global bound and writes what it holds at close', () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date'] });
    vi.setSystemTime(new Date('2026-11-27T10:00:05Z'));
    const audit = new AuditService({ audit: new AuditRepository(db), log: s.adam.log });
    for (let i = 0; i < REFUSED_PER_MINUTE + 3; i++)
      audit.record(refused(`10.1.${i >> 8}.${i & 255}`));
    expect(rows()).toBe(REFUSED_PER_MINUTE);
    // Shutdown within the minute: the count is not lost with the process.
    audit.close();
    expect(summaries()).toEqual([
      { address: '*', suppressed: 3, minute_of: '2026-11-27T10:00:00.000Z' },
    ]);
    vi.advanceTimersByTime(120_000);
    expect(summaries()).toHaveLength(1);
  });
});
