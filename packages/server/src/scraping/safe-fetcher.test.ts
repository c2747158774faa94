import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { startFixtureSite, type FixtureSite } from '../../test/fixtures/fixture-site.js';
import { startHostileSite } from '../../test/fixtures/hostile-site.js';
import { until } from '../../test/until.js';
import { FetchError } from './fetch-error.js';
import { SafeFetcher, type HostLookup } from './safe-fetcher.js';

/** The fetcher's timeout where a test expects an answer: a hang detector, which a loaded machine
 * must not reach (tests of the timeout itself set their own, short one). */
const HANG_MS = 60_000;

let site: FixtureSite;
beforeAll(async () => {
  site = await startFixtureSite();
});
afterAll(async () => {
  await site.close();
});

async function refusal(p: Promise<unknown>): Promise<FetchError> {
  try {
    await p;
  } catch (err) {
    if (err instanceof FetchError) return err;
    throw err;
  }
  throw new Error('expected a FetchError, but the fetch succeeded');
}

/** DNS for made-up names; any other name fails the test rather than reaching real DNS. */
function fakeDns(table: Record<string, string[]>) {
  return vi.fn<HostLookup>(async (host) => {
    const addresses = table[host];
    if (!addresses) throw Object.assign(new Error(`no such host ${host}`), { code: 'ENOTFOUND' });
    return addresses.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));
  });
}

/** A port nothing listens on (a server is opened, its port noted, then closed). */
async function closedPort(): Promise<number> {
  const s = http.createServer();
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  const port = (s.address() as AddressInfo).port;
  await new Promise<void>((r) => s.close(() => r()));
  return port;
}

describe('SafeFetcher refuses private targets', () => {
  const lookup = fakeDns({});
  const fetcher = new SafeFetcher({ allow: [], lookup, timeoutMs: 2000 });

  it.each([
    ['http://127.0.0.1/', '127.0.0.1 is a loopback address'],
    ['http://127.0.0.1:8080/admin', '127.0.0.1 is a loopback address'],
    ['http://10.0.0.1/', '10.0.0.1 is a private network address'],
    ['http://172.16.5.4/', '172.16.5.4 is a private network address'],
    ['http://192.168.1.1/router', '192.168.1.1 is a private network address'],
    ['http://169.254.169.254/latest/meta-data/', '169.254.169.254 is a link-local address'],
    ['http://100.64.0.1/', '100.64.0.1 is a carrier-grade NAT address'],
    ['http://0.0.0.0/', '0.0.0.0 is an unspecified address'],
    ['http://224.0.0.1/', '224.0.0.1 is a multicast address'],
    ['http://255.255.255.255/', '255.255.255.255 is the broadcast address'],
    ['http://[::1]/', '::1 is a loopback address'],
    ['http://[::]/', ':: is an unspecified address'],
    ['http://[fe80::1]/', 'fe80::1 is a link-local address'],
    ['http://[fc00::1]/', 'fc00::1 is a unique-local IPv6 address'],
    ['http://[::ffff:127.0.0.1]/', '::ffff:7f00:1 (IPv4 127.0.0.1) is a loopback address'],
    ['http://[::ffff:7f00:1]/', '::ffff:7f00:1 (IPv4 127.0.0.1) is a loopback address'],
    ['http://[::ffff:169.254.169.254]/', '(IPv4 169.254.169.254) is a link-local address'],
    ['http://[64:ff9b::7f00:1]/', 'is a NAT64 address'],
    ['http://2130706433/', '127.0.0.1 is a loopback address'],
    ['http://0x7f000001/', '127.0.0.1 is a loopback address'],
    ['http://0x7f.1/', '127.0.0.1 is a loopback address'],
    ['http://017700000001/', '127.0.0.1 is a loopback address'],
    ['http://127.1/', '127.0.0.1 is a loopback address'],
  ])('refuses %s', async (url, why) => {
    const err = await refusal(fetcher.fetch(url));
    expect(err.code).toBe('blocked_address');
    expect(err.status).toBe(422);
    expect(err.message).toContain('Refused to fetch http://');
    expect(err.message).toContain(why);
    expect(lookup).not.toHaveBeenCalled();
  });

  it('refuses localhost, which resolves to loopback', async () => {
    const err = await refusal(new SafeFetcher({ allow: [] }).fetch('http://localhost/'));
    expect(err.code).toBe('blocked_address');
    expect(err.message).toMatch(/Refused to fetch http:\/\/localhost\/: localhost resolves to/);
    expect(err.message).toMatch(/is a loopback address/);
  });

  it.each([
    ['file:///etc/passwd', 'file:'],
    ['ftp://ftp.example.org/pub/file.txt', 'ftp:'],
    ['data:text/html,<h1>hi</h1>', 'data:'],
    ['gopher://example.org/', 'gopher:'],
    ['javascript:alert(1)', 'javascript:'],
  ])('refuses the scheme of %s', async (url, scheme) => {
    const err = await refusal(fetcher.fetch(url));
    expect(err.code).toBe('bad_scheme');
    expect(err.status).toBe(422);
    expect(err.message).toContain(`only http and https URLs can be fetched, not ${scheme}`);
  });

  it('answers 400 for something that is not a URL', async () => {
    const err = await refusal(fetcher.fetch('not a url'));
    expect(err.code).toBe('invalid_url');
    expect(err.status).toBe(400);
    expect(err.message).toBe("Invalid URL 'not a url': it must be an absolute http(s) URL");
  });

  it('refuses credentials in the URL without repeating them', async () => {
    const err = await refusal(fetcher.fetch('http://alice:s3cret@example.org/x'));
    expect(err.code).toBe('invalid_url');
    expect(err.message).toBe(
      "Invalid URL 'http://…@example.org/x': credentials in URLs are not supported",
    );
    const odd = await refusal(fetcher.fetch('http://alice:s3cret@[bad/'));
    expect(odd.message).not.toMatch(/alice|s3cret/);
  });

  it('refuses a public-looking name whose DNS answers a loopback address', async () => {
    const dns = fakeDns({ 'news.example': ['127.0.0.1'] });
    const f = new SafeFetcher({ allow: [], lookup: dns });
    const err = await refusal(f.fetch(`http://news.example:${site.port}/articles/honeybees`));
    expect(err.code).toBe('blocked_address');
    expect(err.message).toBe(
      `Refused to fetch http://news.example:${site.port}/articles/honeybees: news.example resolves ` +
        'to 127.0.0.1, which is a loopback address (add it to ADAM_FETCH_ALLOW to reach it on purpose)',
    );
    expect(site.hits).not.toContain('/articles/honeybees');
  });

  it('refuses a name when any of its addresses is private', async () => {
    const dns = fakeDns({ 'mixed.example': ['93.184.216.34', '10.0.0.5'] });
    const err = await refusal(
      new SafeFetcher({ allow: [], lookup: dns }).fetch('http://mixed.example/'),
    );
    expect(err.code).toBe('blocked_address');
    expect(err.message).toContain(
      'mixed.example resolves to 10.0.0.5, which is a private network address',
    );
  });

  it('reports a name that does not resolve', async () => {
    const err = await refusal(
      new SafeFetcher({ allow: [], lookup: fakeDns({}) }).fetch('http://nowhere.example/page'),
    );
    expect(err.code).toBe('dns');
    expect(err.status).toBe(502);
    expect(err.message).toBe(
      "Could not resolve the host 'nowhere.example' of http://nowhere.example/page: no such host",
    );
  });
});

describe('SafeFetcher with the fixture site allowed', () => {
  const make = (opts: Partial<ConstructorParameters<typeof SafeFetcher>[0]> = {}) =>
    new SafeFetcher({ allow: [`127.0.0.1:${site.port}`], timeoutMs: HANG_MS, ...opts });

  it('fetches a page with its headers, content type and body', async () => {
    const res = await make().fetch(`${site.url}/articles/honeybees`);
    expect(res.status).toBe(200);
    expect(res.url).toBe(`${site.url}/articles/honeybees`);
    expect(res.contentType).toBe('text/html; charset=utf-8');
    expect(res.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(res.body.toString('utf8')).toContain('Scout bees advertise a candidate cavity');
    expect(res.redirects).toEqual([]);
  });

  it('connects to the address it vetted: no second DNS lookup can rebind the name', async () => {
    // The first answer is vetted (allowed by address and port); later answers point to
    // 127.0.0.2, where nothing listens, so a second lookup would make the fetch fail.
    let calls = 0;
    const lookup = vi.fn<HostLookup>(async () => [
      { address: calls++ === 0 ? '127.0.0.1' : '127.0.0.2', family: 4 },
    ]);
    const before = site.requests.length;
    const res = await make({ lookup }).fetch(`http://news.example:${site.port}/echo`);
    expect(res.status).toBe(200);
    expect(lookup).toHaveBeenCalledTimes(1);
    const seen = site.requests.slice(before);
    expect(seen).toHaveLength(1);
    // The Host header still names the host of the URL, not the pinned address.
    expect(seen[0]?.host).toBe(`news.example:${site.port}`);
    expect(JSON.parse(res.body.toString('utf8')).headers.host).toBe(`news.example:${site.port}`);
  });

  it('sends its user agent and accept header', async () => {
    const res = await make({ userAgent: 'ADAM-test/1' }).fetch(`${site.url}/echo`, {
      accept: 'application/json',
    });
    const { headers } = JSON.parse(res.body.toString('utf8'));
    expect(headers['user-agent']).toBe('ADAM-test/1');
    expect(headers.accept).toBe('application/json');
  });

  it('refuses a redirect to a port the allow-list does not open', async () => {
    const before = site.hits.length;
    const err = await refusal(make().fetch(`${site.url}/redirect/loopback`));
    expect(err.code).toBe('blocked_address');
    expect(err.message).toBe(
      `Refused to follow the redirect from ${site.url}/redirect/loopback to http://127.0.0.1:1/: ` +
        `127.0.0.1 is a loopback address (the fetch allow-list opens it on port ${site.port} only, not 1)`,
    );
    expect(site.hits.slice(before)).toEqual(['/redirect/loopback']);
  });

  it('refuses a redirect to the cloud metadata address', async () => {
    const err = await refusal(make().fetch(`${site.url}/redirect/metadata`));
    expect(err.code).toBe('blocked_address');
    expect(err.message).toContain('to http://169.254.169.254/latest/meta-data/');
    expect(err.message).toContain('169.254.169.254 is a link-local address');
  });

  it('refuses a redirect to another scheme', async () => {
    const err = await refusal(
      make().fetch(`${site.url}/redirect/to?url=${encodeURIComponent('file:///etc/passwd')}`),
    );
    expect(err.code).toBe('bad_scheme');
    expect(err.message).toContain('to file:///etc/passwd');
  });

  it('follows redirects up to the limit, re-checking each hop', async () => {
    const res = await make().fetch(`${site.url}/redirect/hops/5`);
    expect(res.url).toBe(`${site.url}/articles/honeybees`);
    expect(res.redirects).toEqual([
      `${site.url}/redirect/hops/4`,
      `${site.url}/redirect/hops/3`,
      `${site.url}/redirect/hops/2`,
      `${site.url}/redirect/hops/1`,
      `${site.url}/articles/honeybees`,
    ]);
    const relative = await make().fetch(`${site.url}/redirect/relative`);
    expect(relative.url).toBe(`${site.url}/articles/lighthouse-lenses`);
  });

  it('gives up past the redirect limit', async () => {
    const err = await refusal(make().fetch(`${site.url}/redirect/hops/6`));
    expect(err.code).toBe('too_many_redirects');
    expect(err.status).toBe(502);
    expect(err.message).toContain(`Gave up on ${site.url}/redirect/hops/6: more than 5 redirects`);
    const loop = await refusal(make({ maxRedirects: 2 }).fetch(`${site.url}/redirect/loop`));
    expect(loop.code).toBe('too_many_redirects');
    expect(loop.message).toContain('more than 2 redirects');
  });

  it('times out when the headers are late', async () => {
    // The page would come after 3 s: a timeout error (not the page) is the proof, without a
    // wall-clock bound that a loaded machine could break.
    const err = await refusal(make({ timeoutMs: 300 }).fetch(`${site.url}/slow?ms=3000`));
    expect(err.code).toBe('timeout');
    expect(err.status).toBe(502);
    expect(err.message).toBe(`Timed out after 300 ms fetching ${site.url}/slow?ms=3000`);
  });

  it('times out when the body is late', async () => {
    const err = await refusal(make({ timeoutMs: 300 }).fetch(`${site.url}/slow-body?ms=3000`));
    expect(err.code).toBe('timeout');
  });

  it("stops a body in progress at once when the caller's signal aborts", async () => {
    const hostile = await startHostileSite();
    try {
      const f = new SafeFetcher({ allow: [hostile.host], timeoutMs: 60_000 });
      const abort = new AbortController();
      const fetching = f.fetch(`${hostile.base}/trickle`, { signal: abort.signal });
      await until(() => hostile.trickles.length === 1, { what: 'the request' });
      const reason = new Error('the job was cancelled');
      abort.abort(reason);
      // The caller's reason, not a network or timeout FetchError.
      await expect(fetching).rejects.toBe(reason);
      await until(() => hostile.trickles[0]!.closed, { what: 'the connection to close' });
      await f.close();
    } finally {
      await hostile.close();
    }
  });

  it('stops reading past the size cap', async () => {
    const err = await refusal(make({ maxBytes: 100_000 }).fetch(`${site.url}/huge`));
    expect(err.code).toBe('too_large');
    expect(err.status).toBe(422);
    expect(err.message).toBe(
      `${site.url}/huge is too large: stopped reading past the 97.7 KiB limit`,
    );
  });

  it('refuses up front a body whose Content-Length is over the cap', async () => {
    const err = await refusal(make({ maxBytes: 1024 * 1024 }).fetch(`${site.url}/huge?declare=1`));
    expect(err.code).toBe('too_large');
    expect(err.message).toBe(
      `${site.url}/huge?declare=1 is too large: it declares 2097152 bytes, over the 1 MiB limit`,
    );
  });

  it('reads a body under the cap whole', async () => {
    const res = await make({ maxBytes: 100_000 }).fetch(`${site.url}/huge?bytes=60000`);
    expect(res.body.length).toBe(60_000);
  });

  it.each([404, 500, 503])('answers http_status for HTTP %i', async (status) => {
    const err = await refusal(make().fetch(`${site.url}/status/${status}`));
    expect(err.code).toBe('http_status');
    expect(err.status).toBe(502);
    expect(err.upstreamStatus).toBe(status);
    expect(err.message).toMatch(
      new RegExp(`^${site.url}/status/${status} answered HTTP ${status}`),
    );
  });

  it('reports a refused connection', async () => {
    const port = await closedPort();
    const err = await refusal(
      new SafeFetcher({ allow: ['127.0.0.1'] }).fetch(`http://127.0.0.1:${port}/`),
    );
    expect(err.code).toBe('network');
    expect(err.message).toBe(
      `Could not fetch http://127.0.0.1:${port}/: connection refused (ECONNREFUSED)`,
    );
  });

  it('keeps custom headers to the first origin', async () => {
    const f = new SafeFetcher({ allow: ['127.0.0.1', 'localhost'] });
    const same = await f.fetch(`${site.url}/echo`, { headers: { authorization: 'Bearer t' } });
    expect(JSON.parse(same.body.toString('utf8')).headers.authorization).toBe('Bearer t');
    const elsewhere = `http://localhost:${site.port}/echo`;
    const moved = await f.fetch(`${site.url}/redirect/to?url=${encodeURIComponent(elsewhere)}`, {
      headers: { authorization: 'Bearer t' },
    });
    expect(moved.url).toBe(elsewhere);
    expect(JSON.parse(moved.body.toString('utf8')).headers.authorization).toBeUndefined();
  });
});

describe('allow-list semantics', () => {
  it('opens a host entry on every port', async () => {
    const res = await new SafeFetcher({ allow: ['127.0.0.1'] }).fetch(`${site.url}/plain.txt`);
    expect(res.status).toBe(200);
  });

  it('opens a host:port entry on that port only', async () => {
    const other = site.port === 65535 ? 65534 : site.port + 1;
    const f = new SafeFetcher({ allow: [`127.0.0.1:${other}`] });
    const err = await refusal(f.fetch(`${site.url}/plain.txt`));
    expect(err.code).toBe('blocked_address');
    expect(err.message).toContain(`opens it on port ${other} only, not ${site.port}`);
  });

  it('opens a named host without opening its address under other names', async () => {
    const f = new SafeFetcher({ allow: ['localhost'] });
    const res = await f.fetch(`http://localhost:${site.port}/plain.txt`);
    expect(res.status).toBe(200);
    const err = await refusal(f.fetch(`${site.url}/plain.txt`));
    expect(err.code).toBe('blocked_address');
  });

  it('runs the guard on every hop before requesting it', async () => {
    const seen: string[] = [];
    const f = new SafeFetcher({ allow: ['127.0.0.1'] });
    const before = site.hits.length;
    const err = await f
      .fetch(`${site.url}/redirect/hops/2`, {
        guard: (u) => {
          seen.push(u.pathname);
          if (u.pathname === '/redirect/hops/1') throw new FetchError('denied_by_rule', 'no');
        },
      })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(FetchError);
    expect(seen).toEqual(['/redirect/hops/2', '/redirect/hops/1']);
    expect(site.hits.slice(before)).toEqual(['/redirect/hops/2']);
  });
});

describe('SafeFetcher connections', () => {
  it("keeps a site's other fetches going when one of them fails", async () => {
    const fetcher = new SafeFetcher({ allow: [`127.0.0.1:${site.port}`], timeoutMs: HANG_MS });
    try {
      const slow = fetcher.fetch(`${site.url}/slow-body?ms=300`);
      await new Promise((r) => setTimeout(r, 50));
      const failed = await refusal(fetcher.fetch(`${site.url}/status/500`));
      expect(failed.code).toBe('http_status');
      expect((await slow).status).toBe(200);
    } finally {
      await fetcher.close();
    }
  });

  it('reuses a kept-alive connection for the next page of the same site', async () => {
    let connections = 0;
    const server = http.createServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/plain' });
      res.end('ok');
    });
    server.on('connection', () => connections++);
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const port = (server.address() as AddressInfo).port;
    const fetcher = new SafeFetcher({ allow: [`127.0.0.1:${port}`], timeoutMs: HANG_MS });
    try {
      for (const p of ['/a', '/b', '/c']) {
        const r = await fetcher.fetch(`http://127.0.0.1:${port}${p}`);
        expect(r.body.toString()).toBe('ok');
        // The socket goes back to the pool once the response has ended, a few ticks later.
        await new Promise((r) => setTimeout(r, 20));
      }
      expect(connections).toBe(1);
    } finally {
      await fetcher.close();
      server.closeAllConnections();
      await new Promise<void>((r) => server.close(() => r()));
    }
  });
});

describe('SafeFetcher.fetchStream', () => {
  const make = (opts: Partial<ConstructorParameters<typeof SafeFetcher>[0]> = {}) =>
    new SafeFetcher({ allow: [`127.0.0.1:${site.port}`], timeoutMs: HANG_MS, ...opts });

  async function drain(body: AsyncIterable<Buffer>): Promise<{ bytes: number; chunks: number }> {
    let bytes = 0;
    let chunks = 0;
    for await (const chunk of body) {
      bytes += chunk.byteLength;
      chunks++;
    }
    return { bytes, chunks };
  }

  it('hands the body over in chunks, with status, headers and the final URL', async () => {
    const res = await make().fetchStream(`${site.url}/huge?bytes=300000&declare=1`, {
      maxBytes: 1_000_000,
    });
    expect(res.status).toBe(200);
    expect(res.url).toBe(`${site.url}/huge?bytes=300000&declare=1`);
    expect(res.contentLength).toBe(300_000);
    expect(res.contentType).toBe('text/html; charset=utf-8');
    const { bytes, chunks } = await drain(res.body);
    expect(bytes).toBe(300_000);
    expect(chunks).toBeGreaterThan(1);
  });

  it('vets redirect hops like fetch: a redirect to loopback on another port is refused', async () => {
    const before = site.hits.length;
    const err = await refusal(make().fetchStream(`${site.url}/redirect/loopback`));
    expect(err.code).toBe('blocked_address');
    expect(err.message).toContain(
      `Refused to follow the redirect from ${site.url}/redirect/loopback to http://127.0.0.1:1/`,
    );
    expect(site.hits.slice(before)).toEqual(['/redirect/loopback']);
  });

  it('follows redirects and sends Range on every hop, custom headers to the first origin only', async () => {
    const f = new SafeFetcher({ allow: ['127.0.0.1', 'localhost'], timeoutMs: HANG_MS });
    const elsewhere = `http://localhost:${site.port}/echo`;
    const res = await f.fetchStream(
      `${site.url}/redirect/to?url=${encodeURIComponent(elsewhere)}`,
      {
        rangeFrom: 1234,
        headers: { authorization: 'Bearer t' },
      },
    );
    expect(res.url).toBe(elsewhere);
    expect(res.redirects).toEqual([elsewhere]);
    const chunks: Buffer[] = [];
    for await (const c of res.body) chunks.push(c);
    const { headers } = JSON.parse(Buffer.concat(chunks).toString('utf8'));
    expect(headers.range).toBe('bytes=1234-');
    expect(headers.authorization).toBeUndefined();
    expect(headers.accept).toBe('*/*');
  });

  it('stops reading past the cap, and refuses a declared length over it up front', async () => {
    const res = await make().fetchStream(`${site.url}/huge?bytes=300000`, { maxBytes: 100_000 });
    const err = await refusal(drain(res.body));
    expect(err.code).toBe('too_large');
    expect(err.message).toBe(
      `${site.url}/huge?bytes=300000 is too large: stopped reading past the 97.7 KiB limit`,
    );
    const declared = await refusal(
      make().fetchStream(`${site.url}/huge?bytes=300000&declare=1`, { maxBytes: 100_000 }),
    );
    expect(declared.code).toBe('too_large');
    expect(declared.message).toContain('it declares 300000 bytes');
  });

  it('answers http_status with the upstream status', async () => {
    const err = await refusal(make().fetchStream(`${site.url}/status/404`));
    expect(err.code).toBe('http_status');
    expect(err.upstreamStatus).toBe(404);
  });

  it('times out when the body stops arriving for idleTimeoutMs', async () => {
    // The body would end after 5 s: the timeout error, not a complete body, is the proof.
    const res = await make().fetchStream(`${site.url}/slow-body?ms=5000`, { idleTimeoutMs: 200 });
    const err = await refusal(drain(res.body));
    expect(err.code).toBe('timeout');
    expect(err.message).toBe(`Timed out: no data for 200 ms from ${site.url}/slow-body?ms=5000`);
  });

  it('times out when the headers are late by idleTimeoutMs', async () => {
    const err = await refusal(
      make().fetchStream(`${site.url}/slow?ms=5000`, { idleTimeoutMs: 200 }),
    );
    expect(err.code).toBe('timeout');
    expect(err.message).toBe(`Timed out: no data for 200 ms from ${site.url}/slow?ms=5000`);
  });

  it('does not count the time the caller spends between chunks as idleness', async () => {
    // The idle bound is wide (a loaded machine stalling the local server must not look idle);
    // the caller's one pause is the input under test, not a wait for something to happen: it
    // is longer than the bound, so counting it as idleness would fail the read.
    const IDLE_MS = 1_000;
    const res = await make().fetchStream(`${site.url}/huge?bytes=200000`, {
      idleTimeoutMs: IDLE_MS,
      maxBytes: 1_000_000,
    });
    let bytes = 0;
    for await (const chunk of res.body) {
      if (bytes === 0) await new Promise((r) => setTimeout(r, IDLE_MS * 1.5)); // a slow disk
      bytes += chunk.byteLength;
    }
    expect(bytes).toBe(200_000);
  });

  it('stops at once when its signal is aborted, with the signal reason', async () => {
    const controller = new AbortController();
    const res = await make().fetchStream(`${site.url}/slow-body?ms=5000`, {
      signal: controller.signal,
    });
    // Without the abort the body would end normally after 5 s: the signal's reason as the error
    // is the proof, with no wall-clock bound a loaded machine could break.
    const reading = drain(res.body).catch((e: unknown) => e);
    controller.abort(new Error('operator cancelled'));
    const err = await reading;
    expect(err).toBeInstanceOf(Error);
    expect((err as Error).message).toBe('operator cancelled');

    const already = await make()
      .fetchStream(`${site.url}/echo`, { signal: AbortSignal.abort() })
      .catch((e: unknown) => e);
    expect((already as Error).name).toBe('AbortError');
  });

  it('frees the connection when the caller leaves the body early', async () => {
    const fetcher = make();
    try {
      const res = await fetcher.fetchStream(`${site.url}/huge?bytes=2000000`, {
        maxBytes: 5_000_000,
      });
      for await (const _chunk of res.body) break;
      const skipped = await fetcher.fetchStream(`${site.url}/echo`);
      skipped.cancel();
      const next = await fetcher.fetch(`${site.url}/plain.txt`);
      expect(next.status).toBe(200);
    } finally {
      await fetcher.close();
    }
  });
});
