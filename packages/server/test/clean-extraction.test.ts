import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mediaWikiPage, tokenShares } from './fixtures/boilerplate-pages.js';
import { startServer, type TestServer } from './helpers.js';

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
});
