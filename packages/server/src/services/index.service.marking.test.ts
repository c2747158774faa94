import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { EventBus } from '../lib/event-bus.js';
import { createLogger, LogSink } from '../logging.js';
import { openDatabase, type Db } from '../store/db.js';
import { SnippetRepository } from '../store/snippet.repository.js';
import { markPaced, nextMarkSlice, type MarkResult, type MarkTask } from '../store/mark-indexed.js';
import { markIndexedTask } from '../store/mark-indexed.worker.js';
import { IndexService } from './index.service.js';

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

/** ROWS pending rows; answers their ids. */
function insertPendingRows(snippets: SnippetRepository): number[] {
  return snippets.insertMany(
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
}

/**
 * A store of ROWS pending rows, their vectors added to an index that saves only at a flush; its
 * marking runs in this thread through `markIndexed` (the worker's own function by default).
 */
async function pendingRows(
  markIndexed: (task: MarkTask) => Promise<MarkResult> = async (t) => markIndexedTask(t),
) {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'adam-marking-'));
  db = openDatabase(dir);
  const snippets = new SnippetRepository(db);
  const ids = insertPendingRows(snippets);
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
    markIndexed,
  });
  await index.ready;
  const entries = ids.map((key, i) => ({ key, vector: vectorOf(i) }));
  index.addDeferred(entries);
  await index.search(entries[0]!.vector, 1, 'probe');
  return { snippets, index, ids };
}

function vectorOf(i: number): Float32Array {
  const v = new Float32Array(DIM);
  v[i % DIM] = 1;
  v[(i * 7 + 3) % DIM] = (i % 11) / 11;
  return v;
}

const pendingOf = (ids: number[]) =>
  ids.filter(
    (id) =>
      (db!.prepare('SELECT index_pending FROM snippets WHERE id = ?').pluck().get(id) as number) ===
      1,
  );

describe('marking rows indexed after a save', () => {
  it('sizes each transaction to the pace of the last and pauses as long after it', async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'adam-marking-'));
    db = openDatabase(dir);
    const snippets = new SnippetRepository(db);
    const ids = insertPendingRows(snippets);
    // A fake clock the marking itself moves: a row costs 0.1 ms, then 0.01 ms (a warm cache).
    let now = 0;
    let perRow = 0.1;
    const calls: { rows: number; ms: number }[] = [];
    const pauses: number[] = [];
    const mark = snippets.markIndexed.bind(snippets);
    snippets.markIndexed = (slice, at, skip) => {
      const n = mark(slice, at, skip);
      const ms = slice.length * perRow;
      now += ms;
      calls.push({ rows: slice.length, ms });
      if (calls.length === 10) perRow = 0.01;
      return n;
    };

    const result = markPaced(
      snippets,
      { keys: Float64Array.from(ids), at: new Date().toISOString(), skip: null },
      { clock: () => now, pause: (ms) => pauses.push(ms) },
    );

    expect(result.marked).toBe(ROWS);
    expect(calls.reduce((n, c) => n + c.rows, 0)).toBe(ROWS);
    expect(snippets.indexCounts().pending).toBe(0);
    // After the first slice, each takes about 4 ms at the pace it found (fixed 250-row chunks
    // took 25 ms each here).
    for (const c of calls.slice(1)) expect(c.ms).toBeLessThanOrEqual(8);
    expect(Math.max(...calls.slice(1, 10).map((c) => c.rows))).toBeLessThanOrEqual(40);
    // Cheaper rows, bigger slices: not hundreds of tiny transactions.
    expect(calls.at(-2)!.rows).toBeGreaterThanOrEqual(200);
    // A pause between each two transactions (the server's writes get the lock), none after.
    expect(pauses).toHaveLength(calls.length - 1);
    expect(Math.min(...pauses)).toBeGreaterThanOrEqual(1);
  });

  it('grows at most twofold per slice and stays within its bounds', () => {
    expect(nextMarkSlice(64, 0)).toBe(128);
    expect(nextMarkSlice(64, 1)).toBe(128);
    expect(nextMarkSlice(100, 4)).toBe(100);
    expect(nextMarkSlice(100, 400)).toBe(8);
    expect(nextMarkSlice(1_500, 1)).toBe(2_000);
  });

  it('does not mark a key the index changed after its batch was sent', async () => {
    let changed: number[] = [];
    let readded = -1;
    const { snippets, index, ids } = await pendingRows(async (task) => {
      // The batch is on its way; the server's thread now removes two of its keys and adds a
      // third again with a new vector, which this save does not hold.
      if (changed.length === 0) {
        changed = [ids[5]!, ids[17]!];
        readded = ids[40]!;
        index!.removeAndSave(changed);
        index!.addDeferred([{ key: readded, vector: vectorOf(41) }]);
      }
      return markIndexedTask(task);
    });
    // The server's repository is not what marks them.
    snippets.markIndexed = () => {
      throw new Error('marked on the server thread');
    };

    await index.flush();

    expect(pendingOf([...changed, readded]).sort()).toEqual([...changed, readded].sort());
    expect(snippets.indexCounts().pending).toBe(3);
    // The re-added key is marked by the next save, which holds its new vector.
    await index.flush();
    expect(pendingOf([readded])).toEqual([]);
  });

  it('keeps the rows pending when the marking fails, and the next flush marks them', async () => {
    let fail = true;
    const { snippets, index } = await pendingRows(async (task) => {
      if (fail) throw new Error('the marking thread is gone');
      return markIndexedTask(task);
    });

    await expect(index.flush()).rejects.toThrow('the marking thread is gone');
    expect(snippets.indexCounts().pending).toBe(ROWS);
    expect(index.unsavedCount).toBe(ROWS);

    fail = false;
    await index.flush();
    expect(snippets.indexCounts().pending).toBe(0);
    expect(index.unsavedCount).toBe(0);
  });

  it('keeps its count of unsaved vectors equal to a recount through adds, removes and flushes', async () => {
    let fail = false;
    const { index, ids } = await pendingRows(async (task) => {
      if (fail) throw new Error('the marking thread is gone');
      return markIndexedTask(task);
    });
    // The kept count against one key by key, over the index in use (as before the count was kept).
    const recount = () =>
      (index as unknown as { live: { pending: { counted(): number } } }).live.pending.counted();
    let seed = 7;
    const rnd = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
    const pick = (n: number) => Array.from({ length: n }, () => ids[Math.floor(rnd() * 30)]!);
    for (let step = 0; step < 60; step++) {
      const op = Math.floor(rnd() * 4);
      if (op === 0) {
        index.addDeferred(pick(5).map((key, i) => ({ key, vector: vectorOf(i) })));
      } else if (op === 1) {
        index.removeAndSave(pick(3));
      } else {
        fail = rnd() < 0.3;
        const flushed = index.flush().catch(() => undefined);
        // Mid-flush too: the keys move from unsaved to marking while it runs.
        expect(index.unsavedCount).toBe(recount());
        await flushed;
      }
      expect(index.unsavedCount, `step ${step}`).toBe(recount());
    }
  });
});
