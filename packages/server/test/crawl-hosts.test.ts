import { describe, expect, it } from 'vitest';
import type { CrawlProgress } from '@adam/contracts';
import { minGapMs, startCrawlSite, type CrawlSite, type SiteLog } from './fixtures/crawl-site.js';
import { startServer } from './helpers.js';

const HOSTS = 3;
const PAGES = 8;
const DELAY_MS = 100;
/** See crawl.test.ts: a busy event loop can hold one request back and shorten the gap after it. */
const ARRIVAL_JITTER_MS = 50;

/**
 * A host's requests for the pages its sitemaps list (/page/N, /sm/...), their starts on a clock all
 * sites share. The start URLs come first in the frontier, one per host: they prove nothing.
 */
function pageStarts(log: SiteLog): number[] {
  return log.main.requests
    .filter((r) => r.path.startsWith('/page/') || r.path.startsWith('/sm/'))
    .map((r) => log.timeOrigin + r.start)
    .sort((a, b) => a - b);
}

/** A host's sitemap requests, as [start, end] on the shared clock. */
function sitemapRequests(log: SiteLog): [number, number][] {
  return log.main.requests
    .filter((r) => r.path.startsWith('/sitemap'))
    .map((r) => [log.timeOrigin + r.start, log.timeOrigin + r.end]);
}

describe('a crawl over several hosts', () => {
  it('fetches the hosts side by side, each at its own polite pace', async () => {
    const sites: CrawlSite[] = [];
    for (let i = 0; i < HOSTS; i++)
      sites.push(
        await startCrawlSite({
          pages: PAGES,
          pagesInSitemaps: true,
          latencyMs: 100,
          contentOffset: i * 100_000,
        }),
      );
    const allow = sites.map((site) => `127.0.0.1:${site.port}`).join(',');
    const s = await startServer({ env: { ADAM_FETCH_ALLOW: allow } });
    try {
      const key = await s.login();
      // More lanes than one host's slots: on a level grouped by host, they would all queue there.
      let r = await s.api('/api/v1/admin/settings/processing', {
        method: 'PUT',
        key,
        body: { settings: { max_concurrent_scrapes: 4 } },
      });
      expect(r.status, JSON.stringify(r.body)).toBe(200);
      r = await s.api('/api/v1/admin/settings/crawler', {
        method: 'PUT',
        key,
        body: { settings: { min_delay_ms: DELAY_MS, per_host_concurrency: 2 } },
      });
      expect(r.status, JSON.stringify(r.body)).toBe(200);
      // Sitemaps put every page at depth 0: one level, its URLs grouped by host.
      r = await s.api('/api/v1/sources/crawl', {
        method: 'POST',
        key,
        body: {
          start_urls: sites.map((site) => `${site.url}/`),
          scope: 'host',
          max_depth: 0,
          max_pages: 200,
          use_sitemaps: true,
        },
      });
      expect(r.status, JSON.stringify(r.body)).toBe(200);
      const job = await s.adam.services.jobs.waitForEnd(r.body.job_id as number, 60_000);
      expect(job.status, JSON.stringify(job.errors)).toBe('completed');
      // Each site: its root, /page/0..7, /sm/plain and /sm/gzip.
      expect((job.stats.crawl as CrawlProgress).stored).toBe(HOSTS * (PAGES + 3));

      const logs = await Promise.all(sites.map((site) => site.log()));
      const starts = logs.map(pageStarts);
      for (const list of starts) expect(list).toHaveLength(PAGES + 2);
      // Side by side: every host had its first listed page requested before any host had half of its.
      const lastFirst = Math.max(...starts.map((list) => list[0]!));
      const firstHalf = Math.min(...starts.map((list) => list[Math.floor(list.length / 2)]!));
      expect(lastFirst).toBeLessThan(firstHalf);
      // The seed too: robots.txt asked of every host at once, sitemaps of several hosts overlap.
      const robots = logs.map((log) => log.main.requests.find((r) => r.path === '/robots.txt')!);
      const robotsAt = robots.map((r, i) => [
        logs[i]!.timeOrigin + r.start,
        logs[i]!.timeOrigin + r.end,
      ]);
      expect(Math.max(...robotsAt.map(([start]) => start!))).toBeLessThan(
        Math.min(...robotsAt.map(([, end]) => end!)),
      );
      const seeds = logs.map(sitemapRequests);
      const overlapping = seeds.some((mine, i) =>
        seeds.some(
          (theirs, j) =>
            i !== j && mine.some(([s0, e0]) => theirs.some(([s1, e1]) => s0 < e1 && s1 < e0)),
        ),
      );
      expect(overlapping).toBe(true);
      // ...and each host as politely as alone.
      for (const log of logs) {
        expect(log.main.maxInFlight).toBeLessThanOrEqual(2);
        expect(minGapMs(log.main)).toBeGreaterThanOrEqual(DELAY_MS - ARRIVAL_JITTER_MS);
      }
    } finally {
      await s.close();
      for (const site of sites) await site.close();
    }
  });
});
