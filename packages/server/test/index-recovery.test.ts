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
});
