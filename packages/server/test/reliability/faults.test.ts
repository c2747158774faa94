/**
 * An operator's faults while a server runs, and at its stop and start: each is visible in
 * /health with its cause and path, and healed where it can be.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it, onTestFinished, vi } from 'vitest';
import { ARTICLES } from '../corpus.js';
import { linkSharedModel, saveText, startServer, tempDir, type TestServer } from '../helpers.js';
import { spawnCli } from '../redis-helpers.js';
import { until } from '../until.js';
import { LiveIndex } from '../../src/services/index/live-index.js';

let s: TestServer | undefined;
const mounts: string[] = [];
afterEach(async () => {
  await s?.close().catch(() => undefined);
  s = undefined;
  for (const m of mounts.splice(0).reverse()) {
    try {
      execFileSync('umount', [m]);
    } catch {
      // already gone
    }
  }
});

/** Rows of the logs table whose message contains `text` (the sink writes them shortly after). */
function logged(srv: TestServer, text: string): string[] {
  return (
    srv.adam.db
      .prepare('SELECT message FROM logs WHERE message LIKE ?')
      .pluck()
      .all(`%${text}%`) as string[]
  ).filter((m) => m.includes(text));
}

/**
 * A data dir on a small tmpfs of its own, which `readOnly` turns read-only under the server (a
 * read-only bind over it: root ignores permission bits, so chmod would prove nothing). Null when
 * this machine does not let the test mount.
 */
function mountedDataDir(): { dir: string; readOnly: () => void } | null {
  const root = tempDir('adam-faults-mnt-');
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=128m', 'tmpfs', root], { stdio: 'pipe' });
  } catch {
    return null;
  }
  mounts.push(root);
  const dir = path.join(root, 'data');
  fs.mkdirSync(dir);
  return {
    dir,
    readOnly: () => {
      execFileSync('mount', ['--bind', dir, dir]);
      mounts.push(dir);
      execFileSync('mount', ['-o', 'remount,bind,ro', dir]);
    },
  };
}

describe('faults are visible and healed', () => {
  it('rebuilds an index folder deleted while running, says so in /health, and later jobs complete', async () => {
    s = await startServer();
    await s.adam.reconciled;
    const key = await s.login();
    const first = await saveText(s, key, ARTICLES.photosynthesis!, 'photosynthesis');
    const indexDir = path.join(s.dataDir, 'index');
    fs.rmSync(indexDir, { recursive: true });

    // The watch finds it on its own (a timer, or the failed save of a job); /health says so.
    const seen: string[] = [];
    const repaired = await until(
      async () => {
        const h = (await s!.api('/api/v1/health', { key })).body;
        if (h.components.index.status === 'degraded') seen.push(h.components.index.error);
        const last = h.components.index.details.last_repair;
        return last?.state === 'done' && h.components.index.status === 'healthy' ? h : null;
      },
      { timeout: 60_000, interval: 20, what: 'the index to be rebuilt' },
    );
    expect(repaired.components.index.details.last_repair).toMatchObject({
      cause: 'index_files',
      action: 'rebuild from the store',
      path: indexDir,
    });
    for (const e of seen) expect(e).toContain(indexDir);
    await until(() => logged(s!, `The vector index files in ${indexDir} are missing`).length, {
      what: 'the fault in the logs',
    });
    await until(() => logged(s!, 'Vector index repaired (rebuilt from the store)').length, {
      what: 'the repair in the logs',
    });
    // Rebuilt from the rows: every snippet is in it again, and saved.
    expect(repaired.components.index.details.total_vectors).toBe(first.snippet_ids.length);
    expect(fs.existsSync(path.join(indexDir, 'manifest.json'))).toBe(true);

    const later = await saveText(s, key, ARTICLES.volcanoes!, 'volcanoes');
    expect(later.snippet_ids.length).toBeGreaterThan(0);
    const after = (await s.api('/api/v1/health', { key })).body;
    expect(after.components.index).toMatchObject({ status: 'healthy' });
  }, 120_000);

  it('answers a backup 503 naming the folder while the index is being rebuilt, and backs up after', async () => {
    s = await startServer();
    await s.adam.reconciled;
    const key = await s.login();
    const saved = await saveText(s, key, ARTICLES.photosynthesis!, 'photosynthesis');
    const index = s.adam.services.index;
    // The repair holds at its reconcile until the test lets it go: no race with its speed.
    let release!: () => void;
    const held = new Promise<void>((r) => (release = r));
    // On the live index: its watch's repair calls its own reconcile, not the facade's.
    const reconcile = LiveIndex.prototype.reconcile;
    const spy = vi.spyOn(LiveIndex.prototype, 'reconcile').mockImplementation(async function (
      this: LiveIndex,
      opts,
    ) {
      await held;
      return reconcile.call(this, opts);
    });
    // Even if the test fails before it lets go: the file's later servers share the prototype.
    onTestFinished(() => spy.mockRestore());
    const indexDir = path.join(s.dataDir, 'index');
    fs.rmSync(indexDir, { recursive: true });

    // Gone and not yet seen by the watch: refused, and the repair starts at once.
    const first = await s.api('/api/v1/admin/maintenance/backup', { key, method: 'POST' });
    expect(first.status).toBe(503);
    expect(first.body.detail).toBe(
      `The vector index in ${indexDir} is being rebuilt from the store: ` +
        'try the backup again once /health shows the index healthy',
    );
    await until(() => index.health().details?.repair, { what: 'the repair to start' });
    await until(() => spy.mock.calls.length > 0, { what: 'the repair to reach its reconcile' });
    // The repair made the folder again, empty: still refused while it rebuilds.
    expect(fs.existsSync(indexDir)).toBe(true);
    const during = await s.api('/api/v1/admin/maintenance/backup', { key, method: 'POST' });
    expect(during.status).toBe(503);
    expect(during.body.detail).toContain(indexDir);
    expect((await s.api('/api/v1/admin/maintenance/backups', { key })).body).toEqual([]);

    release();
    await until(() => index.health().details?.last_repair, { what: 'the repair to end' });
    spy.mockRestore();
    const after = await s.api('/api/v1/admin/maintenance/backup', { key, method: 'POST' });
    expect(after.status).toBe(200);
    expect(after.body.counts.vectors).toBe(saved.snippet_ids.length);
  }, 120_000);

  it('names the index folder in the error of a job whose save finds it gone', async () => {
    s = await startServer();
    await s.adam.reconciled;
    const index = s.adam.services.index;
    index.addDeferred([{ key: 1_000_001, vector: new Float32Array(index.dimension).fill(0.05) }]);
    const dir = path.join(s.dataDir, 'index');
    fs.rmSync(dir, { recursive: true });
    const err = await index.flush().then(
      () => null,
      (e: Error) => e,
    );
    expect(err?.message).toContain(dir);
  });

  it('starts a reconcile on its own for an older store under a newer index, and says so', async () => {
    const dataDir = tempDir();
    s = await startServer({ dataDir });
    let key = await s.login();
    await saveText(s, key, ARTICLES.photosynthesis!, 'photosynthesis');
    await s.close();
    const older = path.join(tempDir(), 'adam.db');
    fs.copyFileSync(path.join(dataDir, 'adam.db'), older);

    s = await startServer({ dataDir });
    key = await s.login();
    const newer = [
      ...(await saveText(s, key, ARTICLES.volcanoes!, 'volcanoes')).snippet_ids,
      ...(await saveText(s, key, ARTICLES.databases!, 'databases')).snippet_ids,
    ];
    // More of the newer store's vectors than a few articles make, past the tolerance (10).
    const index = s.adam.services.index;
    const vectors = Array.from({ length: 40 }, (_, i) => {
      const v = new Float32Array(index.dimension).fill(0.01);
      v[i] = 1;
      return { key: 100_000 + i, vector: v };
    });
    index.addDeferred(vectors);
    await index.flush();
    newer.push(...vectors.map((v) => v.key));
    await s.close();
    for (const f of ['adam.db', 'adam.db-wal', 'adam.db-shm'])
      fs.rmSync(path.join(dataDir, f), { force: true });
    fs.copyFileSync(older, path.join(dataDir, 'adam.db'));

    s = await startServer({ dataDir });
    key = await s.login();
    const h = await until(
      async () => {
        const body = (await s!.api('/api/v1/health', { key })).body;
        return body.components.index.details.last_repair?.state === 'done' ? body : null;
      },
      { what: 'the reconcile to start on its own and finish' },
    );
    expect(h.components.index.details.last_repair).toMatchObject({
      cause: 'store_index_disagreement',
      action: 'reconcile',
      path: path.join(dataDir, 'index'),
    });
    expect(h.components.index.details.last_repair.outcome).toContain(
      `${newer.length} vectors without a snippet removed`,
    );
    await until(() => logged(s!, 'The store and the vector index disagree').length, {
      what: 'the reconcile in the logs',
    });
    // Search answers from the older store's rows again.
    const r = await s.api('/api/v1/snippets/search', {
      method: 'POST',
      key,
      body: { query: 'chlorophyll light energy', k: 3, mode: 'vector' },
    });
    expect(r.status).toBe(200);
    expect(r.body.results.length).toBeGreaterThan(0);
  }, 180_000);

  it('turns /health degraded with the errno and the path when the data dir turns read-only', async (ctx) => {
    const m = mountedDataDir();
    if (!m) return ctx.skip(); // mount not permitted here: said by the skip
    s = await startServer({ dataDir: m.dir });
    const key = await s.login();
    const before = (await s.api('/api/v1/health', { key })).body;
    expect(before.components.data_dir).toMatchObject({ status: 'healthy' });
    m.readOnly();
    const h = await until(
      async () => {
        const body = (await s!.api('/api/v1/health', { key })).body;
        return body.components.data_dir.status === 'degraded' ? body : null;
      },
      { what: '/health to see the read-only data dir' },
    );
    expect(h.status).toBe('degraded');
    expect(h.components.data_dir.error).toBe(
      `data directory ${m.dir} is not writable: EROFS (read-only file system)`,
    );
    expect(h.components.data_dir.details).toMatchObject({ errno: 'EROFS', path: m.dir });
    // Without a key the path is left out, the cause is not.
    const anonymous = (await s.api('/api/v1/health')).body;
    expect(anonymous.components.data_dir.error).toContain('EROFS');
    expect(JSON.stringify(anonymous)).not.toContain(m.dir);
  });

  it('refuses to start on a read-only data dir with one line and no stack', async (ctx) => {
    const m = mountedDataDir();
    if (!m) return ctx.skip();
    linkSharedModel(m.dir);
    m.readOnly();
    const proc = spawnCli(['serve'], { PORT: '0', ADAM_DATA_DIR: m.dir });
    let stderr = '';
    proc.stderr!.on('data', (d) => (stderr += d));
    const code = await new Promise<number | null>((r) => proc.once('exit', r));
    expect(code).toBe(1);
    const lines = stderr.split('\n').filter((l) => l.trim() && !/npm warn/i.test(l));
    expect(lines).toEqual([
      `Cannot write to the data directory ${m.dir} (EROFS): read-only file system. ` +
        'Make it writable (a read-only mount or its permissions), or set ADAM_DATA_DIR to another directory.',
    ]);
    expect(stderr).not.toMatch(/\n\s+at /);
  });
});
