import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { ARTICLES } from './corpus.js';
import { dot } from '../src/pipeline/text.js';
import { blobToVector } from '../src/services/index.service.js';
import { isSparseQuery } from '../src/vector/vector-columns.js';
import { saveText, startServer, type TestServer } from './helpers.js';
import { until } from './until.js';

/**
 * Vector search for the queries people type (one or two words): the answer is the exact top 10
 * by cosine over every stored vector, also where the graph does not return those snippets. The
 * graph's miss is made certain here by taking the exact top 10's word-holding snippets out of
 * the index (their rows and stored vectors stay): only the keyword side's candidates, ranked by
 * their exact cosine, bring them back.
 */
let s: TestServer;
let key: string;

beforeAll(async () => {
  s = await startServer();
  key = await s.login();
  for (const [name, text] of Object.entries(ARTICLES)) await saveText(s, key, text, name);
  for (const [i, text] of NOTES.entries()) await saveText(s, key, text, `note ${i}`);
}, 180_000);

const SUBJECTS = [
  'chlorophyll in the leaves of the old oak',
  'the volcanic eruption of the island',
  'the delta of the slow river',
  'the glacier above the valley',
  'the coral reef near the coast',
  'the dust storm over the desert',
  'the chlorophyll of pond algae',
  'the eruption of lava from the crater',
  'the tide pools along the shore',
  'the migration of the cranes',
];
const PLACES = ['Norway', 'Chile', 'Kenya', 'Japan'];
/** Short notes, many of them on the queries' words: a store with more than ten candidates. */
const NOTES = SUBJECTS.flatMap((subject, i) =>
  PLACES.map(
    (place, j) =>
      `Field note ${i * PLACES.length + j + 1}: ${subject} was observed in ${place} during the survey of ${1990 + i * 3 + j}, and the team wrote down in their notebooks what they measured, counted and drew on each of the long days in the field.`,
  ),
);
afterAll(async () => {
  await s.close();
});

/** Every snippet's cosine to the query (the server's engine embeds it), best first. */
async function exactTop(query: string, k: number): Promise<{ id: number; cosine: number }[]> {
  const [q] = await s.adam.services.engine.embed([query]);
  const rows = s.adam.db
    .prepare(`SELECT snippet_id AS id, embedding FROM snippet_embeddings`)
    .all() as { id: number; embedding: Buffer }[];
  return rows
    .map((r) => {
      return { id: r.id, cosine: dot(q!, blobToVector(r.embedding)) };
    })
    .sort((a, b) => b.cosine - a.cosine || a.id - b.id)
    .slice(0, k);
}

const holding = (words: string[]) => (id: number) => {
  const row = s.adam.db.prepare(`SELECT text FROM snippets WHERE id = ?`).get(id) as {
    text: string;
  };
  const text = row.text.toLowerCase();
  return words.some((w) => text.includes(w));
};

describe('vector search for short queries', () => {
  for (const query of ['chlorophyll', 'volcanic eruption']) {
    it(`answers the exact top 10 for "${query}" though the graph misses some`, async () => {
      const exact = await exactTop(query, 10);
      expect(exact).toHaveLength(10);
      const missing = exact
        .map((e) => e.id)
        .filter(holding(query.split(' ').map((w) => w.slice(0, 7))))
        .slice(0, 5);
      expect(missing.length).toBeGreaterThanOrEqual(2);
      expect(s.adam.services.index.removeAndSave(missing)).toEqual(missing);

      const r = await s.api('/api/v1/snippets/search', {
        method: 'POST',
        key,
        body: { query, mode: 'vector', k: 10 },
      });
      expect(r.status).toBe(200);
      const results = r.body.results as { id: number; similarity: number }[];
      expect(results.map((x) => x.id)).toEqual(exact.map((e) => e.id));
      for (const [i, x] of results.entries()) expect(x.similarity).toBeCloseTo(exact[i]!.cosine, 3);
    });
  }

  it('walks the graph wider for two or three words, asks it again towards the query from the first answer, and ranks what it adds by its cosine', async () => {
    // The first graph search is made to miss one snippet of the exact top 10 that holds neither
    // word (so the keyword side cannot bring it): only the second search, from the centroid of
    // the first answer's top 3 towards the query, finds it.
    const query = 'glacier valley';
    // Among the snippets still in the index (the tests above took some out).
    const { index } = s.adam.services;
    const exact = (await exactTop(query, 1_000)).filter((e) => index.has(e.id)).slice(0, 10);
    const hidden = exact.map((e) => e.id).find((id) => !holding(['glacier', 'valley'])(id));
    expect(hidden).toBeDefined();
    const graphSearch = index.search.bind(index);
    const vectors: Float32Array[] = [];
    const breadths: number[] = [];
    const spy = vi.spyOn(index, 'search').mockImplementation(async (...a) => {
      vectors.push(a[0]);
      breadths.push(a[4] ?? 0);
      const r = await graphSearch(...a);
      return vectors.length === 1 ? { ...r, hits: r.hits.filter((h) => h.key !== hidden) } : r;
    });
    try {
      const search = (q: string) =>
        s.api('/api/v1/snippets/search', {
          method: 'POST',
          key,
          body: { query: q, mode: 'vector', k: 10 },
        });
      const r = await search(query);
      expect(r.status).toBe(200);
      const results = r.body.results as { id: number; similarity: number }[];
      expect(results.map((x) => x.id)).toEqual(exact.map((e) => e.id));
      for (const [i, x] of results.entries()) expect(x.similarity).toBeCloseTo(exact[i]!.cosine, 3);
      expect(vectors).toHaveLength(2);
      // The first walk is wider than the index's own; the second goes to a point other than the
      // query's vector, most of the way to it (0.7 of the way from a centroid of snippets, whose
      // cosine to it is at least 0: above 0.9), where a centroid of snippets stays far.
      expect(breadths[0]).toBeGreaterThan(0);
      expect(dot(vectors[0]!, vectors[1]!)).toBeLessThan(0.999);
      expect(dot(vectors[0]!, vectors[1]!)).toBeGreaterThan(0.9);
      expect(exact[0]!.cosine).toBeLessThan(0.9);

      // One word, and questions: the graph is asked once, at the index's own expansion.
      vectors.length = 0;
      breadths.length = 0;
      expect((await search('chlorophyll')).status).toBe(200);
      expect((await search('what was observed in the field during the survey?')).status).toBe(200);
      expect(vectors).toHaveLength(2);
      expect(breadths).toEqual([0, 0]);
    } finally {
      spy.mockRestore();
    }
  });

  it("answers a number's exact top 10 from the index's column scan, where neither the graph nor the keyword side holds them", async () => {
    // A four-digit number is known to the embedder only by its character grams: its vector is
    // sparse, and the graph walks badly to what lies nearest. Here the graph and the keyword
    // engine answer nothing at all: only the scan of the index thread's columns brings the answer.
    const query = '1994';
    const [q] = await s.adam.services.engine.embed([query]);
    expect(isSparseQuery(q!)).toBe(true);
    const { index, keyword } = s.adam.services;
    const exact = (await exactTop(query, 1_000)).filter((e) => index.has(e.id)).slice(0, 10);
    const scan = vi.spyOn(index, 'scanColumns');
    const spies = [
      vi.spyOn(index, 'search').mockResolvedValue({ hits: [], latencyMs: 0, cached: false }),
      vi.spyOn(keyword, 'keywordSearch').mockResolvedValue([]),
    ];
    try {
      const search = (body: object) =>
        s.api('/api/v1/snippets/search', {
          method: 'POST',
          key,
          body: { mode: 'vector', ...body },
        });
      const r = await search({ query, k: 10 });
      expect(r.status).toBe(200);
      const results = r.body.results as { id: number; similarity: number }[];
      expect(results.map((x) => x.id)).toEqual(exact.map((e) => e.id));
      for (const [i, x] of results.entries()) expect(x.similarity).toBeCloseTo(exact[i]!.cosine, 3);
      expect(scan).toHaveBeenCalledTimes(1);
      // A filter applies to what the scan finds.
      const theme = s.adam.db
        .prepare(`SELECT theme FROM snippets WHERE id = ?`)
        .get(exact[0]!.id) as {
        theme: string;
      };
      const filtered = await search({ query, k: 10, filters: { theme: theme.theme } });
      expect(filtered.status).toBe(200);
      const ids = (filtered.body.results as { id: number }[]).map((x) => x.id);
      expect(ids[0]).toBe(exact[0]!.id);
      const themes = s.adam.db
        .prepare(
          `SELECT DISTINCT theme FROM snippets WHERE id IN (${ids.map(() => '?').join(',')})`,
        )
        .all(...ids) as { theme: string }[];
      expect(themes).toEqual([theme]);
      // A word the embedder knows has a dense vector: no scan.
      scan.mockClear();
      expect((await search({ query: 'glacier', k: 10 })).status).toBe(200);
      expect(scan).not.toHaveBeenCalled();
    } finally {
      scan.mockRestore();
      for (const spy of spies) spy.mockRestore();
    }
  });

  it('asks the keyword engine and the graph at once, not one after the other', async () => {
    // Each side is held until the other has been asked: one after the other never gets there.
    const asked: string[] = [];
    const { keyword, index } = s.adam.services;
    const keywordSearch = keyword.keywordSearch.bind(keyword);
    const graphSearch = index.search.bind(index);
    const spies = [
      vi.spyOn(keyword, 'keywordSearch').mockImplementation(async (...a) => {
        asked.push('keyword');
        await until(() => asked.includes('graph'), { what: 'the graph asked' });
        return keywordSearch(...a);
      }),
      vi.spyOn(index, 'search').mockImplementation(async (...a) => {
        asked.push('graph');
        await until(() => asked.includes('keyword'), { what: 'the keyword engine asked' });
        return graphSearch(...a);
      }),
    ];
    try {
      const r = await s.api('/api/v1/snippets/search', {
        method: 'POST',
        key,
        body: { query: 'coral reef', mode: 'vector', k: 10 },
      });
      expect(r.status).toBe(200);
      // Then the graph once more, from the first answer (two words: see the next test).
      expect(asked.slice(0, 2).sort()).toEqual(['graph', 'keyword']);
      expect(asked.slice(2)).toEqual(['graph']);
      expect(r.body.results).toHaveLength(10);
    } finally {
      for (const spy of spies) spy.mockRestore();
    }
  });
});
