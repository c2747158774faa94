import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FetchError } from './fetch-error.js';
import { SafeFetcher } from './safe-fetcher.js';

const ETAG = '"v1"';
let server: http.Server;
let base: string;

beforeAll(async () => {
  // A page with an ETag (304 to its validator, also to a stale date), and a redirect to it.
  server = http.createServer((req, res) => {
    if (req.url === '/moved') {
      res.writeHead(302, { location: '/page' }).end();
      return;
    }
    if (req.url === '/always-304') {
      res.writeHead(304).end();
      return;
    }
    const conditional =
      req.headers['if-none-match'] === ETAG || req.headers['if-modified-since'] !== undefined;
    if (conditional) res.writeHead(304, { etag: ETAG }).end();
    else res.writeHead(200, { etag: ETAG, 'content-type': 'text/plain' }).end('hello');
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((r) => server.close(() => r())));

const fetcher = () => new SafeFetcher({ allow: ['127.0.0.1'], timeoutMs: 5_000 });

describe('SafeFetcher and a conditional request', () => {
  it('answers a 304 to If-None-Match as a result with an empty body, not an error', async () => {
    const res = await fetcher().fetch(`${base}/page`, { headers: { 'If-None-Match': ETAG } });
    expect(res).toMatchObject({ url: `${base}/page`, status: 304, redirects: [] });
    expect(res.body.length).toBe(0);
    expect(res.headers.etag).toBe(ETAG);
  });

  it('answers a 304 to If-Modified-Since, after a redirect too', async () => {
    const res = await fetcher().fetch(`${base}/moved`, {
      headers: { 'if-modified-since': 'Mon, 01 Jan 2024 00:00:00 GMT' },
    });
    expect(res).toMatchObject({ status: 304, redirects: [`${base}/page`] });
  });

  it('still fetches the page when the validator does not match', async () => {
    const res = await fetcher().fetch(`${base}/page`, { headers: { 'if-none-match': '"old"' } });
    expect(res.status).toBe(200);
    expect(res.body.toString()).toBe('hello');
  });

  it('still refuses a 304 to a request that was not conditional, with the same message', async () => {
    const err = await fetcher()
      .fetch(`${base}/always-304`)
      .then(
        () => null,
        (e: unknown) => e,
      );
    expect(err).toBeInstanceOf(FetchError);
    expect(err).toMatchObject({
      code: 'http_status',
      upstreamStatus: 304,
      message: `${base}/always-304 answered HTTP 304 Not Modified`,
    });
  });
});
