import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { once } from 'node:events';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { until } from '../../test/until.js';
import { openDatabase, type Db } from '../store/db.js';
import { exportOnThread, type ExportThreadStats } from './snippet-export.js';
import { EXPORT_CHUNK_BYTES } from './snippet-export.worker.js';

/** Rows of ~1 KB: a CSV of ~5 MB, about twenty chunks. */
const ROWS = 5_000;

let dir: string;
let db: Db;

beforeAll(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'adam-export-thread-'));
  db = openDatabase(dir);
  db.prepare(
    `WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < ?)
     INSERT INTO snippets (text, text_hash, theme, quality_score, language, word_count,
       size_bytes, source_title, source_url, job_id, metadata, index_pending, created_at, updated_at)
     SELECT 'Row ' || i || ' ' || hex(zeroblob(500)), 'h-' || i, 'science', 0.5, 'en', 3, 1000,
       NULL, NULL, NULL, '{}', 1, '2026-11-26T10:00:00.000Z', '2026-11-26T10:00:00.000Z'
     FROM n`,
  ).run(ROWS);
});
afterAll(() => {
  db.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

/** The nice value of each thread of this process (Linux: /proc/self/task/<tid>/stat, field 19). */
function threadNiceValues(): number[] {
  return fs.readdirSync('/proc/self/task').map((tid) => {
    const stat = fs.readFileSync(`/proc/self/task/${tid}/stat`, 'utf8');
    // Fields after the command name (which may hold spaces), counted from field 3.
    return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[16]);
  });
}

function start(over: { ids?: number[]; dbFile?: string } = {}) {
  const stats: ExportThreadStats = { threads: 0, rowsRead: 0, chunksAsked: 0 };
  const ended = { count: 0 };
  const file = exportOnThread({
    dbFile: over.dbFile ?? db.name,
    ids: over.ids,
    embeddings: false,
    format: 'csv',
    now: new Date('2026-11-26T12:00:00.000Z'),
    stats,
    onEnd: () => ended.count++,
  });
  return { file, stats, ended };
}

describe('an export on its own thread', () => {
  it('reads every row on the thread and ends it with the file', async () => {
    const { file, stats, ended } = start();
    const { stream, filename } = await file;
    expect(filename).toBe('snippets-2026-11-26-12-00-00.csv');
    let lines = 0;
    for await (const chunk of stream as AsyncIterable<Buffer>) {
      for (const byte of chunk) if (byte === 10) lines++;
    }
    expect(lines).toBe(ROWS + 1);
    expect(stats.rowsRead).toBe(ROWS);
    expect(ended.count).toBe(1);
    await until(() => stats.threads === 0, { what: 'the thread to end' });
  });

  it('stops reading while its reader does not read, and ends the thread when left', async () => {
    const { file, stats, ended } = start();
    const { stream } = await file;
    await new Promise((resolve) => stream.once('data', resolve));
    stream.pause();
    // Nothing asked of the thread any more: what it read is what the paused reader holds.
    await until(() => stats.chunksAsked === 0, { what: 'the thread to stop being asked' });
    const rowsHeld = stats.rowsRead;
    // The chunk taken, one pushed and one read ahead: ~1 KB a row.
    expect(rowsHeld).toBeLessThanOrEqual((3 * EXPORT_CHUNK_BYTES) / 1000);
    expect(rowsHeld).toBeLessThan(ROWS / 4);
    expect(stats.threads).toBe(1);
    expect(ended.count).toBe(0);
    // On Linux the export's thread runs below the server's priority (a thread's own nice value).
    if (process.platform === 'linux') expect(threadNiceValues()).toContain(10);

    stream.destroy();
    await once(stream, 'close');
    expect(ended.count).toBe(1);
    await until(() => stats.threads === 0, { what: 'the left export’s thread to end' });
    expect(stats.rowsRead).toBe(rowsHeld);
    expect(stats.chunksAsked).toBe(0);
  });

  it('refuses unknown ids before the first byte and ends the thread', async () => {
    const { file, stats, ended } = start({ ids: [3, ROWS + 1, 1, ROWS + 7] });
    await expect(file).rejects.toThrow(`${ROWS + 1}, ${ROWS + 7}`);
    expect(ended.count).toBe(1);
    await until(() => stats.threads === 0, { what: 'the thread to end' });
    expect(stats.rowsRead).toBe(0);
  });

  it('answers the failure when the store cannot be opened, and ends the thread', async () => {
    const { file, stats, ended } = start({ dbFile: path.join(dir, 'missing.db') });
    await expect(file).rejects.toThrow();
    expect(ended.count).toBe(1);
    await until(() => stats.threads === 0, { what: 'the thread to end' });
  });
});
