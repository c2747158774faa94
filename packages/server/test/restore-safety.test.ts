import fs from 'node:fs';
import path from 'node:path';
import { SAFETY_BACKUP_RETENTION } from '@adam/contracts';
import { afterEach, describe, expect, it } from 'vitest';
import { ARTICLES } from './corpus.js';
import { saveText, startServer, type TestServer } from './helpers.js';
import { createRoleUser } from './role-users.js';

let s: TestServer | undefined;
afterEach(async () => {
  await s?.close();
  s = undefined;
});

async function snippetIds(key: string): Promise<number[]> {
  const r = await s!.api('/api/v1/snippets?per_page=500', { key });
  return (r.body.snippets as { id: number }[]).map((x) => x.id).sort((a, b) => a - b);
}

describe("the console's restore keeps a safety backup of the data it replaces", () => {
  it('lists it as "safety", names it in the answer, and restoring it undoes the restore', async () => {
    s = await startServer();
    await s.adam.reconciled;
    const key = await s.login();
    await saveText(s, key, ARTICLES.photosynthesis, 'photosynthesis');
    const b = (await s.api('/api/v1/admin/maintenance/backup', { method: 'POST', key })).body;
    const before = await snippetIds(key);
    await saveText(s, key, ARTICLES.volcanoes, 'volcanoes');
    const changed = await snippetIds(key);
    expect(changed.length).toBeGreaterThan(before.length);

    const r = await s.api(`/api/v1/admin/maintenance/restore/${b.id}`, { method: 'POST', key });
    expect(r.status).toBe(200);
    expect(await snippetIds(key)).toEqual(before);
    const safetyId = r.body.safety_backup as string;
    expect(safetyId).not.toBe(b.id);

    const list = (await s.api('/api/v1/admin/maintenance/backups', { key })).body as {
      id: string;
      reason: string;
      counts: { snippets: number };
    }[];
    expect(list.find((x) => x.id === safetyId)).toMatchObject({
      reason: 'safety',
      counts: { snippets: changed.length },
    });
    expect(list.find((x) => x.id === b.id)?.reason).toBe('manual');

    const undo = await s.api(`/api/v1/admin/maintenance/restore/${safetyId}`, {
      method: 'POST',
      key,
    });
    expect(undo.status).toBe(200);
    expect(await snippetIds(key)).toEqual(changed);
  });

  it('makes none when the backup is damaged (nothing is replaced)', async () => {
    s = await startServer();
    await s.adam.reconciled;
    const key = await s.login();
    await saveText(s, key, ARTICLES.photosynthesis, 'photosynthesis');
    const b = (await s.api('/api/v1/admin/maintenance/backup', { method: 'POST', key })).body;
    fs.appendFileSync(path.join(s.dataDir, 'backups', b.id, 'adam.db'), 'x');
    const r = await s.api(`/api/v1/admin/maintenance/restore/${b.id}`, { method: 'POST', key });
    expect(r.status).toBe(422);
    const list = (await s.api('/api/v1/admin/maintenance/backups', { key })).body as {
      reason: string;
    }[];
    expect(list.map((x) => x.reason)).toEqual(['manual']);
  });

  it(`keeps the newest ${SAFETY_BACKUP_RETENTION} safety backups, and never the one being restored`, async () => {
    s = await startServer();
    await s.adam.reconciled;
    const key = await s.login();
    await saveText(s, key, ARTICLES.photosynthesis, 'photosynthesis');
    const { backups } = s.adam.services;
    const manual = await backups.create('manual');
    for (let i = 0; i < SAFETY_BACKUP_RETENTION + 1; i++) await backups.create('safety');
    const safeties = () => backups.list().filter((x) => x.reason === 'safety');
    expect(safeties()).toHaveLength(SAFETY_BACKUP_RETENTION);
    // Restoring the oldest safety backup left: the one it makes does not prune it away.
    const oldest = safeties().at(-1)!.id;
    const r = await backups.restore(oldest);
    expect(r.safety_backup).not.toBe(oldest);
    expect(backups.list().map((x) => x.id)).toContain(oldest);
    expect(backups.list().map((x) => x.id)).toContain(manual.id);
  });
});

describe('a restore and the keys it keeps', () => {
  it("drops the keys of a user id the backup gives to another person, keeps the restorer's", async () => {
    s = await startServer();
    await s.adam.reconciled;
    const admin = await s.login();
    const alice = await createRoleUser(s, admin, 'operator', 'alice@example.com');
    const b = (await s.api('/api/v1/admin/maintenance/backup', { method: 'POST', key: admin }))
      .body;
    expect(
      (await s.api(`/api/v1/admin/users/${alice.id}`, { method: 'DELETE', key: admin })).status,
    ).toBe(204);
    // SQLite hands the highest id out again: Bob gets the id Alice had in the backup.
    const bob = await createRoleUser(s, admin, 'operator', 'bob@example.com');
    expect(bob.id).toBe(alice.id);
    const bobsKey = await s.api('/api/v1/auth/api-keys', {
      method: 'POST',
      key: bob.key,
      body: { name: 'feeder', scope: 'write' },
    });
    expect(bobsKey.status).toBe(201);
    expect((await s.api('/api/v1/auth/me', { key: bobsKey.body.secret })).status).toBe(200);

    const r = await s.api(`/api/v1/admin/maintenance/restore/${b.id}`, {
      method: 'POST',
      key: admin,
    });
    expect(r.status).toBe(200);
    // Neither Bob's session nor his program's key acts as Alice now.
    expect((await s.api('/api/v1/auth/me', { key: bobsKey.body.secret })).status).toBe(401);
    expect((await s.api('/api/v1/auth/me', { key: bob.key })).status).toBe(401);
    const me = await s.api('/api/v1/auth/me', { key: admin });
    expect(me.status).toBe(200);
    expect(me.body.email).toBe('admin@example.com');
  });
});
