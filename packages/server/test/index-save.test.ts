import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { NewSnippet, SnippetRepository } from '../src/store/snippet.repository.js';
import { VectorIndex } from '../src/vector/vector-index.js';
import { startServer, type TestServer } from './helpers.js';

const VECTORS = 10_000;
const DIM = 384;

let s: TestServer;
beforeAll(async () => {
  s = await startServer();
  await s.adam.reconciled;
}, 120_000);
afterAll(async () => {
  await s.close();
}, 120_000);

describe('index save', () => {
  it('answers /health while a large index is being saved', async () => {
    const index = s.adam.services.index;
    let x = 7;
    const r = () => {
      x = (Math.imul(x, 1103515245) + 12345) >>> 0;
      return x / 2 ** 32 - 0.5;
    };
    const entries = Array.from({ length: VECTORS }, (_, i) => ({
      key: 1_000_000 + i,
      vector: Float32Array.from({ length: DIM }, r),
    }));
    index.addDeferred(entries);
    // A search is answered after the adds before it: the graph is built, only the save is left.
    await index.search(entries[0]!.vector, 1, 'probe');

    const order: string[] = [];
    const saved = index.flush().then(() => order.push('saved'));
    const health = s.api('/api/v1/health').then((res) => {
      order.push('health');
      return res;
    });
    const [res] = await Promise.all([health, saved]);
    expect(res.status).toBe(200);
    // With the save on the event loop, no request could be answered before it finished.
    expect(order).toEqual(['health', 'saved']);
    // And the save holds them all.
    const onDisk = VectorIndex.readSaved(path.join(s.dataDir, 'index'));
    expect(onDisk!.manifest.count).toBe(VECTORS);
  }, 180_000);

  it('marks the saved rows indexed on a thread of its own, not on the event loop', async () => {
    // A server of its own: the other test's vectors have no rows, which a repair removes.
    const own = await startServer();
    await own.adam.reconciled;
    const index = own.adam.services.index;
    // The server's repository: marking through it would run on the event loop.
    const repo = (index as unknown as { deps: { snippets: SnippetRepository } }).deps.snippets;
    const rows = 5_000;
    const ids = repo.insertMany(
      Array.from({ length: rows }, (_, i) => ({
        text: `row ${i} of the marking test`,
        text_hash: `mark-${i}`,
        theme: 'technology',
        quality_score: 0.5,
        language: 'en',
        word_count: 6,
        size_bytes: 30,
        source_title: 'test',
        source_url: null,
        job_id: null,
        metadata: '{}',
        embedding: null,
        embedder_id: null,
      })) as unknown as NewSnippet[],
    ) as number[];
    const entries = ids.map((key, i) => {
      const v = new Float32Array(DIM);
      v[i % DIM] = 1;
      v[(i * 7 + 3) % DIM] = (i % 13) / 13;
      return { key, vector: v };
    });
    const original = repo.markIndexed.bind(repo);
    index.addDeferred(entries);
    await index.search(entries[0]!.vector, 1, 'probe-marks');
    let onLoop = 0;
    repo.markIndexed = (slice, at, skip) => {
      onLoop += slice.length;
      return original(slice, at, skip);
    };
    try {
      await index.flush();
      expect(onLoop).toBe(0);
      expect(repo.indexCounts().pending).toBe(0);
      expect(index.unsavedCount).toBe(0);
      // The server's own writes went on meanwhile and after (its connection was never locked out).
      const health = await own.api('/api/v1/health');
      expect(health.status).toBe(200);
    } finally {
      repo.markIndexed = original;
      await own.close();
    }
  }, 180_000);
});
