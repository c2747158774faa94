import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { Readable } from 'node:stream';
import type { AuditEntry, Backup, BackupVerification } from '@adam/contracts';
import { describe, expect, it } from 'vitest';
import { AppError } from '../src/lib/errors.js';
import { BackupService } from '../src/services/backup.service.js';
import { ARTICLES } from './corpus.js';
import { saveText, startServer, tempDir, type TestServer } from './helpers.js';
import { until } from './until.js';
import { closedAfterEach } from './closed-after-each.js';

const { servers, extra } = closedAfterEach();

const MINUTE = 60_000;
const DAY = 86_400_000;

async function seeded() {
  const s = await startServer();
  servers.push(s);
  await s.adam.reconciled;
  const key = await s.login();
  await saveText(s, key, ARTICLES.photosynthesis, 'photosynthesis');
  return { s, key };
}

async function takeBackup(s: TestServer, key: string): Promise<Backup> {
  const r = await s.api('/api/v1/admin/maintenance/backup', { method: 'POST', key });
  expect(r.status).toBe(200);
  return r.body as Backup;
}

async function download(s: TestServer, key: string, id: string): Promise<Buffer> {
  const res = await fetch(`${s.url}/api/v1/admin/maintenance/backups/${id}/download`, {
    headers: { 'x-api-key': key },
  });
  expect(res.status).toBe(200);
  expect(res.headers.get('content-type')).toBe('application/x-tar');
  expect(res.headers.get('content-disposition')).toContain(`adam-backup-${id}.tar`);
  const body = Buffer.from(await res.arrayBuffer());
  expect(Number(res.headers.get('content-length'))).toBe(body.length);
  return body;
}

async function upload(s: TestServer, key: string, body: Buffer) {
  const res = await fetch(`${s.url}/api/v1/admin/maintenance/backups/upload`, {
    method: 'POST',
    headers: { 'x-api-key': key, 'content-type': 'application/x-tar' },
    body,
  });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : null };
}

const listIds = async (s: TestServer, key: string) =>
  ((await s.api('/api/v1/admin/maintenance/backups', { key })).body as Backup[]).map((b) => b.id);

/** What is left in backups/ besides complete backups (upload scratch, half-written folders). */
const leftovers = (s: TestServer) =>
  fs.readdirSync(path.join(s.dataDir, 'backups')).filter((n) => !/^\d{8}-\d{6}-\d{3}$/.test(n));

/** A ustar header written here independently of the server's writer (hostile archives). */
function tarHeader(name: string, size: number, type = '0', linkname = ''): Buffer {
  const h = Buffer.alloc(512);
  h.write(name, 0, 100, 'utf8');
  h.write('0000644\0', 100);
  h.write('0000000\0', 108);
  h.write('0000000\0', 116);
  h.write(`${size.toString(8).padStart(11, '0')}\0`, 124);
  h.write('00000000000\0', 136);
  h.write(type, 156);
  h.write(linkname, 157, 100);
  h.write('ustar\0', 257);
  h.write('00', 263);
  h.fill(0x20, 148, 156);
  let sum = 0;
  for (const b of h) sum += b;
  h.write(`${sum.toString(8).padStart(6, '0')}\0 `, 148);
  return h;
}

function tarOf(entries: { name: string; data?: Buffer; type?: string; link?: string }[]): Buffer {
  const parts: Buffer[] = [];
  for (const e of entries) {
    const data = e.data ?? Buffer.alloc(0);
    parts.push(tarHeader(e.name, data.length, e.type ?? '0', e.link ?? ''));
    parts.push(data, Buffer.alloc((512 - (data.length % 512)) % 512));
  }
  parts.push(Buffer.alloc(1024));
  return Buffer.concat(parts);
}

/** Rewrites a downloaded archive with one file's bytes changed (same length, so still a tar). */
function withDamagedFile(archive: Buffer, rel: string): Buffer {
  const copy = Buffer.from(archive);
  for (let at = 0; at + 512 <= copy.length;) {
    const header = copy.subarray(at, at + 512);
    const entry = header.subarray(0, header.indexOf(0)).toString('utf8');
    const size = parseInt(header.subarray(124, 135).toString('latin1'), 8) || 0;
    if (entry.endsWith(`/${rel}`)) {
      const mid = at + 512 + Math.floor(size / 2);
      copy[mid] = copy[mid]! ^ 0xff;
      return copy;
    }
    at += 512 + Math.ceil(size / 512) * 512;
  }
  throw new Error(`${rel} not in the archive`);
}

describe('backup download and upload', () => {
  it('downloads a tar any tar reads, and uploads it back verified and listed', async () => {
    const { s, key } = await seeded();
    const b = await takeBackup(s, key);
    const archive = await download(s, key, b.id);

    const dir = tempDir('adam-tar-');
    fs.writeFileSync(path.join(dir, 'b.tar'), archive);
    const names = execFileSync('tar', ['-tf', path.join(dir, 'b.tar')], { encoding: 'utf8' })
      .trim()
      .split('\n');
    expect(names).toContain(`${b.id}/manifest.json`);
    expect(names).toContain(`${b.id}/adam.db`);
    expect(names.some((n) => n.startsWith(`${b.id}/index/`) && !n.endsWith('/'))).toBe(true);

    // Here already: refused, nothing added.
    const twice = await upload(s, key, archive);
    expect(twice.status).toBe(409);
    expect(twice.body.detail).toContain(b.id);

    expect(
      (await s.api(`/api/v1/admin/maintenance/backups/${b.id}`, { method: 'DELETE', key })).status,
    ).toBe(204);
    expect(await listIds(s, key)).not.toContain(b.id);

    const up = await upload(s, key, archive);
    expect(up.status).toBe(201);
    expect(up.body).toMatchObject({ id: b.id, reason: 'manual', counts: b.counts });
    expect(await listIds(s, key)).toContain(b.id);
    expect(leftovers(s)).toEqual([]);

    const restored = await s.api(`/api/v1/admin/maintenance/restore/${b.id}`, {
      method: 'POST',
      key,
    });
    expect(restored.status).toBe(200);
    expect(restored.body.counts.snippets).toBe(b.counts.snippets);
  });

  it('refuses a corrupted upload with what failed, and keeps nothing of it', async () => {
    const { s, key } = await seeded();
    const b = await takeBackup(s, key);
    const archive = await download(s, key, b.id);
    await s.api(`/api/v1/admin/maintenance/backups/${b.id}`, { method: 'DELETE', key });

    const r = await upload(s, key, withDamagedFile(archive, 'adam.db'));
    expect(r.status).toBe(422);
    expect(r.body.detail).toContain('checksums: adam.db does not match its sha256 checksum');
    expect(await listIds(s, key)).toEqual([]);
    expect(leftovers(s)).toEqual([]);
  });

  it('refuses a truncated upload', async () => {
    const { s, key } = await seeded();
    const b = await takeBackup(s, key);
    const archive = await download(s, key, b.id);
    await s.api(`/api/v1/admin/maintenance/backups/${b.id}`, { method: 'DELETE', key });

    const r = await upload(s, key, archive.subarray(0, Math.floor(archive.length / 2)));
    expect(r.status).toBe(422);
    expect(r.body.detail).toMatch(/truncated/);
    expect(await listIds(s, key)).toEqual([]);
    expect(leftovers(s)).toEqual([]);
  });

  it('refuses entries that leave the backup folder, links and foreign files', async () => {
    const { s, key } = await seeded();
    const outside = path.join(s.dataDir, 'escaped');
    const id = '20260101-000000-000';
    const cases: [Parameters<typeof tarOf>[0], string][] = [
      [[{ name: `${id}/../../escaped`, data: Buffer.from('x') }], 'a backup holds no such file'],
      [[{ name: '../escaped', data: Buffer.from('x') }], 'not named as a backup id'],
      [[{ name: '/tmp/escaped', data: Buffer.from('x') }], 'not named as a backup id'],
      [
        [{ name: `${id}/adam.db`, type: '2', link: '/etc/passwd' }],
        'not a regular file or a folder',
      ],
      [[{ name: `${id}/notes.txt`, data: Buffer.from('x') }], 'a backup holds no such file'],
    ];
    for (const [entries, problem] of cases) {
      const r = await upload(s, key, tarOf(entries));
      expect(r.status, JSON.stringify(entries[0]!.name)).toBe(422);
      expect(r.body.detail).toContain(problem);
    }
    expect(fs.existsSync(outside)).toBe(false);
    expect(fs.existsSync('/tmp/escaped')).toBe(false);
    expect(leftovers(s)).toEqual([]);

    // Not a tar at all.
    const junk = await upload(s, key, Buffer.alloc(2048, 7));
    expect(junk.status).toBe(422);
    expect(junk.body.detail).toContain('not a tar archive');
  });

  it('refuses an oversize upload with 413, declared or as it arrives', async () => {
    const { s, key } = await seeded();
    const b = await takeBackup(s, key);
    const archive = await download(s, key, b.id);
    const svc = new BackupService({
      db: s.adam.db,
      dataDir: tempDir('adam-bk-'),
      index: s.adam.services.index,
      log: s.adam.log,
      bus: s.adam.bus,
      settings: () => s.adam.services.settings.get('general'),
      version: 'test',
      maxUploadBytes: 4096,
    });
    extra.push(svc);
    const status = async (p: Promise<unknown>) => {
      try {
        await p;
        return 'accepted';
      } catch (e) {
        return e instanceof AppError ? `${e.status}` : String(e);
      }
    };
    expect(await status(svc.upload(Readable.from([archive]), archive.length))).toBe('413');
    // No length given: stopped once past the bound, its scratch deleted.
    const chunks = Array.from({ length: archive.length / 512 }, (_, i) =>
      archive.subarray(i * 512, (i + 1) * 512),
    );
    expect(await status(svc.upload(Readable.from(chunks)))).toBe('413');
    expect(svc.list()).toEqual([]);
    expect(fs.readdirSync(path.join(svc['root'] as string))).toEqual([]);
  });
});

describe('backup delete and verify', () => {
  it('deletes a backup (404 after), and a safety backup too', async () => {
    const { s, key } = await seeded();
    const b = await takeBackup(s, key);
    const r = await s.api(`/api/v1/admin/maintenance/restore/${b.id}`, { method: 'POST', key });
    expect(r.status).toBe(200);
    const safety = r.body.safety_backup as string;
    expect(await listIds(s, key)).toContain(safety);

    const del = (id: string) =>
      s.api(`/api/v1/admin/maintenance/backups/${id}`, { method: 'DELETE', key });
    expect((await del(safety)).status).toBe(204);
    expect((await del(b.id)).status).toBe(204);
    expect(await listIds(s, key)).toEqual([]);
    const again = await del(b.id);
    expect(again.status).toBe(404);
    expect(again.body.detail).toBeTruthy();
    expect((await del('../../adam.db')).status).toBe(404);
  });

  it('answers 409 for a backup being downloaded, then deletes it once the download ended', async () => {
    const { s, key } = await seeded();
    const b = await takeBackup(s, key);
    const res = await fetch(`${s.url}/api/v1/admin/maintenance/backups/${b.id}/download`, {
      headers: { 'x-api-key': key },
    });
    const reader = res.body!.getReader();
    await reader.read(); // the download has begun and is held open
    const busy = await s.api(`/api/v1/admin/maintenance/backups/${b.id}`, {
      method: 'DELETE',
      key,
    });
    expect(busy.status).toBe(409);
    expect(busy.body.detail).toContain('being downloaded');
    for (let r = await reader.read(); !r.done; r = await reader.read());
    await until(
      async () =>
        (await s.api(`/api/v1/admin/maintenance/backups/${b.id}`, { method: 'DELETE', key }))
          .status === 204,
      { what: 'the delete once the download ended' },
    );
  });

  it('verifies on demand: every check passed, then the one a damage fails', async () => {
    const { s, key } = await seeded();
    const b = await takeBackup(s, key);
    const ok = await s.api(`/api/v1/admin/maintenance/backups/${b.id}/verify`, {
      method: 'POST',
      key,
    });
    expect(ok.status).toBe(200);
    const good = ok.body as BackupVerification;
    expect(good.ok).toBe(true);
    expect(good.checks.map((c) => [c.name, c.ok])).toEqual([
      ['manifest', true],
      ['files', true],
      ['checksums', true],
      ['store', true],
      ['index', true],
    ]);

    const db = path.join(s.dataDir, 'backups', b.id, 'adam.db');
    const bytes = fs.readFileSync(db);
    bytes[bytes.length - 100] = bytes[bytes.length - 100]! ^ 0xff;
    // Its own copy damaged: backups share unchanged files as hard links (one inode), and an
    // in-place write would damage every backup, and the live index, sharing it.
    fs.rmSync(db);
    fs.writeFileSync(db, bytes);
    const bad = (
      await s.api(`/api/v1/admin/maintenance/backups/${b.id}/verify`, { method: 'POST', key })
    ).body as BackupVerification;
    expect(bad.ok).toBe(false);
    expect(bad.checks.map((c) => [c.name, c.ok])).toEqual([
      ['manifest', true],
      ['files', true],
      ['checksums', false],
    ]);
    expect(bad.checks[2]!.detail).toBe('adam.db does not match its sha256 checksum');

    fs.rmSync(path.join(s.dataDir, 'backups', b.id, 'adam.db'));
    const missing = (
      await s.api(`/api/v1/admin/maintenance/backups/${b.id}/verify`, { method: 'POST', key })
    ).body as BackupVerification;
    expect(missing.checks.at(-1)).toEqual({
      name: 'files',
      ok: false,
      detail: 'adam.db is missing',
    });
    expect(
      (await s.api('/api/v1/admin/maintenance/backups/nope/verify', { method: 'POST', key }))
        .status,
    ).toBe(404);
  });

  it('records delete, download, upload and verify in the audit trail', async () => {
    const { s, key } = await seeded();
    const b = await takeBackup(s, key);
    await s.api(`/api/v1/admin/maintenance/backups/${b.id}/verify`, { method: 'POST', key });
    const archive = await download(s, key, b.id);
    await s.api(`/api/v1/admin/maintenance/backups/${b.id}`, { method: 'DELETE', key });
    expect((await upload(s, key, archive)).status).toBe(201);
    const wanted = [
      'POST /admin/maintenance/backups/:id/verify',
      'GET /admin/maintenance/backups/:id/download',
      'DELETE /admin/maintenance/backups/:id',
      'POST /admin/maintenance/backups/upload',
    ];
    await until(
      async () => {
        const entries = (await s.api('/api/v1/admin/audit?limit=50', { key })).body
          .entries as AuditEntry[];
        return wanted.every((a) => entries.some((e) => e.action === a && e.outcome === 'ok'));
      },
      { what: 'the four backup calls in the audit trail' },
    );
  });
});

describe('auto-backup settings', () => {
  it('moves the next automatic backup at once when backup_frequency is saved, none when off', async () => {
    const { s, key } = await seeded();
    const auto = await s.adam.services.backups.create('auto');
    const nextDue = async () =>
      (await s.api('/api/v1/health', { key })).body.components.backups.details.next_due_at;
    const put = (settings: Record<string, unknown>) =>
      s.api('/api/v1/admin/settings/general', { method: 'PUT', key, body: { settings } });

    const last = Date.parse(auto.created_at);
    expect((await put({ backup_frequency: 1440 })).status).toBe(200);
    expect(await nextDue()).toBe(new Date(last + 1440 * MINUTE).toISOString());
    expect((await put({ backup_frequency: 60 })).status).toBe(200);
    expect(await nextDue()).toBe(new Date(last + 60 * MINUTE).toISOString());
    expect((await put({ auto_backup: false })).status).toBe(200);
    expect(await nextDue()).toBeNull();

    const bad = await put({ backup_frequency: 61, backup_retention_count: 0 });
    expect(bad.status).toBe(422);
    expect(bad.body.detail).toContain('backup_frequency');
    expect(bad.body.errors.map((e: { field: string }) => e.field).sort()).toEqual([
      'backup_frequency',
      'backup_retention_count',
    ]);
    expect((await s.api('/api/v1/admin/settings/general', { key })).body).toMatchObject({
      backup_frequency: 60,
      auto_backup: false,
      backup_retention_count: 10,
    });
  });

  it('keeps backup_retention_count auto backups, deleting older ones as the setting is saved', async () => {
    const { s, key } = await seeded();
    const backups = s.adam.services.backups;
    const made: string[] = [];
    for (let i = 0; i < 3; i++) made.push((await backups.create('auto')).id);
    const manual = await takeBackup(s, key);
    expect(await listIds(s, key)).toEqual(expect.arrayContaining(made));

    const r = await s.api('/api/v1/admin/settings/general', {
      method: 'PUT',
      key,
      body: { settings: { backup_retention_count: 1 } },
    });
    expect(r.status).toBe(200);
    // Only the auto ones are counted: the manual one stays.
    expect((await listIds(s, key)).sort()).toEqual([made[2]!, manual.id].sort());
    await backups.create('auto');
    expect(backups.list().filter((b) => b.reason === 'auto')).toHaveLength(1);
  });

  it('deletes auto backups older than backup_retention_days, never the newest one', async () => {
    const { s } = await seeded();
    const dataDir = s.dataDir;
    let now = Date.now() - 10 * DAY;
    const general = { ...s.adam.services.settings.get('general'), backup_retention_days: 3 };
    const svc = new BackupService({
      db: s.adam.db,
      dataDir,
      index: s.adam.services.index,
      log: s.adam.log,
      bus: s.adam.bus,
      settings: () => general,
      version: 'test',
      now: () => now,
    });
    extra.push(svc);
    const old1 = await svc.create('auto');
    now += DAY;
    const old2 = await svc.create('auto');
    // Both within 3 days of the clock then.
    expect(svc.list().map((b) => b.id)).toEqual([old2.id, old1.id]);

    now = Date.now();
    const fresh = await svc.create('auto');
    expect(svc.list().map((b) => b.id)).toEqual([fresh.id]);
    general.backup_retention_days = 0;
    now += DAY;
    const next = await svc.create('auto');
    expect(svc.list().map((b) => b.id)).toEqual([next.id, fresh.id]);

    // All past the limit (housekeeping's round, long after): the newest is kept.
    general.backup_retention_days = 3;
    now += 30 * DAY;
    expect(svc.applyRetention()).toEqual([fresh.id]);
    expect(svc.list().map((b) => b.id)).toEqual([next.id]);
  });
});
