import { DEFAULT_PROCESSING_SETTINGS } from '@adam/contracts';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { migrate, type Db } from '../db.js';
import { migrations } from './index.js';

const KEPT_MIGRATION = 34;

/** A store as the version before migration 34 left it, with `snippets` rows. */
function storeBefore(snippets: number): Db {
  const db = new Database(':memory:');
  migrate(
    db,
    migrations.filter((m) => m.id < KEPT_MIGRATION),
  );
  const now = '2026-11-28T10:15:00.000Z';
  const insert = db.prepare(
    `INSERT INTO snippets (text, text_hash, theme, quality_score, metadata, created_at, updated_at)
     VALUES (?, ?, 'science', 0.5, '{}', ?, ?)`,
  );
  for (let i = 0; i < snippets; i++) insert.run(`text ${i}`, `hash ${i}`, now, now);
  return db;
}

const processing = (db: Db): Record<string, unknown> | undefined => {
  const text = db.prepare("SELECT value FROM settings WHERE section = 'processing'").pluck().get();
  return text === undefined ? undefined : (JSON.parse(text as string) as Record<string, unknown>);
};
const save = (db: Db, value: Record<string, unknown>) =>
  db
    .prepare(
      "INSERT INTO settings (section, value, updated_at) VALUES ('processing', ?, '2026-11-28')",
    )
    .run(JSON.stringify(value));

describe('migration 34: a store with snippets keeps the index storage it was built with', () => {
  it('writes f16 (the old default) for a store with snippets and no processing settings', () => {
    // The new default is another storage, or this migration would not be needed.
    expect(DEFAULT_PROCESSING_SETTINGS.index_storage).not.toBe('f16');
    const db = storeBefore(3);
    expect(migrate(db, migrations)).toEqual([KEPT_MIGRATION]);
    expect(processing(db)).toEqual({ index_storage: 'f16' });
  });

  it('adds f16 beside saved settings that never named a storage, and keeps the others', () => {
    const db = storeBefore(1);
    save(db, { search_vector_weight: 0.3, chunk_size: 400 });
    migrate(db, migrations);
    expect(processing(db)).toEqual({
      search_vector_weight: 0.3,
      chunk_size: 400,
      index_storage: 'f16',
    });
  });

  it('leaves a storage the operator chose as it is', () => {
    const db = storeBefore(1);
    save(db, { index_storage: 'i8' });
    migrate(db, migrations);
    expect(processing(db)).toEqual({ index_storage: 'i8' });
  });

  it('writes nothing for an empty store: it takes the new default', () => {
    const db = storeBefore(0);
    migrate(db, migrations);
    expect(processing(db)).toBeUndefined();
    const saved = storeBefore(0);
    save(saved, { search_vector_weight: 0.3 });
    migrate(saved, migrations);
    expect(processing(saved)).toEqual({ search_vector_weight: 0.3 });
  });
});
