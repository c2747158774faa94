import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeEncyclopedia, type FakeEncyclopedia } from './fixtures/fake-encyclopedia.js';
import { SELECTOR_PAGE, startFixtureSite, type FixtureSite } from './fixtures/fixture-site.js';
import { startServer, type TestServer } from './helpers.js';

let s: TestServer;
let key: string;
let site: FixtureSite;
let wiki: FakeEncyclopedia;

beforeAll(async () => {
  site = await startFixtureSite();
  wiki = await startFakeEncyclopedia();
  s = await startServer({
    env: {
      ADAM_FETCH_ALLOW: `127.0.0.1:${site.port},127.0.0.1:${wiki.port}`,
      ADAM_WIKIPEDIA_URL: `${wiki.url}/{lang}`,
    },
  });
  key = await s.login();
});
afterAll(async () => {
  await s.close();
  await site.close();
  await wiki.close();
});

const post = (p: string, body?: unknown) => s.api(`/api/v1${p}`, { method: 'POST', key, body });

const CONTEXT = `Marie Curie was a physicist and chemist who conducted pioneering research on radioactivity. She was born in Warsaw in 1867 and later moved to Paris to study at the University of Paris. The bakery on the corner sells croissants every morning. In 1903 she shared the Nobel Prize in Physics with Pierre Curie and Henri Becquerel. Tomatoes grow best in warm and sunny gardens.`;

describe('analyze', () => {
  it('ranks the sentences that answer the question first, with entities', async () => {
    const r = await post('/playground/analyze', {
      context: CONTEXT,
      question: 'In which city was she born?',
    });
    expect(r.status).toBe(200);
    expect(r.body.answers).toHaveLength(3);
    expect(r.body.answers[0].sentence).toContain('born in Warsaw');
    const scores = r.body.answers.map((a: { score: number }) => a.score);
    expect(scores).toEqual([...scores].sort((a: number, b: number) => b - a));
    expect(r.body.language).toBe('en');
    const labels = new Map(
      r.body.entities.map((e: { text: string; label: string }) => [e.text, e.label]),
    );
    expect(labels.get('Marie Curie')).toBe('PERSON');
    expect(
      [...labels.entries()].some(([t, l]) => /Warsaw|Paris/.test(t as string) && l === 'GPE'),
    ).toBe(true);
    expect([...labels.values()]).toContain('DATE');
  });

  it('accepts text instead of context, top_k and a language', async () => {
    const r = await post('/playground/analyze', {
      text: CONTEXT,
      question: 'Nobel Prize',
      top_k: 1,
      language: 'en',
    });
    expect(r.body.answers).toHaveLength(1);
    expect(r.body.answers[0].sentence).toContain('Nobel Prize');
  });

  it('answers 422 for an empty question or context, or a bad top_k', async () => {
    expect((await post('/playground/analyze', { context: CONTEXT, question: '' })).status).toBe(
      422,
    );
    expect((await post('/playground/analyze', { context: '  ', question: 'x' })).status).toBe(422);
    expect(
      (await post('/playground/analyze', { context: CONTEXT, question: 'x', top_k: 0 })).status,
    ).toBe(422);
  });

  it('lists the playground languages', async () => {
    const r = await s.api('/api/v1/playground/languages', { key });
    expect(r.body).toEqual(
      expect.arrayContaining([
        { code: 'en', name: 'English' },
        { code: 'fr', name: 'French' },
      ]),
    );
  });
});

describe('fetch-url', () => {
  it('extracts an article from a page, without its boilerplate, saying no rule applied', async () => {
    const r = await post('/playground/fetch-url', { url: `${site.url}/articles/honeybees` });
    expect(r.status).toBe(200);
    expect(r.body.domain).toBe('127.0.0.1');
    expect(r.body.rule).toBe('No specific rule found – using default');
    expect(r.body.content.length).toBe(r.body.clean_length);
    expect(r.body.html.length).toBe(r.body.original_length);
    expect(r.body.clean_length).toBeLessThan(r.body.original_length);
    expect(r.body.content).toMatch(/bee/i);
    expect(r.body.content).not.toMatch(/cookie/i);
  });

  it('applies the matching scraping rule, or the one chosen', async () => {
    const rule = await post('/rules/scraping', {
      domain: '127.0.0.1',
      mode: 'selector',
      target: 'article div.content',
    });
    expect(rule.status).toBe(201);
    const r = await post('/playground/fetch-url', { url: `${site.url}${SELECTOR_PAGE.path}` });
    expect(r.body.rule).toBe('127.0.0.1 (selector:article div.content)');
    expect(r.body.content).toContain(SELECTOR_PAGE.first);
    expect(r.body.content).toContain(SELECTOR_PAGE.second);
    expect(r.body.content).not.toContain(SELECTOR_PAGE.outside);
    expect(r.body.content).not.toContain(SELECTOR_PAGE.sidebar);

    // Extraction runs on a worker thread; its errors still come back as clear 422s.
    await s.api(`/api/v1/rules/scraping/${rule.body.id}`, {
      method: 'PATCH',
      key,
      body: { target: '.no-such-block' },
    });
    const nomatch = await post('/playground/fetch-url', {
      url: `${site.url}${SELECTOR_PAGE.path}`,
    });
    expect(nomatch.status).toBe(422);
    expect(nomatch.body.detail).toMatch(/\.no-such-block/);

    const deny = await s.api(`/api/v1/rules/scraping/${rule.body.id}`, {
      method: 'PATCH',
      key,
      body: { mode: 'deny', target: null },
    });
    expect(deny.status).toBe(200);
    const hitsBefore = site.hits.length;
    const refused = await post('/playground/fetch-url', { url: `${site.url}/articles/honeybees` });
    expect(refused.status).toBe(422);
    expect(refused.body.detail).toMatch(/deny|denied/i);
    expect(site.hits.length).toBe(hitsBefore);
    await s.api(`/api/v1/rules/scraping/${rule.body.id}`, { method: 'DELETE', key });
    expect(
      (await post('/playground/fetch-url', { url: `${site.url}/`, rule_id: 4242 })).status,
    ).toBe(404);
  });

  it.each([
    ['http://127.0.0.1:1/', 422],
    ['http://10.0.0.1/', 422],
    ['http://169.254.169.254/latest/meta-data/', 422],
    ['http://[::1]/', 422],
    ['http://[::ffff:127.0.0.1]/', 422],
    ['http://2130706433/', 422],
    ['file:///etc/passwd', 422],
  ])('refuses %s with a clear detail', async (url, status) => {
    const r = await post('/playground/fetch-url', { url });
    expect(r.status).toBe(status);
    expect(r.body.detail.length).toBeGreaterThan(10);
  });

  it('refuses a redirect to loopback and reports upstream errors', async () => {
    const r = await post('/playground/fetch-url', { url: `${site.url}/redirect/loopback` });
    expect(r.status).toBe(422);
    const missing = await post('/playground/fetch-url', { url: `${site.url}/missing-page` });
    expect(missing.status).toBe(502);
    expect(missing.body.detail).toContain('404');
    expect((await post('/playground/fetch-url', { url: '' })).status).toBe(422);
  });
});

describe('fetch-wikipedia', () => {
  it('fetches and cleans an article through the encyclopedia API', async () => {
    const r = await post('/playground/fetch-wikipedia', { title: '  Honey_bee ' });
    expect(r.status).toBe(200);
    expect(r.body.title).toBe('Honey bee');
    expect(r.body.language).toBe('en');
    expect(r.body.text.length).toBeGreaterThan(100);
    expect(r.body.text).not.toMatch(/== References ==/);
    const fr = await post('/playground/fetch-wikipedia', {
      title: 'Abeille domestique',
      language: 'fr',
    });
    expect(fr.status).toBe(200);
  });

  it('answers 404 for a missing article, 400 for an empty title, 422 for a bad language', async () => {
    const missing = await post('/playground/fetch-wikipedia', { title: 'No Such Article Here' });
    expect(missing.status).toBe(404);
    expect(missing.body.detail).toMatch(/not found/);
    expect((await post('/playground/fetch-wikipedia', { title: '   ' })).status).toBe(400);
    expect(
      (await post('/playground/fetch-wikipedia', { title: 'Tide', language: 'english' })).status,
    ).toBe(422);
  });
});
