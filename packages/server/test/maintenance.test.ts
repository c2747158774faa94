import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ARTICLES } from './corpus.js';
import { dot } from '../src/pipeline/text.js';
import { blobToVector } from '../src/services/index.service.js';
import { saveText, startServer, type TestServer } from './helpers.js';

let s: TestServer;
let key: string;
beforeAll(async () => {
  s = await startServer();
  key = await s.login();
  for (const [name, text] of Object.entries(ARTICLES)) await saveText(s, key, text, name);
}, 120_000);
afterAll(async () => {
  await s.close();
});

const exec = (action: string, params?: unknown) =>
  s.api('/api/v1/admin/maintenance/execute', { method: 'POST', key, body: { action, params } });
const count = async () => (await s.api('/api/v1/snippets', { key })).body.total as number;

describe('maintenance actions', () => {
  it('refuses unknown actions and out-of-range parameters', async () => {
    expect((await exec('defragment')).status).toBe(422);
    expect((await exec('cleanup_duplicates', { threshold: 1.5 })).status).toBe(422);
    expect((await exec('cleanup_low_quality', { colour: 'red' })).status).toBe(422);
  });

  it('removes near-duplicates by vector similarity, keeping one of each pair', async () => {
    const before = await count();
    // Same article with one word changed: a new hash, nearly the same vectors.
    const twin = await saveText(
      s,
      key,
      ARTICLES.volcanoes.replace('molten rock', 'melted rock'),
      'twin',
    );
    expect(twin.segments_created).toBeGreaterThan(0);
    const dry = await exec('cleanup_duplicates', { threshold: 0.95, dry_run: true });
    expect(dry.body.counts.found).toBeGreaterThanOrEqual(1);
    expect(await count()).toBe(before + twin.segments_created);
    const r = await exec('cleanup_duplicates');
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({
      action: 'cleanup_duplicates',
      status: 'completed',
      job_id: null,
    });
    expect(r.body.counts.deleted).toBe(dry.body.counts.found);
    expect(await count()).toBe(before + twin.segments_created - r.body.counts.deleted);
    const check = (await s.api('/api/v1/snippets/consistency-check', { key })).body.summary;
    expect(check).toMatchObject({ index_only: 0, disk_only: 0 });
  });

  it('removes snippets below a quality threshold from store and index', async () => {
    const scores = (await s.api('/api/v1/snippets?per_page=500', { key })).body.snippets.map(
      (x: { quality_score: number }) => x.quality_score,
    );
    const threshold = [...scores].sort((a: number, b: number) => a - b)[1] + 1e-9;
    const expected = scores.filter((q: number) => q < threshold).length;
    const r = await exec('cleanup_low_quality', { threshold });
    expect(r.body.counts.deleted).toBe(expected);
    const left = (await s.api('/api/v1/snippets?per_page=500', { key })).body.snippets;
    expect(left.every((x: { quality_score: number }) => x.quality_score >= threshold)).toBe(true);
    expect(s.adam.services.index.size).toBe(left.length);
  });

  it('rebuilds and optimizes the index as jobs with progress', async () => {
    const n = s.adam.services.index.size;
    const progress: number[] = [];
    s.adam.bus.on('job_progress', (e) => progress.push(e.progress));
    const r = await exec('rebuild_index');
    expect(r.body.status).toBe('queued');
    const job = await s.adam.services.jobs.waitForEnd(r.body.job_id, 60_000);
    expect(job.status).toBe('completed');
    expect(job.type).toBe('rebuild_index');
    expect(progress.length).toBeGreaterThan(0);
    expect(s.adam.services.index.size).toBe(n);

    expect((await s.api('/api/v1/admin/index/stats', { key })).body.last_optimized).toBeNull();
    const o = await exec('optimize_index');
    await s.adam.services.jobs.waitForEnd(o.body.job_id, 60_000);
    const stats = (await s.api('/api/v1/admin/index/stats', { key })).body;
    expect(stats.last_optimized).toBeTruthy();
    expect(stats.total_vectors).toBe(n);
    const search = await s.api('/api/v1/snippets/search', {
      method: 'POST',
      key,
      body: { query: 'Calvin cycle sugars' },
    });
    expect(search.body.results.length).toBeGreaterThan(0);
  });

  it('moves the index to the storage the settings ask for, in one rebuild job', async () => {
    const n = s.adam.services.index.size;
    const created: { job_id: number; type: string }[] = [];
    const off = s.adam.bus.on('job_created', (e) => created.push(e));
    const put = (settings: Record<string, unknown>) =>
      s.api('/api/v1/admin/settings/processing', { method: 'PUT', key, body: { settings } });

    const bad = await put({ index_storage: 'i4' });
    expect(bad.status).toBe(422);
    expect(bad.body.detail).toContain('index_storage');
    expect(created).toHaveLength(0);

    expect((await put({ index_storage: 'i8' })).status).toBe(200);
    expect(created).toHaveLength(1);
    expect(created[0]!.type).toBe('rebuild_index');
    const job = await s.adam.services.jobs.waitForEnd(created[0]!.job_id, 60_000);
    expect(job.status).toBe('completed');
    expect(job.metadata).toMatchObject({ action: 'change_storage', storage: 'i8' });

    const stats = (await s.api('/api/v1/admin/index/stats', { key })).body;
    expect(stats).toMatchObject({ storage: 'i8', total_vectors: n });
    expect(stats.index_type).toContain('i8');
    expect(stats.accuracy).toBeGreaterThan(0.8);
    const manifest = JSON.parse(
      fs.readFileSync(path.join(s.dataDir, 'index', 'manifest.json'), 'utf8'),
    );
    expect(manifest).toMatchObject({ quantization: 'i8', count: n });
    const search = await s.api('/api/v1/snippets/search', {
      method: 'POST',
      key,
      body: { query: 'Calvin cycle sugars', mode: 'vector' },
    });
    expect(search.body.results.length).toBeGreaterThan(0);
    // A sentence goes to the graph alone: an i8 graph's answers come reranked by the exact
    // cosine of their stored vectors (its own are off by up to ~1e-2), and that is `similarity`.
    const sentence =
      'How do the green plants of the fields and the forests turn the light of the sun and the air into the sugars they need?';
    const long = await s.api('/api/v1/snippets/search', {
      method: 'POST',
      key,
      body: { query: sentence, mode: 'vector', k: 5 },
    });
    const results = long.body.results as { id: number; similarity: number }[];
    expect(results.length).toBeGreaterThan(1);
    const [q] = await s.adam.services.engine.embed([sentence]);
    for (const r of results) {
      const row = s.adam.db
        .prepare('SELECT embedding FROM snippet_embeddings WHERE snippet_id = ?')
        .get(r.id) as { embedding: Buffer };
      const v = blobToVector(row.embedding);
      expect(r.similarity).toBeCloseTo(dot(q!, v), 4);
    }
    const sims = results.map((r) => r.similarity);
    expect(sims).toEqual([...sims].sort((a, b) => b - a));

    // Saving the section again with the same storage queues nothing.
    expect((await put({ search_vector_weight: 0.5 })).status).toBe(200);
    expect(created).toHaveLength(1);
    // bfloat16: its saved file (usearch's scalar code 4) checks and loads like the others.
    expect((await put({ index_storage: 'bf16' })).status).toBe(200);
    expect(created).toHaveLength(2);
    await s.adam.services.jobs.waitForEnd(created[1]!.job_id, 60_000);
    expect((await s.api('/api/v1/admin/index/stats', { key })).body).toMatchObject({
      storage: 'bf16',
      total_vectors: n,
    });
    expect(
      JSON.parse(fs.readFileSync(path.join(s.dataDir, 'index', 'manifest.json'), 'utf8')),
    ).toMatchObject({ quantization: 'bf16', count: n });
    const bf16 = await s.api('/api/v1/snippets/search', {
      method: 'POST',
      key,
      body: { query: sentence, mode: 'vector', k: 5 },
    });
    expect(bf16.body.results.map((r: { id: number }) => r.id)).toEqual(results.map((r) => r.id));
    expect((await put({ index_storage: 'f32' })).status).toBe(200);
    expect(created).toHaveLength(3);
    await s.adam.services.jobs.waitForEnd(created[2]!.job_id, 60_000);
    expect((await s.api('/api/v1/admin/index/stats', { key })).body.storage).toBe('f32');
    expect(s.adam.services.index.size).toBe(n);
    off();
  });

  it('clears completed jobs older than 7 days and resets stuck jobs', async () => {
    const old = new Date(Date.now() - 8 * 86400_000).toISOString();
    s.adam.db
      .prepare(
        "UPDATE jobs SET completed_at = ? WHERE id = (SELECT MIN(id) FROM jobs WHERE status = 'completed')",
      )
      .run(old);
    const r = await exec('clear_old_jobs');
    expect(r.body.counts.deleted).toBe(1);
    const stuck = await s.api('/api/v1/admin/maintenance/reset-stuck-jobs', {
      method: 'POST',
      key,
    });
    expect(stuck.body).toEqual({ reset: 0, job_ids: [] });
    expect((await exec('reset_stuck_jobs')).body.counts.reset).toBe(0);
  });

  it('lists health checks per component', async () => {
    const r = await s.api('/api/v1/admin/maintenance/health', { key });
    expect(r.status).toBe(200);
    const names = r.body.checks.map((c: { component: string }) => c.component);
    expect(names).toEqual(
      expect.arrayContaining(['database', 'index', 'queue', 'workers', 'redis']),
    );
    expect(
      r.body.checks.find((c: { component: string }) => c.component === 'database').status,
    ).toBe('healthy');
  });
});
