import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFixtureSite, type FixtureSite } from './fixtures/fixture-site.js';
import { startServer, type TestServer } from './helpers.js';

/**
 * Source ids, like job and snippet ids, never mean two sources over time (migration 18): not
 * after the newest source is deleted, not after a restore of a backup older than ids handed out.
 */

let site: FixtureSite;
let s: TestServer;
let key: string;

beforeAll(async () => {
  site = await startFixtureSite();
  s = await startServer({ env: { ADAM_FETCH_ALLOW: `127.0.0.1:${site.port}` } });
  await s.adam.reconciled;
  key = await s.login();
});
afterAll(async () => {
  await s?.close();
  await site?.close();
});

const api = (p: string, method = 'GET', body?: unknown) =>
  s.api(`/api/v1${p}`, { method, key, body });

/** Records one source per name (a page answering 404: a failed source, no extraction). */
async function sourcesFor(...names: string[]): Promise<number[]> {
  const urls = names.map((n) => `${site.url}/status/404?source=${n}`);
  const r = await api('/sources/process', 'POST', { urls });
  expect(r.status, JSON.stringify(r.body)).toBe(200);
  await s.adam.services.jobs.waitForEnd(r.body.job_id as number, 30_000);
  const listed = (await api('/sources/list?per_page=500')).body.sources as {
    id: number;
    url: string;
  }[];
  return urls.map((u) => listed.find((x) => x.url === u)!.id);
}

describe('source ids', () => {
  it('are never given again after a delete or a restore', async () => {
    const [a, b] = await sourcesFor('a', 'b');
    expect(b).toBeGreaterThan(a!);
    const backup = await api('/admin/maintenance/backup', 'POST');
    expect(backup.status).toBe(200);

    // The newest source deleted: SQLite alone would give its id to the next one.
    const [c] = await sourcesFor('c');
    expect((await api(`/sources/${c}`, 'DELETE')).status).toBe(200);
    const [d] = await sourcesFor('d');
    expect(d).toBeGreaterThan(c!);

    // The backup knows only a and b: ids up to d were handed out since.
    const restored = await api(`/admin/maintenance/restore/${backup.body.id}`, 'POST');
    expect(restored.status, JSON.stringify(restored.body)).toBe(200);
    const listed = (await api('/sources/list')).body.sources as { id: number }[];
    expect(listed.map((x) => x.id).sort((x, y) => x - y)).toEqual([a, b]);
    const [e] = await sourcesFor('e');
    expect(e).toBeGreaterThan(d!);
  });
});
