import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFixtureSite, type FixtureSite } from './fixtures/fixture-site.js';
import { startServer, type TestServer } from './helpers.js';

let site: FixtureSite;
let s: TestServer | undefined;
beforeAll(async () => {
  site = await startFixtureSite();
});
afterAll(async () => {
  await s?.close();
  await site.close();
});

describe("the overview's source counts", () => {
  it('counts sources with content apart from those whose fetch failed', async () => {
    s = await startServer({ env: { ADAM_FETCH_ALLOW: `127.0.0.1:${site.port}` } });
    const key = await s.login();
    const urls = [
      `${site.url}/articles/honeybees`,
      `${site.url}/articles/lighthouse-lenses`,
      `${site.url}/missing-page`,
      `${site.url}/status/500`,
    ];
    const r = await s.api('/api/v1/sources/process', {
      method: 'POST',
      key,
      body: { urls, language: 'auto' },
    });
    expect(r.status).toBe(200);
    const job = await s.adam.services.jobs.waitForEnd(r.body.job_id, 60_000);
    expect(job.stats.urls_failed).toBe(2);

    const o = (await s.api('/api/v1/analytics/overview', { key })).body;
    expect(o).toMatchObject({ total_sources: 4, sources_with_content: 2, sources_failed: 2 });
  });
});
