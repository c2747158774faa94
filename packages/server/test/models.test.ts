import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MODEL_LANGUAGES } from '@adam/contracts';
import { installDirName } from '../src/services/model-files-guard.js';
import { startFakeHub, type FakeHub } from './fixtures/fake-hub.js';
import {
  writeTinyEmbeddingModel,
  writeTinyTextClassifier,
  writeTinyTokenClassifier,
} from './fixtures/tiny-models.js';
import { saveText, startServer, tempDir, type ApiResult, type TestServer } from './helpers.js';
import { until } from './until.js';

/**
 * The model registry end to end: a real server, a fake hub on 127.0.0.1 serving tiny ONNX models
 * that the tests write, installs through the job queue, tests through the ONNX runner, and the
 * cleanup of the models directory.
 */

const MBERT = 'Xenova/bert-base-multilingual-cased-ner-hrl';
const DIMENSION = 32;
/** A download idle for this long fails: the hanging hub's test waits this, not 60 s. */
const IDLE_MS = 1500;

let s: TestServer;
let hub: FakeHub;
let key: string;
let models: string;
let outside: string;
const events: { model_id: number; status: string; progress: number; message: string }[] = [];

beforeAll(async () => {
  const fixtures = tempDir('adam-tiny-models-');
  const embedder = path.join(fixtures, 'embedder');
  const ner = path.join(fixtures, 'ner');
  const sentiment = path.join(fixtures, 'sentiment');
  await writeTinyEmbeddingModel(embedder, { dimension: DIMENSION });
  await writeTinyTokenClassifier(ner);
  await writeTinyTextClassifier(sentiment);
  // Every byte arrives and checks out; the install fails after, reading the config.
  const unreadable = path.join(fixtures, 'unreadable');
  fs.cpSync(embedder, unreadable, { recursive: true });
  fs.writeFileSync(path.join(unreadable, 'config.json'), '[1]');
  hub = await startFakeHub({
    repos: {
      'tiny/embedder': { files: { dir: embedder } },
      'tiny/sentiment': { files: { dir: sentiment } },
      'tiny/queued': { files: { dir: embedder } },
      'slow/restart': { files: { dir: embedder }, mode: 'slow', bytesPerSecond: 16 * 1024 },
      [MBERT]: { files: { dir: ner } },
      'slow/embedder': { files: { dir: embedder }, mode: 'slow', bytesPerSecond: 16 * 1024 },
      'bad/missing': { files: { dir: embedder }, mode: 'missing' },
      'bad/error': { files: { dir: embedder }, mode: 'error' },
      'bad/truncated': { files: { dir: embedder }, mode: 'truncated' },
      'bad/checksum': { files: { dir: embedder }, mode: 'bad_checksum' },
      'bad/hang': { files: { dir: embedder }, mode: 'hang' },
      'bad/config': { files: { dir: unreadable } },
      'bad/bare': { files: { dir: embedder }, bare: ['onnx/model.onnx'] },
      // A byte every 200 ms: never idle for IDLE_MS, far under the rate floor.
      'bad/trickle': { files: { dir: embedder }, mode: 'trickle', trickleMs: 200 },
      // Above the rate floor, slow enough to last while an ingestion job runs.
      'slow/lane': { files: { dir: embedder }, mode: 'slow', bytesPerSecond: 2048 },
      // Nested repository ids: `x` at main would have held `x/main` at r1 under <repo>/<revision>.
      'x/main': { files: { dir: embedder }, revision: 'r1' },
      x: { files: { dir: sentiment } },
      'legacy/embedder': { files: { dir: embedder } },
    },
  });
  s = await startServer({
    env: { ADAM_MODEL_HUB_URL: hub.url, ADAM_FETCH_ALLOW: `127.0.0.1:${hub.port}` },
    build: { modelIdleTimeoutMs: IDLE_MS },
  });
  s.adam.bus.on('model_progress', (e) => events.push(e));
  key = await s.login();
  models = path.join(s.dataDir, 'models');
  outside = path.join(s.dataDir, 'outside.txt');
  fs.writeFileSync(outside, 'not a model file');
});

afterAll(async () => {
  await s?.close();
  await hub?.close();
});

const api = (method: string, p: string, body?: unknown): Promise<ApiResult> =>
  s.api(`/api/v1/admin/models${p}`, { method, key, body });

interface ModelBody {
  id: number;
  name: string;
  type: string;
  status: string;
  active: boolean;
  size: number;
  version: string;
  dimension: number | null;
  local_path: string | null;
  error: string | null;
  builtin: boolean;
  performance: {
    load_time_ms: number | null;
    memory_mb: number | null;
    inference_speed: number | null;
  };
}

async function modelNamed(name: string): Promise<ModelBody> {
  const r = await api('GET', '');
  const m = (r.body.models as ModelBody[]).find((x) => x.name === name);
  if (!m) throw new Error(`no model ${name}`);
  return m;
}

async function createModel(name: string, repo: string, type = 'embedding'): Promise<ModelBody> {
  const r = await api('POST', '', { name, type, repo });
  expect(r.status, JSON.stringify(r.body)).toBe(201);
  return r.body as ModelBody;
}

/** Waits for a job to complete (fails on any other end). */
async function waitJob(id: number) {
  const job = await until(
    async () => {
      const r = await s.api(`/api/v1/sources/jobs/${id}`, { key });
      return ['completed', 'failed', 'cancelled'].includes(r.body.status) ? r.body : null;
    },
    { what: `job ${id} to end` },
  );
  expect(job.status, JSON.stringify(job.errors)).toBe('completed');
}

/** Polls the progress call, as the console does, until the install ends. */
async function waitInstalled(id: number, ok = true) {
  const seen: number[] = [];
  const end = await until(
    async () => {
      const p = (await api('GET', `/${id}/progress`)).body;
      seen.push(p.progress);
      return ['installed', 'loaded', 'error', 'not_installed'].includes(p.status) ? p : null;
    },
    { what: `model ${id} to finish installing` },
  );
  if (ok) expect(end.status, JSON.stringify(end)).toBe('installed');
  return { end, seen };
}

const exists = (rel: string) => fs.existsSync(path.join(models, rel));
/** Where a hub model is installed, relative to the models directory. */
const dirOf = (repo: string, revision = 'main') => installDirName(repo, revision);

describe('the registry', () => {
  it('lists the built-in models, the catalogue and the stats', async () => {
    const r = await api('GET', '');
    expect(r.status).toBe(200);
    const list = r.body.models as ModelBody[];
    const builtin = list.filter((m) => m.builtin);
    expect(builtin.map((m) => [m.name, m.type, m.status, m.active])).toEqual([
      ['builtin-384', 'embedding', 'installed', true],
      ['builtin-pipeline-en', 'spacy', 'installed', true],
    ]);
    expect(builtin[0]).toMatchObject({ dimension: 384, local_path: 'builtin' });
    expect(builtin[0]!.size).toBeGreaterThan(10_000_000);
    for (const name of [
      'all-mpnet-base-v2',
      'all-roberta-large-v1',
      'paraphrase-multilingual-MiniLM-L12-v2',
      'all-MiniLM-L6-v2',
    ]) {
      const m = list.find((x) => x.name === name)!;
      expect(m).toMatchObject({ type: 'embedding', status: 'not_installed', active: false });
      expect(m.size).toBeGreaterThan(50_000_000);
    }
    const packs = list.filter((m) => m.type === 'spacy' && !m.builtin);
    expect(packs).toHaveLength(MODEL_LANGUAGES.length);
    expect(r.body.stats).toMatchObject({
      total_models: list.length,
      active_models: 2,
      loaded_models: 0,
      installed_models: 2,
      available_languages: MODEL_LANGUAGES.length + 1, // and 'multi'
    });
    // The built-in embedder's file, counted once.
    expect(r.body.stats.total_disk_usage_mb).toBeCloseTo(builtin[0]!.size / 1048576, 1);
  });

  it('answers one model, 404 for an unknown id and 422 for a malformed one', async () => {
    const { id } = await modelNamed('all-MiniLM-L6-v2');
    expect((await api('GET', `/${id}`)).body).toMatchObject({
      id,
      repo: 'sentence-transformers/all-MiniLM-L6-v2',
      revision: 'main',
      source_url: `${hub.url}/sentence-transformers/all-MiniLM-L6-v2`,
    });
    const missing = await api('GET', '/99999');
    expect(missing.status).toBe(404);
    expect(missing.body.detail).toBe('Model 99999 not found');
    expect((await api('GET', '/abc')).status).toBe(422);
  });

  it('creates a model with its defaults, and refuses bad or duplicate ones', async () => {
    const created = await api('POST', '', { name: 'acme/sentiment', type: 'sentiment' });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({
      name: 'acme/sentiment',
      type: 'sentiment',
      language: 'en',
      status: 'not_installed',
      repo: 'acme/sentiment',
      revision: 'main',
      builtin: false,
    });
    const dup = await api('POST', '', { name: 'ACME/Sentiment', type: 'emotion' });
    expect(dup.status).toBe(409);
    expect(dup.body.detail).toBe('A model named ACME/Sentiment already exists');
    expect((await api('POST', '', { name: 'no type' })).status).toBe(422);
    expect((await api('POST', '', { type: 'embedding' })).status).toBe(422);
    expect((await api('POST', '', { name: 'x', type: 'llm' })).status).toBe(422);
    expect((await api('POST', '', { name: 'x/y', type: 'spacy', language: 'xx' })).status).toBe(
      422,
    );
    const noRepo = await api('POST', '', { name: 'My model', type: 'embedding' });
    expect(noRepo.status).toBe(422);
    expect(noRepo.body.errors).toEqual([
      {
        field: 'repo',
        message: 'is required when the name is not a hub repository id such as owner/name',
      },
    ]);
    const reserved = await api('POST', '', { name: 'mine', type: 'embedding', repo: 'builtin' });
    expect(reserved.status).toBe(422);
    expect(reserved.body.detail).toMatch(/reserved/);
  });

  it('edits a model, with the language in the supported list, and never a built-in one', async () => {
    const { id } = await modelNamed('acme/sentiment');
    const edited = await api('PUT', `/${id}`, { language: 'fr', description: 'Avis clients' });
    expect(edited.status).toBe(200);
    expect(edited.body).toMatchObject({ language: 'fr', description: 'Avis clients' });
    const bad = await api('PUT', `/${id}`, { language: 'klingon' });
    expect(bad.status).toBe(422);
    expect(bad.body.errors[0].field).toBe('language');
    expect((await api('PUT', `/${id}`, {})).status).toBe(422);
    expect((await api('PUT', `/${id}`, { colour: 'red' })).status).toBe(422);
    const other = await modelNamed('all-MiniLM-L6-v2');
    expect((await api('PUT', `/${id}`, { name: other.name })).status).toBe(409);
    const builtin = await modelNamed('builtin-384');
    const refused = await api('PUT', `/${builtin.id}`, { description: 'mine now' });
    expect(refused.status).toBe(409);
    expect(refused.body.detail).toBe(
      'Model builtin-384 is built in: it ships with ADAM and cannot be edited',
    );
    expect((await api('PUT', '/99999', { language: 'en' })).status).toBe(404);
  });
});

describe('installing from the hub', () => {
  it('refuses to test a model that is not installed, saying what to do', async () => {
    const st = await modelNamed('all-MiniLM-L6-v2');
    const r = await api('POST', `/${st.id}/test`, { text: 'Hello' });
    expect(r.status).toBe(400);
    expect(r.body.detail).toBe('Model all-MiniLM-L6-v2 is not ready: install it first');
    const pack = await modelNamed('German language pack');
    const p = await api('POST', `/${pack.id}/test`, { text: 'Hallo' });
    expect(p.status).toBe(400);
    expect(p.body.detail).toBe(
      'Model German language pack is not ready: install its language pack first',
    );
    expect((await api('POST', `/${st.id}/test`, { text: '   ' })).body.detail).toMatch(
      /Test text cannot be empty/,
    );
  });

  it('installs the tiny embedder end to end: job, files on disk, dimension read, installed', async () => {
    const m = await createModel('tiny-embedder', 'tiny/embedder');
    const r = await api('POST', `/${m.id}/install`);
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ model_id: m.id, status: 'downloading', progress: 0 });
    expect(r.body.job_id).toEqual(expect.any(Number));
    const { end } = await waitInstalled(m.id);
    expect(end).toMatchObject({ progress: 100, status: 'installed', job_id: null });
    expect(end.downloaded_bytes).toBe(end.total_bytes);
    for (const f of ['config.json', 'tokenizer.json', 'onnx/model.onnx', 'tokenizer_config.json'])
      expect(exists(`${dirOf('tiny/embedder')}/${f}`), f).toBe(true);
    const installed = (await api('GET', `/${m.id}`)).body as ModelBody;
    expect(installed).toMatchObject({
      status: 'installed',
      dimension: DIMENSION,
      local_path: dirOf('tiny/embedder'),
      version: '4.44.0',
      error: null,
    });
    expect(installed.size).toBe(end.total_bytes);
    const job = (await s.api(`/api/v1/sources/jobs/${r.body.job_id}`, { key })).body;
    expect(job).toMatchObject({ type: 'install_model', status: 'completed', progress: 1 });
    expect(job.metadata.result).toMatchObject({ model_id: m.id, repo: 'tiny/embedder', files: 5 });
    // Every status change went out on the channel, the last one at 100.
    const mine = events.filter((e) => e.model_id === m.id);
    expect(mine.at(0)).toMatchObject({ status: 'downloading', progress: 0 });
    expect(mine.at(-1)).toMatchObject({ status: 'installed', progress: 100 });
    const again = await api('POST', `/${m.id}/install`);
    expect(again.status).toBe(409);
    expect(again.body.detail).toMatch(/^Model tiny-embedder is installed: only a model/);
  });

  it('shows rising byte progress, refuses a second install meanwhile, and cancels keeping the partial files', async () => {
    const m = await createModel('slow-embedder', 'slow/embedder');
    const startedAt = performance.now();
    const start = await api('POST', `/${m.id}/install`);
    expect(start.status).toBe(200);
    const twice = await api('POST', `/${m.id}/install`);
    expect(twice.status).toBe(409);
    expect(twice.body.detail).toMatch(/^Model slow-embedder is downloading/);
    const moving = await until(
      async () => {
        const p = (await api('GET', `/${m.id}/progress`)).body;
        return p.progress > 5 ? p : null;
      },
      { what: 'the slow download to move' },
    );
    expect(moving.status).toBe('downloading');
    expect(moving.message).toMatch(/^Downloading /);
    const later = await until(
      async () => {
        const p = (await api('GET', `/${m.id}/progress`)).body;
        return p.progress > moving.progress ? p : null;
      },
      { what: 'the progress to rise' },
    );
    expect(later.downloaded_bytes).toBeGreaterThan(moving.downloaded_bytes);
    const progress = events.filter((e) => e.model_id === m.id).map((e) => e.progress);
    expect(progress).toEqual([...progress].sort((a, b) => a - b));
    // Throttled: about four progress events a second, however many chunks arrive.
    const seconds = (performance.now() - startedAt) / 1000;
    expect(progress.length).toBeLessThanOrEqual(Math.ceil(seconds * 4) + 4);

    // Meanwhile another install waits for the install lane; cancelling it settles its model at once.
    const queued = await createModel('queued-embedder', 'tiny/queued');
    const waiting = await api('POST', `/${queued.id}/install`);
    expect((await s.api(`/api/v1/sources/jobs/${waiting.body.job_id}`, { key })).body.status).toBe(
      'pending',
    );
    await s.api(`/api/v1/sources/jobs/${waiting.body.job_id}/cancel`, { method: 'POST', key });
    expect((await api('GET', `/${queued.id}/progress`)).body).toMatchObject({
      status: 'not_installed',
      message: 'Installation cancelled',
      progress: 0,
    });

    const cancel = await s.api(`/api/v1/sources/jobs/${start.body.job_id}/cancel`, {
      method: 'POST',
      key,
    });
    expect(cancel.status).toBe(200);
    const ended = await until(
      async () => {
        const p = (await api('GET', `/${m.id}/progress`)).body;
        return p.status !== 'downloading' ? p : null;
      },
      { what: 'the cancel to land' },
    );
    expect(ended).toMatchObject({
      status: 'not_installed',
      message: 'Installation cancelled',
      job_id: null,
    });
    expect(exists(dirOf('slow/embedder'))).toBe(false);
    const staged = fs.readdirSync(path.join(models, '.staging/slow/embedder@main'), {
      recursive: true,
    });
    expect(staged.some((f) => String(f).endsWith('.part'))).toBe(true);
  });

  it('resumes a cancelled download from its partial file (Range)', async () => {
    const m = await modelNamed('slow-embedder');
    hub.setMode('slow/embedder', 'ok');
    const before = hub.requests.length;
    expect((await api('POST', `/${m.id}/install`)).status).toBe(200);
    await waitInstalled(m.id);
    const asked = hub.requests.slice(before);
    expect(
      asked.some((r) => / range=bytes=[1-9]\d*-$/.test(r)),
      asked.join('\n'),
    ).toBe(true);
    expect(exists('.staging/slow/embedder@main')).toBe(false);
    expect((await api('POST', `/${m.id}/uninstall`)).status).toBe(200);
  });

  const failures: [string, RegExp][] = [
    ['bad/missing', /not found/i],
    ['bad/error', /500/],
    ['bad/truncated', /cut short|expected \d+ bytes/],
    ['bad/checksum', /sha256/],
    ['bad/hang', /timed out|no data/i],
    ['bad/config', /config\.json is not a JSON object/],
    ['bad/bare', /^The hub lists no size and no checksum for onnx\/model\.onnx in bad\/bare/],
    ['bad/trickle', /the hub trickles/],
  ];
  for (const [repo, reason] of failures) {
    it(`ends in error with the reason and nothing installed when the hub fails (${repo})`, async () => {
      const m = await createModel(`failing-${repo.split('/')[1]}`, repo);
      const { job_id } = (await api('POST', `/${m.id}/install`)).body;
      const { end } = await waitInstalled(m.id, false);
      expect(end.status).toBe('error');
      expect(end.message).toMatch(reason);
      const model = (await api('GET', `/${m.id}`)).body as ModelBody;
      expect(model).toMatchObject({ status: 'error', local_path: null });
      expect(model.error).toMatch(reason);
      // Nothing half-installed: no model folder, no partial files, no progress of 100.
      expect(exists(dirOf(repo))).toBe(false);
      expect(exists(`.staging/${repo}@main`)).toBe(false);
      const leftovers = fs.readdirSync(models, { recursive: true }).map(String);
      expect(leftovers.filter((f) => f.includes('.installing-'))).toEqual([]);
      expect(end.progress).toBeLessThan(100);
      expect(events.filter((e) => e.model_id === m.id && e.progress >= 100)).toEqual([]);
      const job = (await s.api(`/api/v1/sources/jobs/${job_id}`, { key })).body;
      expect(job.status).toBe('failed');
      expect(job.progress).toBeLessThan(1);
      expect(job.errors.at(-1).message).toMatch(reason);
      // Refused from the listing alone: not one byte of it was asked for.
      if (repo === 'bad/bare') expect(hub.hits('/bad/bare/resolve/')).toBe(0);
    });
  }

  it('installs again after a failure once the hub answers', async () => {
    const m = await modelNamed('failing-error');
    hub.setMode('bad/error', 'ok');
    expect((await api('POST', `/${m.id}/install`)).status).toBe(200);
    await waitInstalled(m.id);
    expect((await api('GET', `/${m.id}`)).body).toMatchObject({ status: 'installed', error: null });
    expect((await api('POST', `/${m.id}/uninstall`)).status).toBe(200);
    expect(exists(dirOf('bad/error'))).toBe(false);
  });

  it('keeps each model in a folder of its own: x/main at r1 and x at main install, work and uninstall apart', async () => {
    const nested = await createModel('nested-embedder', 'x/main');
    expect((await api('PUT', `/${nested.id}`, { revision: 'r1' })).status).toBe(200);
    expect((await api('POST', `/${nested.id}/install`)).status).toBe(200);
    await waitInstalled(nested.id);
    const outer = await createModel('outer-sentiment', 'x', 'sentiment');
    expect((await api('POST', `/${outer.id}/install`)).status).toBe(200);
    await waitInstalled(outer.id);

    const a = (await api('GET', `/${nested.id}`)).body as ModelBody;
    const b = (await api('GET', `/${outer.id}`)).body as ModelBody;
    expect(a).toMatchObject({ status: 'installed', dimension: DIMENSION });
    expect(b).toMatchObject({ status: 'installed' });
    // Neither folder holds the other.
    const [da, db] = [a.local_path!, b.local_path!];
    expect(da === db || da.startsWith(`${db}/`) || db.startsWith(`${da}/`)).toBe(false);
    const works = async (id: number) => {
      const t = await api('POST', `/${id}/test`, { text: 'a good day' });
      expect(t.status, JSON.stringify(t.body)).toBe(200);
      return t.body.result;
    };
    expect((await works(nested.id)).dimension).toBe(DIMENSION);
    expect((await works(outer.id)).labels.length).toBeGreaterThan(0);

    expect((await api('POST', `/${outer.id}/uninstall`)).status).toBe(200);
    expect(exists(db)).toBe(false);
    expect(exists(`${da}/onnx/model.onnx`)).toBe(true);
    expect((await api('GET', `/${nested.id}`)).body.status).toMatch(/^(installed|loaded)$/);
    expect((await works(nested.id)).dimension).toBe(DIMENSION);
    expect((await api('POST', `/${nested.id}/uninstall`)).status).toBe(200);
    expect(exists(da)).toBe(false);
  });

  it('keeps an install from before the flat layout working, in its <repo>/<revision> folder', async () => {
    const m = await createModel('legacy-embedder', 'legacy/embedder');
    expect((await api('POST', `/${m.id}/install`)).status).toBe(200);
    await waitInstalled(m.id);
    // Put back as the older layout had it: the row names the folder, which stays the model's.
    fs.mkdirSync(path.join(models, 'legacy/embedder'), { recursive: true });
    fs.renameSync(
      path.join(models, dirOf('legacy/embedder')),
      path.join(models, 'legacy/embedder/main'),
    );
    s.adam.db
      .prepare("UPDATE models SET local_path = 'legacy/embedder/main' WHERE id = ?")
      .run(m.id);
    expect((await api('GET', `/${m.id}`)).body.local_path).toBe('legacy/embedder/main');
    const t = await api('POST', `/${m.id}/test`, { text: 'still here' });
    expect(t.status, JSON.stringify(t.body)).toBe(200);
    expect(t.body.result.dimension).toBe(DIMENSION);
    const files = (await api('GET', '/cleanup/files')).body as { path: string }[];
    expect(files.filter((f) => f.path.startsWith('legacy/'))).toEqual([]);
    expect((await api('POST', `/${m.id}/uninstall`)).status).toBe(200);
    expect(exists('legacy')).toBe(false);
  });

  it('runs ingestion while an install downloads: installs have a lane of their own', async () => {
    const m = await createModel('lane-embedder', 'slow/lane');
    const start = await api('POST', `/${m.id}/install`);
    expect(start.status).toBe(200);
    await until(
      async () => ((await api('GET', `/${m.id}/progress`)).body.downloaded_bytes > 0 ? true : null),
      { what: 'the slow download to start' },
    );
    // Waits for the ingestion job to end: with one worker slot, it ran beside the install.
    const saved = await saveText(s, key, 'The install lane keeps ingestion going.', 'lane');
    expect(saved.status).toBe('completed');
    const p = (await api('GET', `/${m.id}/progress`)).body;
    expect(p.status).toBe('downloading');
    expect(p.progress).toBeLessThan(100);
    await s.api(`/api/v1/sources/jobs/${start.body.job_id}/cancel`, { method: 'POST', key });
    await until(
      async () =>
        (await api('GET', `/${m.id}/progress`)).body.status !== 'downloading' ? true : null,
      { what: 'the cancel to land' },
    );
  });
});

describe('testing, activating and uninstalling', () => {
  it('tests the installed embedder: a vector summary, and the load measured once', async () => {
    const m = await modelNamed('tiny-embedder');
    const r = await api('POST', `/${m.id}/test`, { text: 'Marie Curie worked in Paris.' });
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    expect(r.body).toMatchObject({ model_id: m.id, model: 'tiny-embedder', type: 'embedding' });
    expect(r.body.result.dimension).toBe(DIMENSION);
    expect(r.body.result.norm).toBeCloseTo(1, 3);
    expect(r.body.result.preview).toHaveLength(8);
    expect(r.body.elapsed_ms).toBeGreaterThanOrEqual(0);
    const loaded = (await api('GET', `/${m.id}`)).body as ModelBody;
    expect(loaded.status).toBe('loaded');
    expect(loaded.performance.load_time_ms).toBeGreaterThan(0);
    expect(loaded.performance.memory_mb).not.toBeNull();
    expect(loaded.performance.inference_speed).toBeGreaterThan(0);
    expect((await api('GET', '')).body.stats.loaded_models).toBe(1);
  });

  it('tests the built-in embedder and the built-in pipeline through the engine', async () => {
    const emb = await modelNamed('builtin-384');
    const e = await api('POST', `/${emb.id}/test`, { text: 'Bees visit linden blossom.' });
    expect(e.status).toBe(200);
    expect(e.body.result).toMatchObject({ dimension: 384 });
    expect(e.body.result.norm).toBeCloseTo(1, 3);
    const pipe = await modelNamed('builtin-pipeline-en');
    const p = await api('POST', `/${pipe.id}/test`, {
      text: 'Marie Curie moved to Paris in 1891. She worked with Pierre Curie.',
    });
    expect(p.status).toBe(200);
    expect(p.body.result.language).toBe('en');
    expect(p.body.result.sentences).toEqual([
      'Marie Curie moved to Paris in 1891.',
      'She worked with Pierre Curie.',
    ]);
    expect(p.body.result.entities).toContainEqual({ text: 'Paris', label: 'GPE' });
  });

  it('installs a sentiment model and tests it: the labels with their scores', async () => {
    const m = await createModel('tiny-sentiment', 'tiny/sentiment', 'sentiment');
    await api('POST', `/${m.id}/install`);
    await waitInstalled(m.id);
    const r = await api('POST', `/${m.id}/test`, { text: 'What an awful, terrible film.' });
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    expect(r.body.result.label).toBe('negative');
    expect(r.body.result.labels).toHaveLength(2);
  });

  it('toggles only installed models; one embedding model is active at a time', async () => {
    const st = await modelNamed('all-MiniLM-L6-v2');
    const off = await api('POST', `/${st.id}/toggle`, { active: true });
    expect(off.status).toBe(409);
    expect(off.body.detail).toMatch(/^Model all-MiniLM-L6-v2 is not installed: only an installed/);
    const builtin = await modelNamed('builtin-384');
    const keep = await api('POST', `/${builtin.id}/toggle`, { active: false });
    expect(keep.status).toBe(409);
    expect(keep.body.detail).toMatch(/is the active embedding model/);

    // Another vector space: a switch job re-embeds everything; the built-in model stays the
    // active one until it completes.
    const tiny = await modelNamed('tiny-embedder');
    const on = await api('POST', `/${tiny.id}/toggle`, { active: true });
    expect(on.status, JSON.stringify(on.body)).toBe(200);
    expect(on.body.job_id).toEqual(expect.any(Number));
    expect(on.body.message).toMatch(/^tiny-embedder activated: every snippet is re-embedded/);
    await waitJob(on.body.job_id);
    expect((await modelNamed('tiny-embedder')).active).toBe(true);
    expect((await modelNamed('builtin-384')).active).toBe(false);
    expect(s.adam.services.index.dimension).toBe(DIMENSION);
    // What records the active model is no model file: cleanup never offers it.
    const unused = (await api('GET', '/cleanup/files')).body as { path: string }[];
    expect(unused.length).toBeGreaterThan(0); // failed installs' leftovers
    expect(unused.filter((f) => f.path.includes('active-embedder'))).toEqual([]);
    // The console learns of the switch's end from a model_progress event.
    expect(events.some((e) => e.model_id === tiny.id && e.status === 'installed')).toBe(true);
    expect((await api('POST', `/${tiny.id}/toggle`, { active: true })).status).toBe(200);
    expect((await api('POST', `/${tiny.id}/toggle`, {})).status).toBe(422);

    const pipeline = await modelNamed('builtin-pipeline-en');
    const pOff = await api('POST', `/${pipeline.id}/toggle`, { active: false });
    expect(pOff.body).toMatchObject({ message: 'builtin-pipeline-en deactivated' });
    expect(pOff.body.model.active).toBe(false);
    await api('POST', `/${pipeline.id}/toggle`, { active: true });
  });

  it('uninstalls: refused for the active embedder, a built-in model and one not installed', async () => {
    const tiny = await modelNamed('tiny-embedder');
    const active = await api('POST', `/${tiny.id}/uninstall`);
    expect(active.status).toBe(409);
    expect(active.body.detail).toBe(
      'Model tiny-embedder is the active embedding model: activate another embedding model before uninstalling it',
    );
    const builtin = await modelNamed('builtin-384');
    expect((await api('POST', `/${builtin.id}/uninstall`)).status).toBe(409);
    const st = await modelNamed('all-MiniLM-L6-v2');
    expect((await api('POST', `/${st.id}/uninstall`)).body.detail).toBe(
      'Model all-MiniLM-L6-v2 is not installed',
    );

    // The processing settings' model select activates too: back to the built-in embedder.
    const settings = (p: string, body?: unknown) =>
      s.api(`/api/v1/admin/settings/processing${p}`, {
        method: body ? 'PUT' : 'GET',
        key,
        body,
      });
    expect((await settings('')).body.embedding_model).toBe('tiny-embedder');
    const back = await settings('', { settings: { embedding_model: 'builtin-384' } });
    expect(back.status, JSON.stringify(back.body)).toBe(200);
    const switchJob = events.length; // the switch's end is announced as a model_progress event
    await until(() => s.adam.services.index.dimension === 384, {
      what: 'the switch back to the built-in embedder',
    });
    expect((await settings('')).body.embedding_model).toBe('builtin-384');
    await until(() => events.length > switchJob, { what: 'the model_progress of the switch' });
    const r = await api('POST', `/${tiny.id}/uninstall`);
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ status: 'not_installed', progress: 100, job_id: null });
    expect(exists(dirOf('tiny/embedder'))).toBe(false);
    const p = (await api('GET', `/${tiny.id}/progress`)).body;
    expect(p).toMatchObject({ status: 'not_installed', progress: 100 });
    expect((await api('GET', `/${tiny.id}`)).body).toMatchObject({
      local_path: null,
      active: false,
    });
  });
});

describe('language packs', () => {
  it('lists one pack per language with its version, size and status', async () => {
    const r = await api('GET', '/language-packs');
    expect(r.status).toBe(200);
    expect(r.body.map((p: { code: string }) => p.code)).toEqual(MODEL_LANGUAGES.map((l) => l.code));
    const fr = r.body.find((p: { code: string }) => p.code === 'fr');
    expect(fr).toMatchObject({
      name: 'French',
      flag: '🇫🇷',
      installed: false,
      status: 'not_installed',
      version: '4.29.2',
      required_version: '4.29.2',
    });
    expect(fr.size).toBeGreaterThan(100_000_000);
  });

  it('installs a pack by code, finds entities with it, and shares its files with another pack', async () => {
    const warnings: string[] = [];
    const off = s.adam.bus.on('model_warning', (e) => warnings.push(e.message));
    const context =
      'Marie Curie a quitté Paris pour Berlin avec Google. Elle y a travaillé longtemps.';
    const analyze = async () => {
      const a = await s.api('/api/v1/playground/analyze', {
        method: 'POST',
        key,
        body: { context, question: 'Où est allée Marie Curie ?', top_k: 3, language: 'fr' },
      });
      expect(a.status, JSON.stringify(a.body)).toBe(200);
      return (a.body.entities as { text: string; label: string }[]).map((e) => [e.text, e.label]);
    };
    // Without the pack: the built-in rules (no people), and the playground's banner says why.
    expect(await analyze()).not.toContainEqual(['Marie Curie', 'PERSON']);
    expect(warnings.at(-1)).toMatch(/^No French language pack is installed/);

    const r = await api('POST', '/language-packs/fr/install');
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ status: 'downloading', progress: 0 });
    await waitInstalled(r.body.model_id);
    const packs = (await api('GET', '/language-packs')).body;
    const fr = packs.find((p: { code: string }) => p.code === 'fr');
    // The installed files' version, and the one the catalogue was checked with: they differ.
    expect(fr).toMatchObject({ installed: true, status: 'installed', version: '4.44.0' });
    expect(fr.required_version).toBe('4.29.2');

    const t = await api('POST', `/${fr.model_id}/test`, {
      text: 'Marie Curie a quitté Paris pour Berlin avec Google.',
    });
    expect(t.status, JSON.stringify(t.body)).toBe(200);
    const found = t.body.result.entities.map((e: { text: string; label: string }) => [
      e.text,
      e.label,
    ]);
    expect(found).toContainEqual(['Marie Curie', 'PERSON']);
    expect(found).toContainEqual(['Paris', 'GPE']);
    // The pipeline and the playground use the pack for French texts now.
    const count = warnings.length;
    const withPack = await analyze();
    expect(withPack).toContainEqual(['Marie Curie', 'PERSON']);
    expect(withPack).toContainEqual(['Berlin', 'GPE']);
    expect(warnings).toHaveLength(count);
    off();

    // German uses the same multilingual model: installed without a second download.
    const before = hub.hits(`/${MBERT}/resolve/`);
    const de = await api('POST', '/language-packs/de/install');
    await waitInstalled(de.body.model_id);
    expect(hub.hits(`/${MBERT}/resolve/`)).toBe(before);

    const un = await api('POST', '/language-packs/fr/uninstall');
    expect(un.status).toBe(200);
    expect(un.body.message).toMatch(/its files stay, German language pack use\(s\) them/);
    expect(exists(`${dirOf(MBERT)}/onnx/model.onnx`)).toBe(true);
    expect((await api('POST', '/language-packs/de/uninstall')).status).toBe(200);
    expect(exists(dirOf(MBERT))).toBe(false);
    expect((await api('POST', '/language-packs/de/uninstall')).status).toBe(409);
    expect((await api('POST', '/language-packs/xx/install')).status).toBe(422);
  });
});

describe('cleanup and cache', () => {
  const write = (rel: string, bytes: number) => {
    const full = path.join(models, rel);
    fs.mkdirSync(path.dirname(full), { recursive: true });
    fs.writeFileSync(full, Buffer.alloc(bytes, 1));
  };

  it('lists the files no installed model uses, staging leftovers included', async () => {
    write('stray/old.bin', 1000);
    write('embedding/fr/old-model.onnx', 2000);
    // An abandoned download's partial file (a failed install removes its own).
    write('.staging/gone/model@main/onnx/model.onnx.part', 500);
    const r = await api('GET', '/cleanup/files');
    expect(r.status).toBe(200);
    const files = r.body as { path: string; type: string; language: string; size: number }[];
    expect(files).toContainEqual({
      path: 'stray/old.bin',
      type: 'other',
      language: 'unknown',
      size: 1000,
    });
    expect(files).toContainEqual({
      path: 'embedding/fr/old-model.onnx',
      type: 'embedding',
      language: 'fr',
      size: 2000,
    });
    expect(files).toContainEqual({
      path: '.staging/gone/model@main/onnx/model.onnx.part',
      type: 'other',
      language: 'unknown',
      size: 500,
    });
    // Never an installed model's files, nor the built-in model's.
    expect(files.some((f) => f.path.startsWith('tiny/sentiment/'))).toBe(false);
    expect(files.some((f) => f.path.startsWith('builtin/'))).toBe(false);
  });

  it('refuses any path that is not an unused file of the models directory, deleting nothing', async () => {
    fs.symlinkSync(outside, path.join(models, 'stray/link.bin'));
    const refused: [string, RegExp][] = [
      ['../outside.txt', /goes up a folder/],
      ['stray/../../outside.txt', /goes up a folder/],
      ['%2e%2e%2foutside.txt', /goes up a folder \(\.\.\) once percent-decoded/],
      ['%252e%252e%252foutside.txt', /once percent-decoded/],
      [outside, /is absolute/],
      ['stray\\old.bin', /backslash/],
      ['stray/link.bin', /symbolic link/],
      [`${dirOf('tiny/sentiment')}/config.json`, /in use by model tiny-sentiment/],
      ['builtin/builtin-384.bin', /in use by model builtin-384/],
      ['stray', /is a directory/],
      ['stray/nothing-here.bin', /does not exist/],
    ];
    // NUL is refused by the server for any JSON body already, naming the field.
    const nul = await api('DELETE', '/cleanup/files', {
      files: ['stray/old.bin', 'old.bin\u0000'],
    });
    expect(nul.status).toBe(422);
    expect(nul.body.detail).toMatch(/files\.1 contains a NUL character/);
    for (const [p, why] of refused) {
      const r = await api('DELETE', '/cleanup/files', { files: ['stray/old.bin', p] });
      expect(r.status, p).toBe(422);
      expect(r.body.detail, p).toContain(`Refused to delete ${JSON.stringify(p)}`);
      expect(r.body.detail, p).toMatch(why);
      expect(exists('stray/old.bin'), p).toBe(true);
    }
    expect(fs.readFileSync(outside, 'utf8')).toBe('not a model file');
    expect(exists(`${dirOf('tiny/sentiment')}/config.json`)).toBe(true);
    expect(exists('builtin/builtin-384.bin')).toBe(true);
    expect((await api('DELETE', '/cleanup/files', { files: [] })).status).toBe(422);
    fs.rmSync(path.join(models, 'stray/link.bin'));
  });

  it('deletes the unused files it is given and prunes the folders they leave empty', async () => {
    const r = await api('DELETE', '/cleanup/files', {
      files: ['stray/old.bin', './embedding/fr/old-model.onnx'],
    });
    expect(r.status).toBe(200);
    expect(r.body).toEqual({
      deleted: ['stray/old.bin', 'embedding/fr/old-model.onnx'],
      freed_bytes: 3000,
    });
    expect(exists('stray')).toBe(false);
    expect(exists('embedding')).toBe(false);
    expect(fs.existsSync(models)).toBe(true);
  });

  it('clears the cache: models unloaded, partial downloads removed', async () => {
    const sentiment = await modelNamed('tiny-sentiment');
    expect(sentiment.status).toBe('loaded');
    // The analysis threads load a language pack's model too: installed, then used.
    const pack = await api('POST', '/language-packs/es/install');
    await waitInstalled(pack.body.model_id);
    const analyzed = await s.api('/api/v1/playground/analyze', {
      method: 'POST',
      key,
      body: { context: 'Marie vive en Madrid.', question: 'Dónde?', top_k: 1, language: 'es' },
    });
    expect(analyzed.status).toBe(200);
    expect(exists('.staging/gone/model@main')).toBe(true);
    const r = await api('POST', '/cache/clear');
    expect(r.status).toBe(200);
    // The sentiment model (runner) and the pack's (analysis threads).
    expect(r.body.unloaded_models).toBe(2);
    expect(r.body.freed_bytes).toBeGreaterThan(0);
    expect(r.body.message).toMatch(/^Model cache cleared/);
    expect((await modelNamed('tiny-sentiment')).status).toBe('installed');
    expect(exists('.staging/gone/model@main')).toBe(false);
    expect((await api('GET', '')).body.stats.loaded_models).toBe(0);
    // Still usable: the next test loads it again.
    expect((await api('POST', `/${sentiment.id}/test`, { text: 'so bad' })).status).toBe(200);
  });
});

describe('a backup restore', () => {
  it('keeps the registry as it is: it describes the files on disk, which backups do not hold', async () => {
    const backup = await s.api('/api/v1/admin/maintenance/backup', { method: 'POST', key });
    expect(backup.status).toBe(200);
    const later = await createModel('added-after-backup', 'tiny/later');
    const sentiment = await modelNamed('tiny-sentiment');
    const r = await s.api(`/api/v1/admin/maintenance/restore/${backup.body.id}`, {
      method: 'POST',
      key,
    });
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    expect((await api('GET', `/${later.id}`)).body.name).toBe('added-after-backup');
    expect((await api('GET', `/${sentiment.id}`)).body.status).toBe(sentiment.status);
  });
});

describe('a server restart during an install', () => {
  it('puts the job back in the queue and resumes the download from its partial files', async () => {
    const dataDir = tempDir();
    const opts = {
      dataDir,
      env: { ADAM_MODEL_HUB_URL: hub.url, ADAM_FETCH_ALLOW: `127.0.0.1:${hub.port}` },
      build: { modelIdleTimeoutMs: IDLE_MS },
    };
    const first = await startServer(opts);
    const service = first.adam.services.models;
    const model = service.registry.create({
      name: 'restart-embedder',
      type: 'embedding',
      language: 'en',
      description: '',
      repo: 'slow/restart',
      revision: 'main',
    });
    const { job_id } = service.installs.install(model.id);
    await until(() => service.installs.progress(model.id).progress > 5, {
      what: 'the download to start',
    });
    await first.close();

    hub.setMode('slow/restart', 'ok');
    const before = hub.requests.length;
    const second = await startServer(opts);
    try {
      const again = second.adam.services.models;
      expect(again.installs.progress(model.id).status).toBe('downloading');
      const end = await second.adam.services.jobs.waitForEnd(job_id!, 30_000);
      expect(end.status).toBe('completed');
      expect(again.registry.get(model.id)).toMatchObject({
        status: 'installed',
        dimension: DIMENSION,
      });
      const asked = hub.requests.slice(before);
      expect(
        asked.some((r) => /\/slow\/restart\/resolve\/.* range=bytes=[1-9]\d*-$/.test(r)),
        asked.join('\n'),
      ).toBe(true);
    } finally {
      await second.close();
    }
  });
});
