import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mediaWikiPage, tokenShares } from './fixtures/boilerplate-pages.js';
import { startServer, type TestServer } from './helpers.js';
import { until } from './until.js';

// A generated encyclopedia-style page served locally, ingested through the real job, stored,
// and read back through the API: its snippets carry `section` and no page clutter.
const page = mediaWikiPage(2);
let site: http.Server;
let base: string;
let s: TestServer;
let key: string;

beforeAll(async () => {
  site = http.createServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
    res.end(page.html);
  });
  await new Promise<void>((resolve) => site.listen(0, '127.0.0.1', resolve));
  const port = (site.address() as AddressInfo).port;
  base = `http://127.0.0.1:${port}`;
  s = await startServer({ env: { ADAM_FETCH_ALLOW: `127.0.0.1:${port}`, ADAM_WORKERS: '1' } });
  key = await s.login();
});
afterAll(async () => {
  await s?.close();
  await new Promise((resolve) => site.close(resolve));
});

describe('clean extraction through ingestion', () => {
  it('stores each snippet with its section and without boilerplate, and the API shows it', async () => {
    const url = `${base}/wiki/Honey_bee`;
    const queued = await s.api('/api/v1/sources/process', {
      method: 'POST',
      key,
      body: { urls: [url] },
    });
    expect(queued.status).toBe(200);
    const job = await s.adam.services.jobs.waitForEnd(queued.body.job_id, 60_000);
    expect(job?.status).toBe('completed');
    const list = await s.api(`/api/v1/snippets?source_url=${encodeURIComponent(url)}&limit=100`, {
      key,
    });
    expect(list.status).toBe(200);
    const items = list.body.snippets as { id: number; text: string; section?: string | null }[];
    expect(items.length).toBeGreaterThan(0);
    const shares = tokenShares(
      page,
      items.map((i) => i.text),
    );
    expect(shares.boilerplate).toBe(0);
    expect(shares.lost).toBe(0);
    const sections = items.map((i) => i.section);
    for (const path of page.sections) expect(sections).toContain(path);
    // The lead has no heading: null, not a made-up section.
    expect(sections).toContain(null);
    const one = items.find((i) => i.section === 'Colony life')!;
    const detail = await s.api(`/api/v1/snippets/${one.id}`, { key });
    expect(detail.body.section).toBe('Colony life');
    expect(detail.body.text).not.toContain('Colony life');
  });

  // Headings and the title left the text: keyword search matches them where FTS5 and the
  // keyword engine index them (migration 27), or a page's own subject would find nothing.
  it('finds a section by its heading and the page by its title, in both keyword paths', async () => {
    const url = `${base}/wiki/Honey_bee`;
    const list = await s.api(`/api/v1/snippets?source_url=${encodeURIComponent(url)}&limit=100`, {
      key,
    });
    const items = list.body.snippets as { id: number; text: string; section: string | null }[];
    // Words found only in a heading ("Biotic") and only in the title ("Honey bee - Wikipedia").
    const biotic = items.filter((i) => i.section === 'Pollination › Biotic pollination');
    expect(biotic.length).toBeGreaterThan(0);
    for (const i of items) expect(i.text.toLowerCase()).not.toMatch(/biotic|wikipedia/);

    const searched = async (query: string) => {
      const r = await s.api('/api/v1/snippets/search', {
        method: 'POST',
        key,
        body: { query, k: 50, mode: 'keyword' },
      });
      expect(r.status, JSON.stringify(r.body)).toBe(200);
      return (r.body.results as { id: number }[]).map((h) => h.id).sort();
    };
    const listed = async (search: string) => {
      const r = await s.api(`/api/v1/snippets?search=${search}&sort_by=relevance&per_page=100`, {
        key,
      });
      expect(r.status, JSON.stringify(r.body)).toBe(200);
      return (r.body.snippets as { id: number }[]).map((h) => h.id).sort();
    };
    const engineAnswers = async () => {
      const h = await s.api('/api/v1/health');
      const k = h.body.components.keyword_index.details;
      return k.state === 'ready' ? (k.answered.engine as number) : -1;
    };
    await until(async () => (await engineAnswers()) >= 0, {
      timeout: 60_000,
      what: 'the keyword engine ready',
    });
    const before = await engineAnswers();
    // A heading word: its section's snippets and no other, from the engine and from FTS5.
    const ids = (xs: { id: number }[]) => xs.map((x) => x.id).sort();
    expect(await searched('biotic')).toEqual(ids(biotic));
    expect(await listed('biotic')).toEqual(ids(biotic));
    // A title word: every snippet of the page, the lead (no section) among them.
    expect(items.some((i) => i.section === null)).toBe(true);
    expect(await searched('wikipedia')).toEqual(ids(items));
    expect(await listed('wikipedia')).toEqual(ids(items));
    expect(await engineAnswers()).toBeGreaterThanOrEqual(before + 2);
  });
});
