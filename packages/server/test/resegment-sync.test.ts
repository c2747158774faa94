import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CrawlSync } from '@adam/contracts';
import { textHash } from '../src/pipeline/segment-key.js';
import { SEGMENTATION_VERSION } from '../src/pipeline/segmentation-version.js';
import { startCrawlSite, type CrawlSite } from './fixtures/crawl-site.js';
import { generatePage } from './fixtures/fixture-pages.js';
import { articleHtml, type FreshnessSite } from './fixtures/freshness-site.js';
import type { TestServer } from './helpers.js';
import { startFreshnessSetup, startSyncServer, type EngineCounter } from './sync-setup.js';
import { until } from './until.js';

/**
 * Existing stores migrate to whole-sentence snippets by re-segmenting, not silently: a source
 * whose snippets were cut by an older segmentation is fetched without validators at its next
 * sync and re-cut even though its page is unchanged, the sync counts it (pages_resegmented) and
 * logs it; the sync after that is a plain conditional request again.
 */
const own = (n: number) =>
  [0, 1, 2].flatMap((k) => generatePage(n * 3 + k).body.filter((p) => !p.startsWith('## ')));

describe('re-segmenting on sync', () => {
  let setup: Awaited<ReturnType<typeof startFreshnessSetup>>;
  let site: FreshnessSite;
  let s: TestServer;
  let counter: EngineCounter;

  const api = (p: string, method = 'GET', body?: unknown) => setup.api(p, method, body);
  const snippetsOf = (url: string) => setup.snippetsOf(url);
  const segmentationOf = (id: number) =>
    s.adam.db.prepare('SELECT segmentation FROM sources WHERE id = ?').pluck().get(id) as number;

  const ingest = (path: string) => setup.ingest(path);
  const sync = (id: number) => setup.sync(id);

  beforeAll(async () => {
    setup = await startFreshnessSetup();
    ({ site, s, counter } = setup);
  });
  afterAll(async () => {
    await setup?.close();
  });

  it('re-cuts an unchanged page whose snippets are of an older segmentation, once, and says so', async () => {
    site.set('/recut', { html: articleHtml('Recut page', own(41)), etag: true });
    const id = await ingest('/recut');
    const url = `${site.url}/recut`;
    // A new source is cut by the running segmentation.
    expect(segmentationOf(id)).toBe(SEGMENTATION_VERSION);
    counter.reset();
    expect((await sync(id)).last).toMatchObject({ outcome: 'unchanged', pages_resegmented: 0 });
    expect(counter.c.analyze).toBe(0);

    // A store from before: the old marker, and one snippet as the old overlap cut it (opening
    // mid-sentence with the tail of the text before it).
    const before = snippetsOf(url);
    expect(before.length).toBeGreaterThan(1);
    const old = before[1]!;
    const fragment = `puzzle known as the hard problem of ${old.text}`;
    s.adam.db
      .prepare('UPDATE snippets SET text = ?, text_hash = ? WHERE id = ?')
      .run(fragment, textHash(fragment), old.id);
    s.adam.db.prepare('UPDATE sources SET segmentation = 1 WHERE id = ?').run(id);

    counter.reset();
    const notModified = site.notModified('/recut');
    const recut = await sync(id);
    expect(recut.job.status).toBe('completed');
    // Fetched without validators (no 304), analysed, and only the re-cut snippet embedded.
    expect(site.requests('/recut').at(-1)!['if-none-match']).toBeUndefined();
    expect(site.notModified('/recut')).toBe(notModified);
    expect(counter.c.analyze).toBe(1);
    expect(counter.c.embedded).toBe(1);
    expect(recut.last).toMatchObject({
      outcome: 'changed',
      pages_resegmented: 1,
      pages_changed: 0,
      pages_unchanged: 0,
      segments_added: 1,
      segments_removed: 1,
      segments_kept: before.length - 1,
    });
    expect(recut.job.metadata.result).toMatchObject({ pages_resegmented: 1 });
    const after = snippetsOf(url);
    expect(after.map((x) => x.text).sort()).toEqual(before.map((x) => x.text).sort());
    expect(after.some((x) => x.text === fragment)).toBe(false);
    // Unchanged snippets keep their ids (and vectors).
    const kept = before.filter((x) => x.id !== old.id).map((x) => x.id);
    expect(after.map((x) => x.id)).toEqual(expect.arrayContaining(kept));
    expect(segmentationOf(id)).toBe(SEGMENTATION_VERSION);
    const q = encodeURIComponent(`Source ${id} re-segmented`);
    // The log store writes its lines in batches: awaited, not assumed.
    await until(
      async () =>
        JSON.stringify((await api(`/admin/logs?range=7d&q=${q}`)).body).includes('re-segmented'),
      { what: 'the re-segmentation log line' },
    );

    // Done once: the next sync is a conditional request that changes nothing.
    counter.reset();
    const again = await sync(id);
    expect(again.last).toMatchObject({ outcome: 'unchanged', pages_resegmented: 0 });
    expect(again.job.metadata.result).toMatchObject({ pages_resegmented: 0 });
    expect(site.requests('/recut').at(-1)!['if-none-match']).toMatch(/^"/);
    expect(counter.c).toEqual({ extract: 0, analyze: 0, embedded: 0 });
  });
});

describe('re-segmenting on a crawl sync', () => {
  let site: CrawlSite;
  let t: Awaited<ReturnType<typeof startSyncServer>>;

  beforeAll(async () => {
    site = await startCrawlSite({ pages: 3 });
    t = await startSyncServer(`127.0.0.1:${site.port},127.0.0.1:${site.other.port}`);
    const put = await t.api('/admin/settings/crawler', 'PUT', {
      settings: { per_host_concurrency: 4, min_delay_ms: 0 },
    });
    expect(put.status, JSON.stringify(put.body)).toBe(200);
  });
  afterAll(async () => {
    await t?.s.close();
    await site?.close();
  });

  async function sync(crawlId: number): Promise<CrawlSync> {
    const r = await t.api(`/sources/crawl/${crawlId}/sync`, 'POST');
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    const job = await t.s.adam.services.jobs.waitForEnd(r.body.job_id, 120_000);
    expect(job.status, JSON.stringify(job.errors)).toBe('completed');
    return (await t.api(`/sources/crawl/${crawlId}/syncs`)).body.syncs[0] as CrawlSync;
  }

  it('re-cuts the crawl pages of an older segmentation and counts them in its summary', async () => {
    const r = await t.api('/sources/crawl', 'POST', {
      start_urls: [`${site.url}/`],
      max_depth: 2,
      exclude_patterns: ['/skip/*'],
    });
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    const crawlId = r.body.job_id as number;
    expect((await t.s.adam.services.jobs.waitForEnd(crawlId, 120_000)).status).toBe('completed');
    const first = await sync(crawlId);
    const pages = first.pages_unchanged;
    expect(pages).toBeGreaterThan(3);
    expect(first.pages_resegmented).toBe(0);

    const old = t.s.adam.db
      .prepare(
        `SELECT s.id FROM crawl_pages p JOIN sources s ON s.id = p.source_id
           WHERE p.crawl_id = ? ORDER BY s.id LIMIT 2`,
      )
      .pluck()
      .all(crawlId) as number[];
    expect(old).toHaveLength(2);
    const mark = t.s.adam.db.prepare('UPDATE sources SET segmentation = 1 WHERE id = ?');
    for (const id of old) mark.run(id);

    t.counter.reset();
    const recut = await sync(crawlId);
    // (Re-read pages give their links again: a link the crawl found failing may count as failed.)
    expect(recut).toMatchObject({
      pages_resegmented: 2,
      pages_unchanged: pages - 2,
      pages_changed: 0,
      segments_kept: first.segments_kept,
      segments_added: 0,
      reembedded: 0,
    });
    // Same text, same cut now: analysed again, nothing new to embed.
    expect(t.counter.c.analyze).toBe(2);
    const feed = t.s.adam.db
      .prepare("SELECT message FROM activity WHERE kind = 'sync' ORDER BY id DESC LIMIT 1")
      .pluck()
      .get() as string;
    expect(feed).toContain('2 re-segmented');
    const marks = t.s.adam.db.prepare('SELECT segmentation FROM sources WHERE id = ?').pluck();
    for (const id of old) expect(marks.get(id)).toBe(SEGMENTATION_VERSION);

    t.counter.reset();
    const again = await sync(crawlId);
    expect(again).toMatchObject({ pages_resegmented: 0, pages_unchanged: pages });
    expect(t.counter.c.analyze).toBe(0);
  });
});
