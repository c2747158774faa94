import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CrawlSync, Job } from '@adam/contracts';
import { startCrawlSite, type CrawlSite } from './fixtures/crawl-site.js';
import { generatePage } from './fixtures/fixture-pages.js';
import { articleHtml, startFreshnessSite, type FreshnessSite } from './fixtures/freshness-site.js';
import { tempDir, testClock } from './helpers.js';
import { startSyncServer, type EngineCounter } from './sync-setup.js';

/** A test server with an operator key and helpers for crawls and their syncs. */
async function crawlServer(allow: string, opts: Parameters<typeof startSyncServer>[1] = {}) {
  const { s, key, api, counter } = await startSyncServer(allow, opts);
  const put = await api('/admin/settings/crawler', 'PUT', {
    settings: { per_host_concurrency: 4, min_delay_ms: 0 },
  });
  expect(put.status, JSON.stringify(put.body)).toBe(200);
  const crawl = async (body: Record<string, unknown>): Promise<number> => {
    const r = await api('/sources/crawl', 'POST', body);
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    const job = await s.adam.services.jobs.waitForEnd(r.body.job_id, 120_000);
    expect(job.status, JSON.stringify(job.errors)).toBe('completed');
    return r.body.job_id as number;
  };
  const sync = async (crawlId: number): Promise<{ job: Job; last: CrawlSync }> => {
    const r = await api(`/sources/crawl/${crawlId}/sync`, 'POST');
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    const job = await s.adam.services.jobs.waitForEnd(r.body.job_id, 120_000);
    expect(job.status, JSON.stringify(job.errors)).toBe('completed');
    const h = await api(`/sources/crawl/${crawlId}/syncs`);
    expect(h.status).toBe(200);
    return { job, last: h.body.syncs[0] as CrawlSync };
  };
  const source = (url: string) =>
    s.adam.db.prepare('SELECT * FROM sources WHERE url = ?').get(url) as
      { id: number; missing_count: number; segments_count: number } | undefined;
  const snippetIds = (url: string) =>
    s.adam.db
      .prepare('SELECT id FROM snippets WHERE source_url = ? ORDER BY id')
      .pluck()
      .all(url) as number[];
  return { s, key, api, counter, crawl, sync, source, snippetIds };
}

describe('keeping a crawl fresh (crawl fixture)', () => {
  let site: CrawlSite;
  let t: Awaited<ReturnType<typeof crawlServer>>;
  let counter: EngineCounter;

  beforeAll(async () => {
    site = await startCrawlSite({ pages: 3 });
    t = await crawlServer(`127.0.0.1:${site.port},127.0.0.1:${site.other.port}`);
    counter = t.counter;
  });
  afterAll(async () => {
    await t?.s.close();
    await site?.close();
  });

  it('syncs an unchanged crawl cheaply, then embeds only a changed page and prunes a gone one', async () => {
    const crawlId = await t.crawl({
      start_urls: [`${site.url}/`],
      max_depth: 2,
      exclude_patterns: ['/skip/*'],
    });
    const pages = t.s.adam.db
      .prepare("SELECT url FROM crawl_frontier WHERE job_id = ? AND status = 'fetched'")
      .pluck()
      .all(crawlId) as string[];
    expect(pages.length).toBeGreaterThan(8);
    const toggleUrl = `${site.url}/toggle`;
    const goneUrl = `${site.url}/gone`;
    const homeIds = t.snippetIds(`${site.url}/`);

    // Nothing changed: every page unchanged, nothing extracted or embedded.
    counter.reset();
    const progress: { job_id: number; stats: Record<string, unknown> }[] = [];
    const off = t.s.adam.bus.on('job_progress', (e) => progress.push(e));
    const first = await t.sync(crawlId);
    off();
    expect(first.last).toMatchObject({
      outcome: 'completed',
      pages_unchanged: pages.length,
      pages_changed: 0,
      pages_added: 0,
      pages_removed: 0,
      pages_failed: 0,
      reembedded: 0,
    });
    expect(counter.c).toEqual({ extract: 0, analyze: 0, embedded: 0 });
    // The server's clock stands still: the running figures are written once (its first page),
    // then at the last result and at the end, exact (not once per page).
    const written = progress.filter((e) => e.job_id === first.job.id);
    expect(written.length).toBeLessThanOrEqual(5);
    expect(written.at(-1)!.stats).toMatchObject({ urls_done: pages.length });
    expect(first.job.stats).toMatchObject({ urls_done: pages.length });
    const feed = t.s.adam.db
      .prepare("SELECT message FROM activity WHERE kind = 'sync' ORDER BY id DESC LIMIT 1")
      .pluck()
      .get() as string;
    expect(feed).toContain(
      `Sync of crawl ${crawlId}: pages 0 added, 0 changed, ${pages.length} unchanged`,
    );

    // /toggle changed, /gone answers 410: only /toggle's new segments are embedded.
    await site.toggle();
    const toggleBefore = t.snippetIds(toggleUrl);
    counter.reset();
    const second = await t.sync(crawlId);
    expect(second.last).toMatchObject({
      pages_changed: 1,
      pages_unchanged: pages.length - 2,
      pages_removed: 0,
    });
    expect(counter.c.extract).toBe(1);
    expect(counter.c.embedded).toBeGreaterThan(0);
    expect(second.last.reembedded).toBe(counter.c.embedded);
    expect(second.last.segments_added).toBe(counter.c.embedded);
    expect(t.snippetIds(toggleUrl)).not.toEqual(toggleBefore);
    expect(t.snippetIds(`${site.url}/`)).toEqual(homeIds);
    // Missing once: kept (the threshold is 2).
    expect(t.source(goneUrl)).toMatchObject({ missing_count: 1 });
    expect(t.snippetIds(goneUrl).length).toBeGreaterThan(0);

    // Missing twice in a row: pruned, with its snippets.
    counter.reset();
    const third = await t.sync(crawlId);
    expect(third.last).toMatchObject({ pages_removed: 1, pages_changed: 0 });
    expect(counter.c.embedded).toBe(0);
    expect(t.source(goneUrl)).toBeUndefined();
    expect(t.snippetIds(goneUrl)).toEqual([]);
    const history = (await t.api(`/sources/crawl/${crawlId}/syncs`)).body.syncs as CrawlSync[];
    expect(history.map((h) => h.outcome)).toEqual(['completed', 'completed', 'completed']);
  });

  it('answers 409 to a second Sync now, 404 for a job that is not a crawl', async () => {
    const crawlId = t.s.adam.db
      .prepare("SELECT id FROM jobs WHERE type = 'crawl_site' ORDER BY id LIMIT 1")
      .pluck()
      .get() as number;
    const a = await t.api(`/sources/crawl/${crawlId}/sync`, 'POST');
    expect(a.status).toBe(200);
    const b = await t.api(`/sources/crawl/${crawlId}/sync`, 'POST');
    expect(b.status).toBe(409);
    expect(b.body.detail).toContain('already being synced');
    // The scheduler leaves a held crawl out.
    expect(t.s.adam.services.crawlSyncs.queueSync([crawlId], 'schedule')).toBeNull();
    await t.s.adam.services.jobs.waitForEnd(a.body.job_id, 120_000);
    const notCrawl = a.body.job_id as number;
    expect((await t.api(`/sources/crawl/${notCrawl}/sync`, 'POST')).status).toBe(404);
    expect(
      (await t.api('/sources/crawl/999999/schedule', 'PUT', { schedule: 'daily' })).status,
    ).toBe(404);
  });
});

/** Paragraphs no other page of these tests has. */
const own = (n: number) =>
  [0, 1].flatMap((k) => generatePage(n * 2 + k).body.filter((p) => !p.startsWith('## ')));

function sitemap(base: string, paths: string[]): string {
  return `<?xml version="1.0" encoding="UTF-8"?>
<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">
${paths.map((p) => `  <url><loc>${base}${p}</loc></url>`).join('\n')}
</urlset>`;
}

describe('keeping a crawl fresh (sitemap site with validators)', () => {
  let site: FreshnessSite;
  let t: Awaited<ReturnType<typeof crawlServer>>;
  let counter: EngineCounter;

  beforeAll(async () => {
    site = await startFreshnessSite();
    t = await crawlServer(`127.0.0.1:${site.port}`);
    counter = t.counter;
  });
  afterAll(async () => {
    await t?.s.close();
    await site?.close();
  });

  it('answers 304s for known pages, adds a page new to the sitemap, prunes one that left it', async () => {
    site.set('/', { html: articleHtml('Home', own(40)), etag: true });
    site.set('/a', { html: articleHtml('Page A', own(41)), etag: true });
    site.set('/b', { html: articleHtml('Page B', own(42)), etag: true });
    site.set('/sitemap.xml', { html: sitemap(site.url, ['/a', '/b']) });
    const crawlId = await t.crawl({ start_urls: [`${site.url}/`], max_depth: 1 });
    expect(t.source(`${site.url}/a`)).toBeDefined();
    expect(t.source(`${site.url}/b`)).toBeDefined();

    // Validators stored by the crawl: every known page is a 304.
    counter.reset();
    const first = await t.sync(crawlId);
    expect(first.last).toMatchObject({ pages_unchanged: 3, pages_added: 0, reembedded: 0 });
    for (const p of ['/', '/a', '/b']) expect(site.notModified(p), p).toBe(1);
    expect(counter.c).toEqual({ extract: 0, analyze: 0, embedded: 0 });

    // /a gains a paragraph, /c joins the sitemap, /b leaves it.
    const aBefore = t.snippetIds(`${site.url}/a`);
    site.set('/a', {
      html: articleHtml('Page A', [...own(41), ...own(44).slice(0, 1)]),
      etag: true,
    });
    site.set('/c', { html: articleHtml('Page C', own(43)), etag: true });
    site.set('/sitemap.xml', { html: sitemap(site.url, ['/a', '/c']) });
    const bRequests = site.requests('/b').length;
    counter.reset();
    const second = await t.sync(crawlId);
    expect(second.last).toMatchObject({
      pages_added: 1,
      pages_changed: 1,
      pages_unchanged: 1,
      pages_removed: 0,
    });
    expect(second.last.reembedded).toBe(counter.c.embedded);
    // /a: its unchanged segments kept (same ids, not embedded again), only its new ones embedded.
    const cSegments = t.snippetIds(`${site.url}/c`).length;
    const aAfter = t.snippetIds(`${site.url}/a`);
    const aKept = aAfter.filter((id) => aBefore.includes(id)).length;
    expect(aKept).toBeGreaterThan(0);
    expect(counter.c.embedded).toBe(cSegments + aAfter.length - aKept);
    expect(t.snippetIds(`${site.url}/c`).length).toBeGreaterThan(0);
    // Left the sitemap: counted missing without a request.
    expect(site.requests('/b').length).toBe(bRequests);
    expect(t.source(`${site.url}/b`)).toMatchObject({ missing_count: 1 });

    const third = await t.sync(crawlId);
    expect(third.last).toMatchObject({ pages_removed: 1, pages_unchanged: 3, pages_added: 0 });
    expect(site.requests('/b').length).toBe(bRequests);
    expect(t.source(`${site.url}/b`)).toBeUndefined();
  });

  it('never counts a page missing when a sitemap cannot be read', async () => {
    site.set('/', { html: articleHtml('Home 2', own(50)), etag: true });
    site.set('/x', { html: articleHtml('Page X', own(51)), etag: true });
    site.set('/robots.txt', { html: `User-agent: *\nAllow: /\nSitemap: ${site.url}/more.xml\n` });
    site.set('/more.xml', { html: sitemap(site.url, ['/x']) });
    site.set('/sitemap.xml', { html: sitemap(site.url, ['/x']) });
    // A second crawl of another start (the same host): its own pages.
    const crawlId = await t.crawl({ start_urls: [`${site.url}/?second`], max_depth: 0 });
    await t.sync(crawlId); // learns /x is listed
    // One sitemap no longer lists /x, the other cannot be read: the listing is incomplete.
    site.set('/sitemap.xml', { html: sitemap(site.url, []) });
    site.set('/more.xml', { html: '', status: 503 });
    const r = await t.sync(crawlId);
    expect(r.last.pages_removed).toBe(0);
    expect(t.source(`${site.url}/x`)).toMatchObject({ missing_count: 0 });
  });
});

describe('crawl schedules across a restart', () => {
  it('runs a crawl sync missed while the server was down once at start', async () => {
    const site = await startFreshnessSite();
    site.set('/', { html: articleHtml('Scheduled', own(60)), etag: true });
    const dataDir = tempDir();
    const clock = testClock(Date.UTC(2026, 10, 26, 9, 0, 0));
    let t = await crawlServer(`127.0.0.1:${site.port}`, { dataDir, clock });
    try {
      const crawlId = await t.crawl({ start_urls: [`${site.url}/`], max_depth: 0 });
      const put = await t.api(`/sources/crawl/${crawlId}/schedule`, 'PUT', { schedule: 'hourly' });
      expect(put.status, JSON.stringify(put.body)).toBe(200);
      expect(put.body).toMatchObject({ schedule: 'hourly', pages: 1 });
      expect(put.body.next_sync_at).toBe(new Date(clock.now() + 3_600_000).toISOString());
      const bad = await t.api(`/sources/crawl/${crawlId}/schedule`, 'PUT', { schedule: '* * *' });
      expect(bad.status).toBe(422);
      expect(t.s.adam.services.syncScheduler.tick()).toEqual([]);
      await t.s.close();

      clock.advance(5.5 * 3_600_000);
      t = await crawlServer(`127.0.0.1:${site.port}`, { dataDir, clock });
      const jobs = () =>
        t.s.adam.db
          .prepare("SELECT id FROM jobs WHERE type = 'sync_crawl'")
          .pluck()
          .all() as number[];
      expect(jobs().length).toBe(1);
      const job = await t.s.adam.services.jobs.waitForEnd(jobs()[0]!, 60_000);
      expect(job.status).toBe('completed');
      expect(t.s.adam.services.syncScheduler.tick()).toEqual([]);
      const h = await t.api(`/sources/crawl/${crawlId}/syncs`);
      expect(h.body.syncs).toHaveLength(1);
      expect(h.body.syncs[0]).toMatchObject({ outcome: 'completed', pages_unchanged: 1 });
      expect(site.notModified('/')).toBe(1);
    } finally {
      await t.s.close();
      await site.close();
    }
    // Two servers started and stopped in turn: on a loaded 2-core machine near the default 30 s.
  }, 120_000);
});
