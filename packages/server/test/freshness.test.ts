import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { syncOne } from '../src/jobs/sync-sources.job.js';
import { SafeFetcher } from '../src/scraping/safe-fetcher.js';
import { ARTICLES } from './corpus.js';
import { generatePage } from './fixtures/fixture-pages.js';
import { articleHtml, startFreshnessSite, type FreshnessSite } from './fixtures/freshness-site.js';
import { startServer, tempDir, testClock, type TestServer } from './helpers.js';
import { HAS_REDIS, REDIS_SKIP_REASON, startRedis } from './redis-helpers.js';
import { startFreshnessSetup, type EngineCounter } from './sync-setup.js';
import { until } from './until.js';

const PARAGRAPHS = Object.values(ARTICLES).flatMap((a) => a.split(/\n\n+/));
/**
 * Paragraphs no other page of these tests has: snippets are unique by text across sources, so
 * two pages sharing a paragraph would share (and one would lack) its snippets.
 */
const own = (n: number) =>
  [0, 1, 2].flatMap((k) => generatePage(n * 3 + k).body.filter((p) => !p.startsWith('## ')));
const NEW_PARAGRAPH =
  'Lighthouse keepers once trimmed the wicks of their lamps every few hours through the night, ' +
  'climbing the spiral stairs with oil cans and cloths. The Fresnel lens, made of concentric ' +
  'rings of glass prisms, bent the weak flame into a beam that sailors could see from twenty ' +
  'miles away. Most lights were automated in the twentieth century, and the keepers left.';

describe('keeping web sources fresh', () => {
  let setup: Awaited<ReturnType<typeof startFreshnessSetup>>;
  let site: FreshnessSite;
  let s: TestServer;
  let counter: EngineCounter;

  const api = (p: string, method = 'GET', body?: unknown) => setup.api(p, method, body);
  const snippetsOf = (url: string) => setup.snippetsOf(url);

  const ingest = (path: string) => setup.ingest(path);
  const sync = (id: number) => setup.sync(id);

  beforeAll(async () => {
    setup = await startFreshnessSetup();
    ({ site, s, counter } = setup);
  });
  afterAll(async () => {
    await setup?.close();
  });

  it('sends If-None-Match and counts a 304 as unchanged with no extraction, analysis or embedding', async () => {
    site.set('/etag', { html: articleHtml('Etag page', PARAGRAPHS), etag: true });
    const id = await ingest('/etag');
    const before = snippetsOf(`${site.url}/etag`);
    expect(before.length).toBeGreaterThan(2);

    // process_urls stored the page's ETag: even the first sync is a conditional request, a 304
    // with no extraction, analysis or embedding.
    counter.reset();
    const first = await sync(id);
    expect(first.last).toMatchObject({ outcome: 'unchanged', pages_unchanged: 1, reembedded: 0 });
    expect(counter.c).toEqual({ extract: 0, analyze: 0, embedded: 0 });
    expect(site.notModified('/etag')).toBe(1);

    counter.reset();
    const second = await sync(id);
    expect(second.job.status).toBe('completed');
    expect(second.last).toMatchObject({
      outcome: 'unchanged',
      pages_unchanged: 1,
      segments_kept: before.length,
      reembedded: 0,
    });
    const reqs = site.requests('/etag');
    expect(reqs.at(-1)!['if-none-match']).toMatch(/^"[0-9a-f]{16}"$/);
    expect(site.notModified('/etag')).toBe(2);
    expect(counter.c).toEqual({ extract: 0, analyze: 0, embedded: 0 });
    expect(snippetsOf(`${site.url}/etag`)).toEqual(before);

    const source = (await api(`/sources/list?search=${encodeURIComponent('/etag')}`)).body
      .sources[0];
    expect(source.last_sync).toMatchObject({ outcome: 'unchanged', pages_unchanged: 1 });
    expect(source.last_sync_at).not.toBeNull();
  });

  it('sends If-Modified-Since, and without validators compares the content hash: no processing either way', async () => {
    const lm = 'Wed, 21 Oct 2026 07:28:00 GMT';
    site.set('/lm', { html: articleHtml('LM page', own(11)), lastModified: lm });
    site.set('/plain', { html: articleHtml('Plain page', own(12)) });
    const lmId = await ingest('/lm');
    const plainId = await ingest('/plain');
    // Validators stored at ingest: the first syncs already process nothing.
    counter.reset();
    await sync(lmId);
    await sync(plainId);

    const lmSync = await sync(lmId);
    expect(site.requests('/lm').at(-1)!['if-modified-since']).toBe(lm);
    expect(site.notModified('/lm')).toBe(2);
    const plainSync = await sync(plainId);
    expect(site.requests('/plain').at(-1)!['if-none-match']).toBeUndefined();
    expect(lmSync.last.outcome).toBe('unchanged');
    expect(plainSync.last.outcome).toBe('unchanged');
    expect(counter.c).toEqual({ extract: 0, analyze: 0, embedded: 0 });
  });

  it('embeds only the segments of a changed paragraph; unchanged snippets keep their ids', async () => {
    const url = `${site.url}/changing`;
    site.set('/changing', { html: articleHtml('Changing', own(10)), etag: true });
    const id = await ingest('/changing');
    await sync(id);
    const before = snippetsOf(url);

    const changed = [...own(10)];
    changed[3] = NEW_PARAGRAPH;
    site.set('/changing', { html: articleHtml('Changing', changed), etag: true });
    counter.reset();
    const { last } = await sync(id);
    const after = snippetsOf(url);

    expect(last.outcome).toBe('changed');
    expect(last.pages_changed).toBe(1);
    const beforeIds = new Map(before.map((r) => [r.text, r.id]));
    const kept = after.filter((r) => beforeIds.get(r.text) === r.id);
    const added = after.filter((r) => !beforeIds.has(r.text));
    const removed = before.filter((r) => !after.some((a) => a.text === r.text));
    expect(added.length).toBeGreaterThan(0);
    expect(kept.length).toBeGreaterThan(0);
    expect(removed.length).toBeGreaterThan(0);
    expect(added.some((r) => r.text.includes('Fresnel'))).toBe(true);
    // Only the new texts were embedded, counted in the engine and in the sync's record.
    expect(counter.c.analyze).toBe(1);
    expect(counter.c.embedded).toBe(added.length);
    expect(last).toMatchObject({
      reembedded: added.length,
      segments_added: added.length,
      segments_kept: kept.length,
      segments_removed: removed.length,
    });
    expect(kept.length + added.length).toBe(after.length);
    // The removed snippets' vectors went with them; the kept ones are still in the index.
    const index = s.adam.services.index;
    for (const r of removed) expect(index.has(r.id)).toBe(false);
    await until(() => kept.every((r) => index.has(r.id)) && added.every((r) => index.has(r.id)));
    const source = (await api(`/sources/list?search=${encodeURIComponent('/changing')}`)).body
      .sources[0];
    expect(source.segments_count).toBe(after.length);
  });

  it('keeps the old content on 503 and on a reset connection, and never counts them as missing', async () => {
    const url = `${site.url}/flaky`;
    site.set('/flaky', { html: articleHtml('Flaky', own(13)), etag: true });
    const id = await ingest('/flaky');
    const before = snippetsOf(url);
    expect(before.length).toBeGreaterThan(0);

    site.set('/flaky', { html: '', status: 503 });
    const a = await sync(id);
    site.set('/flaky', { html: '', fault: 'reset' });
    const b = await sync(id);
    // A 200 that now holds no usable text (an error page) does not empty the source either.
    site.set('/flaky', { html: articleHtml('Oops', ['Something went wrong.']) });
    const c = await sync(id);
    expect(String(c.last.error)).toContain('old content is kept');
    for (const r of [a, b, c]) {
      expect(r.last).toMatchObject({ outcome: 'failed', pages_failed: 1, segments_removed: 0 });
    }
    expect(String(a.last.error)).toContain('503');
    expect(snippetsOf(url)).toEqual(before);
    const preview = await api('/sources/prune/preview');
    expect(preview.body.candidates.some((c: { id: number }) => c.id === id)).toBe(false);
    const source = (await api(`/sources/list?search=${encodeURIComponent('/flaky')}`)).body
      .sources[0];
    expect(source.missing_count).toBe(0);
  });

  it('counts a 410 as missing, prunes it at the threshold, and shows the dry run first', async () => {
    const goneUrl = `${site.url}/gone`;
    const lostUrl = `${site.url}/lost`;
    site.set('/gone', { html: articleHtml('Gone', own(14)) });
    site.set('/lost', { html: articleHtml('Lost', own(15)) });
    const gone = await ingest('/gone');
    const lost = await ingest('/lost');
    const goneSnippets = snippetsOf(goneUrl).length;
    const lostSnippets = snippetsOf(lostUrl).length;
    expect(goneSnippets).toBeGreaterThan(0);

    site.set('/gone', { html: '', status: 410 });
    site.set('/lost', { html: '', status: 404 });
    const first = await sync(gone);
    await sync(lost);
    expect(first.last).toMatchObject({ outcome: 'missing', pages_removed: 0 });
    expect(snippetsOf(goneUrl).length).toBe(goneSnippets);

    const preview = (await api('/sources/prune/preview')).body;
    expect(preview.threshold).toBe(2);
    const ids = preview.candidates.map((c: { id: number }) => c.id).sort();
    expect(ids).toEqual([gone, lost].sort());
    expect(preview).toMatchObject({ sources: 2, snippets: goneSnippets + lostSnippets });

    // The second sync in a row that finds /gone gone prunes it with its snippets.
    const second = await sync(gone);
    expect(second.job.metadata.result).toMatchObject({
      pages_removed: 1,
      segments_removed: goneSnippets,
    });
    expect(snippetsOf(goneUrl)).toEqual([]);
    expect((await api(`/sources/${gone}/syncs`)).status).toBe(404);

    // /lost went once: only the operator's confirmation removes it, with the previewed counts.
    const now = (await api('/sources/prune/preview')).body;
    expect(now).toMatchObject({ sources: 1, snippets: lostSnippets });
    const bad = await api('/sources/prune', 'POST', { source_ids: [999_999] });
    expect(bad.status).toBe(422);
    const pruned = await api('/sources/prune', 'POST', {});
    expect(pruned.body).toMatchObject({ sources_deleted: 1, snippets_deleted: lostSnippets });
    expect(snippetsOf(lostUrl)).toEqual([]);
    expect((await api('/sources/prune/preview')).body.sources).toBe(0);

    const feed = await api('/analytics/activity/recent?limit=50');
    const lines = JSON.stringify(feed.body);
    expect(lines).toContain('gone, pruned with');
  });

  it('answers 409 to a second Sync now while the first is running, and the scheduler skips the held source', async () => {
    site.set('/held', { html: articleHtml('Held', PARAGRAPHS.slice(0, 3)) });
    const id = await ingest('/held');
    site.set('/held', { html: articleHtml('Held', PARAGRAPHS.slice(0, 3)), fault: 'hold' });
    const first = await api(`/sources/${id}/sync`, 'POST');
    expect(first.status).toBe(200);
    await until(() => site.requests('/held').length === 2);
    const second = await api(`/sources/${id}/sync`, 'POST');
    expect(second.status).toBe(409);
    expect(second.body.detail).toContain(`job ${first.body.job_id}`);
    expect(s.adam.services.sourceSyncs.queueSync([id], 'schedule')).toBeNull();
    // A sync job made past the service (a relaunch) does not hold the source: it changes nothing.
    const row = s.adam.db
      .prepare('SELECT urls, input FROM jobs WHERE id = ?')
      .get(first.body.job_id) as { urls: string; input: string };
    const rogue = s.adam.services.jobs.create({
      type: 'sync_sources',
      urls: JSON.parse(row.urls) as string[],
      input: JSON.parse(row.input) as unknown,
    });
    site.set('/held', { html: articleHtml('Held', PARAGRAPHS.slice(0, 3)) });
    site.release();
    await s.adam.services.jobs.waitForEnd(first.body.job_id, 60_000);
    await s.adam.services.jobs.waitForEnd(rogue.id, 60_000);
    const outcomes = (await api(`/sources/${id}/syncs`)).body.syncs.map(
      (y: { job_id: number; outcome: string }) => [y.job_id, y.outcome],
    );
    expect(outcomes).toContainEqual([rogue.id, 'skipped']);
    expect(outcomes).toContainEqual([first.body.job_id, 'unchanged']);
    const third = await api(`/sources/${id}/sync`, 'POST');
    expect(third.status).toBe(200);
    await s.adam.services.jobs.waitForEnd(third.body.job_id, 60_000);
  });

  it('validates schedules with clear 422s', async () => {
    site.set('/sched', { html: articleHtml('Sched', PARAGRAPHS.slice(0, 3)) });
    const id = await ingest('/sched');
    const put = (schedule: unknown) => api(`/sources/${id}/schedule`, 'PUT', { schedule });
    const three = await put('* * *');
    expect(three.status).toBe(422);
    expect(three.body.detail).toContain('five fields');
    expect(three.body.detail).toContain('it has 3 fields');
    const range = await put('61 * * * *');
    expect(range.status).toBe(422);
    expect(range.body.detail).toContain('61');
    expect((await put('@daily')).status).toBe(422);
    expect((await put('* * * * * *')).status).toBe(422);
    expect((await put('')).status).toBe(422);
    expect((await api(`/sources/999999/schedule`, 'PUT', { schedule: 'daily' })).status).toBe(404);

    const cron = await put('*/15  *  * * *');
    expect(cron.status).toBe(200);
    expect(cron.body.schedule).toBe('*/15 * * * *');
    const next = Date.parse(cron.body.next_sync_at);
    expect(next).toBeGreaterThan(s.clock.now());
    expect(new Date(next).getUTCMinutes() % 15).toBe(0);
    const daily = await put('Daily');
    expect(daily.body).toMatchObject({ schedule: 'daily' });
    expect(Date.parse(daily.body.next_sync_at)).toBe(s.clock.now() + 86_400_000);
    const off = await put('off');
    expect(off.body).toMatchObject({ schedule: 'off', next_sync_at: null });
  });
});

describe('sync schedules across a restart', () => {
  it('runs a sync missed while the server was down once at start, then plans from now', async () => {
    const site = await startFreshnessSite();
    const dataDir = tempDir();
    const clock = testClock(Date.UTC(2026, 10, 26, 9, 0, 0));
    const env = { ADAM_FETCH_ALLOW: `127.0.0.1:${site.port}` };
    site.set('/daily', { html: articleHtml('Daily', PARAGRAPHS.slice(0, 4)), etag: true });
    let s = await startServer({ env, dataDir, clock });
    try {
      let key = await s.login();
      const url = `${site.url}/daily`;
      const r = await s.api('/api/v1/sources/process', {
        method: 'POST',
        key,
        body: { urls: [url] },
      });
      await s.adam.services.jobs.waitForEnd(r.body.job_id, 60_000);
      const id = (await s.api('/api/v1/sources/list', { key })).body.sources[0].id as number;
      const put = await s.api(`/api/v1/sources/${id}/schedule`, {
        method: 'PUT',
        key,
        body: { schedule: 'hourly' },
      });
      expect(put.body.next_sync_at).toBe(new Date(clock.now() + 3_600_000).toISOString());
      // Not due yet: a tick queues nothing.
      expect(s.adam.services.syncScheduler.tick()).toEqual([]);
      await s.close();

      // Down for five hours and a half: five runs were missed, one runs.
      clock.advance(5.5 * 3_600_000);
      s = await startServer({ env, dataDir, clock });
      key = await s.login();
      const syncJobs = () => s.adam.services.jobs.pendingOfType('sync_sources').length;
      const all = () =>
        s.adam.db
          .prepare("SELECT id FROM jobs WHERE type = 'sync_sources'")
          .pluck()
          .all() as number[];
      expect(all().length).toBe(1);
      await s.adam.services.jobs.waitForEnd(all()[0]!, 60_000);
      expect(s.adam.services.syncScheduler.tick()).toEqual([]);
      expect(syncJobs()).toBe(0);
      const source = (await s.api('/api/v1/sources/list', { key })).body.sources[0];
      expect(source.next_sync_at).toBe(new Date(clock.now() + 3_600_000).toISOString());
      expect(source.last_sync).toMatchObject({ outcome: 'unchanged' });

      // An hour later the next one is due, once.
      clock.advance(3_600_000);
      const queued = s.adam.services.syncScheduler.tick();
      expect(queued).toHaveLength(1);
      expect(s.adam.services.syncScheduler.tick()).toEqual([]);
      await s.adam.services.jobs.waitForEnd(queued[0]!, 60_000);
      // Both syncs were 304s: the ETag was stored when the page was ingested.
      expect(site.notModified('/daily')).toBe(2);
    } finally {
      await s.close();
      await site.close();
    }
    // Two servers started and stopped in turn, each with its engine threads: on a loaded 2-core
    // machine that alone came near the default 30 s.
  }, 120_000);
});

describe('a sync that cannot reach its page in time', () => {
  it('fails the sync (old content kept) on a timeout', async () => {
    const site = await startFreshnessSite();
    site.set('/slow', { html: articleHtml('Slow', PARAGRAPHS.slice(0, 2)), fault: 'hold' });
    const fetcher = new SafeFetcher({ allow: [`127.0.0.1:${site.port}`], timeoutMs: 200 });
    try {
      const work = await syncOne(
        { fetcher, engine: null as never },
        {
          source_id: 1,
          url: `${site.url}/slow`,
          etag: null,
          last_modified: null,
          content_hash: null,
          known: [],
        },
        [],
        {} as never,
        'auto',
      );
      expect(work).toMatchObject({ outcome: 'failed', error: { error: 'timeout' } });
    } finally {
      await fetcher.close();
      await site.close();
    }
  });
});

describe.skipIf(!HAS_REDIS)(
  `a sync in the Redis mode${HAS_REDIS ? '' : ` (skipped: ${REDIS_SKIP_REASON})`}`,
  () => {
    it('runs the working half on an `adam worker` and records only the new segments', async () => {
      const redis = await startRedis();
      const site = await startFreshnessSite();
      const s = await startServer({
        env: {
          REDIS_URL: redis.url,
          ADAM_WORKERS: '1',
          ADAM_FETCH_ALLOW: `127.0.0.1:${site.port}`,
        },
      });
      try {
        await s.adam.queueStarted;
        const key = await s.login();
        const url = `${site.url}/redis`;
        site.set('/redis', { html: articleHtml('Redis', own(20)), etag: true });
        const r = await s.api('/api/v1/sources/process', {
          method: 'POST',
          key,
          body: { urls: [url] },
        });
        expect((await s.adam.services.jobs.waitForEnd(r.body.job_id, 60_000)).status).toBe(
          'completed',
        );
        const id = (await s.api('/api/v1/sources/list', { key })).body.sources[0].id as number;
        const ids = () =>
          s.adam.db.prepare('SELECT id, text FROM snippets WHERE source_url = ?').all(url) as {
            id: number;
            text: string;
          }[];
        const before = ids();

        const changed = own(20);
        changed[1] = NEW_PARAGRAPH;
        site.set('/redis', { html: articleHtml('Redis', changed), etag: true });
        const sync = await s.api(`/api/v1/sources/${id}/sync`, { method: 'POST', key });
        expect(sync.status).toBe(200);
        const job = await s.adam.services.jobs.waitForEnd(sync.body.job_id, 60_000);
        expect(job.status).toBe('completed');
        const after = ids();
        const added = after.filter((a) => !before.some((b) => b.text === a.text));
        const kept = after.filter((a) => before.some((b) => b.id === a.id && b.text === a.text));
        expect(added.length).toBeGreaterThan(0);
        expect(kept.length).toBeGreaterThan(0);
        const last = (await s.api(`/api/v1/sources/${id}/syncs`, { key })).body.syncs[0];
        expect(last).toMatchObject({
          outcome: 'changed',
          reembedded: added.length,
          segments_added: added.length,
          segments_kept: kept.length,
        });

        // And the next one is a 304 on the worker: unchanged.
        const again = await s.api(`/api/v1/sources/${id}/sync`, { method: 'POST', key });
        await s.adam.services.jobs.waitForEnd(again.body.job_id, 60_000);
        expect(site.notModified('/redis')).toBe(1);
        const history = (await s.api(`/api/v1/sources/${id}/syncs`, { key })).body.syncs;
        expect(history[0]).toMatchObject({ outcome: 'unchanged', reembedded: 0 });
      } finally {
        await s.close();
        await site.close();
        await redis.stop();
      }
      // Three jobs through Redis and a separate worker process: on a loaded CI machine that is
      // more than the default 30 s; each wait above is on the job's end, never on a clock.
    }, 180_000);
  },
);
