import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { startServer, tempDir, type TestServer } from './helpers.js';

let s: TestServer;

afterEach(async () => {
  await s?.close();
});

/** A console build to serve: index.html, a hashed asset and a file whose name needs escaping. */
function webDist(): string {
  const dir = tempDir('adam-web-');
  fs.mkdirSync(path.join(dir, 'assets'));
  fs.writeFileSync(path.join(dir, 'index.html'), '<!doctype html><title>ADAM</title>');
  fs.writeFileSync(path.join(dir, 'assets', 'app-1a2b.js'), 'console.log(1);');
  fs.writeFileSync(path.join(dir, 'read me.txt'), 'hello');
  return dir;
}

/** Sends raw bytes and answers the whole response as text. */
function raw(port: number, request: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1', () => socket.end(request));
    let out = '';
    socket.on('data', (d) => (out += d.toString()));
    socket.on('end', () => resolve(out));
    socket.on('error', reject);
  });
}

const port = () => Number(new URL(s.url).port);
const jsonBody = (response: string) =>
  JSON.parse(response.slice(response.indexOf('\r\n\r\n') + 4)) as { detail: string };

describe('requests refused before any route', () => {
  it('serves the console, and answers 404 {detail} to a path with a NUL instead of a 500', async () => {
    s = await startServer({ env: { ADAM_WEB_DIST: webDist() } });
    const asset = await fetch(`${s.url}/assets/app-1a2b.js`);
    expect(asset.status).toBe(200);
    expect(await asset.text()).toBe('console.log(1);');
    expect(await (await fetch(`${s.url}/read%20me.txt`)).text()).toBe('hello');
    expect(await (await fetch(`${s.url}/sources/queue`)).text()).toContain('<title>ADAM</title>');
    for (const p of ['/%00', '/assets/%00.js', '/x%00y']) {
      const r = await fetch(`${s.url}${p}`);
      expect(r.status, p).toBe(404);
      expect(((await r.json()) as { detail: string }).detail).toBe(`Not found: GET ${p}`);
    }
  });

  it('answers a malformed escape with 400 {detail}', async () => {
    s = await startServer();
    const r = await fetch(`${s.url}/api/v1/snippets/%E0%A4%A`);
    expect(r.status).toBe(400);
    expect(await r.json()).toEqual({
      detail: 'Malformed URL: a percent sign must start a valid %XX escape',
    });
  });

  it("answers the HTTP parser's refusals with {detail}: headers too large, not HTTP", async () => {
    s = await startServer();
    const big = await raw(
      port(),
      `GET /api/v1/health HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`,
    );
    expect(big).toMatch(/^HTTP\/1\.1 431 Request Header Fields Too Large\r\n/);
    expect(jsonBody(big).detail).toBe(
      'Request headers too large: the URL and headers must fit in 16 KiB',
    );
    const longUrl = await raw(port(), `GET /${'a'.repeat(20_000)} HTTP/1.1\r\nHost: x\r\n\r\n`);
    // The request line alone filled the limit: HTTP's 414, not Node's 431.
    expect(longUrl).toMatch(/^HTTP\/1\.1 414 URI Too Long\r\n/);
    expect(jsonBody(longUrl).detail).toBe('URL too long: the URL and headers must fit in 16 KiB');
    const garbage = await raw(port(), 'BLAH\r\n\r\n');
    expect(garbage).toMatch(/^HTTP\/1\.1 400 Bad Request\r\n/);
    expect(jsonBody(garbage)).toEqual({ detail: 'Malformed HTTP request' });
    // The server is still there.
    expect((await fetch(`${s.url}/api/v1/health`)).status).toBe(200);
  });
});
