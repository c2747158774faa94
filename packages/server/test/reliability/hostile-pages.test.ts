import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHostileSite, type HostileSite } from '../fixtures/hostile-site.js';
import { startServer, type TestServer } from '../helpers.js';
import { until } from '../until.js';
import { report } from './report.js';

/**
 * The Deadline promises: no page stops ingestion. Markup past the depth or element limits is
 * refused before any DOM is built; a page that stays inside them and still takes too long is
 * stopped at the task budget, its thread replaced; the job goes on with its next URL, the next
 * job runs, and a cancel frees a busy thread, or closes a fetch in progress, at once. One engine
 * thread and one worker, so a stuck thread would hold up everything after it.
 */

let site: HostileSite;
let base: string;
let s: TestServer;
let key: string;

beforeAll(async () => {
  site = await startHostileSite();
  base = site.base;
  s = await startServer({ env: { ADAM_FETCH_ALLOW: site.host, ADAM_WORKERS: '1' } });
  key = await s.login();
}, 120_000);
let closed = false;
afterAll(async () => {
  if (!closed) await s?.close();
  await site?.close();
});

const api = (p: string, method = 'GET', body?: unknown) =>
  s.api(`/api/v1${p}`, { method, key, body });
const setBudget = async (seconds: number) => {
  const r = await api('/admin/settings/processing', 'PUT', {
    settings: { task_timeout_seconds: seconds, max_concurrent_scrapes: 1 },
  });
  expect(r.status).toBe(200);
  expect(r.body.task_timeout_seconds).toBe(seconds);
};
const submit = async (paths: string[]) => {
  const r = await api('/sources/process', 'POST', { urls: paths.map((p) => base + p) });
  expect(r.status).toBe(200);
  return r.body.job_id as number;
};
const ended = (id: number) => s.adam.services.jobs.waitForEnd(id, 120_000);

describe('hostile pages', () => {
  it('refuses deep markup, stops a page past its budget, and goes on with the next URL and job', async () => {
    await setBudget(5);
    const id = await submit(['/nested', '/unclosed', '/slow', '/ok-1']);
    const job = await ended(id);
    expect(job.status).toBe('completed');
    expect(job.stats.urls_done).toBe(1);
    expect(job.stats.urls_failed).toBe(3);
    const byUrl = new Map(job.errors.map((e) => [e.url, e]));
    expect(byUrl.get(`${base}/nested`)).toMatchObject({ type: 'fetch_unsupported_content' });
    expect(byUrl.get(`${base}/nested`)?.message).toContain(
      'nests elements 40,002 levels deep; the limit is 256',
    );
    expect(byUrl.get(`${base}/unclosed`)?.message).toContain('levels deep; the limit is 256');
    expect(byUrl.get(`${base}/slow`)).toMatchObject({
      type: 'task_timeout',
      message: 'Extraction took longer than 5 s; its worker thread was stopped and replaced',
    });
    expect(s.adam.services.engine.threadsReplaced).toBe(1);

    // The thread that replaced the stopped one takes the next job.
    const next = await ended(await submit(['/ok-2']));
    expect(next.status).toBe('completed');
    expect(next.stats.segments_created).toBeGreaterThan(0);
    report({
      check: 'hostile pages: 40k-deep, 3k unclosed, slow past the 5 s budget',
      runs: 3,
      failures: 0,
      figure: 'refused, refused, stopped at the budget; next URL and job completed',
    });
  });

  it('a cancel frees the thread of a page still being extracted, and the next job runs', async () => {
    // A budget far past the test's own wait: only the cancel can free the thread in time.
    await setBudget(600);
    const id = await submit(['/slow', '/ok-1']);
    await until(() => s.adam.services.engine.stats().busy > 0, { timeout: 60_000 });
    const r = await api(`/sources/jobs/${id}/cancel`, 'POST');
    expect(r.status).toBe(200);
    expect(r.body.status).toBe('cancelled');
    await until(() => s.adam.services.engine.stats().busy === 0, {});

    const next = await ended(await submit(['/ok-3']));
    expect(next.status).toBe('completed');
    expect(next.stats.segments_created).toBeGreaterThan(0);
  });

  it('a cancel closes the connection of a page still arriving, and the URL counts as cancelled', async () => {
    await setBudget(600);
    const id = await submit(['/trickle', '/ok-1']);
    // The page sends a byte every 100 ms: no fetch timeout of the fetcher (15 s) fires meanwhile.
    await until(() => site.trickles.length === 1, { what: 'the fetch of /trickle' });
    const r = await api(`/sources/jobs/${id}/cancel`, 'POST');
    expect(r.body.status).toBe('cancelled');
    await until(() => site.trickles[0]!.closed, {
      what: 'the fetcher to close the connection of /trickle',
    });
    const next = await ended(await submit(['/ok-4']));
    expect(next.status).toBe('completed');
    const job = s.adam.services.jobs.get(id);
    expect(job.status).toBe('cancelled');
    // Not a fetch error of the page: the cancel cut it short, and a cancel keeps nothing more.
    expect(job.errors).toEqual([]);
    expect(job.stats.urls_failed ?? 0).toBe(0);
  });

  it('shutting down waits on no thread busy with a page', async () => {
    await setBudget(600);
    await submit(['/slow']);
    await until(() => s.adam.services.engine.stats().busy > 0, { timeout: 60_000 });
    void s.close().then(() => (closed = true));
    // The page alone would hold the thread for minutes.
    await until(() => closed, { what: 'the server to close' });
  });
});
