import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ARTICLES } from '../corpus.js';
import { startFixtureSite, type FixtureSite } from '../fixtures/fixture-site.js';
import { linkSharedModel, saveText, startServer, tempDir } from '../helpers.js';
import { crashRun, INDEX_CRASH_STATES, runIndexCrashStates } from './crash-harness.js';
import { report } from './report.js';

let site: FixtureSite;
beforeAll(async () => {
  site = await startFixtureSite();
});
afterAll(async () => {
  await site.close();
});

describe('crash: kill -9 under concurrent writes', () => {
  it('keeps every acknowledged write, ends every acknowledged job, leaves no orphan', async () => {
    const dataDir = tempDir();

    linkSharedModel(dataDir);
    const r = await crashRun({
      dataDir,
      siteUrl: site.url,
      env: { ADAM_FETCH_ALLOW: `127.0.0.1:${site.port}` },
      kills: 3,
      killAfterMs: [300, 1500],
    });
    const failures = r.problems.length + r.integrity.length;
    report({
      check: 'crash: kill -9 under concurrent writes',
      runs: r.kills,
      failures,
      figure:
        `${r.kills} kills, ${r.acked} acknowledged writes, ${r.lost} lost, ${r.orphans} orphans, ` +
        `integrity ${r.integrity.length ? 'FAILED' : 'ok'}`,
    });
    expect(r.problems).toEqual([]);
    expect(r.integrity).toEqual([]);
    expect(r.acked).toBeGreaterThan(0);
  }, 120_000);
});

describe('crash: between the steps of an index save', () => {
  it('starts on what a crash after a save step leaves, and answers every row', async () => {
    // The fast part: the states either side of the manifest swap and a truncated file; the
    // long check (crash.long.ts) runs every state.
    const states = INDEX_CRASH_STATES.filter((st) =>
      [
        'next generation written, manifest not swapped',
        'manifest swapped, old generation not removed',
        'manifest swapped, its .usearch truncated (lost writes)',
      ].includes(st.name),
    );
    const r = await runIndexCrashStates(states);
    report({
      check: 'crash: between index save steps (3 states)',
      runs: states.length,
      failures: r.failures.length,
      figure: r.figure,
    });
    expect(r.failures).toEqual([]);
  });
});

/** A small tmpfs for the data dir (root or CAP_SYS_ADMIN needed), unmounted in afterAll. */
function mountTmpfs(dir: string, size: string): string | null {
  const r = spawnSync('mount', ['-t', 'tmpfs', '-o', `size=${size}`, 'tmpfs', dir], {
    encoding: 'utf8',
  });
  return r.status === 0 ? null : (r.stderr || r.error?.message || 'mount failed').trim();
}

/** Fills the file system holding `dir` to the last byte; answers the filler's path. */
function fillDisk(dir: string): string {
  const filler = path.join(dir, `filler-${Date.now()}`);
  const fd = fs.openSync(filler, 'w');
  const chunk = Buffer.alloc(1 << 20, 1);
  try {
    for (let size = chunk.length; size >= 512;) {
      try {
        fs.writeSync(fd, chunk, 0, size);
      } catch (e) {
        if ((e as NodeJS.ErrnoException).code !== 'ENOSPC') throw e;
        size >>= 1; // down to the last few hundred bytes
      }
    }
  } finally {
    fs.closeSync(fd);
  }
  return filler;
}

describe('crash: a full disk', () => {
  const mount = tempDir('adam-enospc-');
  let refused: string | null = null;
  beforeAll(() => {
    refused = mountTmpfs(mount, '64m');
  });
  afterAll(() => {
    if (!refused) spawnSync('umount', ['-l', mount]);
    fs.rmSync(mount, { recursive: true, force: true });
  });

  it('answers a save, an index save and a backup with a clear error, and loses nothing', async (ctx) => {
    if (refused) {
      ctx.skip(
        `mounting a tmpfs needs root or CAP_SYS_ADMIN (${refused}): the full-disk check did not run`,
      );
      return;
    }
    const dataDir = path.join(mount, 'data');
    const s = await startServer({ dataDir });
    const problems: string[] = [];
    try {
      const key = await s.login();
      const kept = await saveText(s, key, ARTICLES.photosynthesis, 'photosynthesis');
      const countRows = () =>
        (s.adam.db.prepare('SELECT COUNT(*) FROM snippets').pluck().get() as number) ?? 0;
      const rowsBefore = countRows();

      // A save on a full disk.
      let filler = fillDisk(mount);
      const save = await s.api('/api/v1/playground/save-segments', {
        method: 'POST',
        key,
        body: { title: 'databases', language: 'en', text: ARTICLES.databases, wait: true },
      });
      if (save.status !== 507 || !/disk .* is full/.test(save.body?.detail ?? ''))
        problems.push(`save: ${save.status} ${JSON.stringify(save.body).slice(0, 300)}`);
      if (countRows() !== rowsBefore)
        problems.push(`save: ${countRows() - rowsBefore} rows half-stored`);

      // An index save on a full disk: vectors added with room, then the disk filled.
      fs.rmSync(filler);
      const more = await saveText(s, key, ARTICLES.databases, 'databases');
      const index = s.adam.services.index;
      const savedGeneration = JSON.parse(
        fs.readFileSync(path.join(dataDir, 'index', 'manifest.json'), 'utf8'),
      ).generation;
      index.addDeferred([{ key: 987_654, vector: new Float32Array(384).fill(0.05) }]);
      filler = fillDisk(mount);
      const indexSave = await index.flush().then(
        () => 'saved',
        (e: Error) => e.message,
      );
      if (!/the disk holding it is full .*the previous save is kept/.test(indexSave))
        problems.push(`index save: ${indexSave}`);
      const manifest = JSON.parse(
        fs.readFileSync(path.join(dataDir, 'index', 'manifest.json'), 'utf8'),
      );
      if (manifest.generation !== savedGeneration)
        problems.push(`index save: manifest moved to ${manifest.generation}`);
      index.removeAndSave([987_654]);

      // A backup on a full disk.
      const backup = await s.api('/api/v1/admin/maintenance/backup', { method: 'POST', key });
      if (backup.status !== 507 || !/disk .* is full/.test(backup.body?.detail ?? ''))
        problems.push(`backup: ${backup.status} ${JSON.stringify(backup.body).slice(0, 300)}`);
      const listed = await s.api('/api/v1/admin/maintenance/backups', { key });
      if ((listed.body.backups ?? listed.body).length)
        problems.push(`backup: ${JSON.stringify(listed.body).slice(0, 200)} listed`);
      const backupsDir = path.join(dataDir, 'backups');
      const staged = fs.existsSync(backupsDir) ? fs.readdirSync(backupsDir) : [];
      if (staged.length) problems.push(`backup: left in backups/: ${staged.join(', ')}`);

      // Room again: everything works and everything acknowledged is there.
      fs.rmSync(filler);
      const after = await saveText(s, key, ARTICLES.volcanoes, 'after');
      await index.flush();
      const backupAgain = await s.api('/api/v1/admin/maintenance/backup', { method: 'POST', key });
      if (backupAgain.status !== 200) problems.push(`backup after: ${backupAgain.status}`);
      const present = new Set(s.adam.db.prepare('SELECT id FROM snippets').pluck().all());
      for (const id of [...kept.snippet_ids, ...more.snippet_ids, ...after.snippet_ids])
        if (!present.has(id)) problems.push(`snippet ${id}: acknowledged and missing`);
      const integrity = s.adam.db.pragma('integrity_check', { simple: true });
      if (integrity !== 'ok') problems.push(`integrity_check: ${integrity}`);
      const check = await s.api('/api/v1/snippets/consistency-check', { key });
      const summary = check.body.summary;
      if (summary.index_only || summary.disk_only)
        problems.push(`consistency: ${JSON.stringify(summary)}`);
    } finally {
      await s.close();
    }
    report({
      check: 'crash: full disk during a save, an index save, a backup',
      runs: 3,
      failures: problems.length,
      figure: `${3 - new Set(problems.map((p) => p.split(':')[0])).size}/3 refused clearly, nothing half-stored, integrity ok after freeing space`,
    });
    expect(problems).toEqual([]);
  });
});
