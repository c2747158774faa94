import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { migrate, type Db } from '../db.js';
import { migrations } from './index.js';

const FTS_MIGRATION = 6;

function insert(db: Db, text: string): number {
  const now = '2026-11-22T10:15:00.000Z';
  return Number(
    db
      .prepare(
        `INSERT INTO snippets (text, text_hash, theme, quality_score, metadata, created_at, updated_at)
         VALUES (?, ?, 'science', 0.5, '{}', ?, ?)`,
      )
      .run(text, `hash:${text}`, now, now).lastInsertRowid,
  );
}

const matching = (db: Db, match: string): number[] =>
  db
    .prepare('SELECT rowid FROM snippets_fts WHERE snippets_fts MATCH ? ORDER BY rowid')
    .pluck()
    .all(match) as number[];

describe('migration 6: the FTS table with the porter tokenizer', () => {
  it('rebuilds the table in place over the existing rows, and its triggers keep it current', () => {
    const db = new Database(':memory:');
    migrate(
      db,
      migrations.filter((m) => m.id < FTS_MIGRATION),
    );
    const erupts = insert(db, 'The volcano erupted twice while scientists were measuring gases.');
    const indexes = insert(db, 'Indexing the tables makes queries faster.');
    // Before: unicode61 alone, so another form of the word finds nothing.
    expect(matching(db, '"eruption"')).toEqual([]);
    expect(matching(db, '"indexes"')).toEqual([]);

    expect(migrate(db, migrations)).toContain(FTS_MIGRATION);
    expect(matching(db, '"erupts"')).toEqual([erupts]);
    expect(matching(db, '"indexes"')).toEqual([indexes]);
    expect(matching(db, '"measure" OR "query"')).toEqual([erupts, indexes]);
    expect(db.prepare('SELECT COUNT(*) FROM snippets').pluck().get()).toBe(2);

    const added = insert(db, 'Crystals grow slowly in cooling lava.');
    expect(matching(db, '"growing"')).toEqual([added]);
    db.prepare('UPDATE snippets SET text = ? WHERE id = ?').run('Cooled lava forms basalt.', added);
    expect(matching(db, '"growing"')).toEqual([]);
    expect(matching(db, '"cooling"')).toEqual([added]);
    db.prepare('DELETE FROM snippets WHERE id = ?').run(erupts);
    expect(matching(db, '"erupts"')).toEqual([]);
    // The content and the index agree (FTS5's own check).
    expect(() =>
      db.exec("INSERT INTO snippets_fts(snippets_fts, rank) VALUES ('integrity-check', 1)"),
    ).not.toThrow();
  });
});
