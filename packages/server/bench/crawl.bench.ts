/**
 * Crawl throughput and politeness (not a test: prints figures, asserts nothing).
 *
 *   cd packages/server && npx tsx --conditions=adam-source bench/crawl.bench.ts
 *   CRAWL_BENCH_PAGES=300 npx tsx --conditions=adam-source bench/crawl.bench.ts   # smaller
 *
 * A real server (buildApp + listen, the embedded queue, ADAM_WORKERS=2) crawls the fixture site
 * of 5,000 generated pages (test/fixtures/crawl-site.ts: a tree of /page/N, plus robots.txt and
 * sitemaps) from its root with a 5 ms per-host delay and 2 requests per host at once: every
 * page fetched, extracted, analysed, embedded, stored and indexed. Timed from the job's creation
 * to its end. The fixture server's own log (on its own thread) then gives the most requests it
 * had in flight at once and the shortest gap between two request starts.
 *
 * The reference, in the same run: the same pages as a plain list through process_urls on a
 * second fresh server (no robots, no politeness, max_concurrent_scrapes lanes).
 *
 * The gaps are also taken on the sending side, as undici writes each request (its
 * 'undici:client:sendHeaders' channel, not the crawler's own hook): on a loaded machine the
 * fixture's thread can be held off the CPU while two requests sent the delay apart wait for it,
 * and it then logs them together.
 */
import diagnostics from 'node:diagnostics_channel';
import type { Job } from '@adam/contracts';
import { buildApp, type Adam } from '../src/app.js';
import { loadConfig } from '../src/config.js';
import { minGapMs, startCrawlSite } from '../test/fixtures/crawl-site.js';
import { footer, header, removeDir, seconds, sharedModel, table, tempDataDir } from './common.js';

const PAGES = Number(process.env.CRAWL_BENCH_PAGES ?? 5_000);
const DELAY_MS = 5;
const PER_HOST = 2;
const LIMIT_MS = 60 * 60_000;

header(`crawl: ${PAGES} fixture pages, ${PER_HOST} per host, ${DELAY_MS} ms apart`);
const benchStarted = performance.now();
await sharedModel();

const site = await startCrawlSite({ pages: PAGES });
const pageUrls = Array.from({ length: PAGES }, (_, n) => `${site.url}/page/${n}`);

async function server(): Promise<{ adam: Adam; dir: string }> {
  const dir = tempDataDir('adam-bench-crawl-');
  const config = loadConfig({
    ADAM_DATA_DIR: dir,
    ADAM_WEB_DIST: '',
    ADAM_WORKERS: '2',
    ADAM_FETCH_ALLOW: `127.0.0.1:${site.port},127.0.0.1:${site.other.port}`,
  });
  const adam = await buildApp(config);
  await adam.app.listen({ port: 0, host: '127.0.0.1' });
  await adam.queueStarted;
  return { adam, dir };
}

async function timed(adam: Adam, create: () => Job): Promise<{ job: Job; ms: number }> {
  const t = performance.now();
  const created = create();
  const job = await adam.services.jobs.waitForEnd(created.id, LIMIT_MS);
  return { job, ms: performance.now() - t };
}

// The crawl
const sentAt: number[] = [];
const onSendHeaders = (message: unknown) => {
  const { request } = message as { request: { origin: string } };
  if (request.origin === site.url) sentAt.push(performance.now());
};
diagnostics.subscribe('undici:client:sendHeaders', onSendHeaders);
const crawlServer = await server();
const crawler = crawlServer.adam.services.settings.update('crawler', {
  min_delay_ms: DELAY_MS,
  per_host_concurrency: PER_HOST,
});
const crawl = await timed(crawlServer.adam, () =>
  crawlServer.adam.services.jobs.create({
    type: 'crawl_site',
    urls: [`${site.url}/`],
    input: {
      start_urls: [`${site.url}/`],
      scope: 'host',
      max_depth: 20,
      max_pages: PAGES + 100,
      crawler,
    },
  }),
);
diagnostics.unsubscribe('undici:client:sendHeaders', onSendHeaders);
const log = (await site.log()).main;
const crawlStats = crawl.job.stats.crawl as { fetched: number; stored: number };
await crawlServer.adam.app.close();
removeDir(crawlServer.dir);

// The reference: the same pages as a list
const listServer = await server();
const list = await timed(listServer.adam, () =>
  listServer.adam.services.jobs.create({
    type: 'process_urls',
    urls: pageUrls,
    input: { language: 'auto' },
  }),
);
await listServer.adam.app.close();
removeDir(listServer.dir);
await site.close();

const perS = (n: number, ms: number) => (n / (ms / 1000)).toFixed(1);
const starts = log.requests.map((r) => r.start).sort((a, b) => a - b);
const gaps = starts.slice(1).map((t, i) => t - starts[i]!);
const sortedGaps = [...gaps].sort((a, b) => a - b);
const under = gaps.filter((g) => g < DELAY_MS).length;
const sentGaps = sentAt.slice(1).map((t, i) => t - sentAt[i]!);
const sentUnder = sentGaps.filter((g) => g < DELAY_MS).length;
table(
  ['run', 'status', 'pages fetched', 'stored', 'time', 'pages/s'],
  [
    [
      'crawl_site',
      crawl.job.status,
      crawlStats.fetched,
      crawlStats.stored,
      seconds(crawl.ms),
      perS(crawlStats.fetched, crawl.ms),
    ],
    [
      'process_urls (reference)',
      list.job.status,
      list.job.stats.urls_total ?? 0,
      list.job.stats.urls_done ?? 0,
      seconds(list.ms),
      perS(list.job.stats.urls_total ?? 0, list.ms),
    ],
  ],
);
console.log(
  `crawl / list time: ${(crawl.ms / list.ms).toFixed(2)}; fixture log: ${log.requests.length} ` +
    `requests, at most ${log.maxInFlight} in flight at once (setting ${PER_HOST}), shortest ` +
    `gap between two starts ${minGapMs(log).toFixed(1)} ms (setting ${DELAY_MS} ms, ` +
    `redirect hops included); gaps under the delay: ${under} of ${gaps.length}, 5th ` +
    `percentile gap ${(sortedGaps[Math.floor(gaps.length * 0.05)] ?? 0).toFixed(1)} ms`,
);
console.log(
  `sent (undici sendHeaders): ${sentAt.length} requests, shortest gap ` +
    `${Math.min(...sentGaps).toFixed(1)} ms, gaps under the delay: ${sentUnder} of ${sentGaps.length}`,
);
if (crawl.job.status !== 'completed')
  console.log(`crawl ended ${crawl.job.status}: ${JSON.stringify(crawl.job.errors.slice(-2))}`);
if (list.job.status !== 'completed')
  console.log(`reference ended ${list.job.status}: ${JSON.stringify(list.job.errors.slice(0, 2))}`);
footer(benchStarted);
