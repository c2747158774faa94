import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { until } from '../../test/until.js';
import type { EmbeddingSpace } from '../engine/engine.js';
import { Conflict } from '../lib/errors.js';
import { createLogger, LogSink } from '../logging.js';
import { EventBus } from '../lib/event-bus.js';
import { openDatabase, type Db } from '../store/db.js';
import { SnippetRepository } from '../store/snippet.repository.js';
import {
  blobToVector,
  IndexService,
  NEXT_INDEX_DIR,
  recoverSpaceSwitch,
  SWITCH_JOURNAL,
  vectorToBlob,
} from './index.service.js';

/** Two spaces of other dimensions, and a deterministic "model" for each. */
const A: EmbeddingSpace = { id: 'space-a', dimension: 24, model: null };
const B: EmbeddingSpace = { id: 'space-b', dimension: 16, model: { dir: '/models/b' } };
const ROWS = 600;

function vectorOf(text: string, space: EmbeddingSpace): Float32Array {
  let x = 2166136261;
  for (const c of `${space.id}:${text}`) x = Math.imul(x ^ c.charCodeAt(0), 16777619) >>> 0;
  const v = Float32Array.from({ length: space.dimension }, () => {
    x = (Math.imul(x, 1103515245) + 12345) >>> 0;
    return x / 2 ** 32 - 0.5;
  });
  const norm = Math.hypot(...v);
  return v.map((a) => a / norm);
}

/** The engine's part: a current space, embedding in any; `hold` delays the switch's batches. */
class FakeEngine {
  space = A;
  hold: (() => Promise<void>) | null = null;
  onActivate: (() => void) | null = null;
  get id() {
    return this.space.id;
  }
  get dimension() {
    return this.space.dimension;
  }
  async embed(texts: string[]) {
    return texts.map((t) => vectorOf(t, this.space));
  }
  async embedWith(space: EmbeddingSpace, texts: string[]) {
    await this.hold?.();
    return texts.map((t) => vectorOf(t, space));
  }
}

const log = createLogger({ level: 'silent', sink: new LogSink(), stdout: false });
const opened: { db: Db; index: IndexService | null }[] = [];
afterEach(async () => {
  for (const o of opened.splice(0)) {
    await o.index?.close();
    o.db.close();
  }
});

function open(dataDir: string, engine: FakeEngine) {
  const db = openDatabase(dataDir);
  const snippets = new SnippetRepository(db);
  const index = new IndexService({
    dir: path.join(dataDir, 'index'),
    snippets,
    embedder: engine,
    log,
    bus: new EventBus(),
    spaces: {
      embedWith: (s, t) => engine.embedWith(s, t),
      activate: (s) => {
        engine.space = s;
        engine.onActivate?.();
      },
    },
  });
  opened.push({ db, index });
  return { db, snippets, index };
}

const row = (text: string, space: EmbeddingSpace) => ({
  text,
  text_hash: text,
  theme: 'general',
  quality_score: 0.5,
  language: 'en',
  word_count: 2,
  size_bytes: text.length,
  source_title: null,
  source_url: null,
  job_id: null,
  metadata: '{}',
  embedding: vectorToBlob(vectorOf(text, space)),
  embedder_id: space.id,
});

async function seeded() {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'adam-switch-'));
  const engine = new FakeEngine();
  const o = open(dataDir, engine);
  o.snippets.insertMany(Array.from({ length: ROWS }, (_, i) => row(`snippet ${i}`, A)));
  await o.index.reconcile();
  return { dataDir, engine, ...o };
}

/** Every row holds the vector of its text in `space`. */
function expectRowsIn(snippets: SnippetRepository, space: EmbeddingSpace) {
  const ids = snippets.allIds();
  const stored = snippets.embeddings(ids);
  for (const r of snippets.findByIds(ids)) {
    const e = stored.get(r.id)!;
    expect(e.embedder_id, `row ${r.id}`).toBe(space.id);
    expect(blobToVector(e.embedding!)).toEqual(vectorOf(r.text, space));
  }
}

async function expectFinds(index: IndexService, text: string, space: EmbeddingSpace, id: number) {
  const { hits } = await index.search(vectorOf(text, space), 1, `${space.id}:${text}`);
  expect(hits[0]?.key).toBe(id);
}

describe('IndexService.switchSpace', () => {
  it('builds the next index aside, swaps it in and gives the rows their new vectors', async () => {
    const { engine, snippets, index, dataDir } = await seeded();
    // Stored in the old space inside the swap itself: re-embedded by the pending path after.
    // And one deleted there: its vector must not stay behind in the new index.
    let lateId = 0;
    const ids = snippets.allIds();
    const [deletedId, keptId] = [ids[3]!, ids[5]!];
    engine.onActivate = () => {
      lateId = snippets.insertMany([row('stored during the swap', A)])[0]!;
      index.addDeferred([{ key: lateId, vector: vectorOf('stored during the swap', A) }]);
      snippets.deleteByIds([deletedId]);
      index.removeAndSave([deletedId]);
    };
    const progress: number[] = [];
    const r = await index.switchSpace(B, { onProgress: (done) => progress.push(done) });
    expect(r).toEqual({ status: 'switched', total: ROWS, embedded: ROWS, late: 1 });
    expect(progress).toEqual([0, 256, 512, 600]);
    expect(index.dimension).toBe(B.dimension);
    await index.flush();
    await until(() => index.has(lateId) && snippets.pendingIds(1).length === 0);
    expect(index.size).toBe(ROWS);
    expect(index.has(deletedId)).toBe(false);
    expectRowsIn(snippets, B);
    await expectFinds(index, 'snippet 5', B, keptId);
    await expectFinds(index, 'stored during the swap', B, lateId);
    const dir = path.join(dataDir, 'index');
    expect(fs.existsSync(path.join(dir, NEXT_INDEX_DIR))).toBe(false);
    expect(fs.existsSync(path.join(dir, SWITCH_JOURNAL))).toBe(false);
  });

  it('answers searches from the old index while it builds, and refuses a second switch', async () => {
    const { engine, snippets, index } = await seeded();
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    let arrived!: () => void;
    const there = new Promise<void>((r) => (arrived = r));
    engine.hold = () => (arrived(), gate);
    const switching = index.switchSpace(B);
    await there;
    await expectFinds(index, 'snippet 7', A, snippets.allIds()[7]!);
    await expect(index.switchSpace(A)).rejects.toBeInstanceOf(Conflict);
    release();
    await switching;
    await expectFinds(index, 'snippet 7', B, snippets.allIds()[7]!);
  });

  it('stops without touching the live index, space or rows, and removes the side files', async () => {
    const { engine, snippets, index, dataDir } = await seeded();
    let batches = 0;
    engine.hold = async () => void batches++;
    const r = await index.switchSpace(B, { shouldStop: () => batches >= 1 });
    expect(r).toEqual({ status: 'stopped' });
    expect(engine.space).toBe(A);
    expect(index.dimension).toBe(A.dimension);
    expect(index.switchingTo).toBeNull();
    expectRowsIn(snippets, A);
    expect(fs.existsSync(path.join(dataDir, 'index', NEXT_INDEX_DIR))).toBe(false);
  });

  it('fails when the live index is replaced while it builds (a restore)', async () => {
    const { engine, snippets, index, dataDir } = await seeded();
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    let arrived!: () => void;
    const there = new Promise<void>((r) => (arrived = r));
    engine.hold = () => (arrived(), gate);
    const switching = index.switchSpace(B);
    await there;
    await index.replaceFiles(() => undefined);
    release();
    await expect(switching).rejects.toThrow(/overtaken: the index was replaced/);
    expect(engine.space).toBe(A);
    expectRowsIn(snippets, A);
    expect(fs.existsSync(path.join(dataDir, 'index', NEXT_INDEX_DIR))).toBe(false);
  });
});

describe('recoverSpaceSwitch', () => {
  /**
   * A crash inside the swap: the data directory as it stood when the engine was told to switch
   * (the journal and the new manifest in place, the rows not yet given their new vectors), or,
   * with `beforeCommit`, as it stood just before the manifest's rename.
   */
  async function crashedInSwap(beforeCommit: boolean): Promise<string> {
    const { engine, db, index, dataDir } = await seeded();
    const crash = fs.mkdtempSync(path.join(os.tmpdir(), 'adam-crash-'));
    engine.onActivate = () => {
      fs.writeFileSync(path.join(crash, 'adam.db'), db.serialize());
      fs.cpSync(path.join(dataDir, 'index'), path.join(crash, 'index'), { recursive: true });
    };
    await index.switchSpace(B);
    if (beforeCommit) {
      for (const name of ['manifest.json', 'state.json']) {
        const live = path.join(crash, 'index', name);
        fs.renameSync(live, `${live}.next`);
        fs.renameSync(`${live}.replaced`, live);
      }
    }
    return crash;
  }

  for (const beforeCommit of [false, true]) {
    it(`finishes a switch that crashed ${beforeCommit ? 'before' : 'after'} its manifest went in`, async () => {
      const crash = await crashedInSwap(beforeCommit);
      expect(fs.existsSync(path.join(crash, 'index', SWITCH_JOURNAL))).toBe(true);
      const db = openDatabase(crash);
      const snippets = new SnippetRepository(db);
      opened.push({ db, index: null });
      expect(recoverSpaceSwitch({ dir: path.join(crash, 'index'), snippets, log })).toEqual(B);
      expectRowsIn(snippets, B);

      // The next start, in the recorded space: the new index loads as saved, nothing to redo.
      const engine = new FakeEngine();
      engine.space = B;
      const o = open(crash, engine);
      expect(await o.index.reconcile()).toMatchObject({ total_index: ROWS, reindexed: 0 });
      expect(o.index.dimension).toBe(B.dimension);
      await expectFinds(o.index, 'snippet 9', B, snippets.allIds()[9]!);
      const left = fs.readdirSync(path.join(crash, 'index'));
      expect(left.filter((f) => /\.(next|replaced)$|^next$|^switch\.json$/.test(f))).toEqual([]);
    });
  }

  it('discards a build a crash interrupted before its swap', async () => {
    const { dataDir, snippets, index } = await seeded();
    await index.close();
    opened[0]!.index = null;
    const dir = path.join(dataDir, 'index');
    const manifest = fs.readFileSync(path.join(dir, 'manifest.json'), 'utf8');
    fs.mkdirSync(path.join(dir, NEXT_INDEX_DIR, 'deep'), { recursive: true });
    fs.writeFileSync(path.join(dir, NEXT_INDEX_DIR, 'embeddings.f32'), 'half');
    fs.writeFileSync(path.join(dir, 'manifest.json.next'), '{}');
    expect(recoverSpaceSwitch({ dir, snippets, log })).toBeNull();
    expect(fs.existsSync(path.join(dir, NEXT_INDEX_DIR))).toBe(false);
    expect(fs.existsSync(path.join(dir, 'manifest.json.next'))).toBe(false);
    expect(fs.readFileSync(path.join(dir, 'manifest.json'), 'utf8')).toBe(manifest);
    expectRowsIn(snippets, A);
  });
});

describe('an index saved in another space', () => {
  it('is rebuilt from the rows in the active space, even of the same dimension', async () => {
    const { dataDir, snippets } = await seeded();
    await opened[0]!.index!.close();
    opened[0]!.index = null;
    // A space of A's dimension: the saved index would load, with vectors that mean nothing.
    const engine = new FakeEngine();
    engine.space = { id: 'space-c', dimension: A.dimension, model: null };
    const o = open(dataDir, engine);
    expect(await o.index.reconcile()).toMatchObject({ reindexed: ROWS });
    expectRowsIn(snippets, engine.space);
  });
});
