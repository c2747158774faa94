import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generatePage } from '../fixtures/fixture-site.js';
import { startServer, type TestServer } from '../helpers.js';
import { until } from '../until.js';
import { report } from './report.js';

/**
 * The Deadline promises: no page stops ingestion. Markup past the depth or element limits is
 * refused before any DOM is built; a page that stays inside them and still takes too long is
 * stopped at the task budget, its thread replaced; the job goes on with its next URL, the next
 * job runs, and a cancel frees a busy thread at once. One engine thread and one worker, so a
 * stuck thread would hold up everything after it.
 */

const article = (n: number) => {
  const p = generatePage(n);
  const body = p.body.map((t) => `<p>${t}</p>`).join('\n');
  return `<!DOCTYPE html><html lang="en"><head><title>${p.title}</title></head><body><article><h1>${p.title}</h1>${body}</article></body></html>`;
};
const text = 'A sentence that reads like part of an article about the sea and its tides. ';
// Inside the markup limits (253 levels, ~98,000 elements), yet Readability walks every
// ancestor of every node: a minute or more of extraction.
const chain = '<div>'.repeat(250) + `<p>${text}</p>` + '</div>'.repeat(250);
const PAGES: Record<string, string> = {
  '/nested': `<html><body>${'<div>'.repeat(40_000)}</body></html>`,
  '/unclosed': `<html><body>${'<div><p>Some text '.repeat(3000)}</body></html>`,
  '/slow': `<html><body>${chain.repeat(390)}</body></html>`,
  '/ok-1': article(1),
  '/ok-2': article(2),
  '/ok-3': article(3),
};

let site: http.Server;
let base: string;
let s: TestServer;
let key: string;

beforeAll(async () => {
  site = http.createServer((req, res) => {
    const page = PAGES[req.url ?? ''];
    res.writeHead(page ? 200 : 404, { 'content-type': 'text/html; charset=utf-8' });
    res.end(page ?? 'not found');
  });
  await new Promise<void>((r) => site.listen(0, '127.0.0.1', r));
  const port = (site.address() as AddressInfo).port;
  base = `http://127.0.0.1:${port}`;
  s = await startServer({ env: { ADAM_FETCH_ALLOW: `127.0.0.1:${port}`, ADAM_WORKERS: '1' } });
  key = await s.login();
}, 120_000);
let closed = false;
afterAll(async () => {
  if (!closed) await s?.close();
  await new Promise((r) => site?.close(r));
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
    await until(() => s.adam.services.engine.stats().busy === 0, { timeout: 30_000 });

    const next = await ended(await submit(['/ok-3']));
    expect(next.status).toBe('completed');
    expect(next.stats.segments_created).toBeGreaterThan(0);
  });

  it('shutting down waits on no thread busy with a page', async () => {
    await setBudget(600);
    await submit(['/slow']);
    await until(() => s.adam.services.engine.stats().busy > 0, { timeout: 60_000 });
    void s.close().then(() => (closed = true));
    // The page alone would hold the thread for minutes.
    await until(() => closed, { timeout: 30_000, what: 'the server to close' });
  });
});
