import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ARTICLES } from './corpus.js';
import { dot } from '../src/pipeline/text.js';
import { blobToVector } from '../src/services/index.service.js';
import { saveText, startServer, type TestServer } from './helpers.js';

/**
 * The two figures of a search result through HTTP: `similarity` is the absolute cosine of the
 * snippet's stored vector to the query in every mode, `score` what the results are ranked by.
 */
let s: TestServer;
let key: string;

beforeAll(async () => {
  s = await startServer();
  key = await s.login();
  for (const [name, text] of Object.entries(ARTICLES)) await saveText(s, key, text, name);
}, 120_000);
afterAll(async () => {
  await s.close();
});

interface Result {
  id: number;
  similarity: number;
  score: number;
  vector_score: number | null;
  keyword_score: number | null;
}

const search = async (query: string, mode: string, k = 8): Promise<Result[]> => {
  const r = await s.api('/api/v1/snippets/search', {
    method: 'POST',
    key,
    body: { query, mode, k },
  });
  expect(r.status).toBe(200);
  return r.body.results as Result[];
};

/** The cosine computed here: the query embedded by the server's engine, the stored vectors. */
async function cosines(query: string, ids: number[]): Promise<Map<number, number>> {
  const [q] = await s.adam.services.engine.embed([query]);
  const rows = s.adam.db
    .prepare(
      `SELECT snippet_id AS id, embedding FROM snippet_embeddings WHERE snippet_id IN (${ids.map(() => '?').join(',')})`,
    )
    .all(...ids) as { id: number; embedding: Buffer }[];
  return new Map(
    rows.map((r) => {
      return [r.id, dot(q!, blobToVector(r.embedding))];
    }),
  );
}

describe('search scores', () => {
  const query = 'How do plants turn light into sugar?';

  it('gives the cosine of the stored vectors as similarity, in every mode', async () => {
    for (const mode of ['hybrid', 'vector', 'keyword']) {
      const results = await search(query, mode);
      expect(results.length, mode).toBeGreaterThan(1);
      const expected = await cosines(
        query,
        results.map((r) => r.id),
      );
      for (const r of results) {
        // The index stores 16-bit vectors (bf16 by default): its cosine is within a few
        // thousandths of the exact one.
        expect(r.similarity, `${mode} #${r.id}`).toBeCloseTo(expected.get(r.id)!, 2);
        expect(r.vector_score, `${mode} #${r.id}`).toBe(r.similarity);
      }
    }
  });

  it('ranks by score, which is not the cosine in hybrid (the top hit is not 1.0)', async () => {
    const hybrid = await search(query, 'hybrid');
    const scores = hybrid.map((r) => r.score);
    expect(scores).toEqual([...scores].sort((a, b) => b - a));
    expect(hybrid[0]!.similarity).toBeLessThan(0.99);
    for (const r of hybrid) {
      expect(r.score).toBeGreaterThanOrEqual(0);
      expect(r.score).toBeLessThanOrEqual(1);
    }
    const keyword = await search(query, 'keyword');
    expect(keyword.map((r) => r.score)).toEqual(keyword.map((r) => r.keyword_score));
    const vector = await search(query, 'vector');
    expect(vector.map((r) => r.score)).toEqual(vector.map((r) => r.similarity));
  });
});

describe('search scores of rows the index did not return', () => {
  it('gives a keyword hit the graph did not find the cosine of its stored vector', async () => {
    const query = 'light';
    const keyword = await search(query, 'keyword', 5);
    expect(keyword.length).toBeGreaterThanOrEqual(2);
    // Out of the graph (rows and stored vectors stay): only the keyword side brings them back,
    // and their cosine can only come from the stored vectors.
    const missing = keyword.slice(0, 2).map((r) => r.id);
    expect(s.adam.services.index.removeAndSave(missing)).toEqual(missing);
    const hybrid = await search(query, 'hybrid', 10);
    const expected = await cosines(query, missing);
    for (const id of missing) {
      const r = hybrid.find((x) => x.id === id);
      expect(r, `#${id} in the hybrid answer`).toBeDefined();
      expect(r!.similarity, `#${id}`).toBeCloseTo(expected.get(id)!, 4);
      expect(r!.similarity).toBeGreaterThan(0);
    }
  });
});
