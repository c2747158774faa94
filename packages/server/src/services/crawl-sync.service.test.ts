import { describe, expect, it } from 'vitest';
import type { CrawlResult } from '../queue/crawl-results.js';
import type { JobRow } from '../store/job.repository.js';
import {
  CrawlSyncService,
  PROGRESS_EVERY_MS,
  UNCHANGED_BATCH,
  UNCHANGED_FLUSH_MS,
} from './crawl-sync.service.js';

describe('CrawlSyncService.progressDue', () => {
  it("lets a sync's running figures through at most once per PROGRESS_EVERY_MS of its clock", () => {
    let t = 1_000;
    // progressDue reads only the clock.
    const service = new CrawlSyncService({ now: () => t } as never);
    expect(service.progressDue(7)).toBe(true);
    expect(service.progressDue(7)).toBe(false);
    t += PROGRESS_EVERY_MS - 1;
    expect(service.progressDue(7)).toBe(false);
    // Another sync has its own pace.
    expect(service.progressDue(8)).toBe(true);
    t += 1;
    expect(service.progressDue(7)).toBe(true);
    expect(service.progressDue(7)).toBe(false);
    // A clock set back does not silence the figures.
    t -= 10_000;
    expect(service.progressDue(7)).toBe(true);
  });
});

/**
 * The recording half over a counting store: transactions, the pages each one wrote and the
 * crawl's counts; the flush timer fires when the test says.
 */
function recorder() {
  const store = {
    transactions: 0,
    written: [] as string[][],
    unchanged: 0,
    ended: false,
    /** Calls to the crawl's store, and pages recorded with a savepoint of their own. */
    calls: { holds: 0, addCounts: 0, markInSitemap: 0, listed: [] as string[], savepoints: 0 },
  };
  let open: string[] | null = null;
  const timers: { fn: () => void; ms: number; live: boolean }[] = [];
  const service = new CrawlSyncService({
    crawls: {
      atomically: <T>(fn: () => T): T => {
        if (open) return fn();
        store.transactions++;
        open = [];
        try {
          return fn();
        } finally {
          store.written.push(open);
          open = null;
        }
      },
      holds: () => {
        store.calls.holds++;
        return !store.ended;
      },
      addCounts: (_job: number, c: { pages_unchanged?: number }) => {
        store.calls.addCounts++;
        store.unchanged += c.pages_unchanged ?? 0;
      },
      markInSitemap: () => void store.calls.markInSitemap++,
      markAllInSitemap: (_crawl: number, urls: string[]) => {
        store.calls.markInSitemap++;
        store.calls.listed.push(...urls);
      },
      endSync: () => {
        store.ended = true;
        return undefined;
      },
      release: () => {},
    },
    sourceSyncs: {
      record: (work: { url: string }, _job: JobRow, opts: { batched?: boolean } = {}) => {
        if (!open) throw new Error('a page written outside a transaction');
        if (!opts.batched) store.calls.savepoints++;
        open.push(work.url);
        return {
          failed: null,
          outcome: 'unchanged',
          counts: { pages_unchanged: 1 },
          segments_added: 0,
        };
      },
    },
    bus: { emit: () => {} },
    log: { info: () => {}, warn: () => {} },
    later: (fn: () => void, ms: number) => {
      const t = { fn, ms, live: true };
      timers.push(t);
      return () => void (t.live = false);
    },
  } as never);
  const job = { id: 3, started_at: null } as JobRow;
  const unchanged = (n: number, in_sitemap = false): CrawlResult =>
    ({
      page: null,
      found: [],
      synced: {
        in_sitemap,
        work: { source_id: n, url: `/p/${n}`, outcome: 'unchanged', validators: {} },
      },
    }) as unknown as CrawlResult;
  const fire = () => {
    for (const t of timers.splice(0)) if (t.live) t.fn();
  };
  return { service, store, job, unchanged, timers, fire };
}

describe("CrawlSyncService.record: a crawl's unchanged pages", () => {
  it('are written UNCHANGED_BATCH at a time, by the timer, and before the last result: every page once', () => {
    const { service, store, job, unchanged, timers, fire } = recorder();
    const pages = UNCHANGED_BATCH + 10;
    for (let n = 0; n < pages; n++) expect(service.record(1, unchanged(n), job, 'en')).toBeNull();
    // A full batch in one transaction; the rest wait for the timer.
    expect(store.written.map((w) => w.length)).toEqual([UNCHANGED_BATCH]);
    expect(timers.filter((t) => t.live).map((t) => t.ms)).toEqual([UNCHANGED_FLUSH_MS]);
    fire();
    expect(store.written.map((w) => w.length)).toEqual([UNCHANGED_BATCH, 10]);

    // Waiting pages are written before the last result closes the sync.
    for (let n = pages; n < pages + 3; n++) service.record(1, unchanged(n), job, 'en');
    service.record(1, { page: null, found: [], finished: true }, job, 'en');
    expect(store.written.map((w) => w.length)).toEqual([UNCHANGED_BATCH, 10, 3, 0]);
    expect(store.unchanged).toBe(pages + 3);
    const urls = store.written.flat();
    expect(new Set(urls).size).toBe(pages + 3);
    expect(store.transactions).toBe(4);
    // The timer of the pages written by the last result does nothing more.
    fire();
    expect(store.transactions).toBe(4);
  });

  it("are written before the sync's state is read (a resumed run)", () => {
    const { service, store, job, unchanged } = recorder();
    service.record(1, unchanged(1), job, 'en');
    service.record(1, unchanged(2), job, 'en');
    expect(store.written).toEqual([]);
    // state() reads the store next: it fails on the stub, after the flush.
    expect(() => service.state(1, job.id)).toThrow();
    expect(store.written).toEqual([['/p/1', '/p/2']]);
  });

  it("touch the crawl's rows once per batch, and each page's source without a savepoint of its own", () => {
    const { service, store, job, unchanged } = recorder();
    for (let n = 0; n < UNCHANGED_BATCH; n++)
      service.record(1, unchanged(n, n % 2 === 0), job, 'en');
    expect(store.written.map((w) => w.length)).toEqual([UNCHANGED_BATCH]);
    expect(store.calls).toEqual({
      holds: 1,
      addCounts: 1,
      markInSitemap: 1,
      listed: Array.from({ length: UNCHANGED_BATCH / 2 }, (_, i) => `/p/${2 * i}`),
      savepoints: 0,
    });
    expect(store.unchanged).toBe(UNCHANGED_BATCH);
  });
});
