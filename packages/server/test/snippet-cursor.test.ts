import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { encodeSnippetCursor } from '@adam/contracts';
import { SnippetRepository, type NewSnippet } from '../src/store/snippet.repository.js';
import { rng } from './fixtures/seeded-random.js';
import { startServer, type TestServer } from './helpers.js';

const ROWS = 300;
const PER_PAGE = 20;
const THEMES = ['science', 'technology', 'philosophy', 'general'];

let s: TestServer;
let key: string;

/** Rows with ties in both column sorts: 5 word counts, a third of the qualities on 3 values. */
function rows(): NewSnippet[] {
  const rand = rng(3);
  return Array.from({ length: ROWS }, (_, i) => {
    const text = `${rand() < 0.5 ? 'alpha' : 'beta'} harbour lamp row${i}`;
    return {
      text,
      text_hash: `cursor${i}`,
      theme: THEMES[i % THEMES.length]!,
      quality_score: rand() < 0.33 ? [0.2, 0.5, 0.9][i % 3]! : Math.round(rand() * 100) / 100,
      language: 'en',
      word_count: 4 + (i % 5),
      size_bytes: text.length,
      source_title: null,
      source_url: null,
      job_id: null,
      metadata: '{}',
      embedding: null,
      embedder_id: null,
    };
  });
}

beforeAll(async () => {
  s = await startServer();
  key = await s.login();
  const ids = new SnippetRepository(s.adam.db).insertMany(rows()) as number[];
  // Really indexed (embedded, added and saved): rows only marked so, without their vectors, are
  // what the index's watch repairs, and it did so during this file on a loaded machine.
  await s.adam.services.index.indexRows(ids);
}, 120_000);
afterAll(async () => {
  await s.close();
});

interface Page {
  snippets: { id: number }[];
  total: number;
  page: number;
  next_cursor: string | null;
  prev_cursor: string | null;
}

const get = async (path: string, query: string): Promise<Page> => {
  const r = await s.api(`/api/v1${path}?${query}`, { key });
  expect(r.status, `${path}?${query}: ${JSON.stringify(r.body)}`).toBe(200);
  return r.body as Page;
};
const ids = (p: Page) => p.snippets.map((r) => r.id);

/** Every page of a listing by page number, then by next_cursor and back by prev_cursor. */
async function walkBothWays(path: string, query: string) {
  const byNumber: number[][] = [];
  for (let n = 1; ; n++) {
    const page = await get(path, `${query}&page=${n}`);
    if (page.snippets.length === 0) break;
    byNumber.push(ids(page));
  }
  let page = await get(path, query);
  const forwards = [ids(page)];
  const numbers = [page.page];
  while (page.next_cursor) {
    page = await get(path, `${query}&cursor=${page.next_cursor}`);
    forwards.push(ids(page));
    numbers.push(page.page);
  }
  const backwards = [ids(page)];
  while (page.prev_cursor) {
    page = await get(path, `${query}&cursor=${page.prev_cursor}`);
    backwards.unshift(ids(page));
    numbers.push(page.page);
  }
  return { byNumber, forwards, backwards, numbers, total: page.total };
}

describe('GET /snippets with a cursor', () => {
  const shapes = [
    '',
    'theme=science',
    'min_quality=0.5',
    'search=alpha',
    'search=alpha&theme=general',
  ];
  const sorts = ['created_at', 'quality_score', 'word_count', 'relevance'];
  for (const shape of shapes)
    for (const sort of sorts)
      for (const order of ['asc', 'desc'])
        it(`pages the same rows by cursor as by number: ${shape || 'no filter'}, ${sort} ${order}`, async () => {
          const query = `per_page=${PER_PAGE}&sort_by=${sort}&order=${order}${shape ? `&${shape}` : ''}`;
          const walk = await walkBothWays('/snippets', query);
          expect(walk.byNumber.length).toBeGreaterThan(1);
          expect(walk.forwards).toEqual(walk.byNumber);
          expect(walk.backwards).toEqual(walk.byNumber);
          const n = walk.byNumber.length;
          // Page numbers as the console shows them: up to the last page, then down to 1.
          expect(walk.numbers).toEqual([
            ...Array.from({ length: n }, (_, i) => i + 1),
            ...Array.from({ length: n - 1 }, (_, i) => n - 1 - i),
          ]);
          expect(walk.total).toBe(walk.byNumber.flat().length);
        });

  it('gives cursors from a page number too, so a jump can go on by cursor', async () => {
    const query = `per_page=${PER_PAGE}&sort_by=word_count&order=asc`;
    const third = await get('/snippets', `${query}&page=3`);
    const fourth = await get('/snippets', `${query}&page=4`);
    const second = await get('/snippets', `${query}&page=2`);
    expect(ids(await get('/snippets', `${query}&cursor=${third.next_cursor}`))).toEqual(
      ids(fourth),
    );
    const back = await get('/snippets', `${query}&cursor=${third.prev_cursor}`);
    expect(ids(back)).toEqual(ids(second));
    expect(back.page).toBe(2);
    expect((await get('/snippets', `${query}&page=1`)).prev_cursor).toBeNull();
  });

  it('pages the index content by cursor', async () => {
    const walk = await walkBothWays('/admin/index/entries', `per_page=${PER_PAGE}&theme=science`);
    expect(walk.forwards).toEqual(walk.byNumber);
    expect(walk.backwards).toEqual(walk.byNumber);
  });

  it('answers 422 with a detail for a cursor it did not give, or for another sort', async () => {
    const page = await get('/snippets', 'sort_by=quality_score&order=desc');
    const bad = [
      'not-a-cursor',
      encodeURIComponent('{"sort":"word_count"}'),
      Buffer.from('{"sort":"word_count","order":"asc","page":2}').toString('base64url'),
      Buffer.from(
        JSON.stringify({
          sort: 'word_count',
          order: 'asc',
          page: 2,
          at: { way: 'after', value: 'x', id: 1 },
        }),
      ).toString('base64url'),
      'A'.repeat(300),
    ];
    for (const cursor of bad) {
      const r = await s.api(`/api/v1/snippets?cursor=${cursor}`, { key });
      expect(r.status, cursor).toBe(422);
      expect(r.body.detail, cursor).toMatch(/cursor/);
    }
    const other = await s.api(
      `/api/v1/snippets?sort_by=word_count&order=desc&cursor=${page.next_cursor}`,
      { key },
    );
    expect(other.status).toBe(422);
    expect(other.body.detail).toMatch(/cursor: belongs to a listing sorted by quality_score desc/);
    const flipped = await s.api(
      `/api/v1/snippets?sort_by=quality_score&order=asc&cursor=${page.next_cursor}`,
      { key },
    );
    expect(flipped.status).toBe(422);
    const made = encodeSnippetCursor({
      sort: 'created_at',
      order: 'desc',
      page: 2,
      at: { way: 'after', value: null, id: 1 },
    });
    expect((await s.api(`/api/v1/snippets?cursor=${made}`, { key })).status).toBe(200);
  });
});
