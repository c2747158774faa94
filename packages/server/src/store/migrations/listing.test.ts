import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { migrate, type Db } from '../db.js';
import { migrations } from './index.js';

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) fs.rmSync(d, { recursive: true, force: true });
});

/** A database file migrated up to `upTo`, as a server of that version left it. */
function open(upTo: number): Db {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'adam-migration-7-'));
  dirs.push(dir);
  const db = new Database(path.join(dir, 'adam.db'));
  db.pragma('journal_mode = WAL');
  db.pragma('foreign_keys = ON');
  migrate(
    db,
    migrations.filter((m) => m.id <= upTo),
  );
  return db;
}

/** Rows as migration 2 stored them: the vector and its embedder on the row. */
function seed(db: Db, n: number): void {
  const stmt = db.prepare(
    `INSERT INTO snippets (text, text_hash, theme, quality_score, language, word_count, size_bytes,
       source_title, source_url, job_id, metadata, embedding, embedder_id, faiss_id, index_pending,
       indexed_at, created_at, updated_at)
     VALUES (?, ?, ?, ?, 'en', 3, 10, 'T', ?, ?, '{}', ?, ?, ?, ?, ?, ?, ?)`,
  );
  for (let i = 1; i <= n; i++) {
    const embedded = i % 4 !== 0;
    const pending = i % 3 === 0 ? 1 : 0;
    stmt.run(
      `word${i % 5} text ${i}`,
      `hash${i}`,
      ['science', 'technology', 'general'][i % 3],
      (i % 10) / 10,
      i % 6 === 0 ? null : `https://s.example/${i % 4}`,
      i % 7 === 0 ? null : 1 + (i % 3),
      embedded ? Buffer.from(new Float32Array([i, -i, i / 2]).buffer) : null,
      embedded ? `embedder-${i % 2}` : null,
      pending ? null : i,
      pending,
      pending ? null : '2026-11-20T10:00:00.000Z',
      `2026-11-20T10:00:${String(i % 60).padStart(2, '0')}.000Z`,
      '2026-11-21T10:00:00.000Z',
    );
  }
}

/** The counts migration 7 keeps, computed from the rows. */
function countsFromRows(db: Db) {
  return db
    .prepare(
      `SELECT 'job' AS facet, CAST(job_id AS TEXT) AS value, COUNT(*) AS n FROM snippets WHERE job_id IS NOT NULL GROUP BY job_id
       UNION ALL SELECT 'source', source_url, COUNT(*) FROM snippets WHERE source_url IS NOT NULL GROUP BY source_url
       UNION ALL SELECT 'pending', theme, COUNT(*) FROM snippets WHERE index_pending = 1 GROUP BY theme
       ORDER BY 1, 2`,
    )
    .all();
}
const kept = (db: Db) =>
  db.prepare('SELECT facet, value, n FROM snippet_counts ORDER BY 1, 2').all();

describe('migration 7 (listing)', () => {
  it('moves the vectors to snippet_embeddings and leaves every other column of the rows as it was', () => {
    const db = open(5);
    seed(db, 200);
    const before = db.prepare('SELECT * FROM snippets ORDER BY id').all() as (Record<
      string,
      unknown
    > & { id: number; embedding: Buffer | null })[];
    migrate(db, migrations);

    const columns = (db.prepare('PRAGMA table_info(snippets)').all() as { name: string }[]).map(
      (c) => c.name,
    );
    expect(columns).not.toContain('embedding');
    expect(columns).not.toContain('embedder_id');
    // The columns the rows had, less the vectors: later migrations may add columns of their own.
    const kept = Object.keys(before[0]!).filter((c) => c !== 'embedding' && c !== 'embedder_id');
    const after = db
      .prepare(`SELECT ${kept.map((c) => `"${c}"`).join(', ')} FROM snippets ORDER BY id`)
      .all();
    expect(after).toEqual(before.map(({ embedding: _e, embedder_id: _d, ...rest }) => rest));
    const vectors = db
      .prepare(
        'SELECT snippet_id, embedding, embedder_id FROM snippet_embeddings ORDER BY snippet_id',
      )
      .all();
    expect(vectors).toEqual(
      before
        .filter((r) => r.embedding !== null)
        .map((r) => ({ snippet_id: r.id, embedding: r.embedding, embedder_id: r.embedder_id })),
    );
    expect(vectors).toHaveLength(150);
    // Text search still reads the rows' text.
    expect(
      db
        .prepare("SELECT COUNT(*) FROM snippets_fts WHERE snippets_fts MATCH 'word1'")
        .pluck()
        .get(),
    ).toBe(40);
    expect(db.pragma('foreign_key_check')).toEqual([]);
  });

  it('counts the rows by job, by source and the pending ones by theme, and keeps counting', () => {
    const db = open(5);
    seed(db, 120);
    migrate(db, migrations);
    expect(kept(db)).toEqual(countsFromRows(db));

    db.prepare(
      `INSERT INTO snippets (text, text_hash, theme, source_url, job_id, created_at, updated_at)
       VALUES ('new row', 'new', 'philosophy', 'https://s.example/new', 9, 'x', 'x')`,
    ).run();
    db.prepare(
      'UPDATE snippets SET job_id = 5, source_url = NULL WHERE id BETWEEN 10 AND 30',
    ).run();
    db.prepare("UPDATE snippets SET theme = 'general' WHERE id BETWEEN 20 AND 50").run();
    db.prepare('UPDATE snippets SET index_pending = 1 - index_pending WHERE id % 4 = 1').run();
    db.prepare('UPDATE snippets SET quality_score = 0.99').run();
    expect(kept(db)).toEqual(countsFromRows(db));

    db.prepare('DELETE FROM snippets WHERE id % 2 = 0').run();
    expect(kept(db)).toEqual(countsFromRows(db));
    expect(
      db.prepare('SELECT COUNT(*) FROM snippet_embeddings WHERE snippet_id % 2 = 0').pluck().get(),
    ).toBe(0);
    db.prepare('DELETE FROM snippets').run();
    expect(kept(db)).toEqual([]);
  });

  it('migrates an empty store', () => {
    const db = open(5);
    migrate(db, migrations);
    expect(kept(db)).toEqual([]);
    expect(db.prepare('SELECT COUNT(*) FROM snippet_embeddings').pluck().get()).toBe(0);
  });
});
