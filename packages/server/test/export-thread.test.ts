/**
 * POST /snippets/export written on the export's own thread: the bytes a client receives are
 * those of the whole file made at once by the serializer exports had before they streamed
 * (quotes, line breaks, every kind of Unicode, nulls, damaged metadata, embeddings), over
 * several hand-overs between the threads.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Snippet } from '@adam/contracts';
import { LiveIndex } from '../src/services/index/live-index.js';
import { snippetPages } from '../src/services/snippet-pages.js';
import { EXPORT_CHUNK_BYTES } from '../src/services/snippet-export.worker.js';
import { SnippetRepository, type NewSnippet } from '../src/store/snippet.repository.js';
import { startServer, type TestServer } from './helpers.js';
import { until } from './until.js';
import { wholeFile } from './export-reference.js';

let s: TestServer;
let key: string;
/** Put back after the file: files share a worker's modules (isolate: false). */
const reconcile = LiveIndex.prototype.reconcile;

/** What a CSV or JSON writer trips on, each piece somewhere in the texts. */
const AWKWARD = [
  'a "quoted" word',
  'a, comma',
  'a line\nbreak',
  'a CRLF\r\nline',
  'a\ttab',
  'été à Noël',
  '日本語のテキストと句読点。',
  'emoji 😀👍🏽🇫🇷 and a ZWJ 👩‍👩‍👧',
  'combining e\u0301 and a\u0308',
  'separators \u2028 and \u2029',
  'עברית and العربية',
  'back\\slash and </script>',
  'a control \u0001 char',
  '""',
];
/** Leading characters a spreadsheet would run as a formula (the CSV escapes them). */
const LEADS = ['', '=', '+', '-', '@', '\t', '\r', ' '];
const ROWS = 600;
const DIMENSION = 64;

function awkwardRow(i: number): NewSnippet {
  const text =
    LEADS[i % LEADS.length] +
    Array.from({ length: 60 }, (_, j) => AWKWARD[(i + j) % AWKWARD.length]).join(' ') +
    ` #${i}`;
  const vector = Float32Array.from({ length: DIMENSION }, (_, d) =>
    d === 0 ? -0 : d === 1 ? 1e-8 : Math.sin(i * 31 + d) / 3,
  );
  return {
    text,
    text_hash: `awkward-${i}`,
    theme: i % 7 ? 'science' : 'thème « spécial »',
    quality_score: i % 5 === 0 ? 0.1 + 0.2 : i % 5 === 1 ? 1e-7 : i / ROWS,
    language: i % 4 === 0 ? null : 'en',
    word_count: i % 9,
    size_bytes: Buffer.byteLength(text),
    source_title: i % 3 === 0 ? null : i % 3 === 1 ? `=HYPERLINK("x", "${i}")` : '',
    source_url: i % 3 === 0 ? null : `https://a.example/é?q="${i}"&x=1,2`,
    job_id: i % 6 === 0 ? null : 1,
    metadata: JSON.stringify({ note: AWKWARD[i % AWKWARD.length], list: [i, null, { ü: true }] }),
    embedder_id: i % 8 === 0 ? null : 'builtin-384',
    embedding: i % 8 === 0 ? null : Buffer.from(vector.buffer),
  };
}

/** The rows as the store holds them, read here (the test's thread), in the order asked. */
function storedRows(ids: number[] | undefined, embeddings: boolean): Snippet[] {
  const pages = snippetPages(new SnippetRepository(s.adam.db), ids, { embeddings });
  const rows: Snippet[] = [];
  for (let page = pages.nextPage(); page; page = pages.nextPage()) rows.push(...page);
  return rows;
}

async function exportBytes(body: object): Promise<Buffer> {
  const res = await fetch(`${s.url}/api/v1/snippets/export`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-api-key': key },
    body: JSON.stringify(body),
  });
  expect(res.status).toBe(200);
  return Buffer.from(await res.arrayBuffer());
}

beforeAll(async () => {
  s = await startServer();
  key = await s.login();
  await s.adam.reconciled;
  // The rows below are not in the vector index: the index's watch would see the store and the
  // index disagree and re-embed them while the test compares what it exports.
  LiveIndex.prototype.reconcile = () =>
    Promise.resolve({
      total_disk: 0,
      total_index: 0,
      marked_pending: 0,
      reindexed: 0,
      index_only: 0,
    });
  // Bare SQL, already indexed: rows pending embedding would be re-embedded meanwhile.
  const db = s.adam.db;
  const insert = db.prepare(
    `INSERT INTO snippets (text, text_hash, theme, quality_score, language, word_count, size_bytes,
       source_title, source_url, job_id, metadata, index_pending, faiss_id, indexed_at,
       created_at, updated_at)
     VALUES (@text, @text_hash, @theme, @quality_score, @language, @word_count, @size_bytes,
       @source_title, @source_url, @job_id, @metadata, 0, @faiss_id, @indexed_at,
       '2026-11-26T10:00:00.000Z', '2026-11-26T10:00:00.000Z')`,
  );
  const vector = db.prepare(
    'INSERT INTO snippet_embeddings (snippet_id, embedding, embedder_id) VALUES (?, ?, ?)',
  );
  db.transaction(() => {
    for (let i = 0; i < ROWS; i++) {
      const { embedding, embedder_id, ...row } = awkwardRow(i);
      const id = Number(
        insert.run({
          ...row,
          faiss_id: i % 2 ? i + 1 : null,
          indexed_at: i % 2 ? '2026-11-26T10:00:01.000Z' : null,
        }).lastInsertRowid,
      );
      if (embedding) vector.run(id, embedding, embedder_id);
    }
  })();
  db.prepare(`UPDATE snippets SET metadata = '{not json' WHERE id = 5`).run();
}, 120_000);
afterAll(async () => {
  try {
    await s?.close();
  } finally {
    // Else the next file's servers answer every reconcile with this file's zeros.
    LiveIndex.prototype.reconcile = reconcile;
  }
});

describe('an export written on its own thread', () => {
  const cases = (['json', 'jsonl', 'csv'] as const).flatMap((format) =>
    [false, true].map((embeddings) => ({ format, embeddings })),
  );
  it.each(cases)(
    'sends the whole file’s bytes, awkward values and all ($format, embeddings $embeddings)',
    async ({ format, embeddings }) => {
      const bytes = await exportBytes({ format, include_embeddings: embeddings });
      // Several hand-overs between the threads (a chunk ends where a page of rows does).
      expect(bytes.length).toBeGreaterThan(2 * EXPORT_CHUNK_BYTES);
      const exportedAt =
        format === 'json'
          ? (JSON.parse(bytes.toString('utf8')) as { exported_at: string }).exported_at
          : '';
      const rows = storedRows(undefined, embeddings);
      expect(rows).toHaveLength(ROWS);
      expect(bytes.equals(Buffer.from(wholeFile(rows, format, exportedAt), 'utf8'))).toBe(true);
    },
  );

  it('sends the ids asked for in their order, with their embeddings, as the whole file', async () => {
    const ids = Array.from({ length: ROWS }, (_, i) => ((i * 137) % ROWS) + 1);
    const bytes = await exportBytes({ format: 'jsonl', ids, include_embeddings: true });
    expect(bytes.equals(Buffer.from(wholeFile(storedRows(ids, true), 'jsonl', ''), 'utf8'))).toBe(
      true,
    );
    const first = JSON.parse(bytes.toString('utf8').split('\n')[0]!) as {
      id: number;
      embedding: number[];
    };
    expect(first.id).toBe(1);
    expect(first.embedding).toBeNull(); // row 1 is the first of every eighth: no vector
  });

  it('ends each export’s thread with its file', async () => {
    await until(() => s.adam.services.snippets.exportThreadStats.threads === 0, {
      what: 'the export threads to end',
    });
    expect(s.adam.services.snippets.exportsInProgress).toBe(0);
  });
});
