/**
 * Crawl politeness over several hosts, as the sites counted it (not a test: prints figures,
 * asserts nothing).
 *
 *   cd packages/server && npx tsx --conditions=adam-source bench/crawl-politeness.bench.ts
 *   CRAWL_POLITE_PAGES=500 …        # tree pages over all hosts (default 5,000)
 *   CRAWL_POLITE_HOSTS=10 …         # hosts (default 10)
 *   CRAWL_POLITE_DELAY_MS=200 …     # the min_delay_ms setting (default 200)
 *   CRAWL_POLITE_LATENCY_MS=300 …   # each answer's wait at the site (default 300)
 *
 * HOSTS fixture sites (test/fixtures/crawl-site.ts), each on a port of its own: the crawler keys
 * a host's politeness by host:port, so each port is a host. Each has robots.txt (Disallow
 * /private/, a Sitemap line), a sitemap index of a plain and a gzip sitemap listing its /page/N,
 * the tree of /page/N and the fixture's special pages (redirects, duplicates, a canonical link,
 * a redirect to a private address...); no two sites share any text (contentOffset). The first
 * host's robots.txt asks a Crawl-delay longer than the setting; it gets proportionally fewer
 * pages. Every answer waits LATENCY_MS, longer than the delay, so two requests overlap and the
 * concurrency setting (2 per host) is what holds a third back.
 *
 * The sites run in a child process (at nice -10 when allowed), each on a worker thread of its
 * own: their request logs are timed by threads no crawl work holds off the CPU. One crawl_site
 * job on a real server (buildApp, embedded queue, ADAM_WORKERS=2) from every host's root, scope
 * 'host', sitemaps on. Per host, as its site counted: the most requests in flight at once, the
 * gaps between request starts under the host's delay (count and shortest), and the shortest span
 * of WINDOW consecutive starts against (WINDOW - 1) delays: a late reading of one arrival shortens
 * one gap, never a span of ten. The same gaps on the sending side, as undici writes each request
 * ('undici:client:sendHeaders'), and a trace of the sent gaps under the delay.
 */
import { fork } from 'node:child_process';
import diagnostics from 'node:diagnostics_channel';
import os from 'node:os';
import type { Job } from '@adam/contracts';
import { buildApp } from '../src/app.js';
import { loadConfig } from '../src/config.js';
import { HostScheduler } from '../src/crawl/host-scheduler.js';
import {
  startCrawlSite,
  type CrawlSite,
  type CrawlSiteOptions,
  type HostLog,
} from '../test/fixtures/crawl-site.js';
import {
  fixed,
  footer,
  header,
  maxInFlight,
  measure,
  removeDir,
  seconds,
  sharedModel,
  startGaps,
  table,
  tempDataDir,
} from './common.js';

const PAGES = Number(process.env.CRAWL_POLITE_PAGES ?? 5_000);
const HOSTS = Number(process.env.CRAWL_POLITE_HOSTS ?? 10);
const DELAY_MS = Number(process.env.CRAWL_POLITE_DELAY_MS ?? 200);
const LATENCY_MS = Number(process.env.CRAWL_POLITE_LATENCY_MS ?? 300);
/** The first host's robots.txt Crawl-delay, in seconds. */
const ROBOTS_DELAY_S = 0.5;
const PER_HOST = 2;
const WINDOW = 10;
const LIMIT_MS = 4 * 60 * 60_000;

/** The delay each host should get: the setting, or the first host's Crawl-delay. */
const delayOf = (i: number) => (i === 0 ? Math.max(DELAY_MS, ROBOTS_DELAY_S * 1000) : DELAY_MS);

/** Tree pages per host: shares inverse to the delay, so the hosts would take as long in parallel. */
function pagesPerHost(): number[] {
  const weights = Array.from({ length: HOSTS }, (_, i) => DELAY_MS / delayOf(i));
  const total = weights.reduce((a, b) => a + b, 0);
  const pages = weights.map((w) => Math.floor((PAGES * w) / total));
  pages[HOSTS - 1]! += PAGES - pages.reduce((a, b) => a + b, 0);
  return pages;
}

const SITES: CrawlSiteOptions[] = pagesPerHost().map((pages, i) => ({
  pages,
  pagesInSitemaps: true,
  latencyMs: LATENCY_MS,
  contentOffset: i * 100_000,
  crawlDelayS: i === 0 ? ROBOTS_DELAY_S : null,
}));

type SiteMessage = { type: 'log' } | { type: 'close' };

// The child: the sites alone, driven by messages.
if (process.argv.includes('--sites-child')) {
  // A higher priority (when allowed; the sites' threads, started after, inherit it) so that a
  // loaded machine delays its reading of arrivals less: its log is the politeness figure.
  let nice = 'default priority';
  try {
    os.setPriority(-10);
    nice = 'nice -10';
  } catch {
    /* not allowed: the default priority */
  }
  const sites: CrawlSite[] = [];
  for (const opts of SITES) sites.push(await startCrawlSite(opts));
  process.on('message', (m: SiteMessage) => {
    if (m.type === 'log')
      void Promise.all(sites.map((s) => s.log())).then((logs) =>
        process.send!({ logs: logs.map((l) => l.main) }),
      );
    else void Promise.all(sites.map((s) => s.close())).then(() => process.exit(0));
  });
  process.send!({ urls: sites.map((s) => s.url), ports: sites.map((s) => s.port), nice });
  await new Promise(() => undefined);
}

const proc = fork(import.meta.filename, ['--sites-child'], { execArgv: process.execArgv });
const reply = <T>() => new Promise<T>((resolve) => proc.once('message', (m) => resolve(m as T)));
const site = await reply<{ urls: string[]; ports: number[]; nice: string }>();
const siteLogs = async () => {
  proc.send({ type: 'log' } satisfies SiteMessage);
  return (await reply<{ logs: HostLog[] }>()).logs;
};

header(
  `crawl politeness: ${PAGES} tree pages over ${HOSTS} hosts, ${PER_HOST} per host, ` +
    `${DELAY_MS} ms apart (one host's robots.txt: Crawl-delay ${ROBOTS_DELAY_S} s), answers ` +
    `after ${LATENCY_MS} ms`,
);
const benchStarted = performance.now();
await sharedModel();

/** Requests as undici sends them, per origin, with their paths (for the trace). */
const sent = new Map<string, { at: number; path: string }[]>();
diagnostics.subscribe('undici:client:sendHeaders', (message: unknown) => {
  const { request } = message as { request: { origin: string; path: string } };
  const list = sent.get(request.origin) ?? [];
  list.push({ at: performance.now(), path: request.path });
  sent.set(request.origin, list);
});

/**
 * CRAWL_POLITE_TRACE=1: the crawler's scheduler calls, per host (grants, sends, touches, delay
 * changes), printed around each sent gap under the delay. Wrapped here, not changed.
 */
const schedulerEvents = new Map<string, [number, string][]>();
if (process.env.CRAWL_POLITE_TRACE) {
  const proto = HostScheduler.prototype as unknown as Record<
    string,
    (this: HostScheduler, host: string, ...rest: unknown[]) => unknown
  >;
  const note = (host: string, what: string) => {
    const list = schedulerEvents.get(host) ?? [];
    list.push([performance.now(), what]);
    schedulerEvents.set(host, list);
  };
  for (const name of ['sent', 'touch', 'setCrawlDelay', 'backoff']) {
    const original = proto[name]!;
    proto[name] = function (host, ...rest) {
      note(host, `${name}(${rest.map(String).join(', ')})`);
      return original.call(this, host, ...rest);
    };
  }
  for (const name of ['acquire', 'hop']) {
    const original = proto[name]!;
    proto[name] = async function (host, ...rest) {
      note(host, `${name} asked`);
      const release = (await original.call(this, host, ...rest)) as () => void;
      note(host, `${name} granted`);
      return () => {
        note(host, `${name} released`);
        release();
      };
    };
  }
}

const dir = tempDataDir('adam-bench-crawl-polite-');
const adam = await buildApp(
  loadConfig({
    ADAM_DATA_DIR: dir,
    ADAM_WEB_DIST: '',
    ADAM_WORKERS: '2',
    ADAM_LOG_LEVEL: 'warn',
    ADAM_FETCH_ALLOW: site.ports.map((p) => `127.0.0.1:${p}`).join(','),
  }),
  { stdoutLogs: false },
);
await adam.app.listen({ port: 0, host: '127.0.0.1' });
await adam.engineStarted;
await adam.queueStarted;

const crawler = adam.services.settings.update('crawler', {
  min_delay_ms: DELAY_MS,
  per_host_concurrency: PER_HOST,
});
let job!: Job;
const run = await measure(async () => {
  const id = adam.services.jobs.create({
    type: 'crawl_site',
    urls: site.urls.map((u) => `${u}/`),
    input: {
      start_urls: site.urls.map((u) => `${u}/`),
      scope: 'host',
      max_depth: 20,
      max_pages: PAGES + 100 * HOSTS,
      use_sitemaps: true,
      crawler,
    },
  }).id;
  job = await adam.services.jobs.waitForEnd(id, LIMIT_MS);
});
await adam.app.close();
removeDir(dir);
const logs = await siteLogs();
proc.send({ type: 'close' } satisfies SiteMessage);

// --- Figures ---------------------------------------------------------------------------------
const stats = job.stats.crawl as {
  fetched: number;
  stored: number;
  skipped?: Record<string, number>;
};
const requests = logs.reduce((n, l) => n + l.requests.length, 0);
console.log(
  `crawl_site ${job.status}: ${stats.fetched} fetched, ${stats.stored} stored, ${requests} ` +
    `requests in ${seconds(run.wallMs)} = ${fixed(stats.fetched / (run.wallMs / 1000))} pages/s ` +
    `(${fixed(requests / (run.wallMs / 1000))} requests/s); CPU ${seconds(run.cpuMs)}` +
    (stats.skipped ? `; skipped ${JSON.stringify(stats.skipped)}` : ''),
);
// What the politeness settings allow: every host at its own pace at once, or one after another.
const hostMs = logs.map((l, i) => l.requests.length * delayOf(i));
console.log(
  `politeness bound: ${seconds(Math.max(...hostMs))} with the hosts crawled in parallel ` +
    `(${fixed(requests / (Math.max(...hostMs) / 1000))} requests/s), ` +
    `${seconds(hostMs.reduce((a, b) => a + b, 0))} one host after another`,
);

// Hosts served at once, on the sending side (one clock for every host): per second of the crawl,
// how many hosts were sent a request in it.
const perSecond = new Map<number, Set<string>>();
for (const [origin, list] of sent)
  for (const s of list) {
    const second = Math.floor(s.at / 1000);
    const set = perSecond.get(second) ?? new Set<string>();
    set.add(origin);
    perSecond.set(second, set);
  }
const hostsBusy = [...perSecond.values()].map((s) => s.size);
console.log(
  `hosts sent a request within the same second: mean ${fixed(
    hostsBusy.reduce((a, b) => a + b, 0) / Math.max(1, hostsBusy.length),
    2,
  )}, at most ${Math.max(...hostsBusy)} (of ${HOSTS})`,
);

const rows: (string | number)[][] = [];
const trace: string[] = [];
logs.forEach((log, i) => {
  const delay = delayOf(i);
  const fixture = startGaps(
    log.requests.map((r) => r.start),
    delay,
    WINDOW,
  );
  const out = sent.get(site.urls[i]!) ?? [];
  const sender = startGaps(
    out.map((s) => s.at),
    delay,
    WINDOW,
  );
  const starts = log.requests.map((r) => r.start);
  rows.push([
    `${i} :${site.ports[i]}${i === 0 ? ' (robots)' : ''}`,
    `${delay} ms`,
    log.requests.length,
    seconds(Math.max(...starts) - Math.min(...starts)),
    `${maxInFlight(log.requests)} (${log.maxInFlight}) / ${PER_HOST}`,
    `${fixed(fixture.min)} ms`,
    `${fixture.under} of ${fixture.n}`,
    `${fixed(fixture.span)} / ${(WINDOW - 1) * delay} ms`,
    `${fixed(sender.min)} ms`,
    `${sender.under} of ${sender.n}`,
    `${fixed(sender.span)} ms`,
  ]);
  for (let k = 1; k < out.length; k++) {
    const gap = out[k]!.at - out[k - 1]!.at;
    if (gap < delay)
      trace.push(
        `host ${i}: sent ${fixed(gap)} ms apart: ${out[k - 1]!.path} then ${out[k]!.path}`,
      );
  }
});
console.log(
  `\nper host (fixture process at ${site.nice}; in flight: from the log's start and end times, ` +
    `and the site's own counter; spans of ${WINDOW} consecutive starts):`,
);
table(
  [
    'host',
    'delay',
    'requests',
    'first→last',
    'max in flight',
    'min gap',
    'under delay',
    `min span of ${WINDOW}`,
    'min gap (sent)',
    'under (sent)',
    'span (sent)',
  ],
  rows,
);
for (const line of trace.slice(0, 200)) console.log(line);
if (trace.length > 200) console.log(`… ${trace.length - 200} more trace lines`);
if (job.status !== 'completed')
  console.log(`crawl ended ${job.status}: ${JSON.stringify(job.errors.slice(-2))}`);
footer(benchStarted);
