import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { until } from '../../test/until.js';
import { Deadlines, SafeFetcher } from './safe-fetcher.js';

// What a fetch costs besides its request (issue 24: an unchanged re-sync is one conditional
// request per page, so the fetcher's own work per request is most of it).
let server: http.Server;
let base: string;
const closed: string[] = [];
const arrived: string[] = [];

beforeAll(async () => {
  server = http.createServer((req, res) => {
    if (req.url === '/never') {
      // Answers nothing: the client's stop must close the connection.
      arrived.push('/never');
      req.socket.on('close', () => closed.push('/never'));
      return;
    }
    if (req.url === '/heavy-redirect') {
      res.writeHead(302, { location: '/page', 'content-type': 'text/plain' });
      res.end(Buffer.alloc(1024 * 1024, 0x61));
      return;
    }
    res.writeHead(200, { 'content-type': 'text/plain' }).end('hello');
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((r) => server.close(() => r())));
afterEach(() => {
  vi.restoreAllMocks();
  vi.useRealTimers();
});

describe('SafeFetcher, per fetch', () => {
  it('arms one timer for its fetches, not one per fetch', async () => {
    const fetcher = new SafeFetcher({ allow: ['127.0.0.1'], timeoutMs: 60_000 });
    await fetcher.fetch(`${base}/page`); // the connection opened before counting
    const timers = vi.spyOn(globalThis, 'setTimeout');
    for (let i = 0; i < 20; i++) await fetcher.fetch(`${base}/page`);
    // The first fetch's deadline timer is still armed (60 s): none is set for the next ones
    // (undici's own keep-alive timers aside).
    const deadlines = timers.mock.calls.filter(([, ms]) => ms === 60_000);
    expect(deadlines.length).toBeLessThanOrEqual(1);
    await fetcher.close();
  });

  it("listens once to a caller's signal, however many fetches share it", async () => {
    const fetcher = new SafeFetcher({ allow: ['127.0.0.1'], timeoutMs: 5_000 });
    const job = new AbortController();
    const listen = vi.spyOn(job.signal, 'addEventListener');
    for (let i = 0; i < 10; i++) await fetcher.fetch(`${base}/page`, { signal: job.signal });
    expect(listen.mock.calls.filter(([type]) => type === 'abort')).toHaveLength(1);
    await fetcher.close();
  });

  it('stops a fetch waiting for its answer at once when the signal aborts, closing its connection', async () => {
    const fetcher = new SafeFetcher({ allow: ['127.0.0.1'], timeoutMs: 60_000 });
    const job = new AbortController();
    const pending = fetcher.fetch(`${base}/never`, { signal: job.signal });
    await until(() => arrived.includes('/never'));
    job.abort(new Error('job cancelled'));
    await expect(pending).rejects.toThrow('job cancelled');
    await until(() => closed.includes('/never'));
    // The same signal, aborted, refuses the next fetch at once.
    await expect(fetcher.fetch(`${base}/page`, { signal: job.signal })).rejects.toThrow(
      'job cancelled',
    );
    await fetcher.close();
  });

  it('follows a redirect whose body it does not keep, however long', async () => {
    const fetcher = new SafeFetcher({ allow: ['127.0.0.1'], timeoutMs: 5_000, maxBytes: 1024 });
    const res = await fetcher.fetch(`${base}/heavy-redirect`);
    expect(res).toMatchObject({ status: 200, redirects: [`${base}/page`] });
    expect(res.body.toString()).toBe('hello');
    await fetcher.close();
  });
});

describe('Deadlines', () => {
  it('expires each entry at its own deadline with one timer, and never a dropped one', () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'performance'] });
    const d = new Deadlines(300);
    const expired: string[] = [];
    d.add(() => expired.push('a'));
    vi.advanceTimersByTime(100);
    const dropB = d.add(() => expired.push('b'));
    vi.advanceTimersByTime(100);
    d.add(() => expired.push('c'));
    dropB();
    expect(vi.getTimerCount()).toBe(1);
    vi.advanceTimersByTime(99); // t = 299
    expect(expired).toEqual([]);
    vi.advanceTimersByTime(1); // t = 300: a's deadline
    expect(expired).toEqual(['a']);
    vi.advanceTimersByTime(199); // t = 499: b was dropped, c is due at 500
    expect(expired).toEqual(['a']);
    vi.advanceTimersByTime(1);
    expect(expired).toEqual(['a', 'c']);
    expect(vi.getTimerCount()).toBe(0);
  });
});
