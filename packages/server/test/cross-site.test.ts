import { afterEach, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { ConfigError, loadConfig } from '../src/config.js';
import { startServer, type TestServer } from './helpers.js';

const FOREIGN = 'http://127.0.0.1:9';

let s: TestServer;
let key: string;
const sockets: WebSocket[] = [];

afterEach(async () => {
  for (const ws of sockets.splice(0)) ws.terminate();
  await s?.close();
});

async function setup(env: Record<string, string> = {}) {
  s = await startServer({ env });
  key = await s.login();
}

const cookie = () => ({ cookie: `adam_api_key=${key}` });
const backups = async () =>
  ((await s.api('/api/v1/admin/maintenance/backups', { key })).body as unknown[]).length;

/** Opens the realtime socket; answers 'open' or the HTTP status that refused the upgrade. */
function upgrade(headers: Record<string, string>): Promise<'open' | number> {
  const ws = new WebSocket(`${s.url.replace('http', 'ws')}/api/v1/ws`, { headers });
  sockets.push(ws);
  return new Promise((resolve, reject) => {
    ws.once('open', () => resolve('open'));
    ws.once('unexpected-response', (req, res) => {
      resolve(res.statusCode ?? 0);
      req.destroy();
    });
    ws.once('error', reject);
  });
}

describe('cross-site requests', () => {
  it('refuses a text/plain POST from a foreign origin carrying only the cookie, and does nothing', async () => {
    await setup();
    const before = await backups();
    const r = await s.api('/api/v1/admin/maintenance/backup', {
      method: 'POST',
      headers: { ...cookie(), origin: FOREIGN, 'content-type': 'text/plain' },
      rawBody: 'x',
    });
    expect(r.status).toBe(403);
    expect(r.body.detail).toContain(`origin ${FOREIGN} are not allowed`);
    expect(await backups()).toBe(before);
  });

  it("needs the console's header on a change made with the cookie, even from the own origin", async () => {
    await setup();
    const before = await backups();
    const own = { ...cookie(), origin: s.url };
    const bare = await s.api('/api/v1/admin/maintenance/backup', { method: 'POST', headers: own });
    expect(bare.status).toBe(403);
    expect(bare.body.detail).toContain('X-Requested-With');
    expect(await backups()).toBe(before);

    const console = await s.api('/api/v1/admin/maintenance/backup', {
      method: 'POST',
      headers: { ...own, 'x-requested-with': 'adam-console' },
    });
    expect(console.status).toBe(200);
    expect(await backups()).toBe(before + 1);
    // Reads need nothing more than the cookie.
    expect((await s.api('/api/v1/auth/me', { headers: cookie() })).status).toBe(200);
  });

  it('leaves API clients alone: X-API-Key works from any origin, and no Origin is no browser', async () => {
    await setup();
    const withKey = await s.api('/api/v1/admin/maintenance/backup', {
      method: 'POST',
      key,
      headers: { origin: FOREIGN },
    });
    expect(withKey.status).toBe(200);
    const login = await s.api('/api/v1/auth/login', {
      method: 'POST',
      body: { email: 'admin@example.com', password: 'admin' },
    });
    expect(login.status).toBe(200);
  });

  it('lets a login through with a stale cookie, but not a refresh by the cookie without the header', async () => {
    await setup();
    const login = await s.api('/api/v1/auth/login', {
      method: 'POST',
      headers: cookie(),
      body: { email: 'admin@example.com', password: 'admin' },
    });
    expect(login.status).toBe(200);
    const refresh = await s.api('/api/v1/auth/refresh', { method: 'POST', headers: cookie() });
    expect(refresh.status).toBe(403);
    // The key still works: the refused refresh rotated nothing.
    expect((await s.api('/api/v1/auth/me', { key })).status).toBe(200);
  });

  it('refuses a login from a foreign origin and from Origin: null', async () => {
    await setup();
    for (const origin of [FOREIGN, 'null']) {
      const r = await s.api('/api/v1/auth/login', {
        method: 'POST',
        headers: { origin },
        body: { email: 'admin@example.com', password: 'admin' },
      });
      expect(r.status).toBe(403);
      expect(r.headers.get('set-cookie')).toBeNull();
    }
  });

  it('refuses a WebSocket upgrade from a foreign origin, with the cookie or the key', async () => {
    await setup();
    expect(await upgrade({ ...cookie(), origin: FOREIGN })).toBe(403);
    expect(await upgrade({ 'x-api-key': key, origin: FOREIGN })).toBe(403);
    expect(await upgrade({ ...cookie(), origin: s.url })).toBe('open');
    expect(await upgrade(cookie())).toBe('open');
  });

  it('lets the origins of ADAM_ALLOWED_ORIGINS in, and only those', async () => {
    await setup({
      ADAM_ALLOWED_ORIGINS: 'https://Console.Example.com:443/, http://localhost:5173',
    });
    const console = { ...cookie(), 'x-requested-with': 'adam-console' };
    for (const origin of ['https://console.example.com', 'http://localhost:5173']) {
      const r = await s.api('/api/v1/admin/maintenance/backup', {
        method: 'POST',
        headers: { ...console, origin },
      });
      expect(r.status).toBe(200);
      expect(await upgrade({ ...cookie(), origin })).toBe('open');
    }
    const other = await s.api('/api/v1/admin/maintenance/backup', {
      method: 'POST',
      headers: { ...console, origin: 'https://evil.example.com' },
    });
    expect(other.status).toBe(403);
  });

  it('refuses a setting that is not a list of origins', () => {
    expect(() => loadConfig({ ADAM_ALLOWED_ORIGINS: 'console.example.com' })).toThrow(ConfigError);
    expect(() => loadConfig({ ADAM_ALLOWED_ORIGINS: 'ftp://x.example' })).toThrow(
      /ADAM_ALLOWED_ORIGINS/,
    );
    expect(loadConfig({ ADAM_ALLOWED_ORIGINS: ' https://a.example , ' }).allowedOrigins).toEqual([
      'https://a.example',
    ]);
  });
});
