import path from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CrawlProgress, FrontierEntry, Job } from '@adam/contracts';
import { hits, minGapMs, startCrawlSite, type CrawlSite } from './fixtures/crawl-site.js';
import { startServer, tempDir, type TestServer } from './helpers.js';
import { HAS_REDIS, REDIS_SKIP_REASON, startRedis } from './redis-helpers.js';
import { until } from './until.js';

const UA = 'AdamTestBot/1.0 (+crawl tests)';
/** The fixture's Crawl-delay (s), above the min_delay_ms setting: the longer one must win. */
const CRAWL_DELAY_S = 0.2;
/**
 * The crawler spaces the moments its requests go out; the fixture (on a thread of its own) sees
 * them arrive. A request released on time can still be held by the crawling process's busy
 * event loop (or a new connection) before it reaches the wire, which shortens the gap after it.
 * Ignoring the delay would give gaps of the 20 ms setting.
 */
const ARRIVAL_JITTER_MS = 50;

const allow = (site: CrawlSite) => `127.0.0.1:${site.port},127.0.0.1:${site.other.port}`;

async function setCrawler(s: TestServer, key: string, settings: Record<string, unknown>) {
  const r = await s.api('/api/v1/admin/settings/crawler', {
    method: 'PUT',
    key,
    body: { settings: { user_agent: UA, ...settings } },
  });
  expect(r.status, JSON.stringify(r.body)).toBe(200);
}

async function startCrawl(s: TestServer, key: string, body: Record<string, unknown>) {
  const r = await s.api('/api/v1/sources/crawl', { method: 'POST', key, body });
  expect(r.status, JSON.stringify(r.body)).toBe(200);
  return r.body.job_id as number;
}

async function frontier(
  s: TestServer,
  key: string,
  jobId: number,
  query = '',
): Promise<FrontierEntry[]> {
  const r = await s.api(`/api/v1/sources/crawl/${jobId}/frontier?per_page=500${query}`, { key });
  expect(r.status, JSON.stringify(r.body)).toBe(200);
  return r.body.entries as FrontierEntry[];
}

const crawlOf = (job: Job) => job.stats.crawl as CrawlProgress;
const byUrl = (entries: FrontierEntry[], base: string) =>
  Object.fromEntries(entries.map((e) => [e.url.slice(base.length), e]));

/** The main crawl's body: the whole fixture site, robots, sitemaps, patterns. */
const mainCrawl = (site: CrawlSite) => ({
  start_urls: [`${site.url}/`],
  scope: 'host',
  max_depth: 3,
  max_pages: 200,
  exclude_patterns: ['/skip/*'],
});

/** What a crawl of the fixture must have found, whichever queue ran it. */
function expectMainCrawl(entries: FrontierEntry[], site: CrawlSite, job: Job) {
  const at = byUrl(entries, site.url);
  const status = (p: string) => [at[p]?.status, at[p]?.reason];
  expect(job.status, JSON.stringify(job.errors)).toBe('completed');
  // robots.txt, scope, patterns
  expect(status('/private/secret')).toEqual(['skipped', 'robots']);
  expect(at['/skip/me']).toMatchObject({ status: 'skipped', reason: 'pattern' });
  const otherHost = entries.find((e) => e.url === `${site.other.url}/`);
  expect(otherHost).toMatchObject({ status: 'skipped', reason: 'scope' });
  // sitemaps (index, plain, gzip) seed pages no link leads to
  expect(status('/sm/plain')).toEqual(['fetched', null]);
  expect(status('/sm/gzip')).toEqual(['fetched', null]);
  // redirects and canonical links: the target is crawled, the alias skipped as a duplicate
  expect(at['/redirect/a']).toMatchObject({ status: 'skipped', reason: 'duplicate' });
  expect(at['/redirect/a']!.detail).toContain(`${site.url}/landing`);
  expect(status('/landing')).toEqual(['fetched', null]);
  expect(at['/canon-alt']).toMatchObject({ status: 'skipped', reason: 'duplicate' });
  expect(status('/canon')).toEqual(['fetched', null]);
  // the same content under two URLs is kept once
  expect([at['/dup-a']?.status, at['/dup-b']?.status].sort()).toEqual(['fetched', 'skipped']);
  // normalisation: no fragment, no tracking parameter
  expect(at['/toggle']?.status).toBe('fetched');
  expect(entries.some((e) => e.url.includes('utm_') || e.url.includes('#'))).toBe(false);
  // robots meta: noindex not stored but followed, nofollow stored but not followed
  expect(status('/noindex')).toEqual(['skipped', 'noindex']);
  expect(status('/from-noindex')).toEqual(['fetched', null]);
  expect(status('/nofollow')).toEqual(['fetched', null]);
  expect(at['/behind-nofollow']).toBeUndefined();
  // a redirect to a private address is refused by the fetcher
  expect(at['/to-private']).toMatchObject({ status: 'failed', reason: 'error' });
  expect(at['/to-private']!.detail).toContain('169.254.169.254');
  // depth: home 0, /page/0 1, its children 2, theirs 3; depth 4 is not followed
  expect(status('/page/6')).toEqual(['fetched', null]);
  expect(at['/page/6']!.depth).toBe(3);
  expect(at['/page/7']).toBeUndefined();

  const crawl = crawlOf(job);
  expect(crawl.discovered).toBe(entries.length);
  expect(crawl.queued).toBe(0);
  expect(crawl.depth).toBe(3);
  const count = (f: (e: FrontierEntry) => boolean) => entries.filter(f).length;
  expect(crawl.stored).toBe(count((e) => e.status === 'fetched'));
  for (const reason of ['robots', 'scope', 'pattern', 'duplicate', 'noindex', 'error'] as const) {
    expect(crawl.skipped[reason], reason).toBe(count((e) => e.reason === reason));
    expect(crawl.skipped[reason], reason).toBeGreaterThan(0);
  }
}

describe('crawl a site (embedded queue)', () => {
  let site: CrawlSite;
  let s: TestServer;
  let key: string;

  beforeAll(async () => {
    site = await startCrawlSite({ crawlDelayS: CRAWL_DELAY_S, latencyMs: 5 });
    s = await startServer({ env: { ADAM_FETCH_ALLOW: allow(site) } });
    key = await s.login();
  });
  afterAll(async () => {
    await s?.close();
    await site?.close();
  });

  it('crawls through robots.txt, sitemaps, redirects, canonicals and duplicates, politely', async () => {
    await setCrawler(s, key, { min_delay_ms: 20, per_host_concurrency: 2 });
    const jobId = await startCrawl(s, key, mainCrawl(site));
    const job = await s.adam.services.jobs.waitForEnd(jobId, 90_000);
    const entries = await frontier(s, key, jobId);
    expectMainCrawl(entries, site, job);

    // robots.txt once per host, our user agent on every request
    const log = (await site.log()).main;
    expect(hits(log, '/robots.txt')).toBe(1);
    expect(new Set(log.requests.map((r) => r.userAgent))).toEqual(new Set([UA]));
    // Crawl-delay (200 ms) over the setting (20 ms): the fixture saw no two requests closer
    expect(minGapMs(log)).toBeGreaterThanOrEqual(CRAWL_DELAY_S * 1000 - ARRIVAL_JITTER_MS);
    // every page once: recorded pages are never fetched twice
    for (const e of entries.filter((x) => x.status === 'fetched' && x.url.startsWith(site.url)))
      expect(hits(log, e.url.slice(site.url.length)), e.url).toBe(1);

    // stored as 'web' sources, with snippets
    const sources = await s.api(
      `/api/v1/sources/list?per_page=100&search=${encodeURIComponent('/page/0')}`,
      { key },
    );
    expect(sources.body.sources).toEqual([
      expect.objectContaining({ url: `${site.url}/page/0`, kind: 'web', last_status: 'ok' }),
    ]);
    expect(job.stats.segments_created).toBeGreaterThan(0);

    // the frontier lists filter by status and reason
    const robots = await frontier(s, key, jobId, '&status=skipped&reason=robots');
    expect(robots.map((e) => e.url)).toEqual([`${site.url}/private/secret`]);
    const failed = await frontier(s, key, jobId, '&status=failed');
    expect(failed.every((e) => e.status === 'failed')).toBe(true);
  }, 120_000);

  it('stops at max_pages, leaving the rest queued', async () => {
    await setCrawler(s, key, { min_delay_ms: 0 });
    const jobId = await startCrawl(s, key, {
      start_urls: [`${site.url}/page/0`],
      max_pages: 3,
      max_depth: 10,
      use_sitemaps: false,
    });
    const job = await s.adam.services.jobs.waitForEnd(jobId, 60_000);
    expect(job.status).toBe('completed');
    const crawl = crawlOf(job);
    expect(crawl.fetched).toBe(3);
    expect(crawl.queued).toBeGreaterThan(0);
    expect((await frontier(s, key, jobId, '&status=pending')).length).toBe(crawl.queued);
  });

  it('refuses bad requests with a clear detail', async () => {
    const bad = async (body: unknown, status: number, detail: string) => {
      const r = await s.api('/api/v1/sources/crawl', { method: 'POST', key, body });
      expect(r.status, JSON.stringify(r.body)).toBe(status);
      expect(r.body.detail).toContain(detail);
    };
    await bad({ start_urls: [] }, 422, 'at least one start URL');
    await bad({ start_urls: ['ftp://example.com/'] }, 422, 'not a valid http(s) URL');
    await bad({ start_urls: ['https://u:p@example.com/'] }, 422, 'user name or password');
    await bad({ start_urls: ['https://example.com/'], max_depth: 21 }, 422, 'at most 20');
    await bad({ start_urls: ['https://example.com/'], max_pages: 0 }, 422, 'at least 1');
    await bad({ start_urls: ['https://example.com/'], include_patterns: ['/a b'] }, 422, 'space');
    const missing = await s.api('/api/v1/sources/crawl/999999/frontier', { key });
    expect(missing.status).toBe(404);
  });
});

describe('crawl politeness and lifecycle', () => {
  it('holds per-host concurrency to the setting while requests overlap', async () => {
    const site = await startCrawlSite({ pages: 40, latencyMs: 60 });
    const s = await startServer({ env: { ADAM_FETCH_ALLOW: allow(site) } });
    try {
      const key = await s.login();
      await setCrawler(s, key, { min_delay_ms: 5, per_host_concurrency: 2 });
      const jobId = await startCrawl(s, key, {
        start_urls: [`${site.url}/page/0`],
        max_depth: 10,
        use_sitemaps: false,
      });
      const job = await s.adam.services.jobs.waitForEnd(jobId, 60_000);
      expect(job.status).toBe('completed');
      expect(crawlOf(job).stored).toBe(40);
      // Overlapping (60 ms answers, 5 ms apart), yet never more than two at once.
      expect((await site.log()).main.maxInFlight).toBe(2);
    } finally {
      await s.close();
      await site.close();
    }
  });

  it('backs off a host that answers 429, for its Retry-After', async () => {
    const site = await startCrawlSite({ retryAfterS: 1 });
    const s = await startServer({ env: { ADAM_FETCH_ALLOW: allow(site) } });
    try {
      const key = await s.login();
      await setCrawler(s, key, { min_delay_ms: 0 });
      const jobId = await startCrawl(s, key, {
        start_urls: [`${site.other.url}/`],
        use_sitemaps: false,
      });
      const job = await s.adam.services.jobs.waitForEnd(jobId, 60_000);
      expect(job.status).toBe('completed');
      expect(crawlOf(job).stored).toBe(1);
      const home = (await site.log()).other.requests.filter((r) => r.path === '/');
      expect(home).toHaveLength(2);
      expect(home[1]!.start - home[0]!.start).toBeGreaterThanOrEqual(1000 - ARRIVAL_JITTER_MS);
    } finally {
      await s.close();
      await site.close();
    }
  });

  it('stops a cancelled crawl, keeping the rest of its frontier pending', async () => {
    const site = await startCrawlSite({ pages: 200 });
    const s = await startServer({ env: { ADAM_FETCH_ALLOW: allow(site) } });
    try {
      const key = await s.login();
      await setCrawler(s, key, { min_delay_ms: 100 });
      const jobId = await startCrawl(s, key, {
        start_urls: [`${site.url}/page/0`],
        max_depth: 20,
        use_sitemaps: false,
      });
      await until(() => (crawlOf(s.adam.services.jobs.get(jobId))?.fetched ?? 0) >= 3, {
        what: 'three pages fetched',
      });
      const r = await s.api(`/api/v1/sources/jobs/${jobId}/cancel`, { method: 'POST', key });
      expect(r.status).toBe(200);
      const job = await s.adam.services.jobs.waitForEnd(jobId, 30_000);
      expect(job.status).toBe('cancelled');
      const pending = await frontier(s, key, jobId, '&status=pending');
      expect(pending.length).toBeGreaterThan(0);
      expect(crawlOf(s.adam.services.jobs.get(jobId)).fetched).toBeLessThan(20);
    } finally {
      await s.close();
      await site.close();
    }
  });

  it('resumes after a server restart without fetching a recorded page again', async () => {
    const site = await startCrawlSite({ pages: 40 });
    const dataDir = tempDir();
    const env = { ADAM_FETCH_ALLOW: allow(site) };
    let s = await startServer({ env, dataDir });
    let jobId = 0;
    try {
      const key = await s.login();
      await setCrawler(s, key, { min_delay_ms: 50, per_host_concurrency: 1 });
      jobId = await startCrawl(s, key, {
        start_urls: [`${site.url}/page/0`],
        max_depth: 10,
        use_sitemaps: false,
      });
      await until(() => (crawlOf(s.adam.services.jobs.get(jobId))?.stored ?? 0) >= 5, {
        what: 'five pages stored',
      });
    } finally {
      await s.close();
    }
    // What the first server recorded as fetched before it stopped.
    const db = new Database(path.join(dataDir, 'adam.db'), { readonly: true });
    const recorded = (
      db
        .prepare('SELECT url FROM crawl_frontier WHERE job_id = ? AND fetched_at IS NOT NULL')
        .all(jobId) as { url: string }[]
    ).map((r) => r.url);
    db.close();
    expect(recorded.length).toBeGreaterThanOrEqual(5);
    expect(recorded.length).toBeLessThan(40);

    s = await startServer({ env, dataDir });
    try {
      const job = await s.adam.services.jobs.waitForEnd(jobId, 60_000);
      expect(job.status, JSON.stringify(job.errors)).toBe('completed');
      expect(crawlOf(job).stored).toBe(40);
      const log = (await site.log()).main;
      for (const url of recorded) expect(hits(log, url.slice(site.url.length)), url).toBe(1);
      // robots.txt is read once per run of the crawl
      expect(hits(log, '/robots.txt')).toBe(2);
    } finally {
      await s.close();
      await site.close();
    }
  }, 120_000);
});

describe.skipIf(!HAS_REDIS)(
  `crawl a site in the Redis mode${HAS_REDIS ? '' : ` (skipped: ${REDIS_SKIP_REASON})`}`,
  () => {
    it('crawls the same frontier through an adam worker', async () => {
      const site = await startCrawlSite({ crawlDelayS: CRAWL_DELAY_S, latencyMs: 5 });
      const redis = await startRedis();
      const s = await startServer({
        env: { REDIS_URL: redis.url, ADAM_WORKERS: '1', ADAM_FETCH_ALLOW: allow(site) },
      });
      try {
        await s.adam.queueStarted;
        const key = await s.login();
        await setCrawler(s, key, { min_delay_ms: 20, per_host_concurrency: 2 });
        const jobId = await startCrawl(s, key, mainCrawl(site));
        const job = await s.adam.services.jobs.waitForEnd(jobId, 90_000);
        expectMainCrawl(await frontier(s, key, jobId), site, job);
        const log = (await site.log()).main;
        expect(hits(log, '/robots.txt')).toBe(1);
        expect(minGapMs(log)).toBeGreaterThanOrEqual(CRAWL_DELAY_S * 1000 - ARRIVAL_JITTER_MS);
      } finally {
        await s.close();
        await redis.stop();
        await site.close();
      }
    }, 120_000);
  },
);
