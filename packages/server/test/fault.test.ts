import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFixtureSite, type FixtureSite } from './fixtures/fixture-site.js';
import { linkSharedModel, tempDir } from './helpers.js';
import { spawnCli } from './redis-helpers.js';
import { until } from './until.js';

let site: FixtureSite;
beforeAll(async () => {
  site = await startFixtureSite();
});
afterAll(async () => {
  await site.close();
});

async function startProcess(dataDir: string) {
  const proc = spawnCli(['serve'], {
    PORT: '0',
    ADAM_DATA_DIR: dataDir,
    ADAM_FETCH_ALLOW: `127.0.0.1:${site.port}`,
    ADAM_WORKERS: '1',
  });
  const port = await until(
    () => /listening on http:\/\/127\.0\.0\.1:(\d+)/.exec(proc.output())?.[1],
    {
      interval: 50,
      what: () => `the server to listen (output: ${proc.output()})`,
    },
  );
  const base = `http://127.0.0.1:${port}/api/v1`;
  const login = await fetch(`${base}/auth/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ email: 'admin@example.com', password: 'admin' }),
  });
  const key = ((await login.json()) as { api_key: string }).api_key;
  const call = async (path: string, init: { method?: string; body?: unknown } = {}) => {
    const r = await fetch(`${base}${path}`, {
      method: init.method ?? 'GET',
      headers: { 'x-api-key': key, ...(init.body ? { 'content-type': 'application/json' } : {}) },
      body: init.body ? JSON.stringify(init.body) : undefined,
    });
    return (await r.json()) as Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
  };
  const exited = new Promise<void>((r) => proc.once('exit', () => r()));
  return { proc, call, exited };
}

describe('a server killed in the middle of a job', () => {
  it('resumes the job after a restart, with no half-stored snippet and no orphan', async () => {
    const dataDir = tempDir();
    linkSharedModel(dataDir);
    let server = await startProcess(dataDir);
    await server.call('/admin/settings/processing', {
      method: 'PUT',
      body: { settings: { max_concurrent_scrapes: 1 } },
    });
    const urls = Array.from({ length: 12 }, (_, i) => `${site.url}/pages/${i + 1}`);
    const { job_id: id } = await server.call('/sources/process', {
      method: 'POST',
      body: { urls },
    });
    let job = await until(
      async () => {
        const j = await server.call(`/sources/jobs/${id}`);
        return (j.stats.urls_done ?? 0) >= 3 && j;
      },
      { what: 'three URLs of the job done' },
    );
    expect(job.status).toBe('processing');
    server.proc.kill('SIGKILL');
    await server.exited;

    server = await startProcess(dataDir);
    job = await until(
      async () => {
        const j = await server.call(`/sources/jobs/${id}`);
        return ['completed', 'failed'].includes(j.status) && j;
      },
      { interval: 50, what: 'the job to end after the restart' },
    );
    expect(job.status).toBe('completed');
    expect((job.stats.urls_done ?? 0) + (job.stats.urls_failed ?? 0)).toBe(urls.length);
    expect(job.attempts).toBe(2);
    const consistency = await server.call('/snippets/consistency-check');
    expect(consistency.summary).toMatchObject({ index_only: 0, disk_only: 0 });
    expect(consistency.summary.consistent).toBe(consistency.summary.total_disk);
    const inspection = await server.call('/snippets/index-inspection');
    expect(inspection.pending).toBe(0);
    const listed = await server.call(`/snippets?job_id=${id}&per_page=500`);
    expect(listed.total).toBeGreaterThan(0);
    // Every stored snippet is whole: its text is one of the page's segments, with its vector.
    expect(
      listed.snippets.every(
        (x: { index_pending: boolean; text: string }) => !x.index_pending && x.text.length > 0,
      ),
    ).toBe(true);
    server.proc.kill('SIGTERM');
    await server.exited;
  }, 120_000);
});
