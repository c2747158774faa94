import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../src/config.js';
import { startServer, tempDir, type TestServer } from './helpers.js';
import { until } from './until.js';

let s: TestServer | undefined;
afterEach(async () => {
  await s?.close();
  s = undefined;
});

describe('health and public config', () => {
  it('reports the database healthy and redis disabled without REDIS_URL, without a key', async () => {
    s = await startServer({ engineWithServer: true });
    // Healthy once the engine's threads are up; "starting" before (test/startup.test.ts).
    await s.adam.engineStarted;
    const r = await s.api('/api/v1/health');
    expect(r.status).toBe(200);
    expect(r.body.status).toBe('healthy');
    expect(r.body.components.database.status).toBe('healthy');
    expect(r.body.components.database.details.journal_mode).toBe('wal');
    expect(r.body.components.redis.status).toBe('disabled');
  });

  it('reports redis unhealthy when REDIS_URL points at nothing, healthy when it answers PONG', async () => {
    const closed = net.createServer();
    await new Promise<void>((r) => closed.listen(0, '127.0.0.1', () => r()));
    const deadPort = (closed.address() as net.AddressInfo).port;
    await new Promise((r) => closed.close(r));
    s = await startServer({
      engineWithServer: true,
      env: { REDIS_URL: `redis://127.0.0.1:${deadPort}` },
    });
    let r = await s.api('/api/v1/health');
    expect(r.body.components.redis.status).toBe('unhealthy');
    expect(r.body.components.redis.error).toBeTruthy();
    expect(r.body.status).toBe('unhealthy');
    await s.close();

    const fake = net.createServer((sock) => sock.on('data', () => sock.write('+PONG\r\n')));
    await new Promise<void>((res) => fake.listen(0, '127.0.0.1', () => res()));
    s = await startServer({
      engineWithServer: true,
      env: { REDIS_URL: `redis://127.0.0.1:${(fake.address() as net.AddressInfo).port}` },
    });
    r = await s.api('/api/v1/health');
    expect(r.body.components.redis.status).toBe('healthy');
    fake.close();
  });

  it('serves the public config without a key, with the default-credentials hint while in use', async () => {
    s = await startServer({ engineWithServer: true });
    const r = await s.api('/api/v1/config/public');
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({
      segment_max_tokens: 384,
      segment_max_sentences: 3,
      segmenter_model: 'builtin',
      default_credentials_in_use: true,
      default_credentials: { email: 'admin@example.com', password: 'admin' },
    });
  });

  it('does not show the hint when the first admin was created with other credentials', async () => {
    s = await startServer({
      engineWithServer: true,
      env: { ADAM_ADMIN_EMAIL: 'ops@example.org', ADAM_ADMIN_PASSWORD: 'correct horse' },
    });
    const r = await s.api('/api/v1/config/public');
    expect(r.body.default_credentials_in_use).toBe(false);
    expect(r.body.default_credentials).toBeNull();
    expect(
      (
        await s.api('/api/v1/auth/login', {
          method: 'POST',
          body: { email: 'ops@example.org', password: 'correct horse' },
        })
      ).status,
    ).toBe(200);
  });

  it('measures host CPU and memory for an authenticated caller', async () => {
    s = await startServer({ engineWithServer: true });
    const key = await s.login();
    // Not a condition to poll: CPU is measured between two readings at least 200 ms apart.
    await new Promise((r) => setTimeout(r, 250));
    const r = await s.api('/api/v1/metrics/realtime', { key });
    expect(r.status).toBe(200);
    expect(r.body.cpuUsage).toBeGreaterThanOrEqual(0);
    expect(r.body.cpuUsage).toBeLessThanOrEqual(100);
    expect(r.body.memoryUsage).toBeGreaterThan(0);
    expect(r.body.memoryUsage).toBeLessThanOrEqual(100);
  });
});

describe('API surface', () => {
  it('answers 404 with a detail for an unknown API path, without leaking an api_key', async () => {
    s = await startServer({ engineWithServer: true });
    const key = await s.login();
    const r = await s.api('/api/v1/does-not-exist?api_key=secret', { key });
    expect(r.status).toBe(404);
    expect(r.body.detail).toBe('Not found: GET /api/v1/does-not-exist');
  });

  it('serves the OpenAPI document and Swagger UI at /api/docs', async () => {
    s = await startServer({ engineWithServer: true });
    const doc = await s.api('/api/docs/json');
    expect(doc.status).toBe(200);
    expect(doc.body.openapi).toMatch(/^3\./);
    expect(Object.keys(doc.body.paths)).toEqual(
      expect.arrayContaining([
        '/api/v1/auth/login',
        '/api/v1/admin/settings/{section}',
        '/api/v1/health',
      ]),
    );
    const login = doc.body.paths['/api/v1/auth/login'].post;
    expect(login.requestBody.content['application/json'].schema.properties).toHaveProperty(
      'totp_code',
    );
    const ui = await fetch(`${s.url}/api/docs/`);
    expect(ui.status).toBe(200);
    expect(await ui.text()).toContain('swagger');
  });

  it('redacts api_key query parameters from stored log lines', async () => {
    s = await startServer({ engineWithServer: true, env: { ADAM_LOG_LEVEL: 'debug' } });
    await s.api('/api/v1/health?api_key=top-secret-value');
    const stored = () => s!.adam.db.prepare('SELECT message FROM logs').pluck().all() as string[];
    // The log sink writes its batch every 250 ms.
    const messages = await until(
      () => {
        const rows = stored();
        return rows.some((m) => m.includes('/api/v1/health?api_key=[REDACTED]')) && rows;
      },
      { what: 'the redacted request line in the logs table' },
    );
    expect(messages.some((m) => m.includes('top-secret-value'))).toBe(false);
  });
});

describe('console hosting', () => {
  it('serves the built console with client-side routes falling back to index.html', async () => {
    const dist = tempDir('adam-web-');
    fs.mkdirSync(path.join(dist, 'assets'));
    fs.writeFileSync(
      path.join(dist, 'index.html'),
      '<!doctype html><title>ADAM</title><div id="root"></div>',
    );
    fs.writeFileSync(path.join(dist, 'assets', 'app.js'), 'console.log(1)');
    s = await startServer({ engineWithServer: true, config: { webDist: dist } });
    for (const p of ['/', '/dashboard/overview', '/dashboard/settings/processing']) {
      const r = await fetch(`${s.url}${p}`);
      expect(r.status).toBe(200);
      expect(await r.text()).toContain('<title>ADAM</title>');
    }
    const asset = await fetch(`${s.url}/assets/app.js`);
    expect(await asset.text()).toBe('console.log(1)');
    expect(asset.headers.get('cache-control')).toContain('immutable');
    const traversal = await fetch(`${s.url}/..%2f..%2fetc%2fpasswd`);
    expect(await traversal.text()).toContain('<title>ADAM</title>');
    expect((await fetch(`${s.url}/api/v1/nope`)).status).toBe(404);
  });
});

describe('configuration', () => {
  it('rejects bad values with a message naming each variable', () => {
    expect(() => loadConfig({ PORT: 'eighty' })).toThrow(ConfigError);
    try {
      loadConfig({ PORT: '70000', REDIS_URL: 'http://x', ADAM_WORKERS: '-1' });
    } catch (e) {
      const msg = (e as Error).message;
      expect(msg).toContain('PORT="70000"');
      expect(msg).toContain('REDIS_URL="http://x"');
      expect(msg).toContain('ADAM_WORKERS');
    }
  });

  it('takes a password hash cost between 10 and 18 only', () => {
    expect(loadConfig({ ADAM_PASSWORD_HASH_COST: '17' }).passwordHashCost).toBe(17);
    for (const bad of ['9', '19', '15.5', 'high']) {
      expect(() => loadConfig({ ADAM_PASSWORD_HASH_COST: bad })).toThrow(
        `ADAM_PASSWORD_HASH_COST=${JSON.stringify(bad)}`,
      );
    }
  });

  it('applies the documented defaults', () => {
    const c = loadConfig({});
    expect(c.port).toBe(8000);
    expect(c.host).toBe('127.0.0.1');
    expect(c.adminEmail).toBe('admin@example.com');
    expect(c.redisUrl).toBeUndefined();
    expect(c.workers).toBe(1);
    expect(c.passwordHashCost).toBe(15);
    // data/ at the repository root, whatever the working directory (issue 9).
    expect(c.dataDir).toBe(path.resolve(import.meta.dirname, '..', '..', '..', 'data'));
  });
});
