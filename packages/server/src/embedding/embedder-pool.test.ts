import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { threadId } from 'node:worker_threads';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadBuiltinEmbedderSync, type BuiltinEmbedder } from './builtin-embedder.js';
import { createEmbedderPool, EMBEDDER_WORKER_FILE, type EmbedderPool } from './embedder-pool.js';
import type { PrepareTaskResult } from './embedder.worker.js';

const TEXTS = [
  'The car would not start this morning',
  'My automobile failed to start today',
  'Photosynthesis converts light into chemical energy',
  '',
  'La photosynthèse produit de l’oxygène',
];

describe('embedder pool', () => {
  let dataDir: string;
  let pool: EmbedderPool;
  let local: BuiltinEmbedder;

  // The pool converts the real package in a worker, once for the whole file (~10 s).
  beforeAll(async () => {
    dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'adam-pool-'));
    pool = await createEmbedderPool({ dataDir, threads: 2 });
    local = loadBuiltinEmbedderSync(dataDir).embedder;
  }, 120_000);
  afterAll(async () => {
    await pool?.close();
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  it('returns the same vectors as the embedder on this thread', async () => {
    const fromPool = await pool.embed(TEXTS);
    const here = await local.embed(TEXTS);
    expect(fromPool).toHaveLength(TEXTS.length);
    fromPool.forEach((v, i) => {
      expect(v).toBeInstanceOf(Float32Array);
      expect(v.buffer.byteLength).toBe(384 * 4); // each vector owns its buffer
      expect(Array.from(v)).toEqual(Array.from(here[i]!));
    });
    expect(pool.id).toBe(local.id);
    expect(pool.dimension).toBe(384);
  });

  it('does the work on another thread', async () => {
    const result = await pool.embedOnWorker(TEXTS);
    expect(result.threadId).not.toBe(threadId);
    expect(result.threadId).toBeGreaterThan(0);
  });

  it('spreads concurrent batches over its threads', async () => {
    const batches = Array.from({ length: 8 }, () => TEXTS.concat(TEXTS, TEXTS));
    const results = await Promise.all(batches.map((b) => pool.embedOnWorker(b)));
    expect(new Set(results.map((r) => r.threadId)).size).toBe(2);
  });

  it('answers an empty batch with no vectors', async () => {
    expect(await pool.embed([])).toEqual([]);
  });

  it('runs other exported functions of a worker module on the same threads', async () => {
    const result = await pool.run<PrepareTaskResult>(
      { dataDir },
      { filename: EMBEDDER_WORKER_FILE, name: 'prepareModel' },
    );
    expect(result.converted).toBe(false);
    expect(result.threadId).not.toBe(threadId);
  });

  it("a later pool's threads map the bytes this one loaded, one copy for the process", async () => {
    expect(pool.sharedBytes?.bytes).toBeInstanceOf(SharedArrayBuffer);
    const second = await createEmbedderPool({ dataDir, threads: 1 });
    try {
      // Its one thread prepared the model by mapping the first pool's bytes, not reading the file.
      expect((await second.prepare()).readHere).toBe(false);
      expect(await second.embed(TEXTS)).toEqual(await local.embed(TEXTS));
    } finally {
      await second.close();
    }
  });

  it('rejects a task that fails in the worker and stays usable', async () => {
    const missing = path.join(dataDir, 'no-such-dir');
    await expect(
      pool.run(
        { dataDir: missing, sourcePath: path.join(missing, 'x.json'), texts: ['a'] },
        {
          filename: EMBEDDER_WORKER_FILE,
          name: 'embedTexts',
        },
      ),
    ).rejects.toThrow(/model is missing/);
    expect(await pool.embed(['still working'])).toHaveLength(1);
  });
});
