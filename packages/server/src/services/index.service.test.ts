import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { Embedder } from '../embedding/embedder.js';
import { createLogger, LogSink } from '../logging.js';
import { EventBus } from '../lib/event-bus.js';
import { openDatabase, type Db } from '../store/db.js';
import { SnippetRepository } from '../store/snippet.repository.js';
import { IndexService, vectorToBlob } from './index.service.js';

const DIM = 32;
const ROWS = 3_000;

/** Deterministic unit vectors around a few centres. */
function vectors(n: number): Float32Array[] {
  let x = 12345;
  const r = () => {
    x = (Math.imul(x, 1103515245) + 12345) >>> 0;
    return x / 2 ** 32 - 0.5;
  };
  const centres = Array.from({ length: 8 }, () => Float32Array.from({ length: DIM }, r));
  return Array.from({ length: n }, (_, i) => {
    const c = centres[i % centres.length]!;
    const v = Float32Array.from(c, (a) => a + 0.6 * r());
    const norm = Math.hypot(...v);
    return v.map((a) => a / norm);
  });
}

const embedder: Embedder = {
  id: 'test-32',
  dimension: DIM,
  embed: () => Promise.reject(new Error('every row has its vector')),
};

let db: Db | null = null;
let index: IndexService | null = null;
afterEach(async () => {
  await index?.close();
  db?.close();
  index = null;
  db = null;
});

describe('IndexService accuracy', () => {
  it('reports the recall@10 a brute-force check finds on the same sample', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'adam-acc-'));
    db = openDatabase(dir);
    const snippets = new SnippetRepository(db);
    const vs = vectors(ROWS);
    const ids = snippets.insertMany(
      vs.map((v, i) => ({
        text: `snippet ${i}`,
        text_hash: `h${i}`,
        theme: 'general',
        quality_score: 0.5,
        language: 'en',
        word_count: 2,
        size_bytes: 10,
        source_title: null,
        source_url: null,
        job_id: null,
        metadata: '{}',
        embedding: vectorToBlob(v),
        embedder_id: embedder.id,
      })),
    ) as number[];
    index = new IndexService({
      dir: path.join(dir, 'index'),
      snippets,
      embedder,
      log: createLogger({ level: 'silent', sink: new LogSink(), stdout: false }),
      bus: new EventBus(),
    });
    expect((await index.reconcile()).reindexed).toBe(ROWS);

    const acc = await index.measureAccuracy(true);
    expect(acc!.sample).toBe(100);

    // Brute force on the same 100 queries (every 30th key): true 10 nearest by dot product
    // (unit vectors), against what the index answers.
    const byId = new Map(ids.map((id, i) => [id, vs[i]!]));
    const keys = [...ids].sort((a, b) => a - b);
    const step = Math.floor(keys.length / 100);
    let found = 0;
    for (let s = 0; s < 100; s++) {
      const q = byId.get(keys[s * step]!)!;
      const truth = keys
        .map((k) => {
          const v = byId.get(k)!;
          let d = 0;
          for (let j = 0; j < DIM; j++) d += v[j]! * q[j]!;
          return { k, d };
        })
        .sort((a, b) => b.d - a.d)
        .slice(0, 10)
        .map((t) => t.k);
      const { hits } = await index.search(q, 10, `q${s}`);
      found += hits.filter((h) => truth.includes(h.key)).length;
    }
    const brute = found / 1000;
    // Passing usearch.exactSearch a subarray (it reads from the buffer's start) made every
    // query's truth another row's neighbours: the figure fell to ~0 while the recall is high.
    expect(brute).toBeGreaterThan(0.9);
    expect(acc!.value).toBeCloseTo(brute, 6);
    expect(await index.stats()).toMatchObject({
      accuracy: Math.round(brute * 1e4) / 1e4,
      accuracy_sample: 100,
    });
  }, 120_000);
});
