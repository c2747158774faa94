import { afterEach, describe, expect, it, vi } from 'vitest';
import { BackupService } from '../../src/services/backup.service.js';
import { ARTICLES } from '../corpus.js';
import { saveText, startServer, type TestServer } from '../helpers.js';
import type { EmbeddedQueue } from '../../src/jobs/embedded-queue.js';
import { until } from '../until.js';

// Restore is exclusive: writes wait, the queue stands still, ids never mean two things, and
// the jobs of a backup come back in states that can be true.

let servers: TestServer[] = [];

afterEach(async () => {
  for (const s of servers) await s.close();
  servers = [];
});

async function started(dataDir?: string) {
  const s = await startServer({ dataDir });
  servers.push(s);
  await s.adam.reconciled;
  await s.adam.queueStarted;
  return { s, key: await s.login() };
}

async function backup(s: TestServer, key: string): Promise<string> {
  const r = await s.api('/api/v1/admin/maintenance/backup', { method: 'POST', key });
  expect(r.status).toBe(200);
  return r.body.id as string;
}

async function restore(s: TestServer, key: string, id: string) {
  const r = await s.api(`/api/v1/admin/maintenance/restore/${id}`, { method: 'POST', key });
  expect(r.status, JSON.stringify(r.body)).toBe(200);
  return r.body;
}

async function job(s: TestServer, key: string, id: number) {
  const r = await s.api(`/api/v1/sources/jobs/${id}`, { key });
  expect(r.status).toBe(200);
  return r.body as {
    id: number;
    status: string;
    stage: string | null;
    errors: { message: string }[];
  };
}

/** Holds the restore before it replaces anything (in its index check) until `release()`. */
function holdRestore(s: TestServer) {
  let release!: () => void;
  const held = new Promise<void>((r) => (release = r));
  const index = s.adam.services.index;
  const check = index.checkFiles.bind(index);
  const spy = vi.spyOn(index, 'checkFiles').mockImplementation(async (dir) => {
    await held;
    return check(dir);
  });
  return { spy, release };
}

/** A job that stays pending while the workers are stopped (its URL is never fetched then). */
async function pendingJob(s: TestServer, key: string): Promise<number> {
  const r = await s.api('/api/v1/sources/process', {
    method: 'POST',
    key,
    body: { urls: ['http://127.0.0.1:9/never-fetched'] },
  });
  expect(r.status, JSON.stringify(r.body)).toBe(200);
  return r.body.job_id as number;
}

describe('restore is exclusive', () => {
  it('answers writes 409 with Retry-After while a restore runs, starts no job, and loses nothing', async () => {
    const { s, key } = await started();
    await saveText(s, key, ARTICLES.photosynthesis, 'photosynthesis');
    const id = await backup(s, key);
    const jobsBefore = (await s.api('/api/v1/sources/jobs?limit=100', { key })).body.total;

    const hold = holdRestore(s);
    const restoring = s.api(`/api/v1/admin/maintenance/restore/${id}`, { method: 'POST', key });
    await until(() => hold.spy.mock.calls.length > 0, { what: 'the restore to run' });

    const writes: [string, string, unknown?][] = [
      ['POST', '/api/v1/sources/process', { urls: ['http://127.0.0.1:9/x'] }],
      ['POST', '/api/v1/playground/save-segments', { title: 't', text: ARTICLES.databases }],
      ['PUT', '/api/v1/admin/settings/processing', { settings: { min_quality_score: 0.5 } }],
      ['POST', '/api/v1/rules/scraping', { domain: 'example.org', mode: 'deny' }],
      ['DELETE', '/api/v1/snippets/1'],
      ['POST', '/api/v1/admin/maintenance/workers/stop'],
    ];
    for (const [method, path, body] of writes) {
      const r = await s.api(path, { method, key, body });
      expect(r.status, `${method} ${path}`).toBe(409);
      expect(r.body.detail).toBe('A restore is running: try again in a moment');
      expect(r.headers.get('retry-after')).toBe('5');
    }
    // The backup and restore calls answer for themselves, with Retry-After too.
    const again = await s.api('/api/v1/admin/maintenance/backup', { method: 'POST', key });
    expect(again.status).toBe(409);
    expect(again.headers.get('retry-after')).toBe('5');
    // Reads and signing in go on.
    expect((await s.api('/api/v1/sources/jobs', { key })).status).toBe(200);
    expect((await s.api('/api/v1/snippets', { key })).status).toBe(200);
    expect(await s.login()).toBeTruthy();

    // A job the server queues itself meanwhile does not start: the queue is paused. Its
    // workers are woken at once and look again at each poll: once every one of them has looked
    // at least once since (twice as many looks as there are slots, the install lane included),
    // the job must still be waiting.
    const queue = s.adam.services.queue as EmbeddedQueue;
    const looksBefore = queue.pausedPolls;
    const queued = s.adam.services.jobs.create(
      { type: 'process_urls', urls: ['http://127.0.0.1:9/y'] },
      { internal: true },
    );
    const slots = queue.status().running + 1;
    await until(() => queue.pausedPolls >= looksBefore + 2 * slots, {
      what: 'every paused worker to look for a job',
    });
    const row = s.adam.services.jobs.get(queued.id);
    expect([row.status, row.attempts]).toEqual(['pending', 0]);

    hold.release();
    const r = await restoring;
    expect(r.status).toBe(200);
    // Nothing was accepted and then dropped: the jobs are the backup's.
    expect((await s.api('/api/v1/sources/jobs?limit=100', { key })).body.total).toBe(jobsBefore);
    // And writes are taken again.
    const after = await s.api('/api/v1/admin/settings/processing', {
      method: 'PUT',
      key,
      body: { settings: { min_quality_score: 0.5 } },
    });
    expect(after.status).toBe(200);
  });

  it('lets a write under way end before it replaces the data', async () => {
    const { s, key } = await started();
    const saved = await saveText(s, key, ARTICLES.photosynthesis, 'photosynthesis');
    const id = await backup(s, key);
    const order: string[] = [];

    // A delete held inside its handler, past the gate, as the restore begins.
    let releaseDelete!: () => void;
    const deleteHeld = new Promise<void>((r) => (releaseDelete = r));
    const snippets = s.adam.services.snippets;
    const remove = snippets.delete.bind(snippets);
    const deleting = vi.spyOn(snippets, 'delete').mockImplementation((async (n: number) => {
      await deleteHeld;
      const r = remove(n);
      order.push('delete ended');
      return r;
    }) as never);
    const index = s.adam.services.index;
    const check = index.checkFiles.bind(index);
    const checking = vi.spyOn(index, 'checkFiles').mockImplementation(async (dir) => {
      order.push('restore replacing');
      return check(dir);
    });

    const target = saved.snippet_ids[0]!;
    const del = s.api(`/api/v1/snippets/${target}`, { method: 'DELETE', key });
    await until(() => deleting.mock.calls.length > 0, { what: 'the delete to start' });
    const restoring = s.api(`/api/v1/admin/maintenance/restore/${id}`, { method: 'POST', key });
    await until(() => s.adam.services.backups.running === 'restore', { what: 'the restore' });
    // The restore waits for the delete: it does not reach its swap while the delete is held
    // (waited for a while; a wrong order shows below either way).
    await until(() => checking.mock.calls.length > 0, { timeout: 3000 }).catch(() => undefined);
    releaseDelete();
    expect((await del).status).toBe(200);
    expect((await restoring).status).toBe(200);
    expect(order).toEqual(['delete ended', 'restore replacing']);
    // The delete came before the restore: the backup brings the snippet back.
    expect((await s.api(`/api/v1/snippets/${target}`, { key })).status).toBe(200);
  });

  it('never gives a job or snippet id again, and the feed links no job the restore took away', async () => {
    const { s, key } = await started();
    const first = await saveText(s, key, ARTICLES.photosynthesis, 'photosynthesis');
    const id = await backup(s, key);
    const gone = await saveText(s, key, ARTICLES.databases, 'databases');
    expect(gone.job_id).toBeGreaterThan(first.job_id);

    await restore(s, key, id);
    const next = await saveText(s, key, ARTICLES.stoicism, 'stoicism');
    expect(next.job_id).toBeGreaterThan(gone.job_id);
    expect(Math.min(...next.snippet_ids)).toBeGreaterThan(Math.max(...gone.snippet_ids));

    const feed = (await s.api('/api/v1/analytics/activity/recent?limit=100', { key })).body
      .items as { job_id: number | null; message: string; created_at: string }[];
    const about = (jobId: number) => feed.filter((i) => i.message.startsWith(`Job ${jobId} `));
    expect(about(gone.job_id).length).toBeGreaterThan(0);
    for (const i of about(gone.job_id)) expect(i.job_id, i.message).toBeNull();
    for (const i of about(first.job_id)) expect(i.job_id, i.message).toBe(first.job_id);
    for (const i of about(next.job_id)) expect(i.job_id, i.message).toBe(next.job_id);
    // Every link opens a job created before the entry was written: the job it is about.
    for (const i of feed.filter((x) => x.job_id !== null)) {
      const r = await s.api(`/api/v1/sources/jobs/${i.job_id}`, { key });
      expect(r.status, i.message).toBe(200);
      expect(r.body.created_at <= i.created_at, i.message).toBe(true);
    }
  });

  it('ends jobs processing in the backup "interrupted by restore", keeps cancelled ones cancelled, across restores and a restart', async () => {
    const { s, key } = await started();
    expect(
      (await s.api('/api/v1/admin/maintenance/workers/stop', { method: 'POST', key })).status,
    ).toBe(200);
    const waiting = await pendingJob(s, key);
    const cancelledPending = await pendingJob(s, key);
    const interrupted = await pendingJob(s, key);
    const cancelledProcessing = await pendingJob(s, key);
    // As a worker holds them when the backup is taken.
    const setStatus = (ids: number[], status: string) =>
      s.adam.db
        .prepare(
          `UPDATE jobs SET status = ?, worker_id = 'embedded-1' WHERE id IN (${ids.join(',')})`,
        )
        .run(status);
    setStatus([interrupted, cancelledProcessing], 'processing');
    const id = await backup(s, key);

    // After the backup: two cancels, and the processing job ends.
    for (const j of [cancelledPending, cancelledProcessing]) {
      const r = await s.api(`/api/v1/sources/jobs/${j}/cancel`, { method: 'POST', key });
      expect(r.status).toBe(200);
    }
    setStatus([interrupted], 'completed');

    await restore(s, key, id);
    const expectStates = async (srv: TestServer, k: string) => {
      const ended = await job(srv, k, interrupted);
      expect(ended.status).toBe('failed');
      expect(ended.stage).toBe('interrupted by restore');
      expect(ended.errors.map((e) => e.message)).toContain('interrupted by restore');
      expect((await job(srv, k, cancelledPending)).status).toBe('cancelled');
      expect((await job(srv, k, cancelledProcessing)).status).toBe('cancelled');
    };
    await expectStates(s, key);
    expect((await job(s, key, waiting)).status).toBe('pending');

    // No ghost blocks the next restore; the CLI's restore (no queue, the server stopped)
    // follows the same rules.
    await restore(s, key, id);
    await expectStates(s, key);
    const cli = new BackupService({
      db: s.adam.db,
      dataDir: s.dataDir,
      index: s.adam.services.index,
      log: s.adam.log,
      bus: s.adam.bus,
      settings: () => s.adam.services.settings.get('general'),
      version: 'test',
    });
    await cli.restore(id);
    await cli.close();
    await expectStates(s, key);

    // A restart takes back what a crash left processing: nothing is, so nothing runs again.
    const dataDir = s.dataDir;
    await s.close();
    servers = [];
    const { s: s2, key: key2 } = await started(dataDir);
    await expectStates(s2, key2);
  });
});
