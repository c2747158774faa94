/**
 * Crawl throughput, politeness and re-sync cost (not a test: prints figures, asserts nothing).
 *
 *   cd packages/server && npx tsx --conditions=adam-source bench/crawl.bench.ts
 *   CRAWL_BENCH_PAGES=300 npx tsx --conditions=adam-source bench/crawl.bench.ts   # smaller
 *   CRAWL_BENCH_DELAY_MS=1000 …   # the crawler's default delay (5,000 pages: over 40 min a phase)
 *
 * The fixture site (test/fixtures/crawl-site.ts: a tree of /page/N, robots.txt, a sitemap index
 * of a plain and a gzip sitemap listing every /page/N, ETags on the pages, a second host that
 * answers 429 first) runs in a child process of its own: its request log is timed by a process
 * no server work holds off the CPU, and its work is not counted in this process's CPU.
 *
 * A real server (buildApp + listen, the embedded queue, ADAM_WORKERS=2), crawler settings
 * `per_host_concurrency` 2 and `min_delay_ms` 20 (the default 1,000 ms would make a 5,000-page
 * crawl take well over an hour), then, on the same server:
 * 1. the crawl from the root (crawl_site): every page fetched, extracted, analysed, embedded,
 *    stored and indexed; timed from the job's creation to its end;
 * 2. a sync of the unchanged crawl (sync_crawl): every known page asked with its ETag;
 * 3. 1% of the pages get one paragraph rewritten, and a sync: only their new segments should be
 *    embedded, their other segments keeping their ids.
 * CPU is process.cpuUsage(): this process, all its threads (server, engine, workers), fixture
 * excluded.
 *
 * CRAWL_BENCH_PROFILE=1: also the CPU of each phase per thread (main, each worker thread by its
 * module, the libuv threadpool, V8's GC/JIT threads: see bench/thread-cpu.ts; Linux only).
 * CRAWL_BENCH_PROFILE=<file.cpuprofile>: that too, and the main thread's CPU profile of the
 * unchanged sync written to the file.
 *
 * The references, in the same run: the same /page/N as a plain list through process_urls on a
 * second fresh server (no robots, no politeness, max_concurrent_scrapes lanes); and the floor of
 * the unchanged sync: the same conditional requests from a bare undici client at the crawl's pace
 * (nothing recorded), after the unchanged sync on the idle server.
 *
 * Politeness, per host and per phase, as the fixture saw it: the most requests it had in flight
 * at once, and the shortest gap between two request starts (gaps under the delay counted). The
 * gaps are also taken on the sending side, as undici writes each request (its
 * 'undici:client:sendHeaders' channel, not the crawler's own hook).
 */
import { fork } from 'node:child_process';
import diagnostics from 'node:diagnostics_channel';
import fs from 'node:fs';
import inspector from 'node:inspector/promises';
import os from 'node:os';
import type { CrawlSync, Job } from '@adam/contracts';
import { Agent, request } from 'undici';
import { buildApp, type Adam } from '../src/app.js';
import { loadConfig } from '../src/config.js';
import {
  startCrawlSite,
  type CrawlSiteOptions,
  type HostLog,
  type LoggedRequest,
  type SiteLog,
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
import { generatePage } from '../test/fixtures/fixture-pages.js';
import { cpuByLabel, labelThreads, threadCpu } from './thread-cpu.js';

const PAGES = Number(process.env.CRAWL_BENCH_PAGES ?? 5_000);
const DELAY_MS = Number(process.env.CRAWL_BENCH_DELAY_MS ?? 20);
const PER_HOST = 2;
const LIMIT_MS = 4 * 60 * 60_000;
const SITE: CrawlSiteOptions = { pages: PAGES, validators: true, pagesInSitemaps: true };

type SiteMessage = { type: 'log' } | { type: 'change'; ns: number[] } | { type: 'close' };

// The child: the fixture site alone, driven by messages.
if (process.argv.includes('--site-child')) {
  // A higher priority (when allowed; inherited by the site's thread, started after it) so that a
  // loaded machine delays its reading of arrivals less: its log is the politeness figure.
  let nice = 'default priority';
  try {
    os.setPriority(-10);
    nice = 'nice -10';
  } catch {
    /* not allowed: the default priority */
  }
  const child = await startCrawlSite(SITE);
  process.on('message', (m: SiteMessage) => {
    if (m.type === 'log') void child.log().then((log) => process.send!({ log }));
    else if (m.type === 'change') void child.change(m.ns).then(() => process.send!({ ok: true }));
    else void child.close().then(() => process.exit(0));
  });
  process.send!({ url: child.url, port: child.port, other: child.other, nice });
  await new Promise(() => undefined);
}

const proc = fork(import.meta.filename, ['--site-child'], { execArgv: process.execArgv });
const reply = <T>() => new Promise<T>((resolve) => proc.once('message', (m) => resolve(m as T)));
const started = await reply<{
  url: string;
  port: number;
  other: { url: string; port: number };
  nice: string;
}>();
const site = {
  ...started,
  log: async () => {
    proc.send({ type: 'log' } satisfies SiteMessage);
    return (await reply<{ log: SiteLog }>()).log;
  },
  change: async (ns: number[]) => {
    proc.send({ type: 'change', ns } satisfies SiteMessage);
    await reply();
  },
  close: () => proc.send({ type: 'close' } satisfies SiteMessage),
};

header(
  `crawl: ${PAGES} fixture pages, ${PER_HOST} per host, ${DELAY_MS} ms apart; re-sync unchanged and 1% changed`,
);
const benchStarted = performance.now();
await sharedModel();
const PROFILE = process.env.CRAWL_BENCH_PROFILE;
const perThread = PROFILE ? await labelThreads() : false;
const pageUrls = Array.from({ length: PAGES }, (_, n) => `${site.url}/page/${n}`);

async function server(): Promise<{ adam: Adam; dir: string }> {
  const dir = tempDataDir('adam-bench-crawl-');
  const config = loadConfig({
    ADAM_DATA_DIR: dir,
    ADAM_WEB_DIST: '',
    ADAM_WORKERS: '2',
    ADAM_LOG_LEVEL: 'warn',
    ADAM_FETCH_ALLOW: `127.0.0.1:${site.port},127.0.0.1:${site.other.port}`,
  });
  const adam = await buildApp(config, { stdoutLogs: false });
  await adam.app.listen({ port: 0, host: '127.0.0.1' });
  await adam.engineStarted;
  await adam.queueStarted;
  // The auto backup's first run, five minutes after start, fell in the middle of a phase (its
  // store copy was 0.5 s of the unchanged sync's main thread): no phase's work.
  adam.services.settings.update('general', { auto_backup: false });
  return { adam, dir };
}

/** The engine's analyses on this server, and the vectors they made (the embedder's work). */
function countEmbedded(adam: Adam): { embedded: number } {
  const c = { embedded: 0 };
  const engine = adam.services.engine;
  const analyze = engine.analyze.bind(engine);
  engine.analyze = async (...args: Parameters<typeof analyze>) => {
    const r = await analyze(...args);
    c.embedded += r.segments.filter((x) => x.vector.length > 0).length;
    return r;
  };
  return c;
}

/** CRAWL_BENCH_PROFILE=<file>: the main thread's CPU profile during the unchanged sync. */
const profileFile = PROFILE && PROFILE !== '1' ? PROFILE : null;
const profiler = {
  session: new inspector.Session(),
  async start() {
    this.session.connect();
    await this.session.post('Profiler.enable');
    await this.session.post('Profiler.start');
  },
  async stop(file: string) {
    const { profile } = await this.session.post('Profiler.stop');
    fs.writeFileSync(file, JSON.stringify(profile));
    this.session.disconnect();
  },
};

/** Requests to the fixture as undici sends them, per origin. */
const sent = new Map<string, number[]>();
diagnostics.subscribe('undici:client:sendHeaders', (message: unknown) => {
  const { request } = message as { request: { origin: string; path: string } };
  const list = sent.get(request.origin) ?? [];
  // One reading for the list and the trace: a second one can come late on a loaded machine.
  const at = performance.now();
  list.push(at);
  sent.set(request.origin, list);
  if (process.env.CRAWL_BENCH_TRACE && request.origin === site.url && !politeDone && !bareRunning)
    sentTrace.push([at, `${request.path} (${current})`]);
});
const sentTrace: [number, string][] = [];
/** Set once the polite phases are over (the reference is not polite). */
let politeDone = false;
/** The bare client's requests (its warm-up is not paced) are not the crawler's: not traced. */
let bareRunning = false;
/** The phase running, for the trace. */
let current = 'between phases';

interface Phase {
  name: string;
  job: Job;
  wallMs: number;
  cpuMs: number;
  /** Log and sent-side lengths per host when the phase started and ended. */
  from: Marks;
  to: Marks;
  /** CPU ticks per thread at its start and end (CRAWL_BENCH_PROFILE, Linux). */
  threads: [Map<number, number>, Map<number, number>] | null;
}
type Marks = { main: number; other: number; sentMain: number; sentOther: number };

async function marks(): Promise<Marks> {
  const log = await site.log();
  return {
    main: log.main.requests.length,
    other: log.other.requests.length,
    sentMain: sent.get(site.url)?.length ?? 0,
    sentOther: sent.get(site.other.url)?.length ?? 0,
  };
}

async function phase(name: string, adam: Adam, create: () => number): Promise<Phase> {
  const from = await marks();
  let job!: Job;
  current = name;
  const threadsFrom = perThread ? threadCpu() : null;
  const m = await measure(async () => {
    job = await adam.services.jobs.waitForEnd(create(), LIMIT_MS);
  });
  const threadsTo = perThread ? threadCpu() : null;
  current = 'between phases';
  const threads =
    threadsFrom && threadsTo
      ? ([threadsFrom, threadsTo] as [typeof threadsFrom, typeof threadsTo])
      : null;
  return { name, job, wallMs: m.wallMs, cpuMs: m.cpuMs, from, to: await marks(), threads };
}

// 1. The crawl, 2. its sync unchanged, 3. its sync with 1% changed: one server.
const crawlServer = await server();
const { adam } = crawlServer;
const embedded = countEmbedded(adam);
const crawler = adam.services.settings.update('crawler', {
  min_delay_ms: DELAY_MS,
  per_host_concurrency: PER_HOST,
});
const crawl = await phase(
  'crawl',
  adam,
  () =>
    adam.services.jobs.create({
      type: 'crawl_site',
      urls: [`${site.url}/`],
      input: {
        start_urls: [`${site.url}/`],
        scope: 'host',
        max_depth: 20,
        max_pages: PAGES + 100,
        crawler,
      },
    }).id,
);
const crawlStats = crawl.job.stats.crawl as { fetched: number; stored: number };
const crawlEmbedded = embedded.embedded;

const siteSnippets = () =>
  adam.db
    .prepare(
      'SELECT id, source_url AS url, text_hash AS hash FROM snippets WHERE source_url LIKE ?',
    )
    .all(`${site.url}/%`) as { id: number; url: string; hash: string }[];
const lastSync = (): CrawlSync => adam.services.crawlSyncs.history(crawl.job.id, 1).syncs[0]!;

// The server's own CPU when idle (its samplers, index and queue loops): part of any phase.
const idle = await measure(() => new Promise((resolve) => setTimeout(resolve, 5_000)));
const idlePerS = idle.cpuMs / (idle.wallMs / 1000);

embedded.embedded = 0;
// CRAWL_BENCH_MARK=<dir>: files marking the unchanged sync's start and end (with this process's
// pid), for an outside profiler (`perf record -p`) to cover that phase alone.
const markDir = process.env.CRAWL_BENCH_MARK;
if (markDir) fs.writeFileSync(`${markDir}/sync-start`, String(process.pid));
if (profileFile) await profiler.start();
const unchangedSplit = process.cpuUsage();
const unchanged = await phase(
  'sync, unchanged',
  adam,
  () => adam.services.crawlSyncs.syncNow(crawl.job.id).job_id,
);
const unchangedSync = lastSync();
const unchangedUsed = process.cpuUsage(unchangedSplit);
if (profileFile) await profiler.stop(profileFile);
if (markDir) fs.writeFileSync(`${markDir}/sync-end`, String(process.pid));
// The same server idle for as long as the unchanged sync ran: what that wall time costs anyway.
const idleSplit = process.cpuUsage();
const idleThreadsFrom = perThread ? threadCpu() : null;
const idleAsLong = await measure(
  () => new Promise((resolve) => setTimeout(resolve, unchanged.wallMs)),
);
const idleThreadsTo = perThread ? threadCpu() : null;
const idleUsed = process.cpuUsage(idleSplit);
const unchangedEmbedded = embedded.embedded;

/**
 * The floor, in the same run: the same conditional requests (each known page with its ETag) from
 * a bare undici client in this process, nothing else done with them, one at a time with their
 * starts DELAY_MS apart as the crawl's are. On a machine whose idle cores sleep, a request that
 * wakes the process costs far more CPU than one of a back-to-back loop: this is what the sync's
 * requests alone cost at this pace.
 */
async function bareRequests(): Promise<{ n: number; wallMs: number; cpuMs: number }> {
  const pages = adam.db
    .prepare('SELECT url, etag FROM sources WHERE url LIKE ? AND etag IS NOT NULL')
    .all(`${site.url}/%`) as { url: string; etag: string }[];
  const agent = new Agent({ connections: PER_HOST });
  const get = async (p: { url: string; etag: string }) => {
    const res = await request(p.url, {
      dispatcher: agent,
      headers: { 'if-none-match': p.etag, 'user-agent': 'adam-bench' },
    });
    await res.body.dump();
  };
  for (const p of pages.slice(0, 50)) await get(p); // connected and warm, as the sync's client is
  let next = performance.now();
  const m = await measure(async () => {
    for (const p of pages) {
      const wait = next - performance.now();
      if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
      next = performance.now() + DELAY_MS;
      await get(p);
    }
  });
  await agent.close();
  return { n: pages.length, ...m };
}
current = 'bare client (reference)';
const bareFrom = await marks();
bareRunning = true;
const bare = await bareRequests();
bareRunning = false;
const bareTo = await marks();
current = 'between phases';

const before = siteSnippets();
const changedNs = Array.from({ length: Math.max(1, Math.round(PAGES / 100)) }, (_, i) =>
  Math.floor((i * PAGES) / Math.max(1, Math.round(PAGES / 100))),
);
const changedUrls = new Set(changedNs.map((n) => `${site.url}/page/${n}`));
await site.change(changedNs);
embedded.embedded = 0;
const changed = await phase(
  `sync, ${changedNs.length} pages changed`,
  adam,
  () => adam.services.crawlSyncs.syncNow(crawl.job.id).job_id,
);
const changedSync = lastSync();
const changedEmbedded = embedded.embedded;
const after = siteSnippets();
await adam.app.close();
removeDir(crawlServer.dir);

// Segment ids: a segment whose text is still on its page keeps its id.
const afterByKey = new Map(after.map((s) => [`${s.url} ${s.hash}`, s.id]));
const beforeKeys = new Set(before.map((s) => `${s.url} ${s.hash}`));
let keptSame = 0;
let keptMoved = 0;
let keptOnChanged = 0;
for (const s of before) {
  const id = afterByKey.get(`${s.url} ${s.hash}`);
  if (id === undefined) continue;
  if (id === s.id) keptSame++;
  else keptMoved++;
  if (changedUrls.has(s.url)) keptOnChanged++;
}
const newSegments = after.filter((s) => !beforeKeys.has(`${s.url} ${s.hash}`));
const newOutsideChanged = newSegments.filter((s) => !changedUrls.has(s.url)).length;

// The reference: the same pages as a list, on a fresh server.
politeDone = true;
const listServer = await server();
const list = await phase(
  'process_urls (reference)',
  listServer.adam,
  () =>
    listServer.adam.services.jobs.create({
      type: 'process_urls',
      urls: pageUrls,
      input: { language: 'auto' },
    }).id,
);
await listServer.adam.app.close();
removeDir(listServer.dir);
const log = await site.log();
site.close();

// --- Figures ---------------------------------------------------------------------------------
const perS = (n: number, ms: number) => (n / (ms / 1000)).toFixed(1);
const pct = (a: number) => `${fixed((100 * a) / crawl.cpuMs)} %`;
const requestsIn = (p: Phase) => log.main.requests.slice(p.from.main, p.to.main);
const statusCount = (rs: LoggedRequest[], status: number) =>
  rs.filter((r) => r.status === status).length;
const listTotal = list.job.stats.urls_total ?? 0;
table(
  ['phase', 'status', 'pages', 'requests', '304s', 'wall', 'pages/s', 'CPU', 'CPU vs crawl'],
  [
    [
      'crawl_site',
      crawl.job.status,
      `${crawlStats.fetched} fetched, ${crawlStats.stored} stored`,
      requestsIn(crawl).length,
      statusCount(requestsIn(crawl), 304),
      seconds(crawl.wallMs),
      perS(crawlStats.fetched, crawl.wallMs),
      seconds(crawl.cpuMs),
      '100 %',
    ],
    ...[
      [unchanged, unchangedSync],
      [changed, changedSync],
    ].map(([p, s]) => {
      const ph = p as Phase;
      const sy = s as CrawlSync;
      return [
        ph.name,
        ph.job.status,
        `${sy.pages_unchanged} unchanged, ${sy.pages_changed} changed, ${sy.pages_added} added`,
        requestsIn(ph).length,
        statusCount(requestsIn(ph), 304),
        seconds(ph.wallMs),
        '-',
        seconds(ph.cpuMs),
        pct(ph.cpuMs),
      ];
    }),
    [
      'process_urls (reference)',
      list.job.status,
      `${listTotal} listed, ${list.job.stats.urls_done ?? 0} stored`,
      requestsIn(list).length,
      '-',
      seconds(list.wallMs),
      perS(listTotal, list.wallMs),
      seconds(list.cpuMs),
      pct(list.cpuMs),
    ],
  ],
);
console.log(
  `\ncrawl pages/s vs the reference's: ${fixed(
    crawlStats.fetched / (crawl.wallMs / 1000) / (listTotal / (list.wallMs / 1000)),
    2,
  )} (crawl ${perS(crawlStats.fetched, crawl.wallMs)}, process_urls ${perS(listTotal, list.wallMs)})`,
);
// What "the crawl's CPU" covers: the fixture's article text per page (its paragraphs, as
// test/fixtures/crawl-site.ts serves them), small for documentation pages.
const pageWords = Array.from({ length: PAGES }, (_, n) =>
  generatePage(n + 1)
    .body.filter((p) => !p.startsWith('## '))
    .reduce((sum, p) => sum + p.split(/\s+/).filter(Boolean).length, 0),
);
console.log(
  `fixture pages: ${fixed(pageWords.reduce((a, b) => a + b, 0) / Math.max(1, PAGES), 0)} words ` +
    `each on average (${Math.min(...pageWords)}–${Math.max(...pageWords)}): the crawl's CPU, ` +
    `and so each "CPU vs crawl" ratio, is for pages this size`,
);
// Net of the idle server over the same wall time, measured right after the sync: the 5 s sample
// (taken right after the crawl) can still hold the crawl's tail (its index save and marking,
// checkpoints), once 46 ms a second against 16 for the long one.
const unchangedNet = Math.max(0, unchanged.cpuMs - idleAsLong.cpuMs);
console.log(
  `idle server for the unchanged sync's wall time (${seconds(idleAsLong.wallMs)}, right after ` +
    `it): ${seconds(idleAsLong.cpuMs)} CPU = ${pct(idleAsLong.cpuMs)} of the crawl's CPU; the ` +
    `sync itself: ${seconds(unchanged.cpuMs)} = ${pct(unchanged.cpuMs)}, net of that idle ` +
    `${seconds(unchangedNet)} = ${pct(unchangedNet)}`,
);
const idleRate = idleAsLong.cpuMs / Math.max(1, idleAsLong.wallMs);
const bareNet = Math.max(0, bare.cpuMs - idleRate * bare.wallMs);
const syncRequests = Math.max(1, requestsIn(unchanged).length);
const bareRequestsSeen = log.main.requests.slice(bareFrom.main, bareTo.main).length;
console.log(
  `floor: the same ${bare.n} conditional requests from a bare undici client ${DELAY_MS} ms apart ` +
    `(${bareRequestsSeen} seen by the fixture, ${seconds(bare.wallMs)}): ${seconds(bare.cpuMs)} ` +
    `CPU, net of the idle server ${seconds(bareNet)} = ${pct(bareNet)} of the crawl's CPU, ` +
    `${fixed(bareNet / Math.max(1, bare.n), 2)} ms a request; the unchanged sync net ` +
    `${fixed(unchangedNet / syncRequests, 2)} ms a request = ` +
    `${fixed(unchangedNet / syncRequests / Math.max(1e-9, bareNet / Math.max(1, bare.n)), 2)}× the floor`,
);
console.log(
  `idle server 5 s after the crawl: ${fixed(idlePerS)} ms CPU a second; CPU per request: sync ` +
    `${fixed(unchanged.cpuMs / Math.max(1, requestsIn(unchanged).length), 2)} ms, crawl ` +
    `${fixed(crawl.cpuMs / Math.max(1, requestsIn(crawl).length), 1)} ms`,
);
console.log(
  `  user / system CPU: unchanged sync ${seconds(unchangedUsed.user / 1000)} / ` +
    `${seconds(unchangedUsed.system / 1000)}, idle as long ${seconds(idleUsed.user / 1000)} / ` +
    `${seconds(idleUsed.system / 1000)}`,
);
console.log(
  `segments: ${before.length} after the crawl (${crawlEmbedded} vectors made); unchanged sync ` +
    `embedded ${unchangedSync.reembedded} (engine ${unchangedEmbedded}); ${changedNs.length} pages ` +
    `changed → ${changedSync.reembedded} re-embedded of ${after.length} (engine ${changedEmbedded}; ` +
    `${changedSync.segments_added} added, ${changedSync.segments_removed} removed, ` +
    `${changedSync.segments_kept} kept)`,
);
console.log(
  `segment ids: ${keptSame} of ${before.length} kept their id (${keptOnChanged} of them on the ` +
    `changed pages), ${keptMoved} kept their text under a new id; new segments outside the ` +
    `changed pages: ${newOutsideChanged}`,
);

if (perThread) {
  // One column per phase, one row per thread label: where each phase's CPU went.
  const columns: [string, Map<number, number>, Map<number, number>][] = [];
  for (const p of [crawl, unchanged, changed]) if (p.threads) columns.push([p.name, ...p.threads]);
  if (idleThreadsFrom && idleThreadsTo)
    columns.splice(2, 0, ['idle as long as the unchanged sync', idleThreadsFrom, idleThreadsTo]);
  const byColumn = columns.map(([, from, to]) => cpuByLabel(from, to));
  const labels = [...new Set(byColumn.flatMap((c) => c.map((r) => r.label)))];
  console.log(
    '\nCPU per thread (ms; /proc/self/task, threads of one label summed, their count in brackets):',
  );
  table(
    ['thread', ...columns.map(([name]) => name)],
    labels.map((label) => [
      label,
      ...byColumn.map((c) => {
        const r = c.find((x) => x.label === label);
        return r ? `${r.ms} (${r.threads})` : '-';
      }),
    ]),
  );
}

/** The shortest span of WINDOW consecutive starts, against (WINDOW - 1) delays (startGaps' default). */
const WINDOW = 10;

const rows: (string | number)[][] = [];
for (const p of [crawl, unchanged, changed]) {
  for (const host of ['main', 'other'] as const) {
    const hostLog: HostLog = log[host];
    const rs = hostLog.requests.slice(p.from[host], p.to[host]);
    if (!rs.length) continue;
    const fixtureGaps = startGaps(
      rs.map((r) => r.start),
      DELAY_MS,
    );
    const key = host === 'main' ? 'sentMain' : 'sentOther';
    const origin = host === 'main' ? site.url : site.other.url;
    const sentGaps = startGaps((sent.get(origin) ?? []).slice(p.from[key], p.to[key]), DELAY_MS);
    rows.push([
      p.name,
      host,
      rs.length,
      `${maxInFlight(rs)} (setting ${PER_HOST})`,
      `${fixed(fixtureGaps.min)} ms`,
      `${fixtureGaps.under} of ${fixtureGaps.n}`,
      `${fixed(fixtureGaps.span)} ms`,
      `${fixed(sentGaps.min)} ms`,
      `${sentGaps.under} of ${sentGaps.n}`,
    ]);
  }
}
console.log(
  `\npoliteness per host (delay setting ${DELAY_MS} ms, redirect hops included; the fixture's ` +
    `process at ${site.nice}; the other host is outside the crawl's scope):`,
);
table(
  [
    'phase',
    'host',
    'requests',
    'max in flight',
    'min gap (fixture)',
    `under ${DELAY_MS} ms`,
    `min span of ${WINDOW} (≥ ${(WINDOW - 1) * DELAY_MS} ms)`,
    'min gap (sent)',
    `under ${DELAY_MS} ms (sent)`,
  ],
  rows,
);
console.log(
  `fixture's own in-flight counter over the whole run, the unpoliced reference included: main ` +
    `at most ${log.main.maxInFlight}, other at most ${log.other.maxInFlight}`,
);
for (const p of [crawl, unchanged, changed, list]) {
  if (p.job.status !== 'completed')
    console.log(`${p.name} ended ${p.job.status}: ${JSON.stringify(p.job.errors.slice(-2))}`);
}
if (process.env.CRAWL_BENCH_TRACE) {
  for (let i = 1; i < sentTrace.length; i++) {
    const gap = sentTrace[i]![0] - sentTrace[i - 1]![0];
    if (gap < DELAY_MS)
      console.log(`sent ${fixed(gap)} ms apart: ${sentTrace[i - 1]![1]} then ${sentTrace[i]![1]}`);
  }
}
footer(benchStarted);
