import fs from 'node:fs';
import path from 'node:path';
import { SAFETY_BACKUP_RETENTION } from '@adam/contracts';
import { afterEach, describe, expect, it } from 'vitest';
import { ARTICLES } from './corpus.js';
import { saveText, startServer, type TestServer } from './helpers.js';

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
