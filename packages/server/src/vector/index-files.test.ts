import { createHash, randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { checkSaved, indexFileName, listDamaged, prepareInstall } from './index-files.js';
import { VectorIndex } from './vector-index.js';

const dim = 8;
const tmp = () => fs.mkdtempSync(path.join(os.tmpdir(), 'adam-if-'));
const vec = (seed: number) => Float32Array.from({ length: dim }, (_, i) => Math.sin(seed * 7 + i));

/** A saved index of `n` vectors (keys 1..n) in a new directory. */
function saved(n = 100, options = {}): string {
  const dir = tmp();
  const { index } = VectorIndex.open(dir, dim, options);
  index.add(Array.from({ length: n }, (_, i) => ({ key: i + 1, vector: vec(i + 1) })));
  index.save();
  return dir;
}

const manifestOf = (dir: string) =>
  JSON.parse(fs.readFileSync(path.join(dir, 'manifest.json'), 'utf8'));

/** Records the damaged file's size and checksum in the manifest, as a careful forger would. */
function recompute(dir: string): void {
  const m = manifestOf(dir);
  for (const kind of ['usearch', 'keys'] as const) {
    const file = path.join(dir, indexFileName(m.generation, kind));
    const bytes = fs.readFileSync(file);
    m.files[kind] = {
      bytes: bytes.length,
      sha256: createHash('sha256').update(bytes).digest('hex'),
    };
  }
  fs.writeFileSync(path.join(dir, 'manifest.json'), JSON.stringify(m));
}

/** Opens a damaged index: answers the problem, after checking it was moved aside. */
function openDamaged(dir: string): string {
  const opened = VectorIndex.open(dir, dim);
  expect(opened.index.size).toBe(0);
  expect(opened.reset).toMatch(/^saved index damaged: /);
  expect(opened.damaged).not.toBeNull();
  const aside = path.join(dir, opened.damaged!.dir);
  expect(fs.readdirSync(aside).sort()).toEqual([
    'index-1.keys',
    'index-1.usearch',
    'manifest.json',
    'problem.txt',
  ]);
  expect(fs.readFileSync(path.join(aside, 'problem.txt'), 'utf8')).toContain(
    opened.damaged!.problem,
  );
  // Nothing left for the next start to meet.
  expect(fs.readdirSync(dir).filter((f) => !f.startsWith('damaged-'))).toEqual([]);
  expect(VectorIndex.open(dir, dim).reset).toBeNull();
  return opened.damaged!.problem;
}

describe('saved index checks', () => {
  it('records each file’s size and sha256 in the manifest, and accepts an intact index', () => {
    const dir = saved();
    const m = manifestOf(dir);
    for (const kind of ['usearch', 'keys']) {
      const bytes = fs.readFileSync(path.join(dir, `index-1.${kind}`));
      expect(m.files[kind]).toEqual({
        bytes: bytes.length,
        sha256: createHash('sha256').update(bytes).digest('hex'),
      });
    }
    expect(checkSaved(dir)!.keys).toHaveLength(100);
  });

  it('refuses a usearch file cut to 64 bytes without handing it to usearch', () => {
    const dir = saved();
    fs.truncateSync(path.join(dir, 'index-1.usearch'), 64);
    expect(() => checkSaved(dir)).toThrow(
      /index-1.usearch has 64 bytes, the index manifest says \d+/,
    );
    // With the manifest forged to match, the file's own layout still gives it away.
    recompute(dir);
    expect(openDamaged(dir)).toMatch(/^index-1.usearch ends at 64 bytes/);
  });

  it('refuses usearch files whose layout does not add up, as saved before checksums', () => {
    for (const damage of [
      (b: Buffer) => b.subarray(0, b.length - 1), // one byte short
      (b: Buffer) => Buffer.concat([b, Buffer.alloc(8)]), // trailing bytes
      (b: Buffer) => (b.writeUInt32LE(1_000_000, 0), b), // more rows than the file holds
      (b: Buffer) => (b.writeUInt32LE(99, 4), b), // another vector size
    ]) {
      const dir = saved();
      const file = path.join(dir, 'index-1.usearch');
      fs.writeFileSync(file, damage(fs.readFileSync(file)));
      const m = manifestOf(dir);
      delete m.files; // an index saved before issue 9
      fs.writeFileSync(path.join(dir, 'manifest.json'), JSON.stringify(m));
      expect(openDamaged(dir)).toMatch(/^index-1.usearch /);
    }
  });

  it('refuses a usearch file with bytes flipped in the middle by its checksum', () => {
    const dir = saved();
    const file = path.join(dir, 'index-1.usearch');
    const bytes = fs.readFileSync(file);
    const middle = Math.floor(bytes.length / 2);
    for (let i = middle; i < middle + 16; i++) bytes[i]! ^= 0xff;
    fs.writeFileSync(file, bytes);
    expect(openDamaged(dir)).toBe(
      'index-1.usearch does not match its sha256 checksum in the index manifest',
    );
  });

  it('refuses keys files that are random, short, miscounted or repeat a key', () => {
    const cases: [(keys: Float64Array) => Buffer, RegExp][] = [
      [(k) => randomBytes(k.byteLength), /^index-1.keys holds .*, which is not a key$/],
      [(k) => Buffer.from(k.buffer, 0, k.byteLength - 3), /not a whole number of keys/],
      [
        (k) => Buffer.from(k.buffer, 0, k.byteLength - 8),
        /holds 99 keys, the index manifest says 100/,
      ],
      [(k) => (k.fill(-1, 0, 1), Buffer.from(k.buffer)), /holds -1, which is not a key/],
      [(k) => (k.reverse(), k.fill(7, 0, 1), Buffer.from(k.buffer)), /holds key 7 twice/],
    ];
    for (const [damage, problem] of cases) {
      const dir = saved();
      const file = path.join(dir, 'index-1.keys');
      const keys = new Float64Array(new Uint8Array(fs.readFileSync(file)).buffer);
      fs.writeFileSync(file, damage(keys));
      recompute(dir);
      expect(openDamaged(dir)).toMatch(problem);
    }
  });

  it('refuses a manifest that is not JSON, and keeps only the newest two damaged copies', () => {
    const dir = tmp();
    for (let i = 0; i < 3; i++) {
      const { index } = VectorIndex.open(dir, dim);
      index.add([{ key: 1, vector: vec(1) }]);
      index.save();
      fs.writeFileSync(path.join(dir, 'manifest.json'), '{');
      const opened = VectorIndex.open(dir, dim);
      expect(opened.reset).toBe('saved index damaged: manifest.json is not valid JSON');
    }
    const kept = listDamaged(dir);
    expect(kept).toHaveLength(2);
    expect(kept[0]!.problem).toBe('manifest.json is not valid JSON');
  });
});

describe('installing a saved index', () => {
  it('puts back the old index when the change it is part of fails, and installs it otherwise', () => {
    const live = saved(10);
    const before = fs.readdirSync(live).sort();
    const liveManifest = fs.readFileSync(path.join(live, 'manifest.json'));
    const backup = saved(30);

    const failed = prepareInstall(backup, live);
    failed.commit();
    expect(manifestOf(live)).toMatchObject({ generation: 2, count: 30 });
    failed.rollback();
    expect(fs.readdirSync(live).sort()).toEqual(before);
    expect(fs.readFileSync(path.join(live, 'manifest.json'))).toEqual(liveManifest);

    const staged = saved(30);
    const ok = prepareInstall(staged, live);
    ok.commit();
    ok.cleanup();
    expect(fs.readdirSync(live).sort()).toEqual([
      'index-2.keys',
      'index-2.usearch',
      'manifest.json',
    ]);
    const opened = VectorIndex.open(live, dim);
    expect(opened.reset).toBeNull();
    expect(opened.index.size).toBe(30);
  });
});
