import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { env, pipeline } from '@huggingface/transformers';
import { valueSymbol } from 'piscina';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  writeTinyEmbeddingModel,
  writeTinyTextClassifier,
  writeTinyTokenClassifier,
} from '../../test/fixtures/tiny-models.js';
import {
  embed,
  load,
  loadedModels,
  modelDirectory,
  splitWindows,
  textClassify,
  tokenClassify,
  unload,
  unloadAll,
} from './onnx-runtime.js';

// The task functions, called on this thread: what the worker threads run.

describe('onnx runtime', () => {
  let modelsRoot: string;
  const ref = (dir: string) => ({ modelsRoot, dir });

  beforeAll(async () => {
    modelsRoot = fs.mkdtempSync(path.join(os.tmpdir(), 'adam-onnx-rt-'));
    await writeTinyEmbeddingModel(path.join(modelsRoot, 'embedding/tiny'));
    await writeTinyTokenClassifier(path.join(modelsRoot, 'spacy/ner'));
    await writeTinyTextClassifier(path.join(modelsRoot, 'sentiment/tiny'));
  });
  afterAll(async () => {
    await unloadAll();
    fs.rmSync(modelsRoot, { recursive: true, force: true });
  });

  it('never touches the network, even for files a model lacks', async () => {
    // A hub that counts requests, set as the remote host, and every fetch attempt counted.
    let hits = 0;
    const hub = http.createServer((_req, res) => {
      hits++;
      res.writeHead(404).end();
    });
    await new Promise<void>((r) => hub.listen(0, '127.0.0.1', r));
    const { port } = hub.address() as AddressInfo;
    const saved = { remoteHost: env.remoteHost, fetch: env.fetch };
    let attempts = 0;
    let inner = env.fetch;
    Object.defineProperty(env, 'fetch', {
      configurable: true,
      get: () => (input: string | URL, init?: unknown) => {
        attempts++;
        return inner(input, init);
      },
      set: (f: typeof inner) => {
        inner = f;
      },
    });
    env.remoteHost = `http://127.0.0.1:${port}/`;
    try {
      // Loads, runs, and a model without tokenizer_config.json: a loader left at its defaults
      // asks the hub for that file.
      await load({ ...ref('embedding/tiny'), task: 'feature-extraction' });
      await tokenClassify({ ...ref('spacy/ner'), text: 'Marie Curie' });
      const bare = path.join(modelsRoot, 'adam-test/bare');
      await writeTinyEmbeddingModel(bare);
      fs.rmSync(path.join(bare, 'tokenizer_config.json'));
      await expect(load({ ...ref('adam-test/bare'), task: 'feature-extraction' })).rejects.toThrow(
        'Model adam-test/bare is missing tokenizer_config.json',
      );
      expect(attempts).toBe(0);
      expect(hits).toBe(0);
    } finally {
      Object.defineProperty(env, 'fetch', { configurable: true, writable: true, value: inner });
      env.remoteHost = saved.remoteHost;
      await new Promise((r) => hub.close(r));
    }
  });

  it('embeds into unit vectors and measures the load', async () => {
    const m = await load({ ...ref('embedding/tiny'), task: 'feature-extraction' });
    expect(m.dimension).toBe(64);
    expect(m.load_time_ms).toBeGreaterThan(0);
    expect(m.inference_speed).toBeGreaterThan(0);
    expect(m.memory_mb).toBeGreaterThanOrEqual(0);
    // embed wraps its result for piscina to transfer; the value is inside.
    const wrapped = await embed({ ...ref('embedding/tiny'), texts: ['a', 'b c'] });
    const { packed, dimension } = (wrapped as unknown as Record<symbol, typeof wrapped>)[
      valueSymbol
    ]!;
    expect(dimension).toBe(64);
    expect(packed).toHaveLength(128);
    const norm = Math.hypot(...packed.subarray(0, 64));
    expect(norm).toBeCloseTo(1, 5);
  });

  it('pools like the library does: masked mean, then L2', async () => {
    const texts = ['short', 'a longer text, padded less than the short one', 'é ü 😀'];
    const wrapped = await embed({ ...ref('embedding/tiny'), texts });
    const { packed } = (wrapped as unknown as Record<symbol, typeof wrapped>)[valueSymbol]!;
    const library = await pipeline('feature-extraction', path.join(modelsRoot, 'embedding/tiny'), {
      local_files_only: true,
      dtype: 'fp32',
    });
    const expected = (await library(texts, { pooling: 'mean', normalize: true })).data;
    await library.dispose();
    expect(packed).toHaveLength(expected.length);
    packed.forEach((x, i) => expect(x).toBeCloseTo(expected[i] as number, 6));
  });

  it('finds entities with spans that map back to the text', async () => {
    const text = 'Marie Curie lives in Paris and works for UNESCO.';
    expect(await tokenClassify({ ...ref('spacy/ner'), text })).toEqual([
      { text: 'Marie Curie', label: 'PERSON', start: 0, end: 11, score: expect.any(Number) },
      { text: 'Paris', label: 'GPE', start: 21, end: 26, score: expect.any(Number) },
      { text: 'UNESCO', label: 'ORG', start: 41, end: 47, score: expect.any(Number) },
    ]);
  });

  it('keeps spans right across accents, unknown characters and sub-word pieces', async () => {
    const text =
      '😀 Hier, Émma et Pierre Dupont ont visité Zorglubville puis Marseille; les Français!';
    const entities = await tokenClassify({ ...ref('spacy/ner'), text });
    for (const e of entities) expect(text.slice(e.start, e.end)).toBe(e.text);
    expect(entities.map((e) => [e.text, e.label])).toEqual([
      ['Émma', 'PERSON'],
      ['Pierre Dupont', 'PERSON'],
      ['Marseille', 'GPE'],
    ]);
    for (const e of entities) expect(e.score).toBeGreaterThan(0.9);
  });

  it('classifies every window of a long text', async () => {
    const filler = 'the river flows slowly under the old bridge in the morning. ';
    const text = `${filler.repeat(20)}Alice met Einstein in Berlin. ${filler.repeat(20)}Google!`;
    expect(text.length).toBeGreaterThan(2000);
    const entities = await tokenClassify({ ...ref('spacy/ner'), text });
    expect(entities.map((e) => e.text)).toEqual(['Alice', 'Einstein', 'Berlin', 'Google']);
    for (const e of entities) expect(text.slice(e.start, e.end)).toBe(e.text);
  });

  it('classifies text by its cue words', async () => {
    const pos = await textClassify({ ...ref('sentiment/tiny'), text: 'I love it, a great film' });
    expect(pos.map((s) => s.label)).toEqual(['positive', 'negative']);
    expect(pos[0]!.score).toBeGreaterThan(0.95);
    expect(pos[0]!.score + pos[1]!.score).toBeCloseTo(1, 5);
    const neg = await textClassify({ ...ref('sentiment/tiny'), text: 'An awful, boring day' });
    expect(neg[0]!.label).toBe('negative');
  });

  it('unloads models and says how many', async () => {
    await load({ ...ref('embedding/tiny'), task: 'feature-extraction' });
    expect(loadedModels()).toContain(path.join(modelsRoot, 'embedding/tiny'));
    expect(await unload(ref('embedding/tiny'))).toHaveLength(1);
    expect(await unload(ref('embedding/tiny'))).toHaveLength(0);
    await load({ ...ref('embedding/tiny'), task: 'feature-extraction' });
    expect((await unloadAll()).length).toBeGreaterThanOrEqual(1);
    expect(loadedModels()).toEqual([]);
  });

  it('refuses a model directory outside the models directory', () => {
    expect(() => modelDirectory(ref('../elsewhere'))).toThrow(/outside the models directory/);
    expect(modelDirectory(ref('a/b'))).toBe(path.join(modelsRoot, 'a/b'));
  });
});

describe('splitWindows', () => {
  it('cuts at whitespace, covering the text exactly once', () => {
    const text = 'alpha beta gamma delta epsilon';
    const windows = splitWindows(text, 12);
    expect(windows.map((w) => w.text).join('')).toBe(text);
    for (const w of windows) {
      expect(w.text.length).toBeLessThanOrEqual(12);
      expect(text.slice(w.offset, w.offset + w.text.length)).toBe(w.text);
    }
    expect(splitWindows('x'.repeat(25), 10).map((w) => w.text.length)).toEqual([10, 10, 5]);
    expect(splitWindows('', 10)).toEqual([]);
  });
});
