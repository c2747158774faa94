import { createHash, randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { AUTO_BACKUP_RETENTION, MANUAL_BACKUP_RETENTION } from '@adam/contracts';
import Database from 'better-sqlite3';
import { describe, expect, it, vi } from 'vitest';
import { BackupService } from '../src/services/backup.service.js';
import { ARTICLES } from './corpus.js';
import { saveText, startServer, type TestServer } from './helpers.js';
import { closedAfterEach } from './closed-after-each.js';
import { until } from './until.js';

const { servers, extra } = closedAfterEach();

async function seeded() {
  const s = await startServer();
  servers.push(s);
  await s.adam.reconciled;
  const key = await s.login();
  const a = await saveText(s, key, ARTICLES.photosynthesis, 'photosynthesis');
  const b = await saveText(s, key, ARTICLES.databases, 'databases');
  const ids = [...a.snippet_ids, ...b.snippet_ids].sort((x, y) => x - y);
  expect(ids.length).toBeGreaterThan(1);
  return { s, key, ids };
}

const backupsDir = (s: TestServer) => path.join(s.dataDir, 'backups');
const sha256 = (file: string) => createHash('sha256').update(fs.readFileSync(file)).digest('hex');

async function takeBackup(s: TestServer, key: string) {
  const r = await s.api('/api/v1/admin/maintenance/backup', { method: 'POST', key });
  expect(r.status).toBe(200);
  return r.body as {
    id: string;
    created_at: string;
    size_mb: number;
    counts: Record<string, number>;
  };
}

async function allSnippetIds(s: TestServer, key: string): Promise<number[]> {
  const r = await s.api('/api/v1/snippets?per_page=500', { key });
  expect(r.status).toBe(200);
  return (r.body.snippets as { id: number }[]).map((x) => x.id).sort((a, b) => a - b);
}

/** A BackupService on a test server's parts, with minutes shrunk to `msPerMinute`. */
function fastService(s: TestServer, msPerMinute: number) {
  const b = new BackupService({
    db: s.adam.db,
    dataDir: s.dataDir,
    index: s.adam.services.index,
    log: s.adam.log,
    bus: s.adam.bus,
    settings: () => s.adam.services.settings.get('general'),
    version: 'test',
    minutesToMs: (m) => m * msPerMinute,
  });
  extra.push(b);
  return b;
}

describe('backups', () => {
  it('creates a backup whose manifest lists every file with its size and checksum', async () => {
    const { s, key, ids } = await seeded();
    const b = await takeBackup(s, key);
    expect(b.id).toMatch(/^\d{8}-\d{6}-\d{3}$/);
    expect(b.counts).toEqual({
      snippets: ids.length,
      vectors: ids.length,
      users: 1,
      rules: 0,
      jobs: expect.any(Number),
      sources: expect.any(Number),
    });
    expect(b.size_mb).toBeGreaterThan(0);

    const dir = path.join(backupsDir(s), b.id);
    const manifest = JSON.parse(fs.readFileSync(path.join(dir, 'manifest.json'), 'utf8'));
    expect(manifest).toMatchObject({
      format: 1,
      id: b.id,
      reason: 'manual',
      created_at: b.created_at,
      counts: b.counts,
    });
    expect(manifest.schema_version).toBeGreaterThanOrEqual(2);
    const paths = (manifest.files as { path: string }[]).map((f) => f.path);
    expect(paths).toContain('adam.db');
    expect(paths).toContain('index/manifest.json');
    expect(paths.some((p) => /^index\/index-\d+\.usearch$/.test(p))).toBe(true);
    expect(paths.some((p) => /^index\/index-\d+\.keys$/.test(p))).toBe(true);
    for (const f of manifest.files as { path: string; bytes: number; sha256: string }[]) {
      const file = path.join(dir, f.path);
      expect(fs.statSync(file).size, f.path).toBe(f.bytes);
      expect(sha256(file), f.path).toBe(f.sha256);
    }
    // A self-contained store file and no half-made backup left over.
    expect(fs.existsSync(path.join(dir, 'adam.db-wal'))).toBe(false);
    expect(fs.readdirSync(backupsDir(s))).toEqual([b.id]);

    const list = await s.api('/api/v1/admin/maintenance/backups', { key });
    expect(list.status).toBe(200);
    expect(list.body).toEqual([{ ...b, reason: 'manual' }]);

    const health = await s.api('/api/v1/health');
    expect(health.body.components.backups.details).toMatchObject({
      last_backup_id: b.id,
      count: 1,
      auto_backup: true,
    });
  });

  it('lists complete backups only, newest first', async () => {
    const { s, key } = await seeded();
    const first = await takeBackup(s, key);
    const second = await takeBackup(s, key);
    // A backup being written (or left by a crash) and a damaged one do not list.
    fs.mkdirSync(path.join(backupsDir(s), '20990101-000000-000.tmp'));
    fs.mkdirSync(path.join(backupsDir(s), '20990101-000000-001'));
    fs.writeFileSync(path.join(backupsDir(s), '20990101-000000-001', 'manifest.json'), '{');
    const list = await s.api('/api/v1/admin/maintenance/backups', { key });
    expect(list.body.map((b: { id: string }) => b.id)).toEqual([second.id, first.id]);
  });

  it('restores snippets, settings and rules as they were, and the session survives', async () => {
    const { s, key, ids } = await seeded();
    const before = await s.api('/api/v1/admin/settings/processing', { key });
    const b = await takeBackup(s, key);

    // Change everything after the backup.
    const deleted = await s.api(`/api/v1/snippets/${ids[0]}`, { method: 'DELETE', key });
    expect(deleted.status).toBe(200);
    const added = await saveText(s, key, ARTICLES.stoicism, 'stoicism');
    expect(added.snippet_ids.length).toBeGreaterThan(0);
    const put = await s.api('/api/v1/admin/settings/processing', {
      method: 'PUT',
      key,
      body: { settings: { min_quality_score: 0.77 } },
    });
    expect(put.status).toBe(200);
    const rule = await s.api('/api/v1/rules/scraping', {
      method: 'POST',
      key,
      body: { domain: 'example.org', mode: 'deny' },
    });
    expect(rule.status).toBe(201);
    expect(await allSnippetIds(s, key)).not.toEqual(ids);

    const r = await s.api(`/api/v1/admin/maintenance/restore/${b.id}`, { method: 'POST', key });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({
      id: b.id,
      counts: { snippets: ids.length, vectors: ids.length, users: 1, rules: 0 },
      reconcile: { total_disk: ids.length, total_index: ids.length, index_only: 0 },
    });
    expect(Date.parse(r.body.restored_at)).not.toBeNaN();

    // The same key still works, and everything is back.
    expect((await s.api('/api/v1/auth/me', { key })).status).toBe(200);
    expect(await allSnippetIds(s, key)).toEqual(ids);
    expect((await s.api(`/api/v1/snippets/${ids[0]}`, { key })).status).toBe(200);
    expect((await s.api(`/api/v1/snippets/${added.snippet_ids[0]}`, { key })).status).toBe(404);
    const after = await s.api('/api/v1/admin/settings/processing', { key });
    expect(after.body).toEqual(before.body);
    expect((await s.api('/api/v1/rules/scraping', { key })).body).toEqual([]);

    // Keyword (FTS) and vector search both answer from the restored data.
    const keyword = await s.api('/api/v1/snippets?search=chlorophyll', { key });
    expect(keyword.body.total).toBeGreaterThan(0);
    const search = await s.api('/api/v1/snippets/search', {
      method: 'POST',
      key,
      body: { query: 'SQL query planner and indexes', k: 3 },
    });
    expect(search.status).toBe(200);
    expect(search.body.results.length).toBeGreaterThan(0);
    for (const hit of search.body.results) expect(ids).toContain(hit.id);
    expect(search.body.results.map((h: { id: number }) => h.id)).not.toContain(
      added.snippet_ids[0],
    );

    const check = await s.api('/api/v1/snippets/consistency-check', { key });
    expect(check.body.summary).toMatchObject({
      total_disk: ids.length,
      total_index: ids.length,
      consistent: ids.length,
      index_only: 0,
      disk_only: 0,
    });
  });

  it('restores a backup taken before the vectors moved to their own table (schema 5)', async () => {
    const { s, key, ids } = await seeded();
    const b = await takeBackup(s, key);
    const dir = path.join(backupsDir(s), b.id);
    // Turn the backup's store back into what schema 5 kept: vectors on the rows, no counts.
    // What later migrations added to sources goes too (an ADD COLUMN cannot run twice), and
    // the tables and triggers that came after schema 5.
    const old = new Database(path.join(dir, 'adam.db'));
    old.exec(`
      ALTER TABLE snippets ADD COLUMN embedding BLOB;
      ALTER TABLE snippets ADD COLUMN embedder_id TEXT;
      UPDATE snippets SET
        embedding = (SELECT embedding FROM snippet_embeddings WHERE snippet_id = snippets.id),
        embedder_id = (SELECT embedder_id FROM snippet_embeddings WHERE snippet_id = snippets.id);
      DROP TABLE snippet_embeddings;
      DROP TABLE snippet_counts;
      DROP TRIGGER snippets_counts_ai; DROP TRIGGER snippets_counts_ad;
      DROP TRIGGER snippets_counts_au_job; DROP TRIGGER snippets_counts_au_source;
      DROP TRIGGER snippets_counts_au_pending;
      DROP INDEX snippets_theme_id; DROP INDEX snippets_theme_quality; DROP INDEX snippets_theme_words;
      DROP INDEX snippets_job_id; DROP INDEX snippets_job_quality;
      DROP INDEX snippets_source_id; DROP INDEX snippets_source_quality;
      CREATE INDEX snippets_theme_created ON snippets(theme, created_at);
      CREATE INDEX snippets_job_created ON snippets(job_id, created_at);
      CREATE INDEX snippets_source_created ON snippets(source_url, created_at);
      DROP INDEX sources_kind; ALTER TABLE sources DROP COLUMN kind;
      DROP INDEX sources_next_sync; DROP INDEX sources_missing;
      ALTER TABLE sources DROP COLUMN schedule; ALTER TABLE sources DROP COLUMN next_sync_at;
      ALTER TABLE sources DROP COLUMN last_sync_at; ALTER TABLE sources DROP COLUMN etag;
      ALTER TABLE sources DROP COLUMN last_modified; ALTER TABLE sources DROP COLUMN content_hash;
      ALTER TABLE sources DROP COLUMN missing_count; ALTER TABLE sources DROP COLUMN sync_job_id;
      DROP TRIGGER sources_segmentation_ai; ALTER TABLE sources DROP COLUMN segmentation;
      DROP TABLE source_syncs; DROP TABLE crawl_syncs;
      DROP TRIGGER snippets_ai; DROP TRIGGER snippets_ad; DROP TRIGGER snippets_au;
      DROP TABLE snippets_fts; DROP VIEW snippets_keyword;
      ALTER TABLE import_staging DROP COLUMN section;
      DROP TABLE quality_alerts;
      DROP TABLE eval_run_results; DROP TABLE eval_runs; DROP TABLE eval_judgments;
      DROP TABLE eval_queries; DROP TABLE eval_set_versions; DROP TABLE eval_sets;
      DROP INDEX snippets_source_title; DROP INDEX snippets_id;
      DROP TRIGGER snippets_keyword_ai; DROP TRIGGER snippets_keyword_ad;
      DROP TRIGGER snippets_keyword_au; DROP TABLE keyword_changes;
      ALTER TABLE snippets DROP COLUMN section;
      ALTER TABLE users DROP COLUMN role; ALTER TABLE users DROP COLUMN disabled_at;
      ALTER TABLE users DROP COLUMN must_change_password;
      DROP INDEX api_keys_user_kind; CREATE INDEX api_keys_user ON api_keys(user_id);
      ALTER TABLE api_keys DROP COLUMN kind; ALTER TABLE api_keys DROP COLUMN name;
      ALTER TABLE api_keys DROP COLUMN scope; ALTER TABLE api_keys DROP COLUMN prefix;
      ALTER TABLE api_keys DROP COLUMN last_used_address; ALTER TABLE api_keys DROP COLUMN user_agent;
      ALTER TABLE api_keys DROP COLUMN created_address;
      DROP TABLE audit_log; DROP TABLE audit_chain;
      DROP TABLE search_history;
      DELETE FROM schema_migrations WHERE id > 5;
    `);
    const vectors = old
      .prepare('SELECT COUNT(*) FROM snippets WHERE embedding IS NOT NULL')
      .pluck()
      .get();
    expect(vectors).toBe(ids.length);
    old.close();
    const manifestFile = path.join(dir, 'manifest.json');
    const manifest = JSON.parse(fs.readFileSync(manifestFile, 'utf8'));
    const dbFile = path.join(dir, 'adam.db');
    manifest.schema_version = 5;
    manifest.files = manifest.files.map((f: { path: string }) =>
      f.path === 'adam.db' ? { ...f, bytes: fs.statSync(dbFile).size, sha256: sha256(dbFile) } : f,
    );
    fs.writeFileSync(manifestFile, JSON.stringify(manifest));
    await saveText(s, key, ARTICLES.stoicism, 'stoicism');

    const r = await s.api(`/api/v1/admin/maintenance/restore/${b.id}`, { method: 'POST', key });
    expect(r.status).toBe(200);
    expect(r.body.counts).toMatchObject({ snippets: ids.length, vectors: ids.length });
    expect(await allSnippetIds(s, key)).toEqual(ids);
    const stored = s.adam.db
      .prepare('SELECT snippet_id FROM snippet_embeddings ORDER BY snippet_id')
      .pluck()
      .all();
    expect(stored).toEqual(ids);
    // The counts kept by triggers follow the restored rows.
    const jobs = s.adam.db
      .prepare(
        'SELECT job_id, COUNT(*) AS n FROM snippets WHERE job_id IS NOT NULL GROUP BY job_id',
      )
      .all() as { job_id: number; n: number }[];
    for (const j of jobs) {
      const list = await s.api(`/api/v1/snippets?job_id=${j.job_id}`, { key });
      expect(list.body).toMatchObject({ total: j.n, total_exact: true });
    }
  });

  it('answers 404 for an unknown or malformed backup id', async () => {
    const { s, key } = await seeded();
    await takeBackup(s, key);
    for (const id of ['20000101-000000-000', '..%2Fetc', '..%2F..%2Fadam.db', 'nope', '%2Ftmp']) {
      const r = await s.api(`/api/v1/admin/maintenance/restore/${id}`, { method: 'POST', key });
      expect(r.status, id).toBe(404);
      expect(r.body.detail, id).toMatch(/^Backup .* not found$/);
    }
  });

  it('refuses a damaged backup with 422 naming the file, and changes nothing', async () => {
    const { s, key, ids } = await seeded();
    const b = await takeBackup(s, key);
    const c = await takeBackup(s, key);
    // Changes after the backups, which a refused restore must leave in place.
    await s.api(`/api/v1/snippets/${ids[0]}`, { method: 'DELETE', key });
    await s.api('/api/v1/admin/settings/processing', {
      method: 'PUT',
      key,
      body: { settings: { min_quality_score: 0.66 } },
    });
    const expectUnchanged = async () => {
      expect(await allSnippetIds(s, key)).toEqual(ids.slice(1));
      const p = await s.api('/api/v1/admin/settings/processing', { key });
      expect(p.body.min_quality_score).toBe(0.66);
      expect(s.adam.services.index.size).toBe(ids.length - 1);
    };

    // A flipped byte in the store copy.
    const dbFile = path.join(backupsDir(s), b.id, 'adam.db');
    const bytes = fs.readFileSync(dbFile);
    bytes[Math.floor(bytes.length / 2)]! ^= 0xff;
    // Its own copy damaged: backups share unchanged files as hard links (one inode), and an
    // in-place write would damage every backup, and the live index, sharing it.
    fs.rmSync(dbFile);
    fs.writeFileSync(dbFile, bytes);
    const r1 = await s.api(`/api/v1/admin/maintenance/restore/${b.id}`, { method: 'POST', key });
    expect(r1.status).toBe(422);
    expect(r1.body.detail).toBe(
      `Backup ${b.id} is damaged: adam.db does not match its sha256 checksum`,
    );
    await expectUnchanged();

    // A missing index manifest.
    fs.rmSync(path.join(backupsDir(s), c.id, 'index', 'manifest.json'));
    const r2 = await s.api(`/api/v1/admin/maintenance/restore/${c.id}`, { method: 'POST', key });
    expect(r2.status).toBe(422);
    expect(r2.body.detail).toBe(`Backup ${c.id} is damaged: index/manifest.json is missing`);
    await expectUnchanged();

    // A manifest that no longer parses.
    fs.writeFileSync(path.join(backupsDir(s), c.id, 'manifest.json'), '{"format": 1');
    const r3 = await s.api(`/api/v1/admin/maintenance/restore/${c.id}`, { method: 'POST', key });
    expect(r3.status).toBe(422);
    expect(r3.body.detail).toContain('manifest.json is not valid JSON');
    await expectUnchanged();
  });

  it('refuses a store that passes its checksum but not the integrity check', async () => {
    const { s, key, ids } = await seeded();
    const b = await takeBackup(s, key);
    const dir = path.join(backupsDir(s), b.id);
    // Damage a page of the store and record the damaged file in the manifest, as if the
    // backup had been made of an already broken store.
    const dbFile = path.join(dir, 'adam.db');
    const bytes = fs.readFileSync(dbFile);
    bytes.fill(0x41, 4096 + 8, 4096 + 200);
    // Its own copy damaged: backups share unchanged files as hard links (one inode), and an
    // in-place write would damage every backup, and the live index, sharing it.
    fs.rmSync(dbFile);
    fs.writeFileSync(dbFile, bytes);
    const m = JSON.parse(fs.readFileSync(path.join(dir, 'manifest.json'), 'utf8'));
    for (const f of m.files) if (f.path === 'adam.db') f.sha256 = sha256(dbFile);
    fs.writeFileSync(path.join(dir, 'manifest.json'), JSON.stringify(m));

    const r = await s.api(`/api/v1/admin/maintenance/restore/${b.id}`, { method: 'POST', key });
    expect(r.status).toBe(422);
    expect(r.body.detail).toContain('adam.db fails the integrity check');
    expect(await allSnippetIds(s, key)).toEqual(ids);
  });

  /**
   * Damages one of a backup's index files and records the damaged file in the backup's
   * manifest, as if the backup had been made of an already damaged index. Answers its path.
   */
  function damageBackupIndex(
    s: TestServer,
    id: string,
    kind: 'usearch' | 'keys',
    damage: (b: Buffer) => Buffer,
  ): string {
    const dir = path.join(backupsDir(s), id);
    const m = JSON.parse(fs.readFileSync(path.join(dir, 'manifest.json'), 'utf8'));
    const f = m.files.find((x: { path: string }) => x.path.endsWith(`.${kind}`));
    const file = path.join(dir, f.path);
    // Its own copy damaged: backups share unchanged files as hard links (one inode), and an
    // in-place write would damage every backup, and the live index, sharing it.
    const damaged = damage(fs.readFileSync(file));
    fs.rmSync(file);
    fs.writeFileSync(file, damaged);
    f.bytes = fs.statSync(file).size;
    f.sha256 = sha256(file);
    fs.writeFileSync(path.join(dir, 'manifest.json'), JSON.stringify(m));
    return f.path as string;
  }

  it('refuses a backup whose index files are damaged, and the store and index stay as they were', async () => {
    const { s, key, ids } = await seeded();
    const [cut, random, flipped] = [
      await takeBackup(s, key),
      await takeBackup(s, key),
      await takeBackup(s, key),
    ];
    await s.api(`/api/v1/snippets/${ids[0]}`, { method: 'DELETE', key });
    const before = (await s.api('/api/v1/snippets?per_page=500', { key })).body;
    expect(before.snippets).toHaveLength(ids.length - 1);
    const expectUnchanged = async () => {
      expect((await s.api('/api/v1/snippets?per_page=500', { key })).body).toEqual(before);
      expect(s.adam.services.index.size).toBe(ids.length - 1);
      const search = await s.api('/api/v1/snippets/search', {
        method: 'POST',
        key,
        body: { query: 'SQL query planner and indexes', k: 3 },
      });
      expect(search.status).toBe(200);
      expect(search.body.results.length).toBeGreaterThan(0);
    };
    const restore = (id: string) =>
      s.api(`/api/v1/admin/maintenance/restore/${id}`, { method: 'POST', key });

    // Cut to 64 bytes: usearch's loader aborted the whole process on it.
    const p1 = damageBackupIndex(s, cut.id, 'usearch', (b) => b.subarray(0, 64));
    const r1 = await restore(cut.id);
    expect(r1.status).toBe(422);
    expect(r1.body.detail).toMatch(
      new RegExp(`^Backup ${cut.id} is damaged: ${p1} has 64 bytes, the index manifest says \\d+$`),
    );
    await expectUnchanged();

    const p2 = damageBackupIndex(s, random.id, 'keys', (b) => randomBytes(b.length));
    const r2 = await restore(random.id);
    expect(r2.status).toBe(422);
    expect(r2.body.detail).toMatch(
      new RegExp(`^Backup ${random.id} is damaged: ${p2} holds .*, which is not a key$`),
    );
    await expectUnchanged();

    // The right size, bytes changed in the middle: the index manifest's checksum tells.
    const p3 = damageBackupIndex(s, flipped.id, 'usearch', (b) => {
      const middle = Math.floor(b.length / 2);
      for (let i = middle; i < middle + 64; i++) b[i]! ^= 0xff;
      return b;
    });
    const r3 = await restore(flipped.id);
    expect(r3.status).toBe(422);
    expect(r3.body.detail).toBe(
      `Backup ${flipped.id} is damaged: ${p3} does not match its sha256 checksum in the index manifest`,
    );
    await expectUnchanged();
  });

  it('leaves the store as it was when the index cannot be installed', async () => {
    const { s, key, ids } = await seeded();
    const b = await takeBackup(s, key);
    await s.api(`/api/v1/snippets/${ids[0]}`, { method: 'DELETE', key });
    await s.adam.services.index.flush();
    const before = (await s.api('/api/v1/snippets?per_page=500', { key })).body;
    const indexDir = path.join(s.dataDir, 'index');
    const files = fs.readdirSync(indexDir).sort();
    const manifest = fs.readFileSync(path.join(indexDir, 'manifest.json'), 'utf8');

    // The index's manifest cannot be swapped in, the last step of the store's transaction.
    const rename = fs.renameSync;
    const spy = vi.spyOn(fs, 'renameSync').mockImplementation((from, to) => {
      const putBack = String(from).endsWith('.replaced');
      if (to === path.join(indexDir, 'manifest.json') && !putBack) throw new Error('disk failure');
      rename(from, to);
    });
    const r = await s.api(`/api/v1/admin/maintenance/restore/${b.id}`, { method: 'POST', key });
    spy.mockRestore();
    expect(r.status).toBe(500);
    expect((await s.api('/api/v1/snippets?per_page=500', { key })).body).toEqual(before);
    expect(fs.readdirSync(indexDir).sort()).toEqual(files);
    expect(fs.readFileSync(path.join(indexDir, 'manifest.json'), 'utf8')).toBe(manifest);
    expect(s.adam.services.index.size).toBe(ids.length - 1);

    // Once the disk is back, the same backup restores.
    const ok = await s.api(`/api/v1/admin/maintenance/restore/${b.id}`, { method: 'POST', key });
    expect(ok.status).toBe(200);
    expect(await allSnippetIds(s, key)).toEqual(ids);
    expect(ok.body.counts.vectors).toBe(ids.length);
  });

  it('answers 409 while another backup or restore runs', async () => {
    const { s, key } = await seeded();
    const b = await takeBackup(s, key);
    const svc = s.adam.services.backups;

    // Hold a backup in its store copy, and a restore in its reconcile, until released.
    let release!: () => void;
    const gate = () => new Promise<void>((r) => (release = r));
    const db = s.adam.db;
    const backup = db.backup.bind(db);
    const spyBackup = vi.spyOn(db, 'backup').mockImplementation(async (...a) => {
      await gate();
      return backup(...a);
    });
    const running = svc.create('manual');
    await until(() => svc.health().details?.running === 'backup');
    const r1 = await s.api(`/api/v1/admin/maintenance/restore/${b.id}`, { method: 'POST', key });
    expect(r1.status).toBe(409);
    expect(r1.body.detail).toBe('A backup is already running: try again when it ends');
    expect((await s.api('/api/v1/admin/maintenance/backup', { method: 'POST', key })).status).toBe(
      409,
    );
    await until(() => release !== undefined);
    release();
    await running;
    spyBackup.mockRestore();

    const index = s.adam.services.index;
    const reconcile = index.reconcile.bind(index);
    const spyReconcile = vi.spyOn(index, 'reconcile').mockImplementation(async () => {
      await gate();
      return reconcile();
    });
    const restoring = svc.restore(b.id);
    await until(() => spyReconcile.mock.calls.length > 0);
    const r3 = await s.api('/api/v1/admin/maintenance/backup', { method: 'POST', key });
    expect(r3.status).toBe(409);
    expect(r3.body.detail).toBe('A restore is already running: try again when it ends');
    release();
    await restoring;
    spyReconcile.mockRestore();
    // The two backups and the safety backup the restore made first.
    const list = (await s.api('/api/v1/admin/maintenance/backups', { key })).body;
    expect(list.map((x: { reason: string }) => x.reason).sort()).toEqual([
      'manual',
      'manual',
      'safety',
    ]);
  });

  it('answers 409 to a restore while jobs are processing', async () => {
    const { s, key, ids } = await seeded();
    const b = await takeBackup(s, key);
    await s.api(`/api/v1/snippets/${ids[0]}`, { method: 'DELETE', key });
    const now = new Date().toISOString();
    const job = s.adam.db
      .prepare(
        "INSERT INTO jobs (type, status, created_at, updated_at) VALUES ('process_urls', 'processing', ?, ?)",
      )
      .run(now, now).lastInsertRowid;
    const r = await s.api(`/api/v1/admin/maintenance/restore/${b.id}`, { method: 'POST', key });
    expect(r.status).toBe(409);
    expect(r.body.detail).toBe(
      'Cannot restore while 1 job(s) are processing: wait for them or cancel them',
    );
    expect(await allSnippetIds(s, key)).toEqual(ids.slice(1));
    s.adam.db.prepare("UPDATE jobs SET status = 'cancelled' WHERE id = ?").run(job);
    const ok = await s.api(`/api/v1/admin/maintenance/restore/${b.id}`, { method: 'POST', key });
    expect(ok.status).toBe(200);
    expect(await allSnippetIds(s, key)).toEqual(ids);
  });

  it('takes auto backups on the configured frequency only while auto_backup is on', async () => {
    const { s, key } = await seeded();
    const setGeneral = (settings: Record<string, unknown>) =>
      s.api('/api/v1/admin/settings/general', { method: 'PUT', key, body: { settings } });
    expect((await setGeneral({ auto_backup: false })).status).toBe(200);
    // 60 "minutes" = 600 ms; the first backup is due after the 5-minute grace (50 ms).
    const svc = fastService(s, 10);
    svc.start();
    expect(svc.health().details).toMatchObject({ auto_backup: false, next_due_at: null });
    await new Promise((r) => setTimeout(r, 300));
    expect(svc.list()).toEqual([]);

    expect((await setGeneral({ auto_backup: true, backup_frequency: 60 })).status).toBe(200);
    expect(svc.health().details).toMatchObject({ auto_backup: true, frequency_minutes: 60 });
    expect(svc.health().details?.next_due_at).not.toBeNull();
    const first = await until(() => svc.list().find((b) => b.reason === 'auto'));
    expect(first.counts.snippets).toBeGreaterThan(0);
    // And again one frequency later.
    await until(() => svc.list().filter((b) => b.reason === 'auto').length >= 2);
    const [newest, older] = svc.list();
    expect(Date.parse(newest!.created_at) - Date.parse(older!.created_at)).toBeGreaterThanOrEqual(
      590,
    );
    // The app's own /health component sees them too.
    const health = await s.api('/api/v1/health');
    expect(health.body.components.backups.details.count).toBeGreaterThanOrEqual(2);

    expect((await setGeneral({ auto_backup: false })).status).toBe(200);
    const count = svc.list().length;
    await new Promise((r) => setTimeout(r, 800));
    expect(svc.list()).toHaveLength(count);
  });

  it('keeps the newest 10 auto and the newest 10 manual backups, each kind apart', async () => {
    expect([AUTO_BACKUP_RETENTION, MANUAL_BACKUP_RETENTION]).toEqual([10, 10]);
    const { s } = await seeded();
    const svc = fastService(s, 60_000);
    const manual = [(await svc.create('manual')).id];
    const autos: string[] = [];
    for (let i = 0; i < 12; i++) autos.push((await svc.create('auto')).id);
    // A burst of auto backups deletes old auto ones only.
    let list = svc.list();
    expect(list.filter((b) => b.reason === 'auto').map((b) => b.id)).toEqual(
      autos.slice(2).reverse(),
    );
    expect(list.map((b) => b.id)).toContain(manual[0]);
    expect(fs.existsSync(path.join(backupsDir(s), autos[0]!))).toBe(false);

    // And a burst of manual ones, manual ones only.
    for (let i = 0; i < 11; i++) manual.push((await svc.create('manual')).id);
    list = svc.list();
    expect(list.filter((b) => b.reason === 'manual').map((b) => b.id)).toEqual(
      manual.slice(2).reverse(),
    );
    expect(list.filter((b) => b.reason === 'auto')).toHaveLength(10);
    expect(fs.existsSync(path.join(backupsDir(s), manual[0]!))).toBe(false);
  });
});
