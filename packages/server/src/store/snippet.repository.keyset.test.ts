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
  type SnippetKey,
  type SnippetRow,
} from './snippet.repository.js';
import { rng } from '../../test/fixtures/seeded-random.js';

const ROWS = 400;
const PAGE = 7;
const THEMES = ['science', 'technology', 'philosophy', 'general'];
const WORDS = ['river', 'stone', 'engine', 'harbour', 'lamp', 'garden', 'signal', 'copper'];

let dir: string;
let db: Db;
/** Both plans of a text search sorted by a column: sorting the matches, and walking an index. */
let repos: [string, SnippetRepository][];

/** Rows with many ties: 6 word counts, a quarter of the qualities on 4 values. */
function rows(): NewSnippet[] {
  const rand = rng(5);
  return Array.from({ length: ROWS }, (_, i) => {
    const words = [
      rand() < 0.5 ? 'alpha' : 'beta',
      ...Array.from({ length: 4 }, () => WORDS[Math.floor(rand() * WORDS.length)]!),
      ...(i % 40 === 3 ? ['zeta'] : []),
      `n${i}`,
    ];
    const text = words.join(' ');
    return {
      text,
      text_hash: `k${i}`,
      theme: THEMES[Math.floor(rand() * THEMES.length)]!,
      quality_score: rand() < 0.25 ? [0, 0.5, 0.7, 1][i % 4]! : Math.round(rand() * 100) / 100,
      language: 'en',
      word_count: 5 + Math.floor(rand() * 6),
      size_bytes: text.length,
      source_title: null,
      source_url: i % 5 === 0 ? 'https://feed.example/a' : `https://site.example/${i}`,
      job_id: i % 10 === 0 ? null : 1 + Math.floor(i / 100),
      metadata: '{}',
      embedding: null,
      embedder_id: null,
    };
  });
}

beforeAll(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'adam-snippet-keyset-'));
  db = openDatabase(dir);
  const full = new SnippetRepository(db);
  const ids = full.insertMany(rows()) as number[];
  full.markIndexed(
    ids.filter((id) => id % 4 !== 0),
    new Date().toISOString(),
  );
  repos = [
    ['counted', full],
    ['estimated', new SnippetRepository(db, { countCap: 20 })],
  ];
});

afterAll(() => {
  db.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

const match = (words: string, how: 'any' | 'all' = 'all') => ftsMatch(words, how)!;
const SHAPES: [string, SnippetFilter][] = [
  ['no filter', {}],
  ['theme', { theme: 'technology' }],
  ['min_quality', { min_quality: 0.5 }],
  ['theme + min_quality', { theme: 'science', min_quality: 0.3 }],
  ['job_id', { job_id: 2 }],
  ['job_id + theme', { job_id: 2, theme: 'science' }],
  ['source_url', { source_url: 'https://feed.example/a' }],
  ['indexed only', { indexed_only: true }],
  ['indexed only + theme', { indexed_only: true, theme: 'general' }],
  ['common word', { match: match('alpha') }],
  ['rare word', { match: match('zeta') }],
  ['prefix', { match: '"cop"*' }],
  ['two words, any', { match: match('river lamp', 'any') }],
  ['common word + theme', { match: match('alpha'), theme: 'science' }],
  ['common word + min_quality', { match: match('alpha'), min_quality: 0.5 }],
  ['indexed only + common word', { indexed_only: true, match: match('alpha') }],
  ['word with no match', { match: match('nowhere') }],
];
const COLUMN_SORTS = SNIPPET_SORTS;

const keyOf = (sort: string, r: SnippetRow): SnippetKey => ({
  value: sort === 'created_at' ? null : (r[sort as keyof SnippetRow] as number),
  id: r.id,
});

describe('SnippetRepository.listPage by keyset', () => {
  it('has ties in every column sort, so the seek must order them by id', () => {
    for (const col of ['quality_score', 'word_count']) {
      const tied = db
        .prepare(`SELECT MAX(n) FROM (SELECT COUNT(*) AS n FROM snippets GROUP BY ${col})`)
        .pluck()
        .get() as number;
      expect(tied, col).toBeGreaterThan(PAGE * 3);
    }
  });

  describe.each(SHAPES)('%s', (_name, f) => {
    it('walks the same pages by key as by offset, forwards and back, in every sort and order', () => {
      for (const [plan, repo] of repos) {
        for (const sort of COLUMN_SORTS) {
          for (const order of ['asc', 'desc'] as const) {
            const at = `${plan} ${sort} ${order}`;
            const byOffset: number[][] = [];
            for (let p = 0; ; p++) {
              const page = repo.listPage(f, sort, order, PAGE, p * PAGE);
              byOffset.push(page.rows.map((r) => r.id));
              if (!page.more) break;
            }
            // Forwards, each page sought after the last row of the one before.
            let page = repo.listPage(f, sort, order, PAGE, 0);
            const forwards = [page.rows.map((r) => r.id)];
            const totals = new Set([page.total]);
            while (page.more) {
              page = repo.listPage(f, sort, order, PAGE, { after: keyOf(sort, page.rows.at(-1)!) });
              forwards.push(page.rows.map((r) => r.id));
              totals.add(page.total);
            }
            expect(forwards, at).toEqual(byOffset);
            expect(totals.size, at).toBe(1);
            // Back from the last page, each sought before the first row of the one after.
            const backwards = [forwards.at(-1)!];
            let first = page.rows[0];
            while (first) {
              const prev = repo.listPage(f, sort, order, PAGE, { before: keyOf(sort, first) });
              if (prev.rows.length === 0) break;
              backwards.unshift(prev.rows.map((r) => r.id));
              expect(prev.more, at).toBe(backwards.length < byOffset.length);
              first = prev.more ? prev.rows[0] : undefined;
            }
            expect(backwards, at).toEqual(byOffset);
          }
        }
      }
    });
  });

  it('says there is no more past the last page, and none before the first', () => {
    const repo = repos[0]![1];
    const all = repo.listPage({}, 'word_count', 'desc', ROWS + 1, 0);
    expect(all).toMatchObject({ more: false });
    expect(all.rows).toHaveLength(ROWS);
    const last = all.rows.at(-1)!;
    const first = all.rows[0]!;
    expect(
      repo.listPage({}, 'word_count', 'desc', 5, { after: keyOf('word_count', last) }),
    ).toMatchObject({ rows: [], more: false });
    expect(
      repo.listPage({}, 'word_count', 'desc', 5, { before: keyOf('word_count', first) }),
    ).toMatchObject({ rows: [], more: false });
  });

  it("seeks the key's ties on (sort column, rowid) in an index, never walking them", () => {
    // A row value `(col, id) < (?, ?)` seeks on the column alone and reads every tie.
    const repo = repos[0]![1];
    const plans: string[] = [];
    const prepare = db.prepare.bind(db);
    const spy = (sql: string) => {
      if (/\bs\.id [<>] \?/.test(sql) && sql.includes('LIMIT')) {
        const params = Array.from(sql.matchAll(/\?/g), () => 1);
        const plan = prepare(`EXPLAIN QUERY PLAN ${sql}`).all(...params) as { detail: string }[];
        plans.push(plan.map((r) => r.detail).join(' / '));
      }
      return prepare(sql);
    };
    (db as { prepare: unknown }).prepare = spy;
    try {
      for (const f of [
        {},
        { theme: 'science' },
        { job_id: 2 },
        { source_url: 'https://feed.example/a' },
      ])
        for (const sort of ['quality_score', 'word_count'] as const)
          for (const way of ['after', 'before'] as const) {
            plans.length = 0;
            const row = repo.listPage(f, sort, 'desc', 3, 40).rows[0]!;
            plans.length = 0;
            repo.listPage(f, sort, 'desc', 3, { [way]: keyOf(sort, row) } as { after: SnippetKey });
            const at = `${JSON.stringify(f)} ${sort} ${way}`;
            expect(plans.length, at).toBeGreaterThan(0);
            // job and source have no word_count index: their rows are read by id and sorted.
            if (sort === 'word_count' && (f.job_id || 'source_url' in f)) continue;
            expect(plans[0], at).toMatch(new RegExp(`${sort}=\\? AND rowid[<>]\\?`));
          }
    } finally {
      (db as { prepare: unknown }).prepare = prepare;
    }
  });

  it('seeks past a key whose row is gone', () => {
    const repo = repos[0]![1];
    const page = repo.listPage({}, 'quality_score', 'asc', 10, 0).rows;
    const gone = page[4]!;
    const want = page.slice(5).map((r) => r.id);
    db.exec('SAVEPOINT gone');
    repo.deleteByIds([gone.id]);
    try {
      const after = repo.listPage({}, 'quality_score', 'asc', 5, {
        after: keyOf('quality_score', gone),
      });
      expect(after.rows.map((r) => r.id)).toEqual(want);
    } finally {
      db.exec('ROLLBACK TO gone; RELEASE gone');
    }
  });
});
