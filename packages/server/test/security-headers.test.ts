import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, tempDir, type TestServer } from './helpers.js';

let s: TestServer;
let key: string;

/** A console build: its index.html and one hashed asset. */
function webDist(): string {
  const dir = tempDir('adam-web-');
  fs.mkdirSync(path.join(dir, 'assets'));
  fs.writeFileSync(
    path.join(dir, 'index.html'),
    '<!doctype html><title>ADAM</title><script type="module" src="/assets/app-1a2b.js"></script>',
  );
  fs.writeFileSync(path.join(dir, 'assets', 'app-1a2b.js'), 'export const x = 1;\n');
  return dir;
}

beforeAll(async () => {
  s = await startServer({ env: { ADAM_WEB_DIST: webDist() } });
  key = await s.login();
});
afterAll(async () => {
  await s?.close();
});

/** A request as sent, path untouched (fetch would normalise a malformed one). */
function raw(
  p: string,
  init: { method?: string; headers?: Record<string, string>; body?: string } = {},
): Promise<{ status: number; headers: http.IncomingHttpHeaders }> {
  const { port } = new URL(s.url);
  return new Promise((resolve, reject) => {
    const req = http.request(
      { host: '127.0.0.1', port, path: p, method: init.method ?? 'GET', headers: init.headers },
      (res) => {
        res.resume();
        res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers }));
      },
    );
    req.on('error', reject);
    req.end(init.body);
  });
}

const COMMON = {
  'x-frame-options': 'DENY',
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'same-origin',
};

/** The console's policy, directive by directive (order does not matter to a browser). */
function directives(csp: string | string[] | undefined): Record<string, string> {
  return Object.fromEntries(
    String(csp ?? '')
      .split(';')
      .map((d) => d.trim())
      .filter(Boolean)
      .map((d) => {
        const [name, ...values] = d.split(/\s+/);
        return [name!, values.join(' ')];
      }),
  );
}

const PAGE = {
  'default-src': "'self'",
  'script-src': "'self'",
  'style-src': "'self' 'unsafe-inline'",
  'img-src': "'self' data:",
  'connect-src': "'self'",
  'object-src': "'none'",
  'base-uri': "'self'",
  'form-action': "'self'",
  'frame-ancestors': "'none'",
};
const API = { 'default-src': "'none'", 'frame-ancestors': "'none'" };

describe('browser security headers', () => {
  it('sends the console’s strict policy with its page, its client routes and its assets', async () => {
    for (const p of ['/', '/jobs/active', '/assets/app-1a2b.js']) {
      const r = await raw(p);
      expect(r.status, p).toBe(200);
      expect(r.headers, p).toMatchObject(COMMON);
      expect(directives(r.headers['content-security-policy']), p).toEqual(PAGE);
    }
  });

  it('sends the API’s minimal policy with its answers, errors and 404s', async () => {
    const cases: [string, number, Parameters<typeof raw>[1]][] = [
      ['/api/v1/health', 200, {}],
      ['/api/v1/admin/settings', 200, { headers: { 'x-api-key': key } }],
      // 401: no key.
      ['/api/v1/admin/settings', 401, {}],
      // 422: refused by the schema, through the error handler.
      [
        '/api/v1/playground/save-segments',
        422,
        {
          method: 'POST',
          headers: { 'x-api-key': key, 'content-type': 'application/json' },
          body: JSON.stringify({ text: 'x', source_url: 'javascript:alert(1)' }),
        },
      ],
      // 403: a cross-site write, refused by a hook that runs before any route.
      ['/api/v1/auth/logout', 403, { method: 'POST', headers: { origin: 'https://evil.example' } }],
      ['/api/v1/no-such-route', 404, {}],
      // 400: a malformed URL, answered before routing.
      ['/api/v1/sources/jobs/%E0%A4%A', 400, {}],
    ];
    for (const [p, status, init] of cases) {
      const r = await raw(p, init);
      expect(r.status, p).toBe(status);
      expect(r.headers, `${status} ${p}`).toMatchObject({
        ...COMMON,
        'content-security-policy': "default-src 'none'; frame-ancestors 'none'",
      });
      expect(directives(r.headers['content-security-policy'])).toEqual(API);
    }
  });

  it('gives the API docs the page policy: Swagger UI loads its own scripts and styles', async () => {
    for (const p of ['/api/docs', '/api/docs/static/swagger-initializer.js']) {
      const r = await raw(p);
      expect(r.status, p).toBe(200);
      expect(r.headers, p).toMatchObject(COMMON);
      expect(directives(r.headers['content-security-policy']), p).toEqual(PAGE);
    }
  });
});
