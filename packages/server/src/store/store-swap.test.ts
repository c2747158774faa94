import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openDatabase, type Db } from './db.js';
import { SnippetRepository, type NewSnippet } from './snippet.repository.js';
import { tableCounts } from './store-file.js';
import { replaceDataFrom, type ForeignKeyViolation } from './store-swap.js';

const NOW = '2024-01-01T00:00:00.000Z';
let dirs: string[] = [];
let live: Db;
let copyFile: string;

function store(): Db {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'adam-store-swap-'));
  dirs.push(dir);
  return openDatabase(dir);
}

function snippet(text: string): NewSnippet {
  return {
    text,
    text_hash: text,
    theme: 'general',
    quality_score: 0.8,
    language: 'en',
    word_count: text.split(' ').length,
    size_bytes: text.length,
    source_title: null,
    source_url: null,
    job_id: null,
    metadata: '{}',
    embedding: Buffer.from(new Float32Array([1, 0]).buffer),
    embedder_id: 'test',
  };
}

function addUser(db: Db, id: number, email: string): void {
  db.prepare(
    'INSERT INTO users (id, email, name, password_hash, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?)',
  ).run(id, email, email, 'x', NOW, NOW);
}

function addKey(db: Db, userId: number, hash: string): void {
  db.prepare(
    'INSERT INTO api_keys (user_id, key_hash, created_at, expires_at) VALUES (?, ?, ?, ?)',
  ).run(userId, hash, NOW, NOW);
}

const texts = (db: Db) => db.prepare('SELECT text FROM snippets ORDER BY id').pluck().all();
const attached = (db: Db) =>
  (db.prepare('PRAGMA database_list').all() as { name: string }[]).map((d) => d.name);
const matching = (db: Db, word: string) =>
  db.prepare('SELECT rowid FROM snippets_fts WHERE snippets_fts MATCH ?').pluck().all(word);

beforeEach(() => {
  // The backup's copy: one user, two snippets with their vectors.
  const copy = store();
  addUser(copy, 1, 'admin@example.com');
  new SnippetRepository(copy).insertMany([snippet('copper river'), snippet('stone garden')]);
  copyFile = copy.name;
  copy.close();

  // The live store since then: a second user with a key, other snippets, a log line.
  live = store();
  addUser(live, 1, 'admin@example.com');
  addUser(live, 2, 'later@example.com');
  addKey(live, 1, 'admin-key');
  addKey(live, 2, 'later-key');
  new SnippetRepository(live).insertMany([snippet('signal lamp')]);
  live
    .prepare(
      "INSERT INTO logs (timestamp, level, component, message) VALUES (?, 'info', 'test', 'kept')",
    )
    .run(NOW);
});

afterEach(() => {
  live.close();
  for (const d of dirs) fs.rmSync(d, { recursive: true, force: true });
  dirs = [];
});

describe('replaceDataFrom', () => {
  it('replaces the data tables with the copy and keeps logs and the keys of remaining users', () => {
    let seen: ForeignKeyViolation[] | null = null;
    replaceDataFrom(live, copyFile, (v) => (seen = v));

    expect(seen).toEqual([]);
    expect(texts(live)).toEqual(['copper river', 'stone garden']);
    expect(tableCounts(live)).toMatchObject({ snippets: 2, users: 1 });
    expect(live.prepare('SELECT COUNT(*) FROM snippet_embeddings').pluck().get()).toBe(2);
    expect(live.prepare('SELECT message FROM logs').pluck().all()).toEqual(['kept']);
    // The user the backup lacks loses their key; the others keep theirs.
    expect(live.prepare('SELECT key_hash FROM api_keys').pluck().all()).toEqual(['admin-key']);
    // Full-text search answers from the new rows only.
    expect(matching(live, 'river')).toHaveLength(1);
    expect(matching(live, 'lamp')).toEqual([]);
    // The copy is detached and foreign keys are enforced again.
    expect(attached(live)).not.toContain('restored');
    expect(live.pragma('foreign_keys', { simple: true })).toBe(1);
  });

  it('changes nothing when the last step throws', () => {
    const before = texts(live);
    expect(() =>
      replaceDataFrom(live, copyFile, () => {
        throw new Error('index install failed');
      }),
    ).toThrow('index install failed');
    expect(texts(live)).toEqual(before);
    expect(live.prepare('SELECT COUNT(*) FROM api_keys').pluck().get()).toBe(2);
    expect(matching(live, 'lamp')).toHaveLength(1);
    expect(attached(live)).not.toContain('restored');
  });

  it('hands the foreign-key violations of the result to the last step', () => {
    const copy = openDatabase(path.dirname(copyFile));
    copy.pragma('foreign_keys = OFF');
    copy
      .prepare(
        "INSERT INTO snippet_embeddings (snippet_id, embedding, embedder_id) VALUES (999, x'00', 'test')",
      )
      .run();
    copy.close();

    let seen: ForeignKeyViolation[] = [];
    replaceDataFrom(live, copyFile, (v) => (seen = v));
    expect(seen.map((v) => v.table)).toEqual(['snippet_embeddings']);
  });
});
