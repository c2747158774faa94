import { createHash } from 'node:crypto';
import type { CrawlSkipReason } from '@adam/contracts';
import { isTaskTimeout } from '../engine/task-deadline.js';
import { assertRuleAllowsFetch, ruleMode } from '../scraping/extract.js';
import { isFetchError } from '../scraping/fetch-error.js';
import { matchRule, type ScrapingRuleLike } from '../scraping/rules.js';
import { fetchUrl } from '../scraping/url-fetch.js';
import type { FetchResult, SafeFetcher } from '../scraping/safe-fetcher.js';
import { validatorsOf } from '../scraping/page-validators.js';
import { eachByHost } from '../crawl/host-lanes.js';
import { HostScheduler, type Clock } from '../crawl/host-scheduler.js';
import { robotsFromStatus, robotsPath, type RobotsRules } from '../crawl/robots.js';
import { compilePatterns, inScope } from '../crawl/scope.js';
import type { ParsedSitemap } from '../crawl/sitemap.js';
import { normaliseUrl } from '../crawl/url-normalise.js';
import type {
  CrawlPlan,
  CrawlResult,
  CrawlResume,
  CrawlSyncState,
  FoundUrl,
  PageOutcome,
  SyncPage,
} from '../queue/crawl-results.js';
import type { SyncWork } from '../queue/source-sync.js';
import type { WorkContext } from './define-job.js';
import { syncOne } from './sync-sources.job.js';

/** 429 and 503 answers retried per URL before it fails. */
const MAX_RETRIES = 3;
/** Links read from one page; a page with more is a link farm, its rest is not followed. */
const MAX_LINKS_PER_PAGE = 2_000;
/** Sitemap files read per crawl (indexes included). */
const MAX_SITEMAP_FILES = 50;
/** URLs a crawl keeps track of, per page it may fetch (so external links cannot grow it unbounded). */
const FRONTIER_PER_PAGE = 20;
const FRONTIER_MIN = 1_000;

/** The optional fields extraction gives for crawling (links, canonical, robots meta). */
interface CrawlExtract {
  text: string;
  title: string;
  links?: string[];
  canonical?: string | null;
  robotsMeta?: { noindex: boolean; nofollow: boolean };
}

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

function denyGuard(rules: readonly ScrapingRuleLike[]) {
  return (hop: URL) => {
    const rule = matchRule(rules, hop.hostname);
    if (rule && ruleMode(rule).mode === 'deny') assertRuleAllowsFetch(hop.href, rule);
  };
}

function errorOf(e: unknown): { type: string; error: string; message: string } {
  const err = e as Error;
  if (isFetchError(e)) return { type: `fetch_${e.code}`, error: e.code, message: err.message };
  if (isTaskTimeout(e)) return { type: 'task_timeout', error: 'timeout', message: err.message };
  return { type: 'processing', error: err.name || 'Error', message: err.message };
}

/**
 * The working half of a crawl: breadth-first by depth from the start URLs (and sitemaps), each
 * host's robots.txt read once and obeyed, requests spaced per host by the HostScheduler, every
 * hop through the safe fetcher under the scraping rules, pages extracted and analysed on the
 * engine's threads. Holds the frontier in memory, rebuilt from `wctx.resume` when the crawl
 * resumes; each result it emits carries what the server records (see crawl-site.job.ts).
 */
export class Crawler {
  /** Every URL of the frontier (recorded or found in this run). */
  private readonly known = new Set<string>();
  private readonly pending = new Map<number, FoundUrl[]>();
  private readonly hashes = new Set<string>();
  private readonly robots = new Map<string, Promise<RobotsRules>>();
  private readonly sched: HostScheduler;
  private readonly pattern: (url: string) => 'ok' | 'pattern';
  private readonly maxKnown: number;
  private fetches = 0;
  /** Sitemap entries seen in this run (a sync counts its known pages that left them). */
  private readonly listed = new Set<string>();
  private sitemapsRead = 0;
  /** A sitemap could not be read in full (not a 404/410): absences do not count this run. */
  private sitemapTrouble = false;
  /**
   * The safe fetcher with our user agent and the job's signal. Each hop goes out when the
   * scheduler allows: the first holds the start `acquire` gave, a redirect hop waits for its
   * host's delay like any request (the fetcher awaits the guard before each hop). Each start
   * counts from the moment the fetcher really sends the request (`onSend`).
   */
  private readonly polite: Pick<SafeFetcher, 'fetch'> = {
    fetch: async (url, init = {}) => {
      let hops = 0;
      const unsentHops: (() => void)[] = [];
      try {
        return await this.wctx.fetcher.fetch(url, {
          ...init,
          userAgent: this.plan.crawler.user_agent,
          ...(this.wctx.signal && { signal: this.wctx.signal }),
          guard: async (hop) => {
            await init.guard?.(hop);
            if (hops++ > 0) unsentHops.push(await this.sched.hop(hop.host, this.wctx.signal));
          },
          onSend: (hop) => this.sched.sent(hop.host),
        });
      } finally {
        for (const giveUp of unsentHops) giveUp();
      }
    },
  };

  constructor(
    private readonly plan: CrawlPlan,
    private readonly wctx: WorkContext<CrawlResult>,
    clock?: Clock,
    /** Set for a crawl's sync: its known pages are re-fetched conditionally, not crawled anew. */
    private readonly sync?: CrawlSyncState,
  ) {
    const c = plan.crawler;
    this.sched = new HostScheduler({
      concurrency: c.per_host_concurrency,
      minDelayMs: c.min_delay_ms,
      maxBackoffMs: c.max_backoff_ms,
      ...(clock && { clock }),
    });
    this.pattern = compilePatterns(plan.include_patterns, plan.exclude_patterns);
    this.maxKnown = Math.max(FRONTIER_MIN, plan.max_pages * FRONTIER_PER_PAGE);
  }

  async run(): Promise<void> {
    if (this.sync) return this.runSync(this.sync);
    const resumed = this.restore();
    if (!resumed) await this.seed();
    await this.crawlPending();
  }

  /**
   * A crawl's sync: the start URLs and sitemaps read again; each known page re-fetched with its
   * validators (syncOne: a 304 or the same body costs that request only, a changed page embeds
   * its new segments only, and its links are followed); a known page that left sitemaps read in
   * full is reported missing without a request; new URLs crawled as in a first crawl.
   */
  private async runSync(state: CrawlSyncState): Promise<void> {
    for (const url of state.known) this.known.add(url);
    for (const p of state.pages) this.known.add(p.url);
    for (const h of state.hashes) this.hashes.add(h);
    // max_pages bounds the crawl's size: its pages count.
    this.fetches = state.pages.length + state.known.length;
    await this.seed();
    const complete = this.plan.use_sitemaps && this.sitemapsRead > 0 && !this.sitemapTrouble;
    await this.eachByHost(state.pages, (page, leave) => this.syncPage(page, complete, leave));
    await this.crawlPending();
    if (!(await this.wctx.shouldStop()))
      await this.wctx.emit({ page: null, found: [], finished: true });
  }

  private async syncPage(p: SyncPage, complete: boolean, leave: () => void): Promise<void> {
    const in_sitemap = complete ? this.listed.has(p.url) : undefined;
    const emit = (work: SyncWork, found: FoundUrl[] = []) =>
      this.wctx.emit({ page: null, found, synced: { work, ...(complete && { in_sitemap }) } });
    const { source_id, url } = p;
    if (complete && p.in_sitemap && !in_sitemap) {
      const reason = 'no longer listed in the sitemaps';
      return emit({ source_id, url, outcome: 'missing', status: 0, reason });
    }
    // Parsed once: its origin, host and path (robotsPath would parse it again).
    const { origin, host, pathname, search } = new URL(url);
    const robots = await this.robotsFor(origin);
    if (!robots.allowed(`${pathname}${search}`)) {
      // Kept as it is: robots.txt may change back, and it says nothing of the page being gone.
      const message = 'Disallowed by robots.txt now: its old content is kept';
      return emit({
        source_id,
        url,
        outcome: 'failed',
        error: { type: 'robots', error: 'robots', message },
      });
    }
    const release = await this.sched.acquire(host, this.wctx.signal).catch(() => null);
    if (!release) return;
    let work: SyncWork;
    try {
      work = await syncOne(
        { engine: this.wctx.engine, fetcher: this.polite, signal: this.wctx.signal },
        p,
        this.wctx.rules,
        this.wctx.settings,
        this.plan.language,
        { links: true },
      );
    } finally {
      release();
      leave();
    }
    if (this.wctx.signal?.aborted) return;
    const found: FoundUrl[] = [];
    if (work.outcome === 'changed') {
      const { links = [], ...changed } = work;
      work = changed;
      if (p.depth < this.plan.max_depth) {
        for (const link of links.slice(0, MAX_LINKS_PER_PAGE)) {
          const key = normaliseUrl(link, url);
          const f = key ? this.classify(key, p.depth + 1, url) : null;
          if (f) found.push(f);
        }
        for (const f of found) if (f.status === 'pending') this.queue(f);
      }
    }
    await emit(work, found);
  }

  /** Visits the queued URLs breadth-first until none is left, max_pages is reached, or a stop. */
  private async crawlPending(): Promise<void> {
    while (!(await this.wctx.shouldStop())) {
      const depths = [...this.pending.keys()].filter((d) => this.pending.get(d)!.length);
      if (!depths.length) return;
      const depth = Math.min(...depths);
      const level = this.pending.get(depth)!;
      this.pending.set(depth, []);
      await this.eachByHost(level, (item, leave) => this.visit(item, leave));
      if (this.fetches >= this.plan.max_pages) return;
    }
  }

  /**
   * The lanes (max_concurrent_scrapes) over frontier URLs: each free lane takes a URL of a host
   * that can take a request now, so a level grouped by host still keeps every host busy.
   */
  private eachByHost<T extends { url: string }>(
    items: T[],
    work: (item: T, leave: () => void) => Promise<void>,
  ): Promise<void> {
    return eachByHost({
      items,
      hostOf: (item) => new URL(item.url).host,
      lanes: this.wctx.settings.max_concurrent_scrapes,
      perHost: this.plan.crawler.per_host_concurrency,
      stop: () => this.wctx.shouldStop(),
      waitMs: (host) => this.sched.waitMs(host),
      work,
    });
  }

  /** Rebuilds the frontier from the recorded one; false when there is none (a fresh crawl). */
  private restore(): boolean {
    const rows = (this.wctx.resume as CrawlResume | undefined)?.rows ?? [];
    for (const [url, depth, status, fetched, hash] of rows) {
      this.known.add(url);
      if (fetched) this.fetches++;
      if (status === 'fetched' && hash) this.hashes.add(hash);
      if (status === 'pending')
        this.queue({ url, depth, status, reason: null, detail: null, from: null });
    }
    return rows.length > 0;
  }

  private queue(f: FoundUrl): void {
    const list = this.pending.get(f.depth) ?? [];
    list.push(f);
    this.pending.set(f.depth, list);
  }

  /** Start URLs and, when asked, the sitemaps of their hosts: one result, depth 0. */
  private async seed(): Promise<void> {
    const found: FoundUrl[] = [];
    for (const url of this.plan.start_urls) {
      if (this.known.has(url)) continue;
      this.known.add(url);
      found.push({ url, depth: 0, status: 'pending', reason: null, detail: null, from: null });
    }
    if (this.plan.use_sitemaps) {
      for (const loc of await this.sitemapUrls()) {
        this.listed.add(loc);
        const f = this.classify(loc, 0, null);
        if (f) found.push({ ...f, detail: f.detail ?? 'Listed in a sitemap' });
      }
    }
    for (const f of found) if (f.status === 'pending') this.queue(f);
    await this.wctx.emit({ page: null, found });
  }

  /** A new URL's place in the frontier, or null when known already (or the frontier is full). */
  private classify(url: string, depth: number, from: string | null): FoundUrl | null {
    if (this.known.has(url) || this.known.size >= this.maxKnown) return null;
    this.known.add(url);
    const base = { url, depth, from };
    if (!inScope(url, this.plan.start_urls, this.plan.scope)) {
      return {
        ...base,
        status: 'skipped',
        reason: 'scope',
        detail: `Outside the ${this.plan.scope} scope`,
      };
    }
    if (this.pattern(url) === 'pattern') {
      return {
        ...base,
        status: 'skipped',
        reason: 'pattern',
        detail: 'Refused by the include/exclude patterns',
      };
    }
    return { ...base, status: 'pending', reason: null, detail: null };
  }

  /** Sitemap entries of the start hosts: robots.txt Sitemap lines and /sitemap.xml, indexes followed. */
  private async sitemapUrls(): Promise<string[]> {
    const todo: string[] = [];
    // Every host's robots.txt asked at once (read in turn below; a stop may leave one unread).
    for (const start of this.plan.start_urls) this.robotsFor(new URL(start).origin).catch(() => {});
    for (const start of this.plan.start_urls) {
      const origin = new URL(start).origin;
      const robots = await this.robotsFor(origin);
      for (const s of [...robots.sitemaps, `${origin}/sitemap.xml`]) {
        const key = normaliseUrl(s);
        if (key && !todo.includes(key)) todo.push(key);
      }
    }
    const locs: string[] = [];
    const limit = this.maxKnown;
    // The files are read ahead (as many as the lanes), so several hosts' sitemaps are fetched at
    // once, each at its host's pace; they are taken in list order, as read one by one.
    const reads = new Map<number, Promise<ParsedSitemap | null>>();
    const ahead = Math.max(1, this.wctx.settings.max_concurrent_scrapes);
    const readAhead = (from: number) => {
      for (let j = from; j < todo.length && j < from + ahead && j < MAX_SITEMAP_FILES; j++) {
        if (reads.has(j)) continue;
        const read = this.readSitemap(todo[j]!);
        read.catch(() => {}); // awaited in turn below; a stop may leave it unawaited
        reads.set(j, read);
      }
    };
    for (let i = 0; i < todo.length && i < MAX_SITEMAP_FILES; i++) {
      if (await this.wctx.shouldStop()) break;
      readAhead(i);
      const parsed = await reads.get(i)!;
      reads.delete(i);
      if (!parsed) continue;
      for (const e of parsed.entries) {
        const key = normaliseUrl(e.loc);
        if (!key) continue;
        if (parsed.kind === 'index') {
          if (!todo.includes(key)) todo.push(key);
        } else if (locs.length < limit) locs.push(key);
        else this.sitemapTrouble = true;
      }
      if (parsed.truncated) this.sitemapTrouble = true;
    }
    if (todo.length > MAX_SITEMAP_FILES) this.sitemapTrouble = true;
    return locs;
  }

  /** One sitemap file, or null when it cannot be had (a missing /sitemap.xml is common). */
  private async readSitemap(url: string): Promise<ParsedSitemap | null> {
    const host = new URL(url).host;
    const release = await this.sched.acquire(host, this.wctx.signal);
    let res: FetchResult;
    try {
      res = await this.polite.fetch(url, {
        accept: 'application/xml,text/xml;q=0.9,*/*;q=0.5',
        guard: denyGuard(this.wctx.rules),
      });
    } catch (e) {
      // No sitemap there is common; anything else means this run's listing may be incomplete.
      const status = isFetchError(e, 'http_status') ? e.upstreamStatus : null;
      if (status !== 404 && status !== 410) this.sitemapTrouble = true;
      return null;
    } finally {
      release();
    }
    try {
      this.sitemapsRead++;
      // Parsed (and inflated, bounded) on an engine thread under the task budget.
      return await this.wctx.engine.parseSitemap(
        new Uint8Array(res.body),
        {
          url: res.url,
          contentType: res.contentType,
          gz: new URL(res.url).pathname.endsWith('.gz'),
        },
        {
          timeoutS: this.wctx.settings.task_timeout_seconds,
          ...(this.wctx.signal && { signal: this.wctx.signal }),
        },
      );
    } catch {
      this.sitemapTrouble = true;
      return null;
    }
  }

  /** The host's robots.txt, fetched once per run; its Crawl-delay set on the scheduler. */
  private robotsFor(origin: string): Promise<RobotsRules> {
    let rules = this.robots.get(origin);
    if (!rules) {
      rules = this.fetchRobots(origin);
      this.robots.set(origin, rules);
    }
    return rules;
  }

  private async fetchRobots(origin: string): Promise<RobotsRules> {
    const host = new URL(origin).host;
    const release = await this.sched.acquire(host, this.wctx.signal);
    let answer: FetchResult | null = null;
    let status: number | null = null;
    try {
      answer = await this.polite.fetch(`${origin}/robots.txt`, {
        accept: 'text/plain,*/*;q=0.5',
        guard: denyGuard(this.wctx.rules),
      });
    } catch (e) {
      status = isFetchError(e, 'http_status') ? (e.upstreamStatus ?? null) : null;
    } finally {
      // The host's first request opened the connection, which may have taken a while after its
      // start: the next request is spaced from this answer instead.
      this.sched.touch(host);
      release();
    }
    // Read once per host, on an engine thread under the task budget (its first 500 KiB only).
    // A parse that fails or runs out of time counts as no answer: nothing is fetched.
    const rules = answer
      ? await this.wctx.engine
          .parseRobots(answer.body, this.plan.crawler.user_agent, {
            timeoutS: this.wctx.settings.task_timeout_seconds,
            ...(this.wctx.signal && { signal: this.wctx.signal }),
          })
          .catch(() => robotsFromStatus(null)!)
      : (robotsFromStatus(status) ?? robotsFromStatus(null)!);
    this.sched.setCrawlDelay(host, rules.crawlDelayS);
    return rules;
  }

  /** Fetches one frontier URL (politely, robots permitting), processes it, emits the outcome. */
  private async visit(item: FoundUrl, leave: () => void): Promise<void> {
    const { url, depth } = item;
    const base = { url, depth, http_status: null, detail: null, content_hash: null };
    const robots = await this.robotsFor(new URL(url).origin);
    if (!robots.allowed(robotsPath(url))) {
      const page: PageOutcome = {
        ...base,
        status: 'skipped',
        reason: 'robots',
        fetched: false,
        detail: 'Disallowed by robots.txt',
      };
      return this.wctx.emit({ page, found: [] });
    }
    // Left pending in the frontier: the crawl ends at max_pages.
    if (this.fetches >= this.plan.max_pages) return;
    this.fetches++;
    const outcome = await this.fetchAndProcess(item, leave);
    if (!outcome) return; // stopped meanwhile: the URL stays pending
    await this.wctx.emit(outcome);
  }

  /** `leave` is called once the host's slot is free (our work on the answer needs no host). */
  private async fetchAndProcess(item: FoundUrl, leave: () => void): Promise<CrawlResult | null> {
    const { url, depth } = item;
    const host = new URL(url).host;
    const { signal, settings } = this.wctx;
    const fetched = { url, depth, fetched: true as const };
    let extracted: CrawlExtract | null = null;
    let response: FetchResult | null = null;
    for (let attempt = 0; ; attempt++) {
      const release = await this.sched.acquire(host, signal).catch(() => null);
      if (!release) return null;
      try {
        await fetchUrl(
          this.polite,
          url,
          this.wctx.rules,
          null,
          async (res, rule) => {
            // The host's slot is for the request, not for our CPU work on its answer.
            release();
            leave();
            response = res;
            const x = await this.wctx.engine.extract(res, rule, {
              timeoutS: settings.task_timeout_seconds,
              ...(signal && { signal }),
            });
            extracted = x as typeof x & CrawlExtract;
            return x;
          },
          signal,
        );
        this.sched.succeeded(host);
        break;
      } catch (e) {
        release();
        if (signal?.aborted) return null;
        const status = isFetchError(e, 'http_status') ? (e.upstreamStatus ?? null) : null;
        if ((status === 429 || status === 503) && attempt < MAX_RETRIES) {
          this.sched.backoff(host, isFetchError(e) ? e.retryAfter : null);
          continue;
        }
        if (status !== 429 && status !== 503) this.sched.succeeded(host);
        const error = errorOf(e);
        const tooLarge = isFetchError(e, 'too_large');
        return {
          page: {
            ...fetched,
            status: tooLarge ? 'skipped' : 'failed',
            reason: tooLarge ? 'too_large' : 'error',
            http_status: status,
            detail: error.message,
            content_hash: null,
            ...(!tooLarge && { error }),
          },
          found: [],
        };
      }
    }
    const res = response as FetchResult | null;
    const x = extracted as CrawlExtract | null;
    if (!res || !x) return null;
    const found: FoundUrl[] = [];
    const finalUrl = normaliseUrl(res.url) ?? url;
    let ok = { ...fetched, http_status: res.status };
    const skip = (reason: CrawlSkipReason, detail: string, alias?: CrawlResult['alias']) => {
      for (const f of found) if (f.status === 'pending') this.queue(f);
      const page = { ...ok, status: 'skipped' as const, reason, detail, content_hash: null };
      return { page, found, ...(alias && { alias }) };
    };
    // Redirected: the page is the target's (the requested URL is recorded as its alias), unless
    // the target is known already or refused.
    let alias: CrawlResult['alias'];
    if (finalUrl !== url) {
      const f = this.classify(finalUrl, depth, url);
      if (!f) return skip('duplicate', `Redirects to ${finalUrl}, already in the crawl`);
      if (f.status === 'skipped') return skip(f.reason!, `Redirects to ${finalUrl}: ${f.detail}`);
      alias = { url, detail: `Redirects to ${finalUrl}` };
      ok = { ...ok, url: finalUrl };
    }
    const pageUrl = ok.url;

    // Links first: a page skipped below (noindex, duplicate) still leads on, unless nofollow.
    if (!x.robotsMeta?.nofollow && depth < this.plan.max_depth) {
      for (const link of (x.links ?? []).slice(0, MAX_LINKS_PER_PAGE)) {
        const key = normaliseUrl(link, res.url);
        const f = key ? this.classify(key, depth + 1, pageUrl) : null;
        if (f) found.push(f);
      }
    }
    // A canonical link naming another URL: that one is crawled instead.
    const canonical = canonicalOf(x, res.url, pageUrl);
    if (canonical) {
      const f = this.classify(canonical, depth, pageUrl);
      if (f) found.push(f);
      return skip('duplicate', `Its canonical URL is ${canonical}`, alias);
    }
    if (x.robotsMeta?.noindex)
      return skip('noindex', 'The page asks not to be indexed (noindex)', alias);
    const hash = sha256(x.text);
    if (this.hashes.has(hash))
      return skip('duplicate', 'Same content as a page already crawled', alias);
    this.hashes.add(hash);
    try {
      const analysis = await this.wctx.engine.analyze(x.text, this.plan.language, settings, {
        ...(signal && { signal }),
      });
      for (const f of found) if (f.status === 'pending') this.queue(f);
      return {
        page: {
          ...ok,
          status: 'fetched',
          reason: null,
          detail: null,
          content_hash: hash,
          page: { title: x.title || null, analysis, validators: validatorsOf(res) },
        },
        found,
        ...(alias && { alias }),
      };
    } catch (e) {
      if (signal?.aborted) return null;
      this.hashes.delete(hash);
      const error = errorOf(e);
      for (const f of found) if (f.status === 'pending') this.queue(f);
      return {
        page: {
          ...ok,
          status: 'failed',
          reason: 'error',
          detail: error.message,
          content_hash: null,
          error,
        },
        found,
        ...(alias && { alias }),
      };
    }
  }
}

/** The page's canonical URL when it names another page, else null. */
function canonicalOf(x: CrawlExtract, pageUrl: string, url: string): string | null {
  if (!x.canonical) return null;
  const c = normaliseUrl(x.canonical, pageUrl);
  return c && c !== url ? c : null;
}
