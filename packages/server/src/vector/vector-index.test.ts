import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { VectorIndex } from './vector-index.js';
import {
  SPARSE_GRAPH_DIM,
  SPARSE_GRAPH_OPTIONS,
  sparseGraphQueries,
  sparseGraphRows,
} from './__fixtures__/sparse-graph.js';

const dim = 8;
function vec(seed: number): Float32Array {
  const v = new Float32Array(dim);
  let x = seed * 9301 + 49297;
  for (let i = 0; i < dim; i++) {
    x = (x * 9301 + 49297) % 233280;
    v[i] = x / 233280 - 0.5;
  }
  const n = Math.hypot(...v);
  return v.map((a) => a / n);
}
const tmp = () => fs.mkdtempSync(path.join(os.tmpdir(), 'adam-vi-'));

describe('VectorIndex', () => {
  it('finds a stored vector first, with similarity 1', () => {
    const { index } = VectorIndex.open(tmp(), dim);
    index.add(Array.from({ length: 50 }, (_, i) => ({ key: i + 1, vector: vec(i + 1) })));
    const hits = index.search(vec(7), 3);
    expect(hits[0]!.key).toBe(7);
    expect(hits[0]!.similarity).toBeCloseTo(1, 5);
    expect(hits).toHaveLength(3);
    expect(hits[1]!.similarity).toBeLessThanOrEqual(hits[0]!.similarity);
  });

  it('applies a filter by fetching more candidates', () => {
    const { index } = VectorIndex.open(tmp(), dim);
    index.add(Array.from({ length: 200 }, (_, i) => ({ key: i + 1, vector: vec(i + 1) })));
    const hits = index.search(vec(3), 5, (k) => k % 50 === 0);
    expect(hits.map((h) => h.key).sort((a, b) => a - b)).toEqual([50, 100, 150, 200]);
  });

  it('walks wider when asked a breadth, answering only the top k', () => {
    const { index } = VectorIndex.open(tmp(), SPARSE_GRAPH_DIM, SPARSE_GRAPH_OPTIONS);
    index.add(sparseGraphRows);
    let narrow = 0;
    let wide = 0;
    for (const { vector, exact } of sparseGraphQueries) {
      const broad = index.search(vector, 10, undefined, 1500);
      expect(broad).toHaveLength(10);
      for (let i = 1; i < broad.length; i++)
        expect(broad[i]!.similarity).toBeLessThanOrEqual(broad[i - 1]!.similarity);
      narrow += index.search(vector, 10).filter((h) => exact.has(h.key)).length;
      wide += broad.filter((h) => exact.has(h.key)).length;
    }
    // The graph is built on several threads, so it differs from run to run: ~80 of 300 narrow,
    // 296–300 wide over runs.
    expect(wide).toBeGreaterThanOrEqual(0.95 * 10 * sparseGraphQueries.length);
    expect(narrow).toBeLessThan(wide / 2);
  });

  it('removes keys and replaces a vector added twice', () => {
    const { index } = VectorIndex.open(tmp(), dim);
    index.add([
      { key: 1, vector: vec(1) },
      { key: 2, vector: vec(2) },
    ]);
    expect(index.remove([2, 99])).toEqual([2]);
    expect(index.has(2)).toBe(false);
    index.add([{ key: 1, vector: vec(5) }]);
    expect(index.size).toBe(1);
    expect(index.search(vec(5), 1)[0]!.similarity).toBeCloseTo(1, 5);
  });

  it('saves and reloads the same keys and answers', () => {
    const dir = tmp();
    const { index } = VectorIndex.open(dir, dim);
    index.add(Array.from({ length: 30 }, (_, i) => ({ key: 1000 + i, vector: vec(i) })));
    index.save();
    index.remove([1000]);
    index.save();
    const again = VectorIndex.open(dir, dim);
    expect(again.reset).toBeNull();
    expect(again.index.size).toBe(29);
    expect(again.index.has(1000)).toBe(false);
    expect(again.index.search(vec(4), 1)[0]!.key).toBe(1004);
    // Only the current generation stays on disk.
    expect(fs.readdirSync(dir).sort()).toEqual([
      'index-2.keys',
      'index-2.usearch',
      'manifest.json',
    ]);
  });

  it('asks for a rebuild when the dimension changed or the files are damaged', () => {
    const dir = tmp();
    const { index } = VectorIndex.open(dir, dim);
    index.add([{ key: 1, vector: vec(1) }]);
    index.save();
    expect(VectorIndex.open(dir, 16).reset).toMatch(/dimension changed from 8 to 16/);
    fs.writeFileSync(path.join(dir, 'index-1.keys'), 'xyz');
    const broken = VectorIndex.open(dir, dim);
    expect(broken.reset).toMatch(/damaged: index-1.keys has 3 bytes, the index manifest says 8/);
    expect(broken.index.size).toBe(0);
  });

  it('keeps the previous generation when a save is interrupted before the manifest swap', () => {
    const dir = tmp();
    const { index } = VectorIndex.open(dir, dim);
    index.add([{ key: 1, vector: vec(1) }]);
    index.save();
    // A crash that left a half-written next generation behind:
    fs.writeFileSync(path.join(dir, 'index-2.usearch'), 'partial');
    const again = VectorIndex.open(dir, dim);
    expect(again.reset).toBeNull();
    expect(again.index.has(1)).toBe(true);
  });

  it('maps the saved index for searches and loads it at the first change', () => {
    const dir = tmp();
    const first = VectorIndex.open(dir, dim).index;
    first.add(Array.from({ length: 100 }, (_, i) => ({ key: i + 1, vector: vec(i + 1) })));
    first.save();
    const { index } = VectorIndex.open(dir, dim);
    expect(index.search(vec(42), 1)[0]!.key).toBe(42);
    // A change to the mapped (read-only) index: loaded first, then changed, old keys kept.
    index.add([{ key: 500, vector: vec(500) }]);
    expect(index.remove([3])).toEqual([3]);
    expect(index.size).toBe(100);
    expect(index.search(vec(500), 1)[0]!.key).toBe(500);
    expect(index.search(vec(42), 1)[0]!.key).toBe(42);
    expect(index.search(vec(3), 1)[0]!.key).not.toBe(3);
    index.save();
    const again = VectorIndex.open(dir, dim).index;
    expect(again.size).toBe(100);
    expect(again.has(3)).toBe(false);
    expect(again.search(vec(500), 1)[0]!.key).toBe(500);
  });

  it('refuses a vector of the wrong dimension', () => {
    const { index } = VectorIndex.open(tmp(), dim);
    expect(() => index.add([{ key: 1, vector: new Float32Array(3) }])).toThrow(/3 dimensions/);
  });
});
