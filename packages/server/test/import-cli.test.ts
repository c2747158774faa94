/**
 * `adam import FILE` in a child process, on a data directory no server uses: the same checks and
 * the same all-or-nothing import as POST /snippets/import, vectors reused or embedded.
 */
import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { ARTICLES } from './corpus.js';
import { killCliProcesses, runCli } from './cli-run.js';
import { linkSharedModel, startServer, tempDir } from './helpers.js';

afterAll(killCliProcesses);

function rows(dataDir: string) {
  const db = new Database(path.join(dataDir, 'adam.db'), { readonly: true });
  try {
    return db
      .prepare(
        `SELECT s.text, s.theme, s.quality_score, s.source_url, s.index_pending, e.embedding, e.embedder_id
         FROM snippets s LEFT JOIN snippet_embeddings e ON e.snippet_id = s.id ORDER BY s.text`,
      )
      .all() as {
      text: string;
      theme: string;
      quality_score: number;
      source_url: string | null;
      index_pending: number;
      embedding: Buffer;
      embedder_id: string;
    }[];
  } finally {
    db.close();
  }
}

let dataDir: string;
let exported: string;
let dir: string;

beforeAll(async () => {
  // The file: an export (with vectors) of another ADAM.
  const source = await startServer();
  const key = await source.login();
  const r = await source.api('/api/v1/playground/save-segments', {
    method: 'POST',
    key,
    body: {
      title: 'Stoicism',
      text: ARTICLES.stoicism,
      source_url: 'https://a.example/stoa',
      wait: true,
    },
  });
  expect(r.status).toBe(200);
  const res = await fetch(`${source.url}/api/v1/snippets/export`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-api-key': key },
    body: JSON.stringify({ format: 'jsonl', include_embeddings: true }),
  });
  exported = await res.text();
  await source.close();
  dataDir = tempDir();
  linkSharedModel(dataDir);
  dir = tempDir('adam-import-file-');
});

it('refuses a file with a bad line, naming it, and imports nothing', async () => {
  const file = path.join(dir, 'bad.jsonl');
  fs.writeFileSync(file, exported + JSON.stringify({ title: 'no text' }) + '\n');
  const lines = exported.trimEnd().split('\n').length;
  const r = await runCli(dataDir, 'import', file);
  expect(r.code).toBe(1);
  expect(r.err).toContain(`line ${lines + 1}: text: required`);
  expect(rows(dataDir)).toEqual([]);
});

it('imports an export, reusing its vectors, and indexes it', async () => {
  const file = path.join(dir, 'export.jsonl');
  fs.writeFileSync(file, exported);
  const records = exported
    .trimEnd()
    .split('\n')
    .map((l) => JSON.parse(l) as { text: string; embedding: number[] });
  const r = await runCli(dataDir, 'import', file);
  expect(r.err).toBe('');
  expect(r.code).toBe(0);
  expect(r.out).toContain(
    `Imported ${records.length} snippets from ${records.length} records: 0 duplicates, ${records.length} vectors reused, 0 re-embedded`,
  );
  const stored = rows(dataDir);
  expect(stored.map((s) => s.text).sort()).toEqual(records.map((s) => s.text).sort());
  for (const s of stored) {
    const rec = records.find((x) => x.text === s.text)!;
    expect(Buffer.compare(s.embedding, Buffer.from(Float32Array.from(rec.embedding).buffer))).toBe(
      0,
    );
    expect(s).toMatchObject({ source_url: 'https://a.example/stoa', index_pending: 0 });
  }
});
