import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { IndexStorage } from '@adam/contracts';
import run from './index-worker.js';
import { SavedVectorReader } from './saved-vectors.js';
import {
  isSparseQuery,
  nonZeroDimensions,
  VectorColumns,
  type ColumnHits,
} from './vector-columns.js';
import { VectorIndex } from './vector-index.js';

/** A seeded generator (mulberry32): the same vectors on every run. */
function rng(seed: number) {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function unitVectors(n: number, dim: number, seed: number): Float32Array {
  const rand = rng(seed);
  const flat = new Float32Array(n * dim);
  for (let i = 0; i < n; i++) {
    let norm = 0;
    for (let d = 0; d < dim; d++) {
      const x = rand() * 2 - 1;
      flat[i * dim + d] = x;
      norm += x * x;
    }
    for (let d = 0; d < dim; d++) flat[i * dim + d]! /= Math.sqrt(norm);
  }
  return flat;
}

/** A unit query with `nnz` non-zero dimensions. */
function sparseQuery(dim: number, nnz: number, seed: number): Float32Array {
  const rand = rng(seed);
  const q = new Float32Array(dim);
  while (nonZeroDimensions(q).length < nnz) q[Math.floor(rand() * dim)] = rand() * 2 - 1;
  const norm = Math.hypot(...q);
  return q.map((x) => x / norm);
}

/** Every key's exact dot product with the query, best first. */
function exactOrder(keys: ArrayLike<number>, flat: Float32Array, q: Float32Array) {
  const dim = q.length;
  return Array.from(keys, (key, i) => {
    let s = 0;
    for (let d = 0; d < dim; d++) s += q[d]! * flat[i * dim + d]!;
    return { key, score: s };
  }).sort((a, b) => b.score - a.score || a.key - b.key);
}

describe('VectorColumns', () => {
  it('tells sparse queries from dense ones: at most an eighth of the dimensions non-zero', () => {
    expect(isSparseQuery(sparseQuery(384, 9, 1))).toBe(true);
    expect(isSparseQuery(sparseQuery(384, 48, 2))).toBe(true);
    expect(isSparseQuery(sparseQuery(384, 49, 3))).toBe(false);
    expect(isSparseQuery(unitVectors(1, 384, 4))).toBe(false);
    expect(isSparseQuery(new Float32Array(384))).toBe(false);
  });

  it("answers a sparse query's exact best rows, scored within the columns' rounding", () => {
    const dim = 64;
    const n = 3_000;
    const flat = unitVectors(n, dim, 7);
    const keys = Array.from({ length: n }, (_, i) => 10 * i + 3);
    const columns = new VectorColumns(dim);
    columns.add(keys, flat);
    expect(columns.size).toBe(n);
    for (const seed of [11, 12, 13]) {
      const q = sparseQuery(dim, 6, seed);
      const exact = exactOrder(keys, flat, q);
      const hits = columns.scan(q, 30);
      expect(hits.keys).toHaveLength(30);
      // Best first, each score the exact one but for rounding (half a step a component).
      const byKey = new Map(exact.map((e) => [e.key, e.score]));
      for (let i = 0; i < hits.keys.length; i++) {
        expect(Math.abs(hits.scores[i]! - byKey.get(hits.keys[i]!)!)).toBeLessThan(6 / 254);
        if (i > 0) expect(hits.scores[i]!).toBeLessThanOrEqual(hits.scores[i - 1]!);
      }
      const found = new Set(hits.keys);
      for (const e of exact.slice(0, 10)) expect(found.has(e.key)).toBe(true);
    }
  });

  it('replaces a key in place, reuses removed slots, and forgets everything on clear', () => {
    const dim = 8;
    const columns = new VectorColumns(dim);
    const e = (d: number, x = 1) => {
      const v = new Float32Array(dim);
      v[d] = x;
      return v;
    };
    columns.add([1, 2, 3], Float32Array.from([...e(0), ...e(1), ...e(2)]));
    const q = e(1);
    expect(Array.from(columns.scan(q, 1).keys)).toEqual([2]);
    // Key 2 now points elsewhere; key 3 takes dimension 1.
    columns.add([2, 3], Float32Array.from([...e(5), ...e(1)]));
    expect(Array.from(columns.scan(q, 1).keys)).toEqual([3]);
    expect(columns.size).toBe(3);
    columns.remove([3, 99]);
    expect(columns.has(3)).toBe(false);
    const left = columns.scan(q, 10);
    expect(Array.from(left.keys).sort()).toEqual([1, 2]);
    expect(Array.from(left.scores)).toEqual([0, 0]);
    // The freed slot is taken again, with the new key's values only.
    columns.add([4], e(1, -1));
    const again = columns.scan(e(1, -1), 10);
    expect(Array.from(again.keys)).toEqual([4, 1, 2]);
    expect(again.scores[0]).toBeCloseTo(1, 2);
    columns.clear();
    expect(columns.size).toBe(0);
    expect(columns.scan(q, 10).keys).toHaveLength(0);
  });

  it('grows past one block of rows and scans them all', () => {
    const dim = 4;
    const n = 70_000;
    const columns = new VectorColumns(dim);
    const flat = new Float32Array(n * dim);
    for (let i = 0; i < n; i++) flat[i * dim + (i % dim)] = (i % 1_000) / 1_000;
    columns.add(
      Array.from({ length: n }, (_, i) => i + 1),
      flat,
    );
    const q = Float32Array.from([0, 0, 0, 1]);
    const hits = columns.scan(q, 5);
    // Rows i ≡ 3 (mod 4) with i % 1000 = 999 score highest; the first is key 1000, the last
    // ones lie in the second block.
    expect(Array.from(hits.keys)).toEqual([1000, 2000, 3000, 4000, 5000]);
    const last = columns.scan(q, 1_000).keys;
    expect(Math.max(...last)).toBeGreaterThan(65_536);
  });
});

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) fs.rmSync(d, { recursive: true, force: true });
});

/** A saved index of `n` keys (some removed, some replaced after a first save), its live vectors. */
function savedIndex(storage: IndexStorage, dim: number, n = 300) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'adam-columns-'));
  dirs.push(dir);
  const { index } = VectorIndex.open(dir, dim, { quantization: storage });
  const flat = unitVectors(n, dim, 21);
  const live = new Map<number, Float32Array>();
  const keys = Float64Array.from({ length: n }, (_, i) => i + 1);
  index.addFlat(keys, flat);
  keys.forEach((k, i) => live.set(k, flat.slice(i * dim, (i + 1) * dim)));
  index.save();
  const removed = [5, 6, 7, 50, 299];
  index.remove(removed);
  for (const k of removed) live.delete(k);
  const replaced = Float64Array.from([10, 11, 12]);
  const again = unitVectors(3, dim, 22);
  index.addFlat(replaced, again);
  replaced.forEach((k, i) => live.set(k, again.slice(i * dim, (i + 1) * dim)));
  index.save();
  return { dir, live };
}

const TOLERANCE: Record<IndexStorage, number> = { f32: 1e-6, f16: 1e-3, bf16: 8e-3, i8: 1 / 127 };

describe('SavedVectorReader', () => {
  for (const storage of ['f32', 'f16', 'bf16', 'i8'] as const) {
    it(`reads every live row of a saved ${storage} index, a step at a time`, () => {
      const dim = 16;
      const { dir, live } = savedIndex(storage, dim);
      const file = VectorIndex.open(dir, dim, { quantization: storage }).index.viewedFile();
      expect(file).not.toBeNull();
      const reader = new SavedVectorReader(file!, storage, dim);
      const read = new Map<number, number[]>();
      let steps = 0;
      for (;;) {
        const { done, keys, flat } = reader.step(64);
        keys.forEach((key, i) => read.set(key, Array.from(flat.subarray(i * dim, (i + 1) * dim))));
        steps++;
        if (done) break;
      }
      expect(steps).toBeGreaterThanOrEqual(4);
      expect([...read.keys()].sort((a, b) => a - b)).toEqual(
        [...live.keys()].sort((a, b) => a - b),
      );
      for (const [key, v] of live)
        for (let d = 0; d < dim; d++)
          expect(Math.abs(read.get(key)![d]! - v[d]!)).toBeLessThanOrEqual(TOLERANCE[storage]);
    });
  }

  it('refuses a file whose vectors are not of the dimension asked', () => {
    const { dir } = savedIndex('f32', 16);
    const file = VectorIndex.open(dir, 16).index.viewedFile()!;
    expect(() => new SavedVectorReader(file, 'f32', 8)).toThrow(/bytes a vector/);
  });
});

describe("the index thread's columns", () => {
  it("answer null until a loaded index's rows are read, then every live row, changes since included", () => {
    const dim = 16;
    const { dir, live } = savedIndex('f16', dim);
    expect(
      run({ op: 'open', dir, dimension: dim, options: { quantization: 'f16' } }),
    ).toMatchObject({ reset: null });
    const q = sparseQuery(dim, 2, 31);
    const scan = () => run({ op: 'scanColumns', vector: q, want: 1_000 }) as ColumnHits | null;
    expect(scan()).toBeNull();
    // While the file is being read: one key removed, one added, one replaced.
    run({ op: 'remove', keys: [1] });
    const added = unitVectors(2, dim, 32);
    run({ op: 'add', keys: Float64Array.from([1_000, 2]), flat: added });
    live.delete(1);
    live.set(1_000, added.slice(0, dim));
    live.set(2, added.slice(dim));
    while (run({ op: 'fillColumns' }) !== true);
    const hits = scan()!;
    expect(hits).not.toBeNull();
    expect([...hits.keys].sort((a, b) => a - b)).toEqual([...live.keys()].sort((a, b) => a - b));
    const score = new Map([...hits.keys].map((k, i) => [k, hits.scores[i]!]));
    for (const key of [2, 1_000]) {
      const v = live.get(key)!;
      expect(score.get(key)).toBeCloseTo(
        v.reduce((s, x, d) => s + x * q[d]!, 0),
        1,
      );
    }
    // A clear empties them, and they answer at once (no file to read).
    run({ op: 'clear' });
    expect(scan()!.keys).toHaveLength(0);
  });

  it('walk the graph towards a row of each step while the file is mapped, not once a change loaded it', () => {
    const dim = 16;
    const { dir, live } = savedIndex('f32', dim, 2_500);
    const walks = vi.spyOn(VectorIndex.prototype, 'searchRaw');
    try {
      run({ op: 'open', dir, dimension: dim, options: { quantization: 'f32' } });
      while (run({ op: 'fillColumns' }) !== true);
      // 2,500 rows, 1,024 a step: three steps, each a walk towards its first row, top 1.
      expect(walks).toHaveBeenCalledTimes(3);
      for (const [vector, want] of walks.mock.calls) {
        expect(want).toBe(1);
        expect(vector).toHaveLength(dim);
      }
      expect(Array.from(walks.mock.calls[0]![0])).toEqual(Array.from(live.get(1)!));
      // A change loads the file into memory: nothing of it is mapped any more, no walk.
      walks.mockClear();
      run({ op: 'open', dir, dimension: dim, options: { quantization: 'f32' } });
      run({ op: 'add', keys: Float64Array.from([9_999]), flat: unitVectors(1, dim, 40) });
      while (run({ op: 'fillColumns' }) !== true);
      expect(walks).not.toHaveBeenCalled();
    } finally {
      walks.mockRestore();
    }
  });
});
