import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { threadId } from 'node:worker_threads';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  describeModelFiles,
  writeTinyEmbeddingModel,
  writeTinyTextClassifier,
  writeTinyTokenClassifier,
} from '../../test/fixtures/tiny-models.js';
import { dot } from './embedder.js';
import { OnnxEmbedder, OnnxRunner } from './onnx-embedder.js';

const EMBEDDER = 'adam-test/tiny-embedder';
const NER = 'adam-test/tiny-ner';
const SENTIMENT = 'adam-test/tiny-sentiment';

describe('ONNX models on worker threads', () => {
  let modelsRoot: string;
  let embedder: OnnxEmbedder;
  let runner: OnnxRunner;

  beforeAll(async () => {
    modelsRoot = fs.mkdtempSync(path.join(os.tmpdir(), 'adam-onnx-'));
    await writeTinyEmbeddingModel(path.join(modelsRoot, EMBEDDER), { dimension: 48 });
    await writeTinyTokenClassifier(path.join(modelsRoot, NER));
    await writeTinyTextClassifier(path.join(modelsRoot, SENTIMENT));
    embedder = await OnnxEmbedder.create({
      modelsRoot,
      dir: EMBEDDER,
      id: `onnx:${EMBEDDER}@main`,
      threads: 2,
    });
    runner = new OnnxRunner({ modelsRoot, threads: 1 });
  });
  afterAll(async () => {
    await embedder?.close();
    await runner?.close();
    fs.rmSync(modelsRoot, { recursive: true, force: true });
  });

  describe('embedder', () => {
    it('takes its id from the caller and its dimension from config.json', () => {
      expect(embedder.id).toBe('onnx:adam-test/tiny-embedder@main');
      expect(embedder.dimension).toBe(48);
      expect(embedder.liveThreads).toBe(2);
    });

    it('measured the load on every thread', () => {
      const m = embedder.loadMeasurement;
      expect(m.load_time_ms).toBeGreaterThan(0);
      expect(m.inference_speed).toBeGreaterThan(0);
      expect(m.memory_mb).toBeGreaterThanOrEqual(0);
    });

    it('answers one unit vector per text, each with its own buffer', async () => {
      const texts = ['The cat sat on the mat', '', 'La photosynthèse produit de l’oxygène'];
      const vectors = await embedder.embed(texts);
      expect(vectors).toHaveLength(3);
      for (const v of vectors) {
        expect(v).toBeInstanceOf(Float32Array);
        expect(v.buffer.byteLength).toBe(48 * 4);
        expect(Math.sqrt(dot(v, v))).toBeCloseTo(1, 5);
      }
      expect(await embedder.embed([])).toEqual([]);
    });

    it('gives a text the same vector whatever the batch around it', async () => {
      const [a1, b1] = await embedder.embed(['bees and honey', 'a much longer text about rivers']);
      const [b2, a2] = await embedder.embed(['a much longer text about rivers', 'bees and honey']);
      expect(dot(a1!, a2!)).toBeCloseTo(1, 6);
      expect(dot(b1!, b2!)).toBeCloseTo(1, 6);
      expect(dot(a1!, b1!)).toBeLessThan(0.5);
    });

    it('puts texts that share words closer than texts that share none', async () => {
      const [query, near, far, nearFr, farFr] = await embedder.embed([
        'honey bees on city rooftops',
        'the city keeps bees on its rooftops for honey',
        'the central bank raised interest rates again',
        'le musée de la ville ouvre le matin',
        'la ville et son musée',
      ]);
      expect(dot(query!, near!)).toBeGreaterThan(dot(query!, far!) + 0.3);
      expect(dot(nearFr!, farFr!)).toBeGreaterThan(dot(nearFr!, far!) + 0.3);
    });

    it('embeds a large batch the same as text by text', async () => {
      const words = ['river', 'bridge', 'honey', 'market', 'star', 'train', 'paris', 'music'];
      const texts = Array.from(
        { length: 300 },
        (_, i) => `${words[i % 8]} ${words[(i * 3) % 8]} number ${i}`,
      );
      const all = await embedder.embed(texts);
      expect(all).toHaveLength(300);
      for (const i of [0, 77, 150, 299]) {
        const [alone] = await embedder.embed([texts[i]!]);
        expect(dot(all[i]!, alone!)).toBeCloseTo(1, 5);
      }
    });

    it('loads on every thread up front, and spreads concurrent batches over them', async () => {
      fs.cpSync(path.join(modelsRoot, EMBEDDER), path.join(modelsRoot, 'spread/model'), {
        recursive: true,
      });
      const r = new OnnxRunner({ modelsRoot, threads: 2 });
      try {
        // One thread busy with a long batch while the load is asked: it must load it too.
        await r.load({ dir: EMBEDDER, task: 'feature-extraction' });
        const long = Array.from({ length: 3_000 }, (_, i) => `a long batch, text ${i}`);
        const busy = r.embed({ dir: EMBEDDER, texts: long });
        await r.load({ dir: 'spread/model', task: 'feature-extraction' });
        await busy;
        // With its files gone, only a thread that loaded the model already can still embed.
        fs.rmSync(path.join(modelsRoot, 'spread'), { recursive: true });
        const batch = Array.from({ length: 64 }, (_, i) => `text number ${i} about rivers`);
        const results = await Promise.all(
          Array.from({ length: 6 }, () => r.embed({ dir: 'spread/model', texts: batch })),
        );
        const threads = new Set(results.map((x) => x.threadId));
        expect(threads.has(threadId)).toBe(false);
        expect(threads.size).toBe(2);
      } finally {
        await r.close();
      }
    });
  });

  describe('classifiers', () => {
    it('finds the entities of a text with spans that map back to it', async () => {
      const text =
        'Yesterday Marie Curie met Albert Einstein in Paris, then flew to Tokyo with Renault.';
      const entities = await runner.tokenClassify({ dir: NER, text });
      expect(entities.map(({ text: t, label }) => ({ t, label }))).toEqual([
        { t: 'Marie Curie', label: 'PERSON' },
        { t: 'Albert Einstein', label: 'PERSON' },
        { t: 'Paris', label: 'GPE' },
        { t: 'Tokyo', label: 'GPE' },
        { t: 'Renault', label: 'ORG' },
      ]);
      for (const e of entities) {
        expect(text.slice(e.start, e.end)).toBe(e.text);
        expect(e.score).toBeGreaterThan(0.9);
        expect(e.score).toBeLessThanOrEqual(1);
      }
      expect(await runner.tokenClassify({ dir: NER, text: 'nothing to see here' })).toEqual([]);
    });

    it('classifies sentiment from its cue words', async () => {
      const good = await runner.textClassify({ dir: SENTIMENT, text: 'What a wonderful day!' });
      expect(good[0]).toEqual({ label: 'positive', score: expect.any(Number) });
      expect(good[0]!.score).toBeGreaterThan(0.9);
      const bad = await runner.textClassify({ dir: SENTIMENT, text: 'I hate this awful film' });
      expect(bad.map((s) => s.label)).toEqual(['negative', 'positive']);
      expect(bad[0]!.score + bad[1]!.score).toBeCloseTo(1, 5);
    });

    it('loads, measures and unloads on every thread', async () => {
      const r = new OnnxRunner({ modelsRoot, threads: 2 });
      try {
        const m = await r.load({ dir: SENTIMENT, task: 'text-classification' });
        expect(m.dimension).toBeNull();
        expect(m.inference_speed).toBeGreaterThan(0);
        await r.load({ dir: NER, task: 'token-classification' });
        expect(await r.unload({ dir: SENTIMENT })).toBe(1);
        expect(await r.unload({ dir: SENTIMENT })).toBe(0);
        expect(await r.unloadAll()).toBe(1);
        expect(await r.unloadAll()).toBe(0);
        // Unloaded models load again on use.
        expect(await r.textClassify({ dir: SENTIMENT, text: 'great' })).toHaveLength(2);
      } finally {
        await r.close();
      }
    });
  });

  describe('failures', () => {
    const copyModel = (name: string): string => {
      const dir = path.join(modelsRoot, name);
      fs.cpSync(path.join(modelsRoot, EMBEDDER), dir, { recursive: true });
      return name;
    };
    const create = (dir: string, threads = 1) =>
      OnnxEmbedder.create({ modelsRoot, dir, id: `onnx:${dir}`, threads });

    it('says which files a model is missing', async () => {
      const dir = copyModel('broken/missing');
      fs.rmSync(path.join(modelsRoot, dir, 'tokenizer.json'));
      fs.rmSync(path.join(modelsRoot, dir, 'onnx/model.onnx'));
      await expect(create(dir, 2)).rejects.toThrow(
        'Model broken/missing is missing tokenizer.json, onnx/model.onnx',
      );
      await expect(create('broken/nowhere')).rejects.toThrow(
        'Model directory broken/nowhere not found',
      );
    });

    it('fails clearly on a corrupt model file, and the runner stays usable', async () => {
      const dir = copyModel('broken/corrupt');
      fs.writeFileSync(path.join(modelsRoot, dir, 'onnx/model.onnx'), 'not a protobuf at all');
      await expect(create(dir)).rejects.toThrow(/^Could not load model broken\/corrupt: /);
      await expect(runner.load({ dir, task: 'feature-extraction' })).rejects.toThrow(
        /Could not load model broken\/corrupt/,
      );
      const ok = await runner.textClassify({ dir: SENTIMENT, text: 'good' });
      expect(ok[0]!.label).toBe('positive');
    });

    it('fails clearly on an unreadable config.json', async () => {
      const dir = copyModel('broken/config');
      fs.writeFileSync(path.join(modelsRoot, dir, 'config.json'), '{"model_type": ');
      await expect(create(dir)).rejects.toThrow(
        /^Model broken\/config has an unreadable config.json/,
      );
    });

    it('refuses a model whose vectors are not as long as config.json says', async () => {
      const dir = copyModel('broken/dimension');
      const file = path.join(modelsRoot, dir, 'config.json');
      const config = JSON.parse(fs.readFileSync(file, 'utf8')) as Record<string, unknown>;
      fs.writeFileSync(file, JSON.stringify({ ...config, hidden_size: 32 }));
      await expect(create(dir)).rejects.toThrow(
        'Model broken/dimension returns vectors of 48, its config.json says 32',
      );
    });

    it('refuses a directory outside the models directory', async () => {
      await expect(create('../elsewhere')).rejects.toThrow(/outside the models directory/);
    });

    it('frees its threads on close and runs nothing after', async () => {
      const e = await create(EMBEDDER, 2);
      expect(e.liveThreads).toBe(2);
      await e.close();
      expect(e.liveThreads).toBe(0);
      await expect(e.embed(['late'])).rejects.toThrow('The ONNX runner is closed');
      expect(e.liveThreads).toBe(0);
    });
  });

  it('the generator writes the same bytes for the same seed, and small files', async () => {
    const a = path.join(modelsRoot, 'gen/a');
    const b = path.join(modelsRoot, 'gen/b');
    const c = path.join(modelsRoot, 'gen/c');
    const { files } = await writeTinyEmbeddingModel(a, { seed: 7 });
    await writeTinyEmbeddingModel(b, { seed: 7 });
    await writeTinyEmbeddingModel(c, { seed: 8 });
    const da = await describeModelFiles(a, files);
    const db = await describeModelFiles(b, files);
    const dc = await describeModelFiles(c, files);
    expect(db).toEqual(da);
    const model = (d: typeof da) => d.find((f) => f.path === 'onnx/model.onnx')!.sha256;
    expect(model(dc)).not.toBe(model(da));
    for (const f of da) expect(f.size).toBeLessThan(2 * 1024 * 1024);
  });
});
