import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ARTICLES } from './corpus.js';
import { startServer, type TestServer } from './helpers.js';

let s: TestServer;
let key: string;

beforeAll(async () => {
  s = await startServer();
  key = await s.login();
});
afterAll(async () => {
  await s?.close();
});

const [first, second] = Object.values(ARTICLES);

const save = (source_url: unknown, text = first) =>
  s.api('/api/v1/playground/save-segments', {
    method: 'POST',
    key,
    body: {
      title: 'Link check',
      language: 'en',
      text,
      source_url,
      wait: true,
    },
  });

describe('save-segments source_url', () => {
  it('answers 422 {detail} to a source_url that is not http(s), and queues nothing', async () => {
    const before = await s.api('/api/v1/jobs?limit=100', { key });
    for (const bad of [
      'javascript:alert(document.cookie)',
      'data:text/html,x',
      'ftp://a.example/',
    ]) {
      const r = await save(bad);
      expect(r.status, bad).toBe(422);
      expect(r.body.detail).toBe('Invalid request body: source_url: must be an http(s) URL');
    }
    const after = await s.api('/api/v1/jobs?limit=100', { key });
    expect(after.body).toEqual(before.body);
  });

  it('stores an http(s) source_url with the snippets', async () => {
    const r = await save('https://volcanoes.example/magma', second);
    expect(r.status).toBe(200);
    expect(r.body.snippet_ids.length).toBeGreaterThan(0);
    const list = await s.api(
      `/api/v1/snippets?source_url=${encodeURIComponent('https://volcanoes.example/magma')}`,
      { key },
    );
    expect(list.body.total).toBe(r.body.snippet_ids.length);
  });
});
