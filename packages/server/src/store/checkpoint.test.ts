import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { BACKGROUND_THREAD_NICE } from '../lib/thread-priority.js';
import { checkpointStatsOf, openDatabase, type Db } from './db.js';
import type { Migration } from './migrations/index.js';

const schema: Migration[] = [
  { id: 1, name: 'rows', sql: 'CREATE TABLE rows (id INTEGER PRIMARY KEY, body BLOB NOT NULL)' },
];

interface CheckpointRow {
  busy: number;
  log: number;
  checkpointed: number;
}

// vi.waitFor gives up after 1 s by default: a loaded machine takes longer than that to start the
// checkpoint thread. The bound is a hang detector; the wait ends when the condition holds.
const WAIT = { interval: 5, timeout: 60_000 };

let dirs: string[] = [];
let open: Db[] = [];

function fresh(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'adam-checkpoint-'));
  dirs.push(dir);
  return dir;
}

afterEach(() => {
  for (const db of open) if (db.open) db.close();
  for (const dir of dirs) fs.rmSync(dir, { recursive: true, force: true });
  open = [];
  dirs = [];
});

/** The rows the database file alone holds: a copy without its -wal sees only what was checkpointed. */
function rowsInMainFile(dir: string): number {
  const copyDir = fresh();
  fs.copyFileSync(path.join(dir, 'adam.db'), path.join(copyDir, 'adam.db'));
  const copy = new Database(path.join(copyDir, 'adam.db'), { readonly: true });
  try {
    return copy.prepare('SELECT COUNT(*) FROM rows').pluck().get() as number;
  } finally {
    copy.close();
  }
}

describe('WAL checkpoints off the main thread', () => {
  it('turns the automatic checkpoint off and lets the worker copy the WAL into the database', async () => {
    const dir = fresh();
    const db = openDatabase(dir, schema, {
      checkpointOffThread: { intervalMs: 20, minWalBytes: 0 },
    });
    open.push(db);
    expect(db.pragma('wal_autocheckpoint', { simple: true })).toBe(0);

    const insert = db.prepare('INSERT INTO rows (body) VALUES (?)');
    // 400 small transactions, well under the 1,000 pages an automatic checkpoint waits for.
    for (let i = 0; i < 400; i++) insert.run(Buffer.alloc(1024, i % 256));
    const before = checkpointStatsOf(db)!.runs;

    await vi.waitFor(
      () => {
        const stats = checkpointStatsOf(db)!;
        expect(stats.runs).toBeGreaterThan(before);
        expect(stats.last!.busy).toBe(0);
        expect(stats.last!.log).toBeGreaterThan(0);
        expect(stats.last!.checkpointed).toBe(stats.last!.log);
      },
      { ...WAIT, interval: 20 },
    );
    // Every row reached the database file itself, without any checkpoint on this connection.
    expect(rowsInMainFile(dir)).toBe(400);
  });

  it('truncates the WAL at close', () => {
    const dir = fresh();
    const db = openDatabase(dir, schema, { checkpointOffThread: { intervalMs: 60_000 } });
    // A second connection keeps the WAL file from being deleted when the first closes.
    const other = new Database(path.join(dir, 'adam.db'));
    open.push(other);
    other.prepare('SELECT COUNT(*) FROM rows').get();
    for (let i = 0; i < 50; i++)
      db.prepare('INSERT INTO rows (body) VALUES (?)').run(Buffer.alloc(1024));
    expect(fs.statSync(path.join(dir, 'adam.db-wal')).size).toBeGreaterThan(0);
    db.close();
    expect(fs.statSync(path.join(dir, 'adam.db-wal')).size).toBe(0);
    expect(rowsInMainFile(dir)).toBe(50);
  });

  it('never takes the writer lock or starts the WAL over under a transaction that has read', async () => {
    // A server transaction reads, then writes. A RESTART/TRUNCATE on the thread's connection in
    // between reset the WAL header, and the write failed at once with SQLITE_BUSY_SNAPSHOT
    // ("database is locked", no busy_timeout applies to a transaction that already read).
    const dir = fresh();
    const db = openDatabase(dir, schema, {
      checkpointOffThread: { intervalMs: 5, minWalBytes: 0 },
    });
    open.push(db);
    const insert = db.prepare('INSERT INTO rows (body) VALUES (?)');
    const count = db.prepare('SELECT COUNT(*) FROM rows').pluck();
    const stats = checkpointStatsOf(db)!;
    for (let i = 0; i < 100; i++) insert.run(Buffer.alloc(1024));
    // All in one turn of the loop (no tick starts meanwhile): every frame copied by this
    // connection, so the read below needs nothing from the WAL, which the thread could then reset.
    let read: number | null = null;
    while (read === null) {
      insert.run(Buffer.alloc(1024));
      const [own] = db.pragma('wal_checkpoint(PASSIVE)') as CheckpointRow[];
      if (own!.busy === 0 && own!.checkpointed === own!.log) {
        db.exec('BEGIN');
        read = count.get() as number;
      } else {
        // the thread held the checkpoint lock: try again after its tick
        const ticks = stats.ticks;
        await vi.waitFor(() => expect(stats.ticks).toBeGreaterThan(ticks), WAIT);
      }
    }
    const ticks = stats.ticks;
    // Two ticks finished: at least one started while the transaction was open.
    await vi.waitFor(() => expect(stats.ticks).toBeGreaterThanOrEqual(ticks + 2), WAIT);
    expect(() => insert.run(Buffer.alloc(1024))).not.toThrow();
    db.exec('COMMIT');
    expect(count.get()).toBe(read + 1);
    expect(stats.lastError).toBeNull();
  });

  it('keeps the -wal file within its limit once the WAL starts over', async () => {
    const dir = fresh();
    const limit = 64 * 1024;
    const db = openDatabase(dir, schema, {
      checkpointOffThread: { intervalMs: 5, minWalBytes: 0, walLimitBytes: limit },
    });
    open.push(db);
    const insert = db.prepare('INSERT INTO rows (body) VALUES (?)');
    db.transaction(() => {
      for (let i = 0; i < 1000; i++) insert.run(Buffer.alloc(2048));
    })();
    const wal = path.join(dir, 'adam.db-wal');
    expect(fs.statSync(wal).size).toBeGreaterThan(2_000_000);
    const stats = checkpointStatsOf(db)!;
    await vi.waitFor(() => {
      expect(stats.last!.log).toBeGreaterThan(0);
      expect(stats.last!.checkpointed).toBe(stats.last!.log);
    }, WAIT);
    // The next commit writes from the start of the WAL and cuts the file back to the limit.
    insert.run(Buffer.alloc(16));
    expect(fs.statSync(wal).size).toBeLessThanOrEqual(limit);
    expect(rowsInMainFile(dir)).toBe(1000);
  });

  // At nice 10 or more already, a thread cannot be seen lowered below the process.
  it.skipIf(process.platform !== 'linux' || os.getPriority() >= BACKGROUND_THREAD_NICE)(
    'copies at a lower priority than the server thread, which keeps its own',
    async () => {
      const nice = (task: string) =>
        Number(
          fs.readFileSync(`/proc/self/task/${task}/stat`, 'utf8').split(') ')[1]!.split(' ')[16],
        );
      const mainNice = nice(String(process.pid));
      const threadsBefore = new Set(fs.readdirSync('/proc/self/task'));
      const dir = fresh();
      const db = openDatabase(dir, schema, {
        checkpointOffThread: { intervalMs: 20, minWalBytes: 0 },
      });
      open.push(db);
      db.prepare('INSERT INTO rows (body) VALUES (?)').run(Buffer.alloc(1024));
      const before = checkpointStatsOf(db)!.runs;
      await vi.waitFor(() => expect(checkpointStatsOf(db)!.runs).toBeGreaterThan(before), WAIT);
      // The checkpoint's thread is one of the threads started since; it alone was lowered.
      const lowered = fs
        .readdirSync('/proc/self/task')
        .filter((t) => !threadsBefore.has(t))
        .filter((t) => nice(t) === BACKGROUND_THREAD_NICE);
      expect(lowered.length).toBeGreaterThanOrEqual(1);
      expect(nice(String(process.pid))).toBe(mainNice);
    },
  );

  it('keeps the automatic checkpoint for connections without the option', () => {
    const db = openDatabase(fresh(), schema);
    open.push(db);
    expect(db.pragma('wal_autocheckpoint', { simple: true })).toBe(1000);
    expect(checkpointStatsOf(db)).toBeUndefined();
  });
});
