import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ARTICLES } from './corpus.js';
import { saveText, startServer, type TestServer } from './helpers.js';
import { createRoleUser } from './role-users.js';

let s: TestServer;
let key: string;
let viewerKey: string;
let snippets: number;
beforeAll(async () => {
  s = await startServer();
  key = await s.login();
  viewerKey = (await createRoleUser(s, key, 'viewer')).key;
  snippets = (await saveText(s, key, ARTICLES.volcanoes, 'Volcanoes')).segments_created;
}, 120_000);
afterAll(async () => {
  await s?.close();
});

const post = (p: string, body?: unknown, as = key) =>
  s.api(`/api/v1${p}`, { method: 'POST', key: as, body });
const workers = (action: 'start' | 'stop') =>
  post(`/admin/maintenance/workers/${action}`, action === 'start' ? { count: 1 } : undefined);

describe('POST /admin/index/optimize and /admin/index/rebuild', () => {
  it('are documented in the OpenAPI description, under the index tag', async () => {
    const doc = (await s.api('/api/docs/json')).body;
    for (const p of ['optimize', 'rebuild']) {
      const op = doc.paths[`/api/v1/admin/index/${p}`]?.post;
      expect(op, p).toBeDefined();
      expect(op.tags).toEqual(['index']);
      expect(Object.keys(op.responses)).toEqual(expect.arrayContaining(['200', '409', '429']));
    }
  });

  it('answer 401 without a key and 403 to a viewer, queueing nothing', async () => {
    const created: string[] = [];
    const off = s.adam.bus.on('job_created', (e) => created.push(e.type));
    for (const p of ['/admin/index/optimize', '/admin/index/rebuild']) {
      const anonymous = await s.api(`/api/v1${p}`, { method: 'POST' });
      expect(anonymous.status, p).toBe(401);
      expect(anonymous.body.detail).toBeTruthy();
      const viewer = await post(p, undefined, viewerKey);
      expect(viewer.status, p).toBe(403);
      expect(viewer.body.detail).toBeTruthy();
    }
    off();
    expect(created).toEqual([]);
  });

  it('refuses an unknown rebuild parameter with 422', async () => {
    const r = await post('/admin/index/rebuild', { reembed: 'yes' });
    expect(r.status).toBe(422);
    expect(r.body.detail).toContain('reembed');
    expect((await post('/admin/index/rebuild', { colour: 'red' })).status).toBe(422);
  });

  it('queues an optimize_index job, and answers 409 to a second index job while it waits', async () => {
    expect((await workers('stop')).status).toBe(200);
    const r = await post('/admin/index/optimize');
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ action: 'optimize_index', status: 'queued' });
    const id = r.body.job_id as number;
    expect(s.adam.services.jobs.get(id)).toMatchObject({
      type: 'optimize_index',
      status: 'pending',
      metadata: { action: 'optimize_index' },
    });

    // Every way of asking for another one is refused while it waits, naming the job.
    for (const again of [
      () => post('/admin/index/optimize'),
      () => post('/admin/index/rebuild'),
      () => post('/admin/maintenance/execute', { action: 'rebuild_index' }),
      () => post('/admin/maintenance/execute', { action: 'optimize_index' }),
    ]) {
      const refused = await again();
      expect(refused.status).toBe(409);
      expect(refused.body.detail).toBe(
        `The index is already being optimized by job ${id} (pending); try again once it has ended`,
      );
    }

    const segments: { job_id: number | null; processed: number; total: number }[] = [];
    const off = s.adam.bus.on('segment_progress', (e) => segments.push(e));
    expect((await workers('start')).status).toBe(200);
    const job = await s.adam.services.jobs.waitForEnd(id, 60_000);
    off();
    expect(job.status).toBe('completed');
    expect(job.metadata.result).toMatchObject({
      total: snippets,
      indexed: snippets,
      reembedded: 0,
    });
    expect(segments.at(-1)).toMatchObject({ job_id: id, processed: snippets, total: snippets });
    const stats = (await s.api('/api/v1/admin/index/stats', { key })).body;
    expect(stats.last_optimized).toBeTruthy();
    expect(stats.total_vectors).toBe(snippets);
  });

  it('queues a rebuild_index job, re-embedding unless told not to', async () => {
    const plain = await post('/admin/index/rebuild');
    expect(plain.status).toBe(200);
    expect(plain.body).toMatchObject({ action: 'rebuild_index', status: 'queued' });
    const first = await s.adam.services.jobs.waitForEnd(plain.body.job_id, 60_000);
    expect(first).toMatchObject({ type: 'rebuild_index', status: 'completed' });
    expect(first.metadata.result).toMatchObject({ reembedded: snippets });

    const reuse = await post('/admin/index/rebuild', { reembed: false });
    expect(reuse.status).toBe(200);
    const second = await s.adam.services.jobs.waitForEnd(reuse.body.job_id, 60_000);
    expect(second.metadata.result).toMatchObject({ indexed: snippets, reembedded: 0 });
    expect(s.adam.services.index.size).toBe(snippets);
  });
});
