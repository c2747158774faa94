import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ARTICLES } from './corpus.js';
import { startFixtureSite, type FixtureSite } from './fixtures/fixture-site.js';
import { startServer, type TestServer } from './helpers.js';
import { until } from './until.js';

let site: FixtureSite;
beforeAll(async () => {
  site = await startFixtureSite();
});
afterAll(async () => {
  await site.close();
});

let s: TestServer;
let key: string;
async function boot(opts: { workers?: number; dataDir?: string; maxQueuedJobs?: number } = {}) {
  s = await startServer({
    dataDir: opts.dataDir,
    build: { maxQueuedJobs: opts.maxQueuedJobs },
    env: { ADAM_FETCH_ALLOW: `127.0.0.1:${site.port}`, ADAM_WORKERS: String(opts.workers ?? 1) },
  });
  key = await s.login();
}
afterEach(async () => {
  await s?.close();
});

const get = (p: string) => s.api(`/api/v1${p}`, { key });
const post = (p: string, body?: unknown) => s.api(`/api/v1${p}`, { method: 'POST', key, body });
const waitJob = async (id: number) => {
  const job = await s.adam.services.jobs.waitForEnd(id, 60_000);
  return job;
};
const page = (p: string) => `${site.url}${p}`;

describe('processing URLs', () => {
  it('fetches, stores and indexes each page; a failing URL is recorded and the job carries on', async () => {
    await boot();
    const events: string[] = [];
    s.adam.bus.onAny((e) => events.push(e.type));
    const urls = [
      page('/articles/honeybees'),
      page('/articles/lighthouse-lenses'),
      page('/missing-page'),
    ];
    const r = await post('/sources/process', { urls, language: 'auto', priority: 'high' });
    expect(r.status).toBe(200);
    expect(r.body.urls).toEqual(urls);
    const job = await waitJob(r.body.job_id);
    expect(job.status).toBe('completed');
    expect(job.progress).toBe(1);
    expect(job.priority).toBe('high');
    expect(job.stats.segments_created).toBeGreaterThan(0);
    expect(job.stats.urls_done).toBe(2);
    expect(job.stats.urls_failed).toBe(1);
    expect(job.stats.segmentation_stats?.counts.after).toBe(job.stats.segments_created);
    expect(job.errors).toHaveLength(1);
    expect(job.errors[0]).toMatchObject({ url: page('/missing-page'), type: 'fetch_http_status' });
    expect(job.started_at).toBeTruthy();
    expect(job.completed_at).toBeTruthy();
    expect(events).toEqual(
      expect.arrayContaining(['job_created', 'job_progress', 'segment_progress', 'job_completed']),
    );

    const snippets = await get(`/snippets?job_id=${job.id}`);
    expect(snippets.body.total).toBe(job.stats.segments_created);
    expect(snippets.body.snippets[0].source_info.url).toMatch(/articles/);
    const errors = await get(`/sources/jobs/${job.id}/errors`);
    expect(errors.body.total).toBe(1);

    const sources = await get('/sources/list');
    expect(sources.body.total).toBe(3);
    const failed = sources.body.sources.find((x: { url: string }) =>
      x.url.endsWith('/missing-page'),
    );
    expect(failed).toMatchObject({
      last_status: 'failed',
      segments_count: 0,
      last_job_id: job.id,
      domain: '127.0.0.1',
    });
    const bees = await get('/sources/list?search=honeybees');
    expect(bees.body.sources).toHaveLength(1);
    expect(bees.body.sources[0].segments_count).toBeGreaterThan(0);
  });

  it('fails a job when no URL could be processed', async () => {
    await boot();
    const seen: number[] = [];
    s.adam.bus.on('job_failed', (e) => seen.push(e.job_id));
    const r = await post('/sources/process', {
      urls: `${page('/missing-1')}\n\n${page('/status/500')}`,
    });
    const job = await waitJob(r.body.job_id);
    expect(job.status).toBe('failed');
    expect(job.failed_at).toBeTruthy();
    expect(job.errors).toHaveLength(2);
    expect(seen).toEqual([job.id]);
  });

  it('refuses a request without URLs or with invalid ones, naming them', async () => {
    await boot();
    const empty = await post('/sources/process', { urls: ['  ', ''] });
    expect(empty.status).toBe(422);
    expect(empty.body.detail).toBe('Please enter at least one URL');
    const bad = await post('/sources/process', {
      urls: ['https://ok.example/a', 'not a url', 'ftp://x.example/'],
    });
    expect(bad.status).toBe(422);
    expect(bad.body.errors.map((e: { field: string }) => e.field)).toEqual(['urls[1]', 'urls[2]']);
    expect(
      (await post('/sources/process', { urls: ['https://a.example/'], priority: 'urgent' })).status,
    ).toBe(422);
    expect(
      (await post('/sources/process', { urls: ['https://a.example/'], min_quality: 2 })).status,
    ).toBe(422);
    expect(
      (await post('/sources/process', { urls: ['https://a.example/'], language: 'de' })).status,
    ).toBe(422);
    expect((await get('/sources/jobs')).body.total).toBe(0);
  });

  it('refuses a URL carrying credentials, and never repeats them', async () => {
    await boot();
    const r = await post('/sources/process', {
      urls: [
        'https://ok.example/a',
        'http://alice:s3cret@intra.example/x',
        'http://bob@h.example/',
      ],
    });
    expect(r.status).toBe(422);
    expect(r.body.errors.map((e: { field: string }) => e.field)).toEqual(['urls[1]', 'urls[2]']);
    expect(r.body.errors[0].message).toBe(
      "'http://…@intra.example/x' carries a user name or password: remove it, ADAM does not store credentials",
    );
    const text = JSON.stringify(r.body);
    for (const secret of ['alice', 's3cret', 'bob']) expect(text).not.toContain(secret);
    // Unparseable, with what looks like credentials: still not repeated.
    const odd = await post('/sources/process', { urls: ['http://carol:pw@[bad/'] });
    expect(odd.status).toBe(422);
    expect(JSON.stringify(odd.body)).not.toContain('carol');
    expect((await get('/sources/jobs')).body.total).toBe(0);
  });
});

describe('job control', () => {
  it('lists jobs by tab and status, cancels, relaunches and deletes', async () => {
    await boot({ workers: 0 });
    const a = (await post('/sources/process', { urls: [page('/articles/honeybees')] })).body.job_id;
    const b = (await post('/sources/process', { urls: [page('/articles/comte')], priority: 'low' }))
      .body.job_id;
    const queue = await get('/sources/jobs/queue');
    expect(queue.body.total).toBe(2);
    expect(queue.body.by_status).toMatchObject({ pending: 2, processing: 0 });
    expect((await get('/sources/jobs/active')).body.total).toBe(2);
    expect((await get('/sources/jobs/history')).body.total).toBe(0);

    const cancelled = await post(`/sources/jobs/${a}/cancel`);
    expect(cancelled.status).toBe(200);
    expect(cancelled.body.status).toBe('cancelled');
    expect(cancelled.body.cancelled_at).toBeTruthy();
    const again = await post(`/sources/jobs/${a}/cancel`);
    expect(again.status).toBe(409);
    expect(again.body.detail).toMatch(/only pending or processing jobs can be cancelled/);
    expect(
      (await get('/sources/jobs?status=cancelled')).body.jobs.map((j: { id: number }) => j.id),
    ).toEqual([a]);
    expect((await get('/sources/jobs?status=done')).status).toBe(422);

    expect((await post(`/sources/jobs/${b}/relaunch`)).status).toBe(409);
    const re = await s.api(`/api/v1/sources/jobs/${a}/relaunch?priority=high`, {
      method: 'POST',
      key,
    });
    expect(re.status).toBe(200);
    expect(re.body.relaunched_from).toBe(a);
    expect(re.body.job).toMatchObject({
      status: 'pending',
      priority: 'high',
      urls: [page('/articles/honeybees')],
    });
    expect(re.body.job.metadata.relaunched_from).toBe(a);
    expect(
      (await s.api(`/api/v1/sources/jobs/${a}/relaunch?priority=asap`, { method: 'POST', key }))
        .status,
    ).toBe(422);

    const del = await s.api(`/api/v1/sources/jobs/${a}`, { method: 'DELETE', key });
    expect(del.body).toEqual({ id: a, deleted: true });
    expect((await get(`/sources/jobs/${a}`)).status).toBe(404);
    expect((await s.api(`/api/v1/sources/jobs/${a}`, { method: 'DELETE', key })).status).toBe(404);

    const all = await post('/sources/jobs/cancel_pending');
    expect(all.body.cancelled).toBe(2);
    expect((await get('/sources/jobs/queue')).body.total).toBe(0);
  });

  it('runs the queue by priority, then age, once a worker starts', async () => {
    await boot({ workers: 0 });
    const low = (
      await post('/sources/process', { urls: [page('/articles/comte')], priority: 'low' })
    ).body.job_id;
    const normal = (await post('/sources/process', { urls: [page('/articles/tidal-power')] })).body
      .job_id;
    const high = (
      await post('/sources/process', { urls: [page('/articles/canal-du-midi')], priority: 'high' })
    ).body.job_id;
    const health = (await s.api('/api/v1/health')).body;
    expect(health.components.queue.status).toBe('degraded');
    expect(health.components.workers.details.running).toBe(0);

    const started = await post('/admin/maintenance/workers/start', { count: 1 });
    expect(started.body.running).toBe(1);
    await waitJob(low);
    const order = [high, normal, low].map((id) => s.adam.services.jobs.get(id).started_at!);
    expect(order).toEqual([...order].sort());
  });

  it('stops a processing job at its next step when cancelled, keeping what it stored', async () => {
    await boot();
    await s.api('/api/v1/admin/settings/processing', {
      method: 'PUT',
      key,
      body: { settings: { max_concurrent_scrapes: 1 } },
    });
    const urls = [
      page('/articles/honeybees'),
      page('/slow?ms=1500'),
      page('/articles/lighthouse-lenses'),
    ];
    const hitsBefore = site.hits.length;
    const id = (await post('/sources/process', { urls })).body.job_id;
    // Wait until the first page is stored, then cancel while the slow one is being fetched.
    await until(() => s.adam.services.jobs.get(id).stats.urls_done, {
      what: 'the first URL of the job stored',
    });
    const c = await post(`/sources/jobs/${id}/cancel`);
    expect(c.body.status).toBe('cancelled');
    // The worker notices at its next step, once the slow page is in: wait until it let go.
    await until(
      async () =>
        (await get('/admin/maintenance/workers/status')).body.workers.every(
          (w: { current_job: number | null }) => w.current_job !== id,
        ),
      { what: 'the worker to let go of the cancelled job' },
    );
    const job = s.adam.services.jobs.get(id);
    expect(job.status).toBe('cancelled');
    const kept = (await get(`/snippets?job_id=${id}&per_page=500`)).body.snippets;
    expect(kept.length).toBeGreaterThan(0);
    expect(kept.every((x: { source_info: { url: string } }) => x.source_info.url === urls[0])).toBe(
      true,
    );
    expect(site.hits.slice(hitsBefore).some((h) => h.includes('lighthouse-lenses'))).toBe(false);
  });

  it('starts and stops workers; a stopped queue keeps new jobs pending', async () => {
    await boot();
    const st = await get('/admin/maintenance/workers/status');
    expect(st.body).toMatchObject({ mode: 'embedded', running: 1 });
    expect(st.body.workers[0]).toMatchObject({ status: 'idle', current_job: null, processed: 0 });
    const stopped = await post('/admin/maintenance/workers/stop');
    expect(stopped.body.running).toBe(0);
    const r = await post('/playground/save-segments', { title: 'queued', text: ARTICLES.stoicism });
    expect(r.body).toMatchObject({ status: 'pending', segments_created: 0, diagnostics: null });
    await new Promise((res) => setTimeout(res, 300));
    expect(s.adam.services.jobs.get(r.body.job_id).status).toBe('pending');
    expect((await post('/admin/maintenance/workers/start', { count: 0 })).status).toBe(422);
    expect((await post('/admin/maintenance/workers/start', { count: 17 })).status).toBe(422);
    const two = await post('/admin/maintenance/workers/start', { count: 2 });
    expect(two.body.running).toBe(2);
    const job = await waitJob(r.body.job_id);
    expect(job.status).toBe('completed');
    expect(job.stats.segments_created).toBeGreaterThan(0);
    const after = await get('/admin/maintenance/workers/status');
    expect(
      after.body.workers.reduce((n: number, w: { processed: number }) => n + w.processed, 0),
    ).toBe(1);
  });

  it('answers 429 naming the limit once the queue holds its maximum of pending jobs', async () => {
    await boot({ workers: 0, maxQueuedJobs: 2 });
    const url = { urls: [page('/articles/comte')] };
    const first = (await post('/sources/process', url)).body.job_id;
    expect((await post('/sources/process', url)).status).toBe(200);

    const full = await post('/sources/process', url);
    expect(full.status).toBe(429);
    expect(full.body.detail).toBe(
      'The job queue is full: 2 jobs are waiting to run (the limit). Try again once some have run.',
    );
    expect(Number(full.headers.get('retry-after'))).toBeGreaterThan(0);
    // Every way of queueing work from the API is bounded.
    const article = await post('/playground/save-segments', { text: ARTICLES.stoicism });
    expect(article.status).toBe(429);
    const cancelled = (await post(`/sources/jobs/${first}/cancel`)).body.id;
    expect((await post('/sources/process', url)).status).toBe(200);
    expect((await post(`/sources/jobs/${cancelled}/relaunch`)).status).toBe(429);
    const rebuild = await post('/admin/maintenance/execute', { action: 'optimize_index' });
    expect(rebuild.status).toBe(429);
    expect((await get('/sources/jobs/queue')).body.total).toBe(2);

    // The rebuild a storage setting queues is part of a change already saved: not refused.
    const created: string[] = [];
    s.adam.bus.on('job_created', (e) => created.push(e.type));
    const put = await s.api('/api/v1/admin/settings/processing', {
      method: 'PUT',
      key,
      body: { settings: { index_storage: 'i8' } },
    });
    expect(put.status).toBe(200);
    expect(created).toEqual(['rebuild_index']);
    expect((await get('/sources/jobs/queue')).body.total).toBe(3);
  });

  it('lists processing jobs without a recent heartbeat as stuck', async () => {
    await boot({ workers: 0 });
    const id = (await post('/sources/process', { urls: [page('/articles/comte')] })).body.job_id;
    s.adam.db
      .prepare(
        "UPDATE jobs SET status = 'processing', worker_id = 'gone', heartbeat_at = ? WHERE id = ?",
      )
      .run(new Date(Date.now() - 10 * 60_000).toISOString(), id);
    const stuck = await get('/sources/jobs/stuck');
    expect(stuck.body.jobs.map((j: { id: number }) => j.id)).toEqual([id]);
    expect(s.adam.services.jobs.resetStuck()).toEqual([id]);
    expect(s.adam.services.jobs.get(id).status).toBe('pending');
  });
});

describe('restart', () => {
  it('requeues a job a crash left processing and resumes after its finished URLs', async () => {
    await boot({ workers: 0 });
    const dataDir = s.dataDir;
    const urls = [page('/articles/honeybees'), page('/articles/tidal-power')];
    const id = (await post('/sources/process', { urls })).body.job_id;
    s.adam.db
      .prepare(
        "UPDATE jobs SET status = 'processing', worker_id = 'embedded-1', done_urls = ? WHERE id = ?",
      )
      .run(JSON.stringify([urls[0]]), id);
    await s.close();
    const before = site.hits.length;
    await boot({ dataDir, workers: 1 });
    const job = await waitJob(id);
    expect(job.status).toBe('completed');
    const fetched = site.hits.slice(before);
    expect(fetched.some((h) => h.includes('tidal-power'))).toBe(true);
    expect(fetched.some((h) => h.includes('honeybees'))).toBe(false);
  });
});

describe('sources', () => {
  it('deletes a source with its snippets from store and index', async () => {
    await boot();
    const id = (await post('/sources/process', { urls: [page('/articles/honeybees')] })).body
      .job_id;
    const job = await waitJob(id);
    const source = (await get('/sources/list')).body.sources[0];
    const vectorsBefore = s.adam.services.index.size;
    const r = await s.api(`/api/v1/sources/${source.id}?delete_snippets=true`, {
      method: 'DELETE',
      key,
    });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({
      id: source.id,
      deleted: true,
      snippets_deleted: job.stats.segments_created,
    });
    expect(r.body.vectors_deleted).toBe(job.stats.segments_created);
    expect(s.adam.services.index.size).toBe(vectorsBefore - job.stats.segments_created!);
    expect((await get(`/snippets?source_url=${encodeURIComponent(source.url)}`)).body.total).toBe(
      0,
    );
    expect((await s.api(`/api/v1/sources/${source.id}`, { method: 'DELETE', key })).status).toBe(
      404,
    );
  });
});
