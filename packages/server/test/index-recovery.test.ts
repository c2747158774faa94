import { createHash, randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { ARTICLES } from './corpus.js';
import { saveText, startServer, tempDir } from './helpers.js';

async function seeded() {
  const dataDir = tempDir();
  const s = await startServer({ dataDir });
  const key = await s.login();
  const a = await saveText(s, key, ARTICLES.photosynthesis, 'photosynthesis');
  const b = await saveText(s, key, ARTICLES.databases, 'databases');
  await s.close();
  return { dataDir, ids: [...a.snippet_ids, ...b.snippet_ids] };
}

async function reopen(dataDir: string) {
  const s = await startServer({ dataDir });
  const report = await s.adam.reconciled;
  const key = await s.login();
  return { s, key, report };
}

describe('index persistence and recovery', () => {
  it('reloads the saved index at start without re-indexing anything', async () => {
    const { dataDir, ids } = await seeded();
    const { s, key, report } = await reopen(dataDir);
    expect(report).toMatchObject({
      total_disk: ids.length,
      total_index: ids.length,
      reindexed: 0,
      marked_pending: 0,
    });
    const r = await s.api('/api/v1/snippets/search', {
      method: 'POST',
      key,
      body: { query: 'SQL transactions', k: 1 },
    });
    expect(ids).toContain(r.body.results[0].id);
    await s.close();
  });

  it('rebuilds a missing index from the rows', async () => {
    const { dataDir, ids } = await seeded();
    fs.rmSync(path.join(dataDir, 'index'), { recursive: true });
    const { s, key, report } = await reopen(dataDir);
    expect(report).toMatchObject({ marked_pending: ids.length, reindexed: ids.length });
    const check = await s.api('/api/v1/snippets/consistency-check', { key });
    expect(check.body.summary).toMatchObject({
      consistent: ids.length,
      disk_only: 0,
      index_only: 0,
    });
    await s.close();
  });

  it('rebuilds when the saved index has another dimension', async () => {
    const { dataDir, ids } = await seeded();
    const manifest = path.join(dataDir, 'index', 'manifest.json');
    const m = JSON.parse(fs.readFileSync(manifest, 'utf8'));
    fs.writeFileSync(manifest, JSON.stringify({ ...m, dimension: 768 }));
    const { s, report } = await reopen(dataDir);
    expect(report?.reindexed).toBe(ids.length);
    expect(s.adam.services.index.size).toBe(ids.length);
    await s.close();
  });

  it('re-embeds rows whose stored vector is gone, and reports vectors whose row is gone', async () => {
    const { dataDir, ids } = await seeded();
    const db = new Database(path.join(dataDir, 'adam.db'));
    db.prepare('DELETE FROM snippet_embeddings WHERE snippet_id = ?').run(ids[0]);
    db.prepare('UPDATE snippets SET index_pending = 1 WHERE id = ?').run(ids[0]);
    db.prepare('DELETE FROM snippets WHERE id = ?').run(ids[1]);
    db.close();
    const { s, key, report } = await reopen(dataDir);
    expect(report).toMatchObject({ reindexed: 1, index_only: 1 });
    const row = s.adam.db
      .prepare('SELECT embedding, embedder_id FROM snippet_embeddings WHERE snippet_id = ?')
      .get(ids[0]) as {
      embedding: Buffer;
      embedder_id: string;
    };
    expect(row.embedding.byteLength).toBe(384 * 4);
    expect(row.embedder_id).toBe('builtin-384');
    const check = await s.api('/api/v1/snippets/consistency-check', { key });
    expect(check.body.index_only).toEqual([{ faiss_id: ids[1] }]);
    await s.close();
  });

  describe('a damaged saved index', () => {
    /** Damages the saved index of a seeded data dir (manifest checksums forged to match). */
    async function damaged(damage: (file: (kind: string) => string) => void, forge = true) {
      const { dataDir, ids } = await seeded();
      const dir = path.join(dataDir, 'index');
      const manifestFile = path.join(dir, 'manifest.json');
      const m = JSON.parse(fs.readFileSync(manifestFile, 'utf8'));
      const file = (kind: string) => path.join(dir, `index-${m.generation}.${kind}`);
      damage(file);
      if (forge) {
        m.files ??= {};
        for (const kind of ['usearch', 'keys']) {
          const bytes = fs.readFileSync(file(kind));
          m.files[kind] = {
            bytes: bytes.length,
            sha256: createHash('sha256').update(bytes).digest('hex'),
          };
        }
        fs.writeFileSync(manifestFile, JSON.stringify(m));
      }
      return { dataDir, ids };
    }

    /** Starts on it: rebuilt from the store, /health says so, search and counts are right. */
    async function expectRebuilt(dataDir: string, ids: number[], problem: RegExp) {
      const { s, key, report } = await reopen(dataDir);
      try {
        expect(report).toMatchObject({ reindexed: ids.length, total_index: ids.length });
        const health = await s.api('/api/v1/health');
        expect(health.body.status).toBe('degraded');
        const index = health.body.components.index;
        expect(index.status).toBe('degraded');
        expect(index.error).toMatch(
          /^The saved index was damaged \(.*\) and was rebuilt from the store on .*; the damaged files are in index\/damaged-[\d-T]+Z?: delete that folder to clear this warning$/,
        );
        expect(index.error).toMatch(problem);
        expect(index.details.total_vectors).toBe(ids.length);
        const r = await s.api('/api/v1/snippets/search', {
          method: 'POST',
          key,
          body: { query: 'SQL transactions', k: 1 },
        });
        expect(r.status).toBe(200);
        expect(ids).toContain(r.body.results[0].id);
        const check = await s.api('/api/v1/snippets/consistency-check', { key });
        expect(check.status).toBe(200);
        expect(check.body.summary).toMatchObject({
          total_disk: ids.length,
          total_index: ids.length,
          consistent: ids.length,
          disk_only: 0,
          index_only: 0,
        });
        // The damaged files were moved aside, not deleted; removing them clears the warning.
        const aside = fs
          .readdirSync(path.join(dataDir, 'index'))
          .filter((f) => f.startsWith('damaged-'));
        expect(aside).toHaveLength(1);
        fs.rmSync(path.join(dataDir, 'index', aside[0]!), { recursive: true });
        expect((await s.api('/api/v1/health')).body.components.index.status).toBe('healthy');
      } finally {
        await s.close();
      }
    }

    it('starts on a .usearch file cut to 64 bytes and rebuilds it from the store', async () => {
      const { dataDir, ids } = await damaged((file) => fs.truncateSync(file('usearch'), 64));
      await expectRebuilt(dataDir, ids, /index-\d+\.usearch ends at 64 bytes/);
    });

    it('starts on a .keys file of random bytes and rebuilds it from the store', async () => {
      const { dataDir, ids } = await damaged((file) =>
        fs.writeFileSync(file('keys'), randomBytes(fs.statSync(file('keys')).size)),
      );
      await expectRebuilt(dataDir, ids, /index-\d+\.keys holds .*, which is not a key/);
    });

    it('starts on a .usearch file with bytes flipped in the middle and rebuilds it', async () => {
      const { dataDir, ids } = await damaged((file) => {
        const bytes = fs.readFileSync(file('usearch'));
        const middle = Math.floor(bytes.length / 2);
        for (let i = middle; i < middle + 64; i++) bytes[i]! ^= 0xff;
        fs.writeFileSync(file('usearch'), bytes);
      }, false);
      await expectRebuilt(dataDir, ids, /index-\d+\.usearch does not match its sha256 checksum/);
    });
  });
});
