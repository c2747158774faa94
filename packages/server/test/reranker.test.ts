/**
 * The rerank stage of hybrid search end to end (issue 27): a tiny cross-encoder installed from
 * the fake hub as a model of type reranker, chosen in the processing settings, reordering the
 * fused top N of a real search; its cost and scores in the answer; every refusal (422, 409);
 * and an evaluation run scoring hybrid_rerank beside hybrid.
 */
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OnnxRunner } from '../src/embedding/onnx-embedder.js';
import { startFakeHub, type FakeHub } from './fixtures/fake-hub.js';
import { writeTinyCrossEncoder, writeTinyTextClassifier } from './fixtures/tiny-models.js';
import { startServer, tempDir, type ApiResult, type TestServer } from './helpers.js';
import { until } from './until.js';

const QUERY = 'music festival in paris';
/** Texts sharing more or fewer of the query's words, so that rankings differ between stages. */
const TEXTS = [
  'A music festival opened in Paris on Friday with bands from Berlin and London.',
  'Paris hosts a festival of film every summer near the river.',
  'The music market grew as bands sold more records online this year.',
  'A festival of music filled the city park with songs and dance.',
  'Paris police closed the road near the stadium after the game.',
  'The stock market fell in Tokyo and London on Monday morning.',
  'Music students in Paris played at the festival for free.',
  'Farmers in Spain sold more oil and wine this year than last.',
];

let s: TestServer;
let hub: FakeHub;
let key: string;
let runner: OnnxRunner;
let rerankerId: number;
let rerankerDir: string;

const api = (method: string, p: string, body?: unknown): Promise<ApiResult> =>
  s.api(`/api/v1${p}`, { method, key, body });
const search = (body: Record<string, unknown>) =>
  api('POST', '/snippets/search', { query: QUERY, k: TEXTS.length, history: false, ...body });
const processing = (body: Record<string, unknown>) =>
  api('PUT', '/admin/settings/processing', { settings: body });

interface Result {
  snippet_id: number;
  text: string;
  score: number;
  rerank_score: number | null;
}

async function jobEnd(jobId: number) {
  const job = await until(
    async () => {
      const r = await api('GET', `/sources/jobs/${jobId}`);
      return ['completed', 'failed', 'cancelled'].includes(r.body.status) ? r.body : null;
    },
    { timeout: 60_000, what: `job ${jobId} to end` },
  );
  expect(job.status, JSON.stringify(job.errors)).toBe('completed');
  return job;
}

beforeAll(async () => {
  const fixtures = tempDir('adam-tiny-reranker-');
  await writeTinyCrossEncoder(path.join(fixtures, 'reranker'));
  await writeTinyTextClassifier(path.join(fixtures, 'sentiment'));
  hub = await startFakeHub({
    repos: {
      'tiny/reranker': { files: { dir: path.join(fixtures, 'reranker') } },
      'tiny/sentiment': { files: { dir: path.join(fixtures, 'sentiment') } },
    },
  });
  s = await startServer({
    env: { ADAM_MODEL_HUB_URL: hub.url, ADAM_FETCH_ALLOW: `127.0.0.1:${hub.port}` },
  });
  key = await s.login();
  const res = await fetch(`${s.url}/api/v1/snippets/import`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-ndjson', 'x-api-key': key },
    // Theme and quality given: the records are restored as they are, one snippet each.
    body: TEXTS.map((text, i) =>
      JSON.stringify({ text, title: `Text ${i + 1}`, theme: 'general', quality_score: 0.8 }),
    ).join('\n'),
  });
  const summary = (await res.json()) as { job_id: number };
  expect(res.status, JSON.stringify(summary)).toBe(202);
  const job = await jobEnd(summary.job_id);
  expect(job.metadata.result).toMatchObject({ imported: TEXTS.length, rejected: 0 });
  runner = new OnnxRunner({ modelsRoot: path.join(s.dataDir, 'models') });
});

afterAll(async () => {
  await runner?.close();
  await s?.close();
  await hub?.close();
});

describe('before a reranker is installed', () => {
  it('answers 409 to a hybrid search asking for rerank', async () => {
    const r = await search({ mode: 'hybrid', rerank: true });
    expect(r.status).toBe(409);
    expect(r.body.detail).toMatch(/^No reranker is configured/);
  });

  it('answers 422 to rerank in keyword or vector mode', async () => {
    for (const mode of ['keyword', 'vector']) {
      const r = await search({ mode, rerank: true });
      expect(r.status, mode).toBe(422);
      expect(r.body.detail).toBe('rerank applies to hybrid search');
    }
  });

  it('answers 422 to an N outside 2–100', async () => {
    for (const n of [1, 101, 2.5]) {
      const r = await search({ mode: 'hybrid', rerank: true, rerank_top_n: n });
      expect(r.status, String(n)).toBe(422);
      expect(JSON.stringify(r.body)).toMatch(/rerank_top_n/);
    }
  });

  it('refuses rerank settings without an installed reranker, saving nothing', async () => {
    const on = await processing({ rerank_enabled: true });
    expect(on.status).toBe(422);
    expect(on.body.errors).toEqual([
      {
        field: 'reranker_model',
        message: 'must name an installed reranker model when rerank_enabled is on',
      },
    ]);
    const unknown = await processing({ reranker_model: 'no-such-model' });
    expect(unknown.status).toBe(422);
    expect(unknown.body.errors[0]).toMatchObject({ field: 'reranker_model' });
    expect(unknown.body.detail).toMatch(/no-such-model is not a model of the registry/);

    const sentiment = await api('POST', '/admin/models', {
      name: 'tiny-sentiment',
      type: 'sentiment',
      repo: 'tiny/sentiment',
    });
    expect(sentiment.status).toBe(201);
    const wrongType = await processing({ reranker_model: 'tiny-sentiment' });
    expect(wrongType.status).toBe(422);
    expect(wrongType.body.detail).toMatch(/tiny-sentiment is a model of type sentiment/);

    const created = await api('POST', '/admin/models', {
      name: 'tiny-reranker',
      type: 'reranker',
      repo: 'tiny/reranker',
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    expect(created.body.type).toBe('reranker');
    rerankerId = created.body.id;
    const notInstalled = await processing({ reranker_model: 'tiny-reranker' });
    expect(notInstalled.status).toBe(422);
    expect(notInstalled.body.detail).toMatch(/tiny-reranker is not installed: install it first/);

    const saved = (await api('GET', '/admin/settings/processing')).body;
    expect(saved).toMatchObject({ rerank_enabled: false, rerank_top_n: 20, reranker_model: '' });
  });

  it('answers 409 to an evaluation run with hybrid_rerank', async () => {
    const set = await api('POST', '/evaluation/sets', {
      name: 'Before the reranker',
      queries: [{ text: QUERY, judgments: [{ source_title: 'Text 1', grade: 3 }] }],
    });
    expect(set.status).toBe(201);
    const r = await api('POST', '/evaluation/runs', {
      set_id: set.body.id,
      modes: ['hybrid', 'hybrid_rerank'],
    });
    expect(r.status).toBe(409);
    expect(r.body.detail).toMatch(/^hybrid_rerank needs a reranker/);
  });
});

describe('with the tiny cross-encoder installed', () => {
  beforeAll(async () => {
    const r = await api('POST', `/admin/models/${rerankerId}/install`);
    expect(r.status).toBe(200);
    await jobEnd(r.body.job_id);
    const m = (await api('GET', `/admin/models/${rerankerId}`)).body;
    expect(m).toMatchObject({ type: 'reranker', status: 'installed', error: null });
    rerankerDir = m.local_path;
  });

  it('lists it as a reranker and tests it through the ONNX runner', async () => {
    const list = (await api('GET', '/admin/models')).body.models as {
      name: string;
      type: string;
    }[];
    expect(list.find((m) => m.name === 'tiny-reranker')?.type).toBe('reranker');
    const t = await api('POST', `/admin/models/${rerankerId}/test`, { text: 'music in paris' });
    expect(t.status, JSON.stringify(t.body)).toBe(200);
    expect(t.body).toMatchObject({ type: 'reranker', result: { query: 'music in paris' } });
    expect(t.body.result.score).toEqual(expect.any(Number));
  });

  it('saves it as the reranker of the processing settings', async () => {
    const r = await processing({ reranker_model: 'tiny-reranker', rerank_top_n: 5 });
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    expect(r.body).toMatchObject({
      rerank_enabled: false,
      rerank_top_n: 5,
      reranker_model: 'tiny-reranker',
    });
  });

  it('leaves hybrid search as it was while the stage is off', async () => {
    const r = await search({ mode: 'hybrid' });
    expect(r.status).toBe(200);
    expect(r.body.rerank).toBeNull();
    expect((r.body.results as Result[]).every((x) => x.rerank_score === null)).toBe(true);
  });

  it("orders the fused top N by the model's own scores and keeps the rest below", async () => {
    const fused = (await search({ mode: 'hybrid' })).body.results as Result[];
    expect(fused).toHaveLength(TEXTS.length);
    const r = await search({ mode: 'hybrid', rerank: true, rerank_top_n: 5 });
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    expect(r.body.rerank).toMatchObject({ model: 'tiny-reranker', top_n: 5 });
    expect(r.body.rerank.latency_ms).toBeGreaterThan(0);
    const results = r.body.results as Result[];

    // The expected order, from the model itself on the fused top 5.
    const head = fused.slice(0, 5);
    const scores = await runner.rerank({
      dir: rerankerDir,
      query: QUERY,
      texts: head.map((x) => x.text),
    });
    const expected = head
      .map((x, i) => ({ id: x.snippet_id, score: scores[i]! }))
      .sort((a, b) => b.score - a.score);
    expect(results.slice(0, 5).map((x) => x.snippet_id)).toEqual(expected.map((e) => e.id));
    results
      .slice(0, 5)
      .forEach((x, i) => expect(x.rerank_score).toBeCloseTo(expected[i]!.score, 3));
    // The stage changed something: else this test could not tell it ran.
    expect(expected.map((e) => e.id)).not.toEqual(head.map((x) => x.snippet_id));
    // Below N: the fused order, not re-scored, fused scores kept.
    expect(results.slice(5).map((x) => x.snippet_id)).toEqual(
      fused.slice(5).map((x) => x.snippet_id),
    );
    expect(results.slice(5).every((x) => x.rerank_score === null)).toBe(true);
    const fusedScore = new Map(fused.map((x) => [x.snippet_id, x.score]));
    for (const x of results) expect(x.score).toBe(fusedScore.get(x.snippet_id));
  });

  it('reranks by the setting, which a request can turn off; never outside hybrid', async () => {
    expect((await processing({ rerank_enabled: true })).status).toBe(200);
    const on = await search({ mode: 'hybrid' });
    expect(on.body.rerank).toMatchObject({ model: 'tiny-reranker', top_n: 5 });
    const off = await search({ mode: 'hybrid', rerank: false });
    expect(off.body.rerank).toBeNull();
    const keyword = await search({ mode: 'keyword' });
    expect(keyword.status).toBe(200);
    expect(keyword.body.rerank).toBeNull();
    expect((await processing({ rerank_enabled: false })).status).toBe(200);
  });

  it('scores hybrid_rerank in an evaluation run, with the reranker in its state', async () => {
    const fused = (await search({ mode: 'hybrid' })).body.results as Result[];
    const set = await api('POST', '/evaluation/sets', {
      name: 'Rerank',
      queries: [
        {
          text: QUERY,
          judgments: fused.slice(0, 3).map((x) => ({ snippet_id: x.snippet_id, grade: 2 })),
        },
      ],
    });
    expect(set.status).toBe(201);
    const started = await api('POST', '/evaluation/runs', {
      set_id: set.body.id,
      modes: ['hybrid', 'hybrid_rerank'],
    });
    expect(started.status, JSON.stringify(started.body)).toBe(202);
    await jobEnd(started.body.job_id);
    const run = (await api('GET', `/evaluation/runs/${started.body.id}`)).body;
    expect(run.status).toBe('completed');
    expect(run.modes).toEqual(['hybrid', 'hybrid_rerank']);
    expect(run.state.reranker).toEqual({ model: 'tiny-reranker', top_n: 5 });
    expect(run.summary.map((m: { mode: string }) => m.mode)).toEqual(['hybrid', 'hybrid_rerank']);
    const results = (
      await api('GET', `/evaluation/runs/${started.body.id}/results?mode=hybrid_rerank`)
    ).body.results as { mode: string; ranked: number[] }[];
    expect(results).toHaveLength(1);
    expect(results[0]!.mode).toBe('hybrid_rerank');
    // Its ranking is the reranked search's, hybrid's the fused one.
    const reranked = (await search({ mode: 'hybrid', rerank: true })).body.results as Result[];
    expect(results[0]!.ranked.slice(0, 5)).toEqual(reranked.slice(0, 5).map((x) => x.snippet_id));
    const hybrid = (await api('GET', `/evaluation/runs/${started.body.id}/results?mode=hybrid`))
      .body.results as { ranked: number[] }[];
    expect(hybrid[0]!.ranked.slice(0, 5)).toEqual(fused.slice(0, 5).map((x) => x.snippet_id));
  });

  it('answers 409 again once the chosen reranker is uninstalled', async () => {
    expect((await api('POST', `/admin/models/${rerankerId}/uninstall`)).status).toBe(200);
    const r = await search({ mode: 'hybrid', rerank: true });
    expect(r.status).toBe(409);
    expect(r.body.detail).toMatch(/The reranker tiny-reranker is not installed/);
  });
});
