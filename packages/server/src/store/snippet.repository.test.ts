import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ftsMatch } from '../services/hybrid-search.js';
import { openDatabase, type Db } from './db.js';
import {
  SnippetRepository,
  SNIPPET_SORTS,
  type NewSnippet,
  type SnippetFilter,
} from './snippet.repository.js';
import { rng } from '../../test/fixtures/seeded-random.js';

const ROWS = 1500;
/** Small enough that most filters here go past it, so estimates are exercised. */
const CAP = 40;
const THEMES = ['science', 'technology', 'philosophy', 'general'];
const WORDS = ['river', 'stone', 'engine', 'harbour', 'lamp', 'garden', 'signal', 'copper'];

let dir: string;
let db: Db;
let small: SnippetRepository;
let full: SnippetRepository;

function rows(): NewSnippet[] {
  const rand = rng(11);
  const edges = [0, 0.3, 0.5, 0.7, 0.9, 1];
  return Array.from({ length: ROWS }, (_, i) => {
    // "alpha" in about half the rows, "zeta" in one in fifty.
    const words = [
      rand() < 0.5 ? 'alpha' : 'beta',
      ...Array.from({ length: 6 }, () => WORDS[Math.floor(rand() * WORDS.length)]!),
      ...(i % 50 === 7 ? ['zeta'] : []),
      `n${i}`,
    ];
    const text = words.join(' ');
    const q = rand() < 0.1 ? edges[i % edges.length]! : Math.round(rand() * 1000) / 1000;
    return {
      text,
      text_hash: `h${i}`,
      theme: THEMES[Math.floor(rand() * rand() * THEMES.length)]!,
      quality_score: q,
      language: 'en',
      word_count: 5 + Math.floor(rand() * 20),
      size_bytes: text.length,
      source_title: null,
      source_url:
        i % 7 === 0 ? 'https://feed.example/a' : `https://site.example/${Math.floor(i / 3)}`,
      // Jobs of 300 consecutive rows; one row in ten from no job.
      job_id: i % 10 === 0 ? null : 1 + Math.floor(i / 300),
      metadata: '{}',
      embedding: i % 3 === 0 ? Buffer.from(new Float32Array([i, 1, 2]).buffer) : null,
      embedder_id: i % 3 === 0 ? 'test-embedder' : null,
    };
  });
}

beforeAll(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'adam-snippet-repo-'));
  db = openDatabase(dir);
  small = new SnippetRepository(db, { countCap: CAP });
  full = new SnippetRepository(db);
  const ids = full.insertMany(rows()) as number[];
  // Four in five indexed, as after an ingestion whose index is still catching up.
  full.markIndexed(
    ids.filter((id) => id % 5 !== 0),
    new Date().toISOString(),
  );
});

afterAll(() => {
  db.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

/** The listing written the straightforward way: one query, COUNT(*) of every match. */
function naive(
  f: SnippetFilter,
  sort: string,
  order: 'asc' | 'desc',
  limit: number,
  offset: number,
): { ids: number[]; total: number } {
  const parts: string[] = [];
  const params: unknown[] = [];
  const add = (sql: string, ...values: unknown[]) => {
    parts.push(sql);
    params.push(...values);
  };
  if (f.theme) add('s.theme = ?', f.theme);
  if (f.min_quality !== undefined) add('s.quality_score >= ?', f.min_quality);
  if (f.job_id !== undefined) add('s.job_id = ?', f.job_id);
  if (f.source_url) add('s.source_url = ?', f.source_url);
  if (f.indexed_only) add('s.index_pending = 0');
  if (f.match) add('s.id IN (SELECT rowid FROM snippets_fts WHERE snippets_fts MATCH ?)', f.match);
  const where = parts.length ? `WHERE ${parts.join(' AND ')}` : '';
  const dir = order === 'asc' ? 'ASC' : 'DESC';
  const ids = db
    .prepare(
      `SELECT s.id FROM snippets s ${where} ORDER BY s.${sort} ${dir}, s.id ${dir} LIMIT ? OFFSET ?`,
    )
    .pluck()
    .all(...params, limit, offset) as number[];
  const total = db
    .prepare(`SELECT COUNT(*) FROM snippets s ${where}`)
    .pluck()
    .get(...params) as number;
  return { ids, total };
}

const match = (words: string) => ftsMatch(words, 'all')!;
const SHAPES: [string, SnippetFilter][] = [
  ['no filter', {}],
  ['theme', { theme: 'technology' }],
  ['min_quality on a decile edge', { min_quality: 0.5 }],
  ['min_quality inside a decile', { min_quality: 0.55 }],
  ['min_quality near the top', { min_quality: 0.97 }],
  ['theme + min_quality', { theme: 'science', min_quality: 0.3 }],
  ['theme + min_quality inside a decile', { theme: 'science', min_quality: 0.62 }],
  ['job_id', { job_id: 3 }],
  ['job_id + theme', { job_id: 3, theme: 'science' }],
  ['job_id + min_quality', { job_id: 2, min_quality: 0.4 }],
  ['source_url (large)', { source_url: 'https://feed.example/a' }],
  ['source_url (small)', { source_url: 'https://site.example/30' }],
  ['common word', { match: match('alpha') }],
  ['rare word', { match: match('zeta') }],
  ['prefix', { match: '"cop"*' }],
  ['common word + theme', { match: match('alpha'), theme: 'science' }],
  ['rare word + theme', { match: match('zeta'), theme: 'science' }],
  ['two words + job', { match: match('alpha river'), job_id: 2 }],
  ['indexed only', { indexed_only: true }],
  ['indexed only + theme', { indexed_only: true, theme: 'general' }],
  ['indexed only + common word', { indexed_only: true, match: match('alpha') }],
  ['word with no match', { match: match('nowhere') }],
  ['job with no row', { job_id: 999 }],
];

describe('SnippetRepository.listPage', () => {
  it('stamps created_at in id order, so sorting by created_at is sorting by id', () => {
    const at = db.prepare('SELECT created_at FROM snippets ORDER BY id').pluck().all() as string[];
    expect(at.every((t, i) => i === 0 || t >= at[i - 1]!)).toBe(true);
  });

  describe.each(SHAPES)('%s', (_name, f) => {
    it('lists the same pages as the straightforward query, in every sort and order', () => {
      for (const sort of SNIPPET_SORTS) {
        for (const order of ['asc', 'desc'] as const) {
          for (const [limit, offset] of [
            [50, 0],
            [20, 40],
            [7, 300],
          ] as const) {
            const got = small.listPage(f, sort, order, limit, offset);
            const want = naive(f, sort, order, limit, offset);
            expect(
              got.rows.map((r) => r.id),
              `${sort} ${order} ${offset}`,
            ).toEqual(want.ids);
          }
        }
      }
    });

    it('answers an exact total when flagged exact, an estimate past the cap otherwise', () => {
      const want = naive(f, 'id', 'desc', 1, 0).total;
      const exact = full.listPage(f, 'created_at', 'desc', 10, 0);
      expect(exact).toMatchObject({ total: want, exact: true });
      const capped = small.listPage(f, 'created_at', 'desc', 10, 0);
      if (capped.exact) expect(capped.total).toBe(want);
      else {
        // Text search stops counting after a fifth of the cap, other filters at the cap.
        expect(want).toBeGreaterThan(f.match ? CAP / 5 : CAP);
        expect(capped.total).toBeGreaterThan(want / 3);
        expect(capped.total).toBeLessThan(want * 3);
      }
    });
  });

  it('reads totals the aggregates hold exactly, however many rows match', () => {
    const exactShapes: SnippetFilter[] = [
      {},
      { theme: 'science' },
      { job_id: 2 },
      { source_url: 'https://feed.example/a' },
      { indexed_only: true },
      { indexed_only: true, theme: 'science' },
      { min_quality: 0.5 },
      { theme: 'science', min_quality: 0.3 },
    ];
    for (const f of exactShapes) {
      const want = naive(f, 'id', 'desc', 1, 0).total;
      expect(want).toBeGreaterThan(CAP);
      expect(small.listPage(f, 'created_at', 'desc', 5, 0), JSON.stringify(f)).toMatchObject({
        total: want,
        exact: true,
      });
    }
  });

  it('flags as estimates the totals past the cap that no aggregate holds', () => {
    for (const f of [
      { match: match('alpha') },
      { job_id: 3, theme: 'science' },
      { min_quality: 0.55 },
    ]) {
      expect(naive(f, 'id', 'desc', 1, 0).total).toBeGreaterThan(CAP);
      expect(small.listPage(f, 'created_at', 'desc', 5, 0).exact, JSON.stringify(f)).toBe(false);
    }
    // 30 matches: counted once the scan of a text search (a fifth of the cap) covers them.
    const wider = new SnippetRepository(db, { countCap: 200 });
    expect(wider.listPage({ match: match('zeta') }, 'created_at', 'desc', 5, 0)).toMatchObject({
      total: 30,
      exact: true,
    });
  });

  it('keeps the totals right as rows are added, re-themed, indexed and deleted', () => {
    const [a, b] = full.insertMany(
      ['gamma one', 'gamma two'].map((text, i) => ({
        ...rows()[0]!,
        text,
        text_hash: `extra${i}`,
        job_id: 3,
        theme: 'philosophy',
      })),
    ) as number[];
    db.prepare("UPDATE snippets SET theme = 'science', job_id = 4 WHERE id = ?").run(a);
    full.markIndexed([b!], new Date().toISOString());
    for (const f of [
      { job_id: 3 },
      { job_id: 4 },
      { indexed_only: true, theme: 'science' },
      { indexed_only: true, theme: 'philosophy' },
    ]) {
      expect(small.listPage(f, 'created_at', 'desc', 5, 0).total).toBe(
        naive(f, 'id', 'desc', 1, 0).total,
      );
    }
    full.deleteByIds([a!, b!]);
    for (const f of [{ job_id: 3 }, { job_id: 4 }, { indexed_only: true }])
      expect(small.listPage(f, 'created_at', 'desc', 5, 0).total).toBe(
        naive(f, 'id', 'desc', 1, 0).total,
      );
  });

  it('keeps created_at from going back when the clock does', () => {
    const last = db.prepare('SELECT MAX(id) FROM snippets').pluck().get() as number;
    db.prepare("UPDATE snippets SET created_at = '2999-01-01T00:00:00.000Z' WHERE id = ?").run(
      last,
    );
    const [id] = full.insertMany([{ ...rows()[0]!, text: 'later row', text_hash: 'later' }]);
    expect(full.findById(id!)!.created_at).toBe('2999-01-01T00:00:00.000Z');
    full.deleteByIds([id!]);
  });
});

describe('SnippetRepository.listPage by relevance', () => {
  it('pages a text search in bm25 order, with or without other filters, and by date without one', () => {
    const any = ftsMatch('zeta copper', 'any')!;
    const expected = (f: SnippetFilter) =>
      db
        .prepare(
          `SELECT s.id FROM snippets_fts JOIN snippets s ON s.id = snippets_fts.rowid
           WHERE snippets_fts MATCH ? ${f.theme ? 'AND s.theme = ?' : ''}
           ORDER BY bm25(snippets_fts), s.id DESC`,
        )
        .pluck()
        .all(any, ...(f.theme ? [f.theme] : [])) as number[];
    for (const f of [{}, { theme: 'science' }] as SnippetFilter[]) {
      const all = expected(f);
      // The rare word's rows rank first: bm25 weighs it far above the common one.
      expect(full.findById(all[0]!)!.text).toContain('zeta');
      const page1 = full.listPage({ ...f, match: any }, 'relevance', 'desc', 10, 0);
      const page2 = full.listPage({ ...f, match: any }, 'relevance', 'desc', 10, 10);
      expect([...page1.rows, ...page2.rows].map((r) => r.id)).toEqual(all.slice(0, 20));
      const worst = full.listPage({ ...f, match: any }, 'relevance', 'asc', 1, 0);
      const bm25 = (id: number) => full.keywordScores(any, [id]).get(id)!;
      expect(bm25(worst.rows[0]!.id)).toBe(bm25(all.at(-1)!));
      // Only the rows asked for, even one (SQLite turns a one-element IN into a rowid =).
      expect([...full.keywordScores(any, [all[0]!]).keys()]).toEqual([all[0]]);
      expect([...full.keywordScores(any, all.slice(0, 3)).keys()].sort()).toEqual(
        all.slice(0, 3).sort(),
      );
      expect(page1.total).toBe(all.length);
    }
    const noText = full.listPage({ theme: 'science' }, 'relevance', 'desc', 5, 0);
    expect(noText.rows.map((r) => r.id)).toEqual(
      full.listPage({ theme: 'science' }, 'created_at', 'desc', 5, 0).rows.map((r) => r.id),
    );
  });
});

describe('SnippetRepository embeddings', () => {
  it('stores vectors beside the rows and reads them back with their embedder', () => {
    const [id] = full.insertMany([
      {
        ...rows()[0]!,
        text: 'embedded row',
        text_hash: 'embedded',
        embedding: Buffer.from(new Float32Array([1, 2, 3]).buffer),
        embedder_id: 'first',
      },
    ]) as number[];
    expect(full.embeddings([id!]).get(id!)).toMatchObject({ embedder_id: 'first' });
    expect(full.findById(id!)!.embedder_id).toBe('first');
    full.setEmbeddings([
      {
        id: id!,
        embedding: Buffer.from(new Float32Array([4, 5, 6]).buffer),
        embedder_id: 'second',
      },
      // A row that does not exist is skipped, not an error.
      { id: 987_654, embedding: Buffer.from([1]), embedder_id: 'second' },
    ]);
    const got = full.embeddings([id!, 987_654]);
    expect(Array.from(new Float32Array(new Uint8Array(got.get(id!)!.embedding!).buffer))).toEqual([
      4, 5, 6,
    ]);
    expect(got.get(id!)!.embedder_id).toBe('second');
    expect(got.has(987_654)).toBe(false);
    const plain = (
      full.insertMany([
        { ...rows()[0]!, text: 'plain', text_hash: 'plain', embedding: null, embedder_id: null },
      ]) as number[]
    )[0]!;
    expect(full.embeddings([plain]).get(plain)).toEqual({
      id: plain,
      embedding: null,
      embedder_id: null,
    });
    // A search's read: the vectors alone, rows without one and unknown ids left out.
    const vectors = full.storedVectors([plain, id!, 987_654]);
    expect([...vectors.keys()]).toEqual([id!]);
    expect(vectors.get(id!)).toEqual(got.get(id!));
    full.deleteByIds([id!, plain]);
    expect(
      db.prepare('SELECT COUNT(*) FROM snippet_embeddings WHERE snippet_id = ?').pluck().get(id),
    ).toBe(0);
  });
});
