import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import zlib from 'node:zlib';
import { afterEach, describe, expect, it } from 'vitest';
import { startServer, tempDir, type TestServer } from './helpers.js';

const webRoot = path.resolve(import.meta.dirname, '..', '..', 'web');
const realDist = path.join(webRoot, 'dist');

let s: TestServer | undefined;
afterEach(async () => {
  await s?.close();
  s = undefined;
});

// Compressible, and well above the precompression threshold.
const APP_JS = `${Array.from({ length: 400 }, (_, i) => `export const value${i} = "console ${i}";`).join('\n')}\n`;

/** A console build as `npm run build -w @adam/web` leaves it, through the same precompress script. */
function webDist(): string {
  const dir = tempDir('adam-web-');
  fs.mkdirSync(path.join(dir, 'assets'));
  fs.writeFileSync(
    path.join(dir, 'index.html'),
    '<!doctype html><title>ADAM</title><script type="module" src="/assets/app-1a2b.js"></script>',
  );
  fs.writeFileSync(path.join(dir, 'assets', 'app-1a2b.js'), APP_JS);
  // A map a build with sourcemaps would leave: it must not be served.
  fs.writeFileSync(path.join(dir, 'assets', 'app-1a2b.js.map'), '{"version":3,"sources":[]}');
  const r = spawnSync(process.execPath, [path.join(webRoot, 'scripts', 'precompress.mjs'), dir], {
    encoding: 'utf8',
  });
  if (r.status !== 0) throw new Error(r.stderr);
  return dir;
}

/** GET with the given Accept-Encoding, the body as sent (no decoding). */
function get(url: string, acceptEncoding?: string) {
  return new Promise<{ status: number; headers: http.IncomingHttpHeaders; body: Buffer }>(
    (resolve, reject) => {
      const req = http.get(
        url,
        { headers: acceptEncoding ? { 'accept-encoding': acceptEncoding } : {} },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => chunks.push(c));
          res.on('end', () =>
            resolve({ status: res.statusCode!, headers: res.headers, body: Buffer.concat(chunks) }),
          );
        },
      );
      req.on('error', reject);
    },
  );
}

describe('the console, served compressed and without source maps', () => {
  it('answers brotli or gzip to a browser that accepts it, the same bytes once decoded', async () => {
    s = await startServer({ env: { ADAM_WEB_DIST: webDist() } });
    const url = `${s.url}/assets/app-1a2b.js`;

    const br = await get(url, 'gzip, deflate, br');
    expect(br.status).toBe(200);
    expect(br.headers['content-encoding']).toBe('br');
    expect(br.headers['content-type']).toMatch(/^text\/javascript|^application\/javascript/);
    expect(br.headers.vary).toMatch(/accept-encoding/i);
    expect(br.headers['cache-control']).toBe('public, max-age=31536000, immutable');
    expect(br.body.length).toBeLessThan(APP_JS.length / 3);
    expect(zlib.brotliDecompressSync(br.body).toString()).toBe(APP_JS);

    const gz = await get(url, 'gzip');
    expect(gz.headers['content-encoding']).toBe('gzip');
    expect(zlib.gunzipSync(gz.body).toString()).toBe(APP_JS);

    const plain = await get(url);
    expect(plain.headers['content-encoding']).toBeUndefined();
    expect(plain.body.toString()).toBe(APP_JS);
  });

  it('serves no source map, even one left in the build', async () => {
    s = await startServer({ env: { ADAM_WEB_DIST: webDist() } });
    const r = await get(`${s.url}/assets/app-1a2b.js.map`, 'br');
    expect(r.status).toBe(404);
    expect(JSON.parse(r.body.toString())).toEqual({
      detail: 'Not found: GET /assets/app-1a2b.js.map',
    });
  });

  // The console `npm run build` made (CI builds before it tests).
  it.skipIf(!fs.existsSync(path.join(realDist, 'index.html')))(
    'the built console has no source maps, and a .br and .gz beside its entry script',
    () => {
      const assets = fs.readdirSync(path.join(realDist, 'assets'));
      expect(assets.filter((f) => f.endsWith('.map'))).toEqual([]);
      for (const f of assets.filter((a) => /\.(js|css)$/.test(a))) {
        expect(fs.readFileSync(path.join(realDist, 'assets', f), 'utf8'), f).not.toContain(
          'sourceMappingURL',
        );
      }
      const html = fs.readFileSync(path.join(realDist, 'index.html'), 'utf8');
      const entry = /src="\/(assets\/index-[^"]+\.js)"/.exec(html)?.[1];
      expect(entry, html).toBeTruthy();
      const original = fs.readFileSync(path.join(realDist, entry!));
      expect(
        zlib.brotliDecompressSync(fs.readFileSync(path.join(realDist, `${entry}.br`))),
      ).toEqual(original);
      expect(zlib.gunzipSync(fs.readFileSync(path.join(realDist, `${entry}.gz`)))).toEqual(
        original,
      );
    },
  );
});
