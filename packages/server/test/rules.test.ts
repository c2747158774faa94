import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type TestServer } from './helpers.js';

let s: TestServer;
let key: string;
beforeAll(async () => {
  s = await startServer();
  key = await s.login();
});
afterAll(async () => {
  await s.close();
});

const call = (method: string, p: string, body?: unknown) =>
  s.api(`/api/v1/rules/scraping${p}`, { method, key, body });

describe('scraping rules', () => {
  it('creates a rule with the defaults, normalising the domain', async () => {
    const r = await call('POST', '', { domain: 'https://WWW.Example.com/some/page', target: '' });
    expect(r.status).toBe(201);
    expect(r.body).toMatchObject({
      domain: 'example.com',
      mode: 'allow',
      target: null,
      enabled: true,
    });
    const list = await call('GET', '');
    expect(list.body.map((x: { domain: string }) => x.domain)).toContain('example.com');
  });

  it('answers 409 for a second rule on the same domain', async () => {
    const r = await call('POST', '', { domain: 'example.com', mode: 'deny' });
    expect(r.status).toBe(409);
    expect(r.body.detail).toBe('A scraping rule for example.com already exists');
  });

  it('answers 422 without a domain, for a bad mode, and for a selector rule without a target', async () => {
    expect((await call('POST', '', {})).status).toBe(422);
    expect((await call('POST', '', { domain: '' })).status).toBe(422);
    expect((await call('POST', '', { domain: 'not a domain!' })).status).toBe(422);
    expect((await call('POST', '', { domain: 'a.org', mode: 'scrape-all' })).status).toBe(422);
    const sel = await call('POST', '', { domain: 'b.org', mode: 'selector' });
    expect(sel.status).toBe(422);
    expect(sel.body.errors[0].field).toBe('target');
  });

  it('updates fields one at a time (the enabled toggle saves at once) and deletes', async () => {
    const created = await call('POST', '', {
      domain: 'news.example.org',
      mode: 'selector',
      target: 'main article',
    });
    const id = created.body.id;
    const off = await call('PATCH', `/${id}`, { enabled: false });
    expect(off.body).toMatchObject({ enabled: false, mode: 'selector', target: 'main article' });
    const renamed = await call('PATCH', `/${id}`, { domain: 'example.com' });
    expect(renamed.status).toBe(409);
    expect((await call('PATCH', `/${id}`, { colour: 'red' })).status).toBe(422);
    expect((await call('PATCH', '/999', { enabled: true })).status).toBe(404);
    const del = await call('DELETE', `/${id}`);
    expect(del.body).toEqual({ id, deleted: true });
    expect((await call('DELETE', `/${id}`)).status).toBe(404);
    expect((await call('DELETE', '/abc')).status).toBe(422);
  });
});
