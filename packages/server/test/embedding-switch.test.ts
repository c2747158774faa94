import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BUILTIN_EMBEDDER_ID } from '../src/embedding/builtin-embedder.js';
import type { EmbeddingSpace } from '../src/engine/engine.js';
import { ACTIVE_EMBEDDER_FILE } from '../src/services/embedding-switch.service.js';
import { NEXT_INDEX_DIR, SWITCH_JOURNAL } from '../src/services/index.service.js';
import { ARTICLES } from './corpus.js';
import { writeTinyEmbeddingModel } from './fixtures/tiny-models.js';
import { saveText, startServer, tempDir, type TestServer } from './helpers.js';
import { until } from './until.js';

/**
 * Switching the active embedding model on a real server: the next index is built beside the
 * live one while search keeps answering from it, then swapped in with the engine's space.
 */

const BUILTIN = { id: BUILTIN_EMBEDDER_ID, dimension: 384, dir: null };
let tiny: { id: string; dimension: number; dir: string };

beforeAll(async () => {
  const dir = path.join(tempDir('adam-tiny-'), 'tiny-embedder');
  await writeTinyEmbeddingModel(dir, { dimension: 64 });
  tiny = { id: 'onnx:tiny/embedder@main', dimension: 64, dir };
});

/** Holds the switch's embedding (calls in a space other than the engine's) until released. */
function holdSwitch(s: TestServer) {
  const engine = s.adam.services.engine;
  const original = engine.embedWith.bind(engine);
  let release!: () => void;
  const gate = new Promise<void>((r) => (release = r));
  let arrive!: () => void;
  const arrived = new Promise<void>((r) => (arrive = r));
  engine.embedWith = async (space: EmbeddingSpace, texts: string[]) => {
    if (space.id !== engine.id) {
      arrive();
      await gate;
    }
    return original(space, texts);
  };
  return { arrived, release };
}

/** Every row's stored embedder, and the rows still pending. */
function rowsState(s: TestServer) {
  const rows = s.adam.db
    .prepare(
      `SELECT s.id, s.index_pending, e.embedder_id, length(e.embedding) AS bytes
       FROM snippets s LEFT JOIN snippet_embeddings e ON e.snippet_id = s.id ORDER BY s.id`,
    )
    .all() as { id: number; index_pending: number; embedder_id: string; bytes: number }[];
  return {
    count: rows.length,
    embedders: [...new Set(rows.map((r) => r.embedder_id))],
    bytes: [...new Set(rows.map((r) => r.bytes))],
    pending: rows.filter((r) => r.index_pending).length,
  };
}

async function vectorSearch(s: TestServer, key: string, query: string) {
  const r = await s.api('/api/v1/snippets/search', {
    method: 'POST',
    key,
    body: { query, mode: 'vector', k: 5 },
  });
  expect(r.status, JSON.stringify(r.body)).toBe(200);
  return r.body.results as { id: number; text: string }[];
}

/** A few words of a snippet, to find it by. */
const wordsOf = (text: string) => text.split(/\s+/).slice(0, 12).join(' ');

async function seeded(env: Record<string, string> = {}) {
  const s = await startServer({ env });
  const key = await s.login();
  const ids: number[] = [];
  for (const [title, text] of Object.entries(ARTICLES))
    ids.push(...(await saveText(s, key, text, title)).snippet_ids);
  await s.adam.reconciled;
  return { s, key, ids };
}

function sideFilesGone(s: TestServer) {
  const dir = path.join(s.dataDir, 'index');
  expect(fs.existsSync(path.join(dir, NEXT_INDEX_DIR))).toBe(false);
  expect(fs.existsSync(path.join(dir, SWITCH_JOURNAL))).toBe(false);
  expect(fs.readdirSync(dir).filter((f) => f.endsWith('.next') || f.endsWith('.replaced'))).toEqual(
    [],
  );
}

describe('switching the embedding model', () => {
  let s: TestServer;
  let key: string;
  let ids: number[];
  let probe: { id: number; query: string };
  afterAll(async () => {
    await s?.close();
  });

  it('re-embeds into a next index while search answers from the old one, then swaps', async () => {
    ({ s, key, ids } = await seeded());
    expect(ids.length).toBeGreaterThan(4);
    const row = s.adam.services.snippets.get(ids[2]!);
    probe = { id: ids[2]!, query: wordsOf(row.text) };
    const before = await vectorSearch(s, key, probe.query);
    expect(before[0]!.id).toBe(probe.id);

    const hold = holdSwitch(s);
    const { job_id } = s.adam.services.embeddingSwitch.switchTo(tiny);
    await hold.arrived;
    // Building: the old index and space answer, every time, with the same results.
    const { index, engine, embeddingSwitch } = s.adam.services;
    expect(index.switchingTo?.id).toBe(tiny.id);
    expect(engine.id).toBe(BUILTIN_EMBEDDER_ID);
    const during = await Promise.all(
      Array.from({ length: 12 }, () => vectorSearch(s, key, probe.query)),
    );
    for (const r of during) expect(r.map((h) => h.id)).toEqual(before.map((h) => h.id));
    expect(fs.existsSync(path.join(s.dataDir, 'index', NEXT_INDEX_DIR))).toBe(true);
    // A second switch is refused while this one runs.
    expect(() => embeddingSwitch.switchTo(BUILTIN)).toThrow(/already running/);
    // An analysis made now, in the old space, is stored after the switch (below).
    const settings = s.adam.services.settings.get('processing');
    const oldAnalysis = await engine.analyze(
      ARTICLES.stoicism.replace(/Stoic/g, 'Cynic'),
      'en',
      settings,
    );
    expect(oldAnalysis.embedder_id).toBe(BUILTIN_EMBEDDER_ID);

    // Searches keep going, concurrently, across the swap: none fails or comes back empty.
    let searching = true;
    const searches: Promise<number>[] = [];
    const loop = (async () => {
      for (let n = 0; searching && n < 400; n++) {
        const p = vectorSearch(s, key, probe.query).then((r) => r.length);
        searches.push(p);
        await p;
      }
    })();
    hold.release();
    const end = await s.adam.services.jobs.waitForEnd(job_id, 60_000);
    searching = false;
    await loop;
    expect(end.status, JSON.stringify(end.errors)).toBe('completed');
    expect(end.metadata.result).toMatchObject({ embedder: tiny.id, total: ids.length });
    expect(searches.length).toBeGreaterThan(0);
    for (const n of await Promise.all(searches)) expect(n).toBeGreaterThan(0);

    expect(engine.id).toBe(tiny.id);
    expect(index.dimension).toBe(64);
    expect(index.size).toBe(ids.length);
    expect(rowsState(s)).toEqual({
      count: ids.length,
      embedders: [tiny.id],
      bytes: [64 * 4],
      pending: 0,
    });
    expect((await vectorSearch(s, key, probe.query))[0]!.id).toBe(probe.id);
    expect((await s.api('/api/v1/admin/index/stats', { key })).body).toMatchObject({
      dimension: 64,
      embedder: tiny.id,
    });
    const active = JSON.parse(fs.readFileSync(path.join(s.dataDir, ACTIVE_EMBEDDER_FILE), 'utf8'));
    expect(active).toMatchObject(tiny);
    sideFilesGone(s);
    expect(() => embeddingSwitch.switchTo(tiny)).toThrow(/already the active embedder/);

    // Stored after the switch, it is kept as the old space's and re-embedded in the new one.
    const late = s.adam.services.ingestion.store(oldAnalysis, {
      language: 'en',
      source: { title: 'Cynics', url: null },
    });
    expect(late.snippet_ids.length).toBeGreaterThan(0);
    ids.push(...late.snippet_ids);
    await until(() => late.snippet_ids.every((id) => index.has(id)));
    await index.flush();
    expect(rowsState(s)).toMatchObject({ embedders: [tiny.id], bytes: [64 * 4], pending: 0 });
  }, 120_000);

  it('keeps the new space across a restart, without re-embedding', async () => {
    const dataDir = s.dataDir;
    await s.close();
    s = await startServer({ dataDir });
    key = await s.login();
    const r = await s.adam.reconciled;
    expect(r).toMatchObject({ reindexed: 0, marked_pending: 0, total_index: ids.length });
    expect(s.adam.services.engine.id).toBe(tiny.id);
    expect(s.adam.services.index.dimension).toBe(64);
    expect((await vectorSearch(s, key, probe.query))[0]!.id).toBe(probe.id);
  });

  it('embeds a text saved in the new space and finds it', async () => {
    const saved = await saveText(
      s,
      key,
      ARTICLES.volcanoes.replace(/volcano/gi, 'crater'),
      'Craters',
    );
    await s.adam.services.index.flush();
    const row = s.adam.services.snippets.get(saved.snippet_ids[0]!);
    expect((await vectorSearch(s, key, wordsOf(row.text)))[0]!.id).toBe(row.id);
    expect(rowsState(s)).toMatchObject({ embedders: [tiny.id], pending: 0 });
    ids.push(...saved.snippet_ids);
  });

  it('switches back to the built-in embedder', async () => {
    const { job_id } = s.adam.services.embeddingSwitch.switchTo(BUILTIN);
    const end = await s.adam.services.jobs.waitForEnd(job_id, 60_000);
    expect(end.status, JSON.stringify(end.errors)).toBe('completed');
    expect(s.adam.services.engine.id).toBe(BUILTIN_EMBEDDER_ID);
    expect(s.adam.services.index.dimension).toBe(384);
    expect(rowsState(s)).toEqual({
      count: ids.length,
      embedders: [BUILTIN_EMBEDDER_ID],
      bytes: [384 * 4],
      pending: 0,
    });
    expect((await vectorSearch(s, key, probe.query))[0]!.id).toBe(probe.id);
    sideFilesGone(s);
  });
});

describe('a switch that does not finish', () => {
  it('leaves the old index and space when cancelled, and removes the side files', async () => {
    const { s, key, ids } = await seeded();
    try {
      const query = wordsOf(s.adam.services.snippets.get(ids[1]!).text);
      const before = await vectorSearch(s, key, query);
      const hold = holdSwitch(s);
      const { job_id } = s.adam.services.embeddingSwitch.switchTo(tiny);
      await hold.arrived;
      s.adam.services.jobs.cancel(job_id);
      hold.release();
      await s.adam.services.jobs.waitForEnd(job_id, 60_000).catch(() => null);
      await until(() => s.adam.services.index.switchingTo === null);
      expect(s.adam.services.jobs.get(job_id).status).toBe('cancelled');
      expect(s.adam.services.engine.id).toBe(BUILTIN_EMBEDDER_ID);
      expect(s.adam.services.index.dimension).toBe(384);
      expect(rowsState(s)).toMatchObject({ embedders: [BUILTIN_EMBEDDER_ID], pending: 0 });
      expect(await vectorSearch(s, key, query)).toEqual(before);
      expect(fs.existsSync(path.join(s.dataDir, ACTIVE_EMBEDDER_FILE))).toBe(false);
      sideFilesGone(s);
    } finally {
      await s.close();
    }
  }, 120_000);

  it('catches up snippets saved while the next index is built', async () => {
    // Two job slots: the switch holds one, the save takes the other.
    const { s, key, ids } = await seeded({ ADAM_WORKERS: '2' });
    try {
      const hold = holdSwitch(s);
      const { job_id } = s.adam.services.embeddingSwitch.switchTo(tiny);
      await hold.arrived;
      const saved = await saveText(
        s,
        key,
        ARTICLES.databases.replace(/database/gi, 'ledger'),
        'Ledgers',
      );
      expect(saved.snippet_ids.length).toBeGreaterThan(0);
      hold.release();
      const end = await s.adam.services.jobs.waitForEnd(job_id, 60_000);
      expect(end.status, JSON.stringify(end.errors)).toBe('completed');
      expect(rowsState(s)).toEqual({
        count: ids.length + saved.snippet_ids.length,
        embedders: [tiny.id],
        bytes: [64 * 4],
        pending: 0,
      });
      expect(s.adam.services.index.size).toBe(ids.length + saved.snippet_ids.length);
      const row = s.adam.services.snippets.get(saved.snippet_ids[0]!);
      expect((await vectorSearch(s, key, wordsOf(row.text)))[0]!.id).toBe(row.id);
    } finally {
      await s.close();
    }
  }, 120_000);
});
