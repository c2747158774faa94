import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { saveText, startServer, tempDir, type TestServer } from './helpers.js';
import { ARTICLES } from './corpus.js';
import { until } from './until.js';

/** A start-up step held until the test lets it go: "not ready" is seen without racing the clock. */
function gate() {
  let open!: () => void;
  const held = new Promise<void>((resolve) => (open = resolve));
  return { held, open };
}

/** A console build: its pages answer every path no route claims, with 200. */
function webDist(): string {
  const dir = tempDir('adam-web-');
  fs.writeFileSync(path.join(dir, 'index.html'), '<!doctype html><title>ADAM</title>');
  return dir;
}

let s: TestServer | undefined;
afterEach(async () => {
  await s?.close();
  s = undefined;
});

describe('probes at the root and under /api/v1', () => {
  it('answers /health and /ready as JSON at both places, not the console page', async () => {
    s = await startServer({ engineWithServer: true, env: { ADAM_WEB_DIST: webDist() } });
    await s.adam.engineStarted;
    await s.adam.reconciled;
    // The console still serves its page at other root paths.
    const page = await fetch(`${s.url}/snippets`);
    expect(await page.text()).toContain('<title>ADAM</title>');

    for (const prefix of ['', '/api/v1']) {
      const health = await s.api(`${prefix}/health`);
      expect(health.status, prefix).toBe(200);
      expect(health.headers.get('content-type')).toContain('application/json');
      expect(health.body).toMatchObject({ status: 'healthy' });
      expect(health.body.components.database.status).toBe('healthy');

      const ready = await s.api(`${prefix}/ready`);
      expect(ready.status, prefix).toBe(200);
      expect(ready.body).toEqual({ ready: true, engine: true, index: true, not_ready: [] });
    }
  });

  it('answers 503 naming the engine while it starts, and 200 once it is up', async () => {
    const engine = gate();
    s = await startServer({
      engineWithServer: true,
      build: { startGates: { engine: engine.held } },
    });
    for (const prefix of ['', '/api/v1']) {
      const r = await s.api(`${prefix}/ready`);
      expect(r.status, prefix).toBe(503);
      // (The index may wait for the engine too: only the engine's part is asserted.)
      expect(r.body).toMatchObject({ ready: false, engine: false });
      expect(r.body.not_ready).toContain('engine: starting its threads and model');
    }
    engine.open();
    expect(await s.adam.engineStarted).toBe(true);
    const ready = await until(async () => {
      const x = await s!.api('/ready');
      return x.status === 200 && x;
    });
    expect(ready.body).toEqual({ ready: true, engine: true, index: true, not_ready: [] });
  });

  it('answers 503 naming the index while the saved index loads', async () => {
    const dataDir = tempDir();
    s = await startServer({ engineWithServer: true, dataDir });
    await saveText(s, await s.login(), ARTICLES.databases, 'databases');
    await s.close();

    const index = gate();
    s = await startServer({
      engineWithServer: true,
      dataDir,
      build: { startGates: { index: index.held } },
    });
    await s.adam.engineStarted;
    const r = await s.api('/ready');
    expect(r.status).toBe(503);
    expect(r.body).toMatchObject({
      ready: false,
      engine: true,
      index: false,
      not_ready: ['index: loading the saved index'],
    });
    index.open();
    const ready = await until(async () => {
      const x = await s!.api('/api/v1/ready');
      return x.status === 200 && x;
    });
    expect(ready.body.ready).toBe(true);
  });

  it('documents both probes at both places in the OpenAPI document, as public', async () => {
    s = await startServer({ engineWithServer: true });
    const doc = (await s.api('/api/docs/json')).body as {
      paths: Record<string, Record<string, { responses: Record<string, unknown> }>>;
    };
    for (const p of ['/health', '/ready', '/api/v1/health', '/api/v1/ready']) {
      expect(doc.paths[p]?.get, p).toBeDefined();
    }
    expect(Object.keys(doc.paths['/ready']!.get!.responses)).toEqual(
      expect.arrayContaining(['200', '503']),
    );
  });
});
