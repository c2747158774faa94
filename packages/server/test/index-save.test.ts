import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
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
});
