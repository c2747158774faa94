import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { EventBus } from '../lib/event-bus.js';
import { createLogger, LogSink } from '../logging.js';
import { openDatabase, type Db } from '../store/db.js';
import { SnippetRepository } from '../store/snippet.repository.js';
import { IndexService, nextMarkSlice } from './index.service.js';

const DIM = 16;
const ROWS = 3_000;

let db: Db | null = null;
let index: IndexService | null = null;
let dir: string | null = null;
afterEach(async () => {
  await index?.close();
  db?.close();
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
  index = null;
  db = null;
  dir = null;
});

/** A store of ROWS pending rows, their vectors added to an index that saves only at a flush. */
async function pendingRows(clock: () => number) {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'adam-marking-'));
  db = openDatabase(dir);
  const snippets = new SnippetRepository(db);
  const ids = snippets.insertMany(
    Array.from({ length: ROWS }, (_, i) => ({
      text: `row ${i}`,
      text_hash: `h${i}`,
      theme: 'general',
      quality_score: 0.5,
      language: 'en',
      word_count: 2,
      size_bytes: 8,
      source_title: null,
      source_url: null,
      job_id: null,
      metadata: '{}',
      embedding: null,
      embedder_id: null,
    })),
  ) as number[];
  index = new IndexService({
    dir: path.join(dir, 'index'),
    snippets,
    embedder: {
      id: 'test-16',
      dimension: DIM,
      embed: () => Promise.reject(new Error('the test adds its vectors itself')),
    },
    log: createLogger({ level: 'silent', sink: new LogSink(), stdout: false }),
    bus: new EventBus(),
    saveIntervalMs: 0,
    watchIntervalMs: 0,
    clock,
  });
  await index.ready;
  const entries = ids.map((key, i) => {
    const v = new Float32Array(DIM);
    v[i % DIM] = 1;
    v[(i * 7 + 3) % DIM] = (i % 11) / 11;
    return { key, vector: v };
  });
  index.addDeferred(entries);
  await index.search(entries[0]!.vector, 1, 'probe');
  return { snippets, index };
}

describe('marking rows indexed after a save', () => {
  it('sizes each transaction to the pace of the last, so no turn of the loop is held long', async () => {
    // A fake clock the marking itself moves: a row costs 0.1 ms, then 0.01 ms (a warm cache).
    let now = 0;
    let perRow = 0.1;
    const { snippets, index } = await pendingRows(() => now);
    const calls: { rows: number; ms: number }[] = [];
    const mark = snippets.markIndexed.bind(snippets);
    snippets.markIndexed = (ids, at) => {
      mark(ids, at);
      const ms = ids.length * perRow;
      now += ms;
      calls.push({ rows: ids.length, ms });
      if (calls.length === 10) perRow = 0.01;
    };

    await index.flush();

    expect(calls.reduce((n, c) => n + c.rows, 0)).toBe(ROWS);
    expect(snippets.indexCounts().pending).toBe(0);
    expect(index.unsavedCount).toBe(0);
    // After the first slice, each takes about 4 ms at the pace it found (fixed 250-row chunks
    // took 25 ms each here).
    for (const c of calls.slice(1)) expect(c.ms).toBeLessThanOrEqual(8);
    expect(Math.max(...calls.slice(1, 10).map((c) => c.rows))).toBeLessThanOrEqual(40);
    // Cheaper rows, bigger slices: not hundreds of tiny transactions.
    expect(calls.at(-2)!.rows).toBeGreaterThanOrEqual(200);
  });

  it('grows at most twofold per slice and stays within its bounds', () => {
    expect(nextMarkSlice(64, 0)).toBe(128);
    expect(nextMarkSlice(64, 1)).toBe(128);
    expect(nextMarkSlice(100, 4)).toBe(100);
    expect(nextMarkSlice(100, 400)).toBe(8);
    expect(nextMarkSlice(1_500, 1)).toBe(2_000);
  });
});
