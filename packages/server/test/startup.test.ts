import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ARTICLES } from './corpus.js';
import { startFixtureSite, type FixtureSite } from './fixtures/fixture-site.js';
import {
  linkSharedModel,
  saveText,
  startServer,
  tempDir,
  type ApiResult,
  type TestServer,
} from './helpers.js';
import { serverRoot } from './process-tree.js';
import { until } from './until.js';

/** A start-up step held until the test lets it go: "starting" is seen without racing the clock. */
function gate() {
  let open!: () => void;
  const held = new Promise<void>((resolve) => (open = resolve));
  return { held, open };
}

let s: TestServer | undefined;
afterEach(async () => {
  await s?.close();
  s = undefined;
});

describe('start-up', () => {
  it('answers /health while the index loads, says "starting", and answers searches sent meanwhile once loaded', async () => {
    // A data dir with a saved index, started again with its load held.
    const dataDir = tempDir();
    s = await startServer({ engineWithServer: true, dataDir });
    let key = await s.login();
    const saved = await saveText(s, key, ARTICLES.databases, 'databases');
    await s.close();

    const index = gate();
    s = await startServer({
      engineWithServer: true,
      dataDir,
      build: { startGates: { index: index.held } },
    });
    key = await s.login();
    const starting = await s.api('/api/v1/health');
    expect(starting.status).toBe(200);
    expect(starting.body.status).toBe('starting');
    expect(starting.body.components.index).toMatchObject({
      status: 'starting',
      details: { state: 'loading the saved index' },
    });
    // Sent while the index is still loading: it waits for the load, nothing is lost.
    const search = s.api('/api/v1/snippets/search', {
      method: 'POST',
      key,
      body: { query: 'SQL transactions', k: 1, mode: 'vector' },
    });
    expect((await s.api('/api/v1/health')).body.components.index.status).toBe('starting');

    index.open();
    const r = await search;
    expect(r.status).toBe(200);
    expect(saved.snippet_ids).toContain(r.body.results[0].id);
    const ready = await until(async () => {
      const h = (await s!.api('/api/v1/health')).body;
      return h.status !== 'starting' && h;
    });
    expect(ready.status).toBe('healthy');
    // The checksums the load left out were compared in the background, and matched.
    await s.adam.services.index.whenVerified();
    expect((await s.api('/api/v1/health')).body.components.index).toMatchObject({
      status: 'healthy',
      details: { checksums: 'verified', total_vectors: saved.snippet_ids.length },
    });
  });

  it('answers before the engine is up, says "starting", and runs a job queued meanwhile once it is', async () => {
    const engine = gate();
    s = await startServer({
      engineWithServer: true,
      build: { startGates: { engine: engine.held } },
    });
    const key = await s.login();
    const health = await s.api('/api/v1/health');
    expect(health.status).toBe(200);
    expect(health.body.status).toBe('starting');
    expect(health.body.components.workers.status).toBe('starting');
    expect(s.adam.services.engine.stats().ready).toBe(false);
    // The console's checklist reads the same statuses.
    const checks = await s.api('/api/v1/admin/maintenance/health', { key });
    expect(checks.status).toBe(200);
    expect(checks.body.status).toBe('starting');

    const job = saveText(s, key, ARTICLES.photosynthesis, 'photosynthesis');
    engine.open();
    expect(await s.adam.engineStarted).toBe(true);
    const done = await job;
    expect(done.snippet_ids.length).toBeGreaterThan(0);
    const after = await until(async () => {
      const h = (await s!.api('/api/v1/health')).body;
      return h.components.workers.status !== 'starting' && h;
    });
    expect(after.components.workers.status).toBe('healthy');
    expect(after.components.workers.details.engine).toMatchObject({ ready: true });
  });

  it('finds bytes changed in place after the load and rebuilds the index from the store', async () => {
    const dataDir = tempDir();
    s = await startServer({ engineWithServer: true, dataDir });
    let key = await s.login();
    const a = await saveText(s, key, ARTICLES.databases, 'databases');
    const b = await saveText(s, key, ARTICLES.photosynthesis, 'photosynthesis');
    const ids = [...a.snippet_ids, ...b.snippet_ids];
    await s.close();
    // The size and the layout stay right: only the checksum can tell.
    const dir = path.join(dataDir, 'index');
    const m = JSON.parse(fs.readFileSync(path.join(dir, 'manifest.json'), 'utf8'));
    const file = path.join(dir, `index-${m.generation}.usearch`);
    const bytes = fs.readFileSync(file);
    const middle = Math.floor(bytes.length / 2);
    for (let i = middle; i < middle + 32; i++) bytes[i]! ^= 0xff;
    fs.writeFileSync(file, bytes);

    const index = gate();
    s = await startServer({
      engineWithServer: true,
      dataDir,
      build: { startGates: { index: index.held } },
    });
    key = await s.login();
    index.open();
    // The load itself no longer reads the whole file: it opens as it was saved.
    await s.adam.services.index.ready;
    const report = await s.adam.reconciled;
    expect(report).toMatchObject({ reindexed: ids.length, total_index: ids.length });
    const health = (await s.api('/api/v1/health')).body.components.index;
    expect(health.status).toBe('degraded');
    expect(health.error).toMatch(/index-\d+\.usearch does not match its sha256 checksum/);
    expect(fs.readdirSync(dir).filter((f) => f.startsWith('damaged-'))).toHaveLength(1);
    const r = await s.api('/api/v1/snippets/search', {
      method: 'POST',
      key,
      body: { query: 'SQL transactions', k: 1 },
    });
    expect(r.status).toBe(200);
    expect(ids).toContain(r.body.results[0].id);
  });
});

describe('the production bundle (scripts/bundle.mjs: what `npm run build` makes and `npm start` runs)', () => {
  let out: string;
  let site: FixtureSite;
  let child: ChildProcess | undefined;
  beforeAll(async () => {
    // Beside dist/, at its depth: the bundle finds the package's files by the same relative paths.
    out = fs.mkdtempSync(path.join(serverRoot, '.bundle-test-'));
    execFileSync(process.execPath, ['scripts/bundle.mjs', out], { cwd: serverRoot });
    site = await startFixtureSite();
  }, 120_000);
  afterAll(async () => {
    if (child?.exitCode === null) {
      child.kill('SIGKILL');
      await new Promise((r) => child!.once('exit', r));
    }
    fs.rmSync(out, { recursive: true, force: true });
    await site?.close();
  });

  /** What boot.cjs's loadMain() saw of the code cache, in a fresh process run with `flags`. */
  const cacheSeen = (flags: string[] = []): { cache: string; cacheFile: string } =>
    JSON.parse(
      execFileSync(
        process.execPath,
        [
          ...flags,
          '-e',
          `const { cache, cacheFile } = require(${JSON.stringify(path.join(out, 'boot.cjs'))}).loadMain();
           process.stdout.write(JSON.stringify({ cache, cacheFile }))`,
        ],
        { encoding: 'utf8' },
      ),
    );

  it('loads the main thread from its CommonJS bundle with the code cache made at build', () => {
    // Threads' shared code comes from a few chunks, not from src's ~300 modules one by one.
    expect(fs.readFileSync(path.join(out, 'main.js'), 'utf8')).toMatch(/from "\.\/chunks\//);
    expect(cacheSeen().cache).toBe('taken');
  });

  it('loads the bundle when its code cache does not fit or is missing (V8 compiles as usual)', () => {
    const { cacheFile } = cacheSeen();
    const good = fs.readFileSync(cacheFile);
    try {
      fs.writeFileSync(cacheFile, Buffer.alloc(good.length, 7));
      expect(cacheSeen().cache).toBe('rejected');
      fs.rmSync(cacheFile);
      expect(cacheSeen().cache).toBe('none');
    } finally {
      fs.writeFileSync(cacheFile, good);
    }
  });

  it('answers /health, serves the console, and extracts pages and runs jobs on its threads', async () => {
    // What `npm start` runs: boot.cjs, with the code cache (the test above).
    const main = path.join(out, 'boot.cjs');
    const dataDir = tempDir();
    linkSharedModel(dataDir);
    const web = tempDir('adam-web-');
    fs.writeFileSync(path.join(web, 'index.html'), '<!doctype html><title>ADAM console</title>');
    child = spawn(process.execPath, [main], {
      env: {
        ...process.env,
        PORT: '0',
        HOST: '127.0.0.1',
        ADAM_DATA_DIR: dataDir,
        ADAM_WEB_DIST: web,
        ADAM_FETCH_ALLOW: `127.0.0.1:${site.port}`,
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout!.on('data', (d) => (output += d));
    child.stderr!.on('data', (d) => (output += d));
    const port = await until(() => /listening on http:\/\/127\.0\.0\.1:(\d+)/.exec(output)?.[1], {
      timeout: 60_000,
      what: () => `the bundled server to listen:\n${output}`,
    });
    const base = `http://127.0.0.1:${port}`;
    const api = async (
      url: string,
      init: { key?: string; body?: unknown } = {},
    ): Promise<Omit<ApiResult, 'headers'>> => {
      const res = await fetch(base + url, {
        method: init.body === undefined ? 'GET' : 'POST',
        headers: {
          ...(init.key && { 'x-api-key': init.key }),
          ...(init.body !== undefined && { 'content-type': 'application/json' }),
        },
        body: init.body === undefined ? undefined : JSON.stringify(init.body),
      });
      return { status: res.status, body: await res.json() };
    };

    const first = await api('/api/v1/health');
    expect(first.status).toBe(200);
    expect(['starting', 'healthy']).toContain(first.body.status);
    const ready = await until(
      async () => {
        const h = (await api('/api/v1/health')).body as { status: string };
        return h.status !== 'starting' && h;
      },
      { timeout: 60_000 },
    );
    expect(ready.status).toBe('healthy');

    const page = await fetch(`${base}/`);
    expect(page.status).toBe(200);
    expect(await page.text()).toContain('<title>ADAM console</title>');

    const login = await api('/api/v1/auth/login', {
      body: { email: 'admin@example.com', password: 'admin' },
    });
    expect(login.status, JSON.stringify(login.body)).toBe(200);
    const key = login.body.api_key as string;
    // Extraction (linkedom and readability, loaded at their first use) on an engine thread.
    const fetched = await api('/api/v1/playground/fetch-url', {
      key,
      body: { url: `${site.url}/articles/honeybees` },
    });
    expect(fetched.status, JSON.stringify(fetched.body)).toBe(200);
    expect(fetched.body.content).toMatch(/bee/i);
    // A job end to end: segmented and embedded on the engine's threads, saved, indexed, found.
    const saved = await api('/api/v1/playground/save-segments', {
      key,
      body: { title: 'databases', language: 'en', text: ARTICLES.databases, wait: true },
    });
    expect(saved.body.status).toBe('completed');
    const found = await api('/api/v1/snippets/search', {
      key,
      body: { query: 'SQL transactions', k: 1, mode: 'vector' },
    });
    expect(found.status).toBe(200);
    expect(saved.body.snippet_ids).toContain(found.body.results[0].id);
  }, 180_000);

  it('serves under V8 flags the build did not use, and writes their cache once it listens', async () => {
    if (child?.exitCode === null) {
      child.kill('SIGKILL');
      await new Promise((r) => child!.once('exit', r));
    }
    const flags = ['--max-old-space-size=1536'];
    expect(cacheSeen(flags).cache).toBe('rejected');
    child = spawn(process.execPath, [...flags, path.join(out, 'boot.cjs')], {
      env: { ...process.env, PORT: '0', ADAM_DATA_DIR: tempDir(), ADAM_WEB_DIST: '' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout!.on('data', (d) => (output += d));
    child.stderr!.on('data', (d) => (output += d));
    const port = await until(() => /listening on http:\/\/127\.0\.0\.1:(\d+)/.exec(output)?.[1], {
      timeout: 60_000,
      what: () => `the bundled server to listen:\n${output}`,
    });
    expect((await fetch(`http://127.0.0.1:${port}/api/v1/health`)).status).toBe(200);
    await until(() => cacheSeen(flags).cache === 'taken', {
      timeout: 60_000,
      what: () => 'the cache for these flags to be written',
    });
    // Now the build's flags are the ones that do not fit: their start would write it back.
    expect(cacheSeen().cache).toBe('rejected');
    const exited = new Promise((r) => child!.once('exit', r));
    child.kill('SIGTERM');
    await exited;
  }, 120_000);
});
