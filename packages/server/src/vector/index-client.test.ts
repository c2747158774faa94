import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { IndexClient } from './index-client.js';
import { readIndexManifest } from './index-files.js';
import { VectorIndex } from './vector-index.js';
import {
  SPARSE_GRAPH_DIM,
  SPARSE_GRAPH_OPTIONS,
  sparseGraphQueries,
  sparseGraphRows,
} from './__fixtures__/sparse-graph.js';

const dirs: string[] = [];
const clients: IndexClient[] = [];
afterEach(async () => {
  for (const c of clients.splice(0)) await c.close();
  for (const d of dirs.splice(0)) fs.rmSync(d, { recursive: true, force: true });
});

const DIM = 8;
const vectors = (n: number, seed: number) =>
  Array.from({ length: n }, (_, i) => ({
    key: i + 1,
    vector: Float32Array.from({ length: DIM }, (_, d) => Math.sin(seed + i * DIM + d + 1)),
  }));

describe('IndexClient', () => {
  it('runs its calls on the thread in the order sent, while the thread is busy with others', async () => {
    // A saved index of many rows: after the load, the thread reads them into its columns a step
    // per call, so calls sent meanwhile queue behind busy ones. A save sent after the adds must
    // hold them (piscina's default queue put a task it could not hand out at its tail).
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'adam-client-'));
    dirs.push(dir);
    const { index } = VectorIndex.open(dir, DIM);
    index.add(vectors(20_000, 1));
    index.save();
    for (let round = 0; round < 3; round++) {
      const client = new IndexClient(dir, DIM);
      clients.push(client);
      await client.ready;
      const sent: Promise<unknown>[] = [];
      for (let i = 0; i < 20; i++) {
        sent.push(client.clear());
        sent.push(client.add(vectors(50 + i, round)));
        sent.push(client.save());
      }
      await Promise.all(sent);
      expect(readIndexManifest(dir)).toMatchObject({ count: 69 });
      await client.close();
    }
  });

  it("passes a search's breadth to the index's thread", async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'adam-client-'));
    dirs.push(dir);
    const client = new IndexClient(dir, SPARSE_GRAPH_DIM, SPARSE_GRAPH_OPTIONS);
    clients.push(client);
    await client.ready;
    await client.add(sparseGraphRows);
    let narrow = 0;
    let wide = 0;
    for (const { vector, exact } of sparseGraphQueries) {
      const broad = await client.search(vector, 10, undefined, 1500);
      expect(broad).toHaveLength(10);
      narrow += (await client.search(vector, 10)).filter((h) => exact.has(h.key)).length;
      wide += broad.filter((h) => exact.has(h.key)).length;
    }
    // The graph is built on several threads, so it differs from run to run: ~80 of 300 narrow,
    // 296–300 wide over runs.
    expect(wide).toBeGreaterThanOrEqual(0.95 * 10 * sparseGraphQueries.length);
    expect(narrow).toBeLessThan(wide / 2);
  });
});
