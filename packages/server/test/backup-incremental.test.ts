import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { Readable } from 'node:stream';
import type { Backup, BackupVerification } from '@adam/contracts';
import { describe, expect, it } from 'vitest';
import { AppError } from '../src/lib/errors.js';
import { BackupService, UPLOAD_DISK_RESERVE_BYTES } from '../src/services/backup.service.js';
import { ARTICLES } from './corpus.js';
import { saveText, startServer, tempDir, type TestServer } from './helpers.js';
import { closedAfterEach } from './closed-after-each.js';

/**
 * Backups that cost what changed (issue 28): the index's files shared as hard links with the
 * live index and between backups, deletion that
 * never takes what another backup holds, and the old layout (every file its own copy) still
 * listed, verified and restored.
 */

const { servers, extra } = closedAfterEach();

async function seeded() {
  const s = await startServer();
  servers.push(s);
  await s.adam.reconciled;
  const key = await s.login();
  await saveText(s, key, ARTICLES.photosynthesis, 'photosynthesis');
  return { s, key };
}

/** Room enough for the small archive of a seeded server (a few MB). */
const ARCHIVE_ROOM = 256 * 1048576;

const backupDir = (s: TestServer, id: string) => path.join(s.dataDir, 'backups', id);
const sha256 = (file: string) => createHash('sha256').update(fs.readFileSync(file)).digest('hex');

interface Manifest {
  files: { path: string; bytes: number; sha256: string }[];
}
const manifestOf = (s: TestServer, id: string): Manifest =>
  JSON.parse(fs.readFileSync(path.join(backupDir(s, id), 'manifest.json'), 'utf8')) as Manifest;
/** The backup's usearch file (its vectors and graph), relative to the backup's folder. */
const usearchOf = (s: TestServer, id: string) =>
  manifestOf(s, id).files.find((f) => f.path.endsWith('.usearch'))!.path;
const inode = (file: string) => fs.statSync(file).ino;

async function takeBackup(s: TestServer, key: string): Promise<Backup> {
  const r = await s.api('/api/v1/admin/maintenance/backup', { method: 'POST', key });
  expect(r.status).toBe(200);
  return r.body as Backup;
}

async function verify(s: TestServer, key: string, id: string): Promise<BackupVerification> {
  const r = await s.api(`/api/v1/admin/maintenance/backups/${id}/verify`, {
    method: 'POST',
    key,
  });
  expect(r.status).toBe(200);
  return r.body as BackupVerification;
}

const snippetCount = async (s: TestServer, key: string) =>
  (await s.api('/api/v1/snippets?per_page=1', { key })).body.total as number;

describe('backups share what did not change', () => {
  it('links the live index generation instead of copying it, with checksums true to the bytes', async () => {
    const { s, key } = await seeded();
    const a = await takeBackup(s, key);
    const b = await takeBackup(s, key);
    const rel = usearchOf(s, a.id);
    expect(usearchOf(s, b.id)).toBe(rel);
    const live = path.join(s.dataDir, 'index', path.basename(rel));
    // One file on disk, three names: the live index and both backups.
    expect(inode(path.join(backupDir(s, a.id), rel))).toBe(inode(live));
    expect(inode(path.join(backupDir(s, b.id), rel))).toBe(inode(live));
    expect(fs.statSync(live).nlink).toBeGreaterThanOrEqual(3);
    expect(s.adam.services.backups.lastWrite!.shared).toBeGreaterThanOrEqual(
      fs.statSync(live).size,
    );
    // The manifest's checksums (the second one reused from the first) are the files' own.
    for (const id of [a.id, b.id]) {
      for (const f of manifestOf(s, id).files) {
        const file = path.join(backupDir(s, id), f.path);
        expect({ path: f.path, sha256: sha256(file), bytes: fs.statSync(file).size }).toEqual({
          path: f.path,
          sha256: f.sha256,
          bytes: f.bytes,
        });
      }
      expect((await verify(s, key, id)).ok).toBe(true);
    }
  });

  it('deleting a backup keeps every file another backup shares, and that one still restores', async () => {
    const { s, key } = await seeded();
    const a = await takeBackup(s, key);
    const b = await takeBackup(s, key);
    const rel = usearchOf(s, b.id);
    const before = fs.readFileSync(path.join(backupDir(s, b.id), rel));
    const del = await s.api(`/api/v1/admin/maintenance/backups/${a.id}`, {
      method: 'DELETE',
      key,
    });
    expect(del.status).toBe(204);
    expect(fs.existsSync(backupDir(s, a.id))).toBe(false);
    expect(fs.readFileSync(path.join(backupDir(s, b.id), rel)).equals(before)).toBe(true);
    expect((await verify(s, key, b.id)).checks.map((c) => [c.name, c.ok])).toEqual([
      ['manifest', true],
      ['files', true],
      ['checksums', true],
      ['store', true],
      ['index', true],
    ]);

    // The index moves on: its old generation leaves the live folder, the backup keeps it.
    await saveText(s, key, ARTICLES.volcanoes, 'volcanoes');
    await s.adam.services.index.flush();
    const c = await takeBackup(s, key);
    expect(fs.existsSync(path.join(s.dataDir, 'index', path.basename(rel)))).toBe(false);
    expect(inode(path.join(backupDir(s, c.id), usearchOf(s, c.id)))).not.toBe(
      inode(path.join(backupDir(s, b.id), rel)),
    );
    const restored = await s.api(`/api/v1/admin/maintenance/restore/${b.id}`, {
      method: 'POST',
      key,
    });
    expect(restored.status).toBe(200);
    expect(restored.body.counts.snippets).toBe(b.counts.snippets);
    expect(await snippetCount(s, key)).toBe(b.counts.snippets);
    expect(s.adam.services.index.size).toBe(b.counts.vectors);
    // The newer backup, sharing nothing with the restored data, still verifies.
    expect((await verify(s, key, c.id)).ok).toBe(true);
  });

  it('lists, verifies and restores an old-layout backup (every file its own copy)', async () => {
    const { s, key } = await seeded();
    const old = await takeBackup(s, key);
    const dir = backupDir(s, old.id);
    // As backups were written before files were shared: each file copied, linked to nothing.
    for (const f of manifestOf(s, old.id).files) {
      const file = path.join(dir, f.path);
      fs.copyFileSync(file, `${file}.copy`);
      fs.renameSync(`${file}.copy`, file);
      expect(fs.statSync(file).nlink).toBe(1);
    }
    await saveText(s, key, ARTICLES.stoicism, 'stoicism');
    const listed = await s.api('/api/v1/admin/maintenance/backups', { key });
    expect((listed.body as Backup[]).map((b) => b.id)).toContain(old.id);
    expect((await verify(s, key, old.id)).ok).toBe(true);
    const r = await s.api(`/api/v1/admin/maintenance/restore/${old.id}`, { method: 'POST', key });
    expect(r.status).toBe(200);
    expect(await snippetCount(s, key)).toBe(old.counts.snippets);
  });

  it('a damaged shared file shows in every backup that holds it', async () => {
    const { s, key } = await seeded();
    const a = await takeBackup(s, key);
    const b = await takeBackup(s, key);
    // Damage in place (as a failing disk would): the one inode both backups name.
    const keys = manifestOf(s, a.id).files.find((f) => f.path.endsWith('.keys'))!.path;
    const fd = fs.openSync(path.join(backupDir(s, a.id), keys), 'r+');
    const one = Buffer.alloc(1);
    fs.readSync(fd, one, 0, 1, 0);
    one[0] = one[0]! ^ 0xff;
    fs.writeSync(fd, one, 0, 1, 0);
    fs.closeSync(fd);
    for (const id of [a.id, b.id]) {
      const failed = (await verify(s, key, id)).checks.find((c) => !c.ok);
      expect(failed).toEqual({
        name: 'checksums',
        ok: false,
        detail: `${keys} does not match its sha256 checksum`,
      });
    }
  });
});

describe('an upload checks the free disk space first', () => {
  async function withDisk(free: number) {
    const { s, key } = await seeded();
    const b = await takeBackup(s, key);
    const res = await fetch(`${s.url}/api/v1/admin/maintenance/backups/${b.id}/download`, {
      headers: { 'x-api-key': key },
    });
    expect(res.status).toBe(200);
    const archive = Buffer.from(await res.arrayBuffer());
    const dataDir = tempDir('adam-bk-disk-');
    const svc = new BackupService({
      db: s.adam.db,
      dataDir,
      index: s.adam.services.index,
      log: s.adam.log,
      bus: s.adam.bus,
      settings: () => s.adam.services.settings.get('general'),
      version: 'test',
      freeBytes: () => free,
    });
    extra.push(svc);
    return { svc, archive, dataDir };
  }

  const refusal = async (p: Promise<unknown>) => {
    try {
      await p;
      return null;
    } catch (e) {
      if (!(e instanceof AppError)) throw e;
      return { status: e.status, detail: e.message };
    }
  };

  it('answers 507 before reading a declared length that would not fit, and keeps nothing', async () => {
    const { svc, archive, dataDir } = await withDisk(UPLOAD_DISK_RESERVE_BYTES + 1000);
    const r = await refusal(svc.upload(Readable.from([archive]), archive.length));
    expect(r?.status).toBe(507);
    expect(r?.detail).toContain(`the archive has ${archive.length} bytes`);
    expect(r?.detail).toContain('free some space (delete old backups) and try again');
    expect(fs.readdirSync(path.join(dataDir, 'backups'))).toEqual([]);
    expect(svc.list()).toEqual([]);
  });

  it('answers 507 as an undeclared upload outgrows the room, and keeps nothing', async () => {
    const { svc, archive, dataDir } = await withDisk(UPLOAD_DISK_RESERVE_BYTES + 2048);
    const chunks = [
      archive.subarray(0, 1024),
      archive.subarray(1024, 4096),
      archive.subarray(4096),
    ];
    const r = await refusal(svc.upload(Readable.from(chunks)));
    expect(r?.status).toBe(507);
    expect(r?.detail).toContain('more than 2048 bytes arrived');
    expect(fs.readdirSync(path.join(dataDir, 'backups'))).toEqual([]);
  });

  it('takes the upload when it fits', async () => {
    const { svc, archive } = await withDisk(UPLOAD_DISK_RESERVE_BYTES + ARCHIVE_ROOM);
    const up = await svc.upload(Readable.from([archive]), archive.length);
    expect(svc.list().map((b) => b.id)).toEqual([up.id]);
    expect((await svc.verify(up.id)).ok).toBe(true);
  });
});
