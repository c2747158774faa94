import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { MAX_URL_OUTCOMES, type JobDetail, type JobPage } from '@adam/contracts';
import { startFixtureSite, type FixtureSite } from './fixtures/fixture-site.js';
import { startServer, type TestServer } from './helpers.js';

let s: TestServer;
let key: string;
afterEach(async () => {
  await s?.close();
});

async function boot(env: Record<string, string> = {}) {
  s = await startServer({ env: { ADAM_WORKERS: '0', ...env } });
  key = await s.login();
}
const get = (p: string) => s.api(`/api/v1${p}`, { key });

interface Seed {
  type?: string;
  status?: string;
  created_at: string;
  urls?: string[];
  done_urls?: string[];
  errors?: unknown[];
  metadata?: Record<string, unknown>;
  started_at?: string | null;
  ended_at?: string | null;
}

/** Writes job rows as a finished history would hold them (no worker runs them). */
function seed(rows: Seed[]): number[] {
  const db = s.adam.db;
  const insert = db.prepare(
    `INSERT INTO jobs (id, type, status, priority, priority_rank, urls, done_urls, errors, metadata,
       created_at, started_at, completed_at, failed_at, cancelled_at, updated_at)
     VALUES ((SELECT COALESCE(MAX(id), 0) + 1 FROM jobs), @type, @status, 'normal', 1, @urls,
       @done_urls, @errors, @metadata, @created_at, @started_at, @completed_at, @failed_at,
       @cancelled_at, @created_at) RETURNING id`,
  );
  return db.transaction(() =>
    rows.map((r) => {
      const status = r.status ?? 'completed';
      const ended = r.ended_at === undefined ? r.created_at : r.ended_at;
      return insert.pluck().get({
        type: r.type ?? 'process_urls',
        status,
        urls: JSON.stringify(r.urls ?? []),
        done_urls: JSON.stringify(r.done_urls ?? []),
        errors: JSON.stringify(r.errors ?? []),
        metadata: JSON.stringify(r.metadata ?? {}),
        created_at: r.created_at,
        started_at: r.started_at === undefined ? r.created_at : r.started_at,
        completed_at: status === 'completed' ? ended : null,
        failed_at: status === 'failed' ? ended : null,
        cancelled_at: status === 'cancelled' ? ended : null,
      }) as number;
    }),
  )();
}

const at = (minute: number) => new Date(Date.UTC(2026, 10, 20, 8, minute)).toISOString();

async function allPages(path: string, sep = '?'): Promise<{ ids: number[]; pages: JobPage[] }> {
  const pages: JobPage[] = [];
  let cursor: string | null = null;
  do {
    const r = await get(`${path}${sep}limit=7${cursor ? `&cursor=${cursor}` : ''}`);
    expect(r.status).toBe(200);
    pages.push(r.body as JobPage);
    cursor = (r.body as JobPage).next_cursor;
  } while (cursor && pages.length < 50);
  return { ids: pages.flatMap((p) => p.jobs.map((j) => j.id)), pages };
}

describe('job history paging', () => {
  it('walks every finished job once, newest first, while new jobs arrive between pages', async () => {
    await boot();
    // Pairs share a created_at: the id breaks the tie.
    const first = seed(
      Array.from({ length: 30 }, (_, i) => ({
        created_at: at(Math.floor(i / 2)),
        status: i % 5 === 0 ? 'failed' : 'completed',
      })),
    );
    const seen: number[] = [];
    let cursor: string | null = null;
    let added = 0;
    for (let n = 0; n < 20; n++) {
      const r = await get(`/sources/jobs/history?limit=7${cursor ? `&cursor=${cursor}` : ''}`);
      expect(r.status).toBe(200);
      const page = r.body as JobPage;
      seen.push(...page.jobs.map((j) => j.id));
      cursor = page.next_cursor;
      if (!cursor) break;
      // Newer jobs land between pages (and one at the very time of the last row seen).
      const last = page.jobs.at(-1)!;
      seed([{ created_at: new Date().toISOString() }, { created_at: last.created_at }]);
      added += 2;
    }
    expect(added).toBeGreaterThan(0);
    expect(new Set(seen).size).toBe(seen.length); // no row twice
    // Every first job is there; of the later ones only those sharing a page's last time and
    // with a lower id could show, and they have higher ids: none does.
    expect(seen.filter((id) => first.includes(id)).sort((a, b) => a - b)).toEqual(first);
    expect(seen).toHaveLength(30);
    // Newest first on (created_at, id).
    const rows = s.adam.db
      .prepare(`SELECT id, created_at FROM jobs WHERE id IN (${seen.join(',')})`)
      .all() as { id: number; created_at: string }[];
    const byId = new Map(rows.map((r) => [r.id, r.created_at]));
    for (let i = 1; i < seen.length; i++) {
      const a = byId.get(seen[i - 1]!)!;
      const b = byId.get(seen[i]!)!;
      expect(a > b || (a === b && seen[i - 1]! > seen[i]!)).toBe(true);
    }
  });

  it('keeps the old parameters: limit and status answer as before, with the exact total', async () => {
    await boot();
    seed(Array.from({ length: 12 }, (_, i) => ({ created_at: at(i), status: 'completed' })));
    seed([{ created_at: at(30), status: 'failed' }]);
    const r = await get('/sources/jobs/history?limit=5');
    expect(r.status).toBe(200);
    expect(r.body.jobs).toHaveLength(5);
    expect(r.body).toMatchObject({ total: 13, total_exact: true });
    expect(r.body.by_status).toMatchObject({ completed: 12, failed: 1 });
    expect(typeof r.body.next_cursor).toBe('string');
    const failed = await get('/sources/jobs?status=failed');
    expect(failed.body.jobs.map((j: { status: string }) => j.status)).toEqual(['failed']);
    expect(failed.body).toMatchObject({ total: 1, next_cursor: null });
    expect((await get('/sources/jobs/history?limit=1001')).status).toBe(422);
  });

  it('filters by type, creation time and text in a URL or title, with the filtered total', async () => {
    await boot();
    seed([
      { created_at: at(1), urls: ['https://example.org/honey-bees'] },
      { created_at: at(2), urls: ['https://example.org/lighthouses'], status: 'failed' },
      { created_at: at(3), type: 'save_segments', metadata: { title: 'Honey harvest' } },
      { created_at: at(4), type: 'rebuild_index' },
      { created_at: at(5), urls: ['https://example.org/100%_pure'] },
    ]);
    const ids = async (q: string) => {
      const r = await get(`/sources/jobs/history?${q}`);
      expect(r.status).toBe(200);
      return {
        ids: (r.body as JobPage).jobs.map((j) => j.type + '@' + j.created_at),
        body: r.body,
      };
    };
    expect((await ids('type=save_segments')).ids).toEqual([`save_segments@${at(3)}`]);
    const honey = await ids('q=HONEY');
    expect(honey.ids).toEqual([`save_segments@${at(3)}`, `process_urls@${at(1)}`]);
    expect(honey.body).toMatchObject({ total: 2, total_exact: true });
    // LIKE's wildcards are text here: "%_" matches only the URL that has them.
    expect((await ids('q=' + encodeURIComponent('0%_p'))).ids).toEqual([`process_urls@${at(5)}`]);
    expect((await ids('q=' + encodeURIComponent('%'))).ids).toEqual([`process_urls@${at(5)}`]);
    const window = await ids(
      `created_from=${encodeURIComponent(at(2))}&created_to=${encodeURIComponent(at(4))}`,
    );
    expect(window.ids).toEqual([
      `rebuild_index@${at(4)}`,
      `save_segments@${at(3)}`,
      `process_urls@${at(2)}`,
    ]);
    expect(window.body.total).toBe(3);
    expect((await ids('status=failed&type=process_urls')).ids).toEqual([`process_urls@${at(2)}`]);
    expect((await ids('created_from=2026-11-21')).ids).toEqual([]);
    // Filters stay on every page.
    const paged = await allPages('/sources/jobs/history?type=process_urls', '&');
    expect(paged.ids).toHaveLength(3);
  });

  it('refuses a bad cursor, a bad date and an over-long search with 422 and a detail', async () => {
    await boot();
    seed([{ created_at: at(1) }, { created_at: at(2) }]);
    const bad = [
      'not-a-cursor!',
      Buffer.from('{"a":1}').toString('base64url'),
      Buffer.from('["yesterday", 3]').toString('base64url'),
      Buffer.from(`["${at(1)}", -4]`).toString('base64url'),
      'x'.repeat(201),
    ];
    for (const cursor of bad) {
      const r = await get(`/sources/jobs/history?cursor=${encodeURIComponent(cursor)}`);
      expect(r.status, cursor).toBe(422);
      expect(typeof r.body.detail).toBe('string');
    }
    const date = await get('/sources/jobs/history?created_from=last-week');
    expect(date.status).toBe(422);
    expect(date.body.detail).toMatch(/created_from/);
    expect((await get(`/sources/jobs/history?q=${'a'.repeat(201)}`)).status).toBe(422);
    expect((await get('/sources/jobs/history?type=DROP%20TABLE')).status).toBe(422);
  });
});

describe('job detail', () => {
  it('answers 404 for an unknown job', async () => {
    await boot();
    const r = await get('/sources/jobs/987654/detail');
    expect(r.status).toBe(404);
    expect(r.body.detail).toMatch(/987654/);
    expect((await get('/sources/jobs/abc/detail')).status).toBe(422);
  });

  it('gives times, durations, who queued it and each URL as ok, failed or skipped', async () => {
    await boot();
    const urls = ['https://a.example/1', 'https://a.example/2', 'https://a.example/3'];
    const [id] = seed([
      {
        status: 'cancelled',
        created_at: '2026-11-20T08:00:00.000Z',
        started_at: '2026-11-20T08:00:02.000Z',
        ended_at: '2026-11-20T08:00:12.500Z',
        urls,
        done_urls: [urls[0]!, urls[1]!],
        errors: [
          {
            type: 'fetch_http_status',
            error: 'http_status',
            message: 'HTTP 404',
            url: urls[1],
            at: '2026-11-20T08:00:05.000Z',
          },
        ],
        metadata: { relaunched_from: 4, result: { pages: 2 } },
      },
    ]);
    const r = await get(`/sources/jobs/${id}/detail`);
    expect(r.status).toBe(200);
    const d = r.body as JobDetail;
    expect(d.job.id).toBe(id);
    expect(d.queued_by).toBe('relaunch of job 4');
    expect(d.ended_at).toBe('2026-11-20T08:00:12.500Z');
    expect(d.durations).toEqual({ queued_ms: 2000, run_ms: 10_500, total_ms: 12_500 });
    expect(d.result).toEqual({ pages: 2 });
    expect(d.url_counts).toEqual({ total: 3, ok: 1, failed: 1, skipped: 1, pending: 0 });
    expect(d.url_outcomes.map((o) => [o.url, o.status])).toEqual([
      [urls[1], 'failed'],
      [urls[2], 'skipped'],
      [urls[0], 'ok'],
    ]);
    expect(d.url_outcomes[0]).toMatchObject({ reason: 'HTTP 404', at: '2026-11-20T08:00:05.000Z' });
    expect(d.url_outcomes[1]!.reason).toMatch(/cancelled/);
    expect(d.url_outcomes_left_out).toBe(0);
    expect(d.snippets_count).toBe(0);
  });

  it('bounds the URL outcomes and says how many were left out', async () => {
    await boot();
    const urls = Array.from({ length: MAX_URL_OUTCOMES + 40 }, (_, i) => `https://b.example/${i}`);
    const [id] = seed([{ created_at: at(1), urls, done_urls: urls, status: 'completed' }]);
    const d = (await get(`/sources/jobs/${id}/detail`)).body as JobDetail;
    expect(d.url_outcomes).toHaveLength(MAX_URL_OUTCOMES);
    expect(d.url_outcomes_left_out).toBe(40);
    expect(d.url_counts.ok).toBe(MAX_URL_OUTCOMES + 40);
  });

  describe('of a real ingestion', () => {
    let site: FixtureSite;
    beforeAll(async () => {
      site = await startFixtureSite();
    });
    afterAll(async () => {
      await site.close();
    });

    it('counts the snippets each page made and names the failed one', async () => {
      await boot({ ADAM_FETCH_ALLOW: `127.0.0.1:${site.port}`, ADAM_WORKERS: '1' });
      const urls = [`${site.url}/articles/honeybees`, `${site.url}/missing-page`];
      const r = await s.api('/api/v1/sources/process', {
        method: 'POST',
        key,
        body: { urls, language: 'auto' },
      });
      expect(r.status).toBe(200);
      const job = await s.adam.services.jobs.waitForEnd(r.body.job_id, 60_000);
      expect(job.status).toBe('completed');
      const d = (await get(`/sources/jobs/${job.id}/detail`)).body as JobDetail;
      expect(d.url_counts).toMatchObject({ total: 2, ok: 1, failed: 1 });
      const [failed, ok] = d.url_outcomes;
      expect(failed).toMatchObject({ url: urls[1], status: 'failed', snippets: 0 });
      expect(failed!.reason).toBeTruthy();
      expect(ok).toMatchObject({ url: urls[0], status: 'ok' });
      expect(ok!.snippets).toBeGreaterThan(0);
      expect(ok!.snippets).toBe(d.snippets_count);
      const snippets = await get(`/snippets?job_id=${job.id}`);
      expect(snippets.body.total).toBe(d.snippets_count);
      expect(d.durations.run_ms).not.toBeNull();
    }, 180_000);
  });
});
