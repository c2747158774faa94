import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

import { afterEach, describe, expect, it } from 'vitest';
import { openDatabase, openSecondConnection, type Db } from './db.js';
import type { Migration } from './migrations/index.js';

const schema: Migration[] = [
  { id: 1, name: 'rows', sql: 'CREATE TABLE rows (id INTEGER PRIMARY KEY, body TEXT NOT NULL)' },
];

let dir: string | null = null;
let open: Db[] = [];
afterEach(() => {
  for (const db of open) if (db.open) db.close();
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
  open = [];
  dir = null;
});

describe("a second thread's connection to the store", () => {
  it("cannot commit between a server transaction's read and its write", () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'adam-second-writer-'));
    const server = openDatabase(dir, schema);
    const other = openSecondConnection(server.name);
    open = [other, server];
    // The other thread gives up at once here (one thread plays both sides).
    other.pragma('busy_timeout = 0');

    // Read, then let the other connection try to commit, then write: with a deferred BEGIN the
    // other commit gets in and the write fails with SQLITE_BUSY_SNAPSHOT, the busy timeout
    // notwithstanding; with BEGIN IMMEDIATE the server holds the lock from the start.
    const outcome = server.transaction(() => {
      const before = server.prepare('SELECT COUNT(*) FROM rows').pluck().get() as number;
      let otherError: string | null = null;
      try {
        other.prepare("INSERT INTO rows (body) VALUES ('other')").run();
      } catch (e) {
        otherError = (e as { code?: string }).code ?? null;
      }
      server.prepare("INSERT INTO rows (body) VALUES ('server')").run();
      return { before, otherError };
    })();

    expect(outcome).toEqual({ before: 0, otherError: 'SQLITE_BUSY' });
    expect(server.prepare('SELECT body FROM rows').pluck().all()).toEqual(['server']);
    // Once the server's transaction is over, the other connection writes.
    other.prepare("INSERT INTO rows (body) VALUES ('other')").run();
    expect(server.prepare('SELECT COUNT(*) FROM rows').pluck().get()).toBe(2);
  });

  it('keeps the variants a caller asks for by name', () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'adam-second-writer-'));
    const server = openDatabase(dir, schema);
    open = [server];
    const insert = server.transaction((body: string) =>
      server.prepare('INSERT INTO rows (body) VALUES (?)').run(body),
    );
    insert.deferred('a');
    insert.exclusive('b');
    // Nested: a savepoint inside the outer transaction, rolled back alone.
    server.transaction(() => {
      insert('c');
      try {
        server.transaction(() => {
          insert('d');
          throw new Error('undo d');
        })();
      } catch {
        /* rolled back to the savepoint */
      }
    })();
    expect(server.prepare('SELECT body FROM rows ORDER BY id').pluck().all()).toEqual([
      'a',
      'b',
      'c',
    ]);
  });
});
