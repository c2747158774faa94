import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ARTICLES } from './corpus.js';
import { linkSharedModel, saveText, startServer, tempDir } from './helpers.js';
import { until } from './until.js';
import { adamNodeArgs } from './source-entry.js';

const serverRoot = path.resolve(import.meta.dirname, '..');

const spawned: ChildProcess[] = [];
const mounts: string[] = [];
afterAll(() => {
  for (const c of spawned) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
  for (const m of mounts.splice(0).reverse()) {
    try {
      execFileSync('umount', [m]);
    } catch {
      // already gone
    }
  }
});

/**
 * A data dir made read-only by a read-only bind over a tmpfs of its own (root ignores chmod, so
 * permission bits would prove nothing). Null when this machine does not let the test mount.
 */
function readOnlyDataDir(): string | null {
  const root = tempDir();
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=16m', 'tmpfs', root], { stdio: 'pipe' });
  } catch {
    return null;
  }
  mounts.push(root);
  const dir = path.join(root, 'data');
  fs.mkdirSync(dir);
  execFileSync('mount', ['--bind', dir, dir]);
  mounts.push(dir);
  execFileSync('mount', ['-o', 'remount,bind,ro', dir]);
  return dir;
}

function spawnCli(dataDir: string, args: string[], env: Record<string, string> = {}) {
  const child = spawn(process.execPath, [...adamNodeArgs('cli'), ...args], {
    cwd: serverRoot,
    env: { ...process.env, ADAM_WEB_DIST: '', ADAM_DATA_DIR: dataDir, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  spawned.push(child);
  let out = '';
  let err = '';
  child.stdout.on('data', (d) => (out += d));
  child.stderr.on('data', (d) => (err += d));
  const exited = new Promise<{ code: number | null; out: string; err: string }>((resolve) =>
    child.on('exit', (code) => resolve({ code, out, err })),
  );
  return { child, exited, output: () => out };
}

function runCli(dataDir: string, ...args: string[]) {
  return spawnCli(dataDir, args).exited;
}

function readDb<T>(dataDir: string, fn: (db: Database.Database) => T): T {
  const db = new Database(path.join(dataDir, 'adam.db'));
  try {
    return fn(db);
  } finally {
    db.close();
  }
}

const snippetCount = (dataDir: string) =>
  readDb(dataDir, (db) => db.prepare('SELECT COUNT(*) FROM snippets').pluck().get() as number);

const indexCount = (dataDir: string) =>
  (
    JSON.parse(fs.readFileSync(path.join(dataDir, 'index', 'manifest.json'), 'utf8')) as {
      count: number;
    }
  ).count;

let dataDir: string;
let snippets: number;
let backupId: string;

beforeAll(async () => {
  dataDir = tempDir();
  linkSharedModel(dataDir);
  const s = await startServer({ dataDir });
  await s.adam.reconciled;
  const key = await s.login();
  await saveText(s, key, ARTICLES.photosynthesis, 'photosynthesis');
  await saveText(s, key, ARTICLES.volcanoes, 'volcanoes');
  await s.close();
  snippets = snippetCount(dataDir);
  expect(snippets).toBeGreaterThan(1);
});

describe('adam CLI maintenance commands', () => {
  it('backup prints the new backup id and where it is', async () => {
    const r = await runCli(dataDir, 'backup');
    expect(r.err).toBe('');
    expect(r.code).toBe(0);
    const m = /^Backup (\d{8}-\d{6}-\d{3}) created: (.+)$/m.exec(r.out);
    expect(m, r.out).not.toBeNull();
    backupId = m![1]!;
    expect(m![2]).toBe(path.join(dataDir, 'backups', backupId));
    expect(fs.existsSync(path.join(m![2]!, 'manifest.json'))).toBe(true);
    expect(fs.existsSync(path.join(m![2]!, 'adam.db'))).toBe(true);
    expect(r.out).toContain(`${snippets} snippets, ${snippets} vectors`);
  });

  it('backups lists it', async () => {
    const r = await runCli(dataDir, 'backups');
    expect(r.code).toBe(0);
    expect(r.out).toMatch(new RegExp(`^${backupId} .* manual .* ${snippets} snippets$`, 'm'));
  });

  it('restore ID puts the data back as it was', async () => {
    readDb(dataDir, (db) =>
      db.prepare('DELETE FROM snippets WHERE id = (SELECT MIN(id) FROM snippets)').run(),
    );
    expect(snippetCount(dataDir)).toBe(snippets - 1);
    const r = await runCli(dataDir, 'restore', backupId, '--yes');
    expect(r.err).toBe('');
    expect(r.code).toBe(0);
    expect(r.out).toContain(`Restored backup ${backupId}`);
    expect(r.out).toContain(`${snippets} snippets, ${snippets} vectors`);
    expect(snippetCount(dataDir)).toBe(snippets);
    expect(indexCount(dataDir)).toBe(snippets);
  });

  it('restore of an unknown backup exits 1 with a message', async () => {
    const r = await runCli(dataDir, 'restore', 'nope', '--yes');
    expect(r.code).toBe(1);
    expect(r.err.trim()).toBe('Error: Backup nope not found');
    const missing = await runCli(dataDir, 'restore');
    expect(missing.code).toBe(2);
    expect(missing.err).toContain('restore needs a backup id');
  });

  it('restore of a damaged backup exits 1 naming the file, and changes nothing', async () => {
    const dir = path.join(dataDir, 'backups', backupId);
    fs.rmSync(path.join(dir, 'index', 'manifest.json'));
    readDb(dataDir, (db) =>
      db.prepare('DELETE FROM snippets WHERE id = (SELECT MIN(id) FROM snippets)').run(),
    );
    const r = await runCli(dataDir, 'restore', backupId, '--yes');
    expect(r.code).toBe(1);
    expect(r.err.trim()).toBe(
      `Error: Backup ${backupId} is damaged: index/manifest.json is missing`,
    );
    expect(snippetCount(dataDir)).toBe(snippets - 1);
  });

  it('reindex re-embeds every snippet and leaves as many vectors as snippets', async () => {
    // Drop the stored vectors and the index: only re-embedding can bring them back.
    readDb(dataDir, (db) => db.prepare('DELETE FROM snippet_embeddings').run());
    fs.rmSync(path.join(dataDir, 'index'), { recursive: true });
    const rows = snippetCount(dataDir);
    const r = await runCli(dataDir, 'reindex');
    expect(r.err).toBe('');
    expect(r.code).toBe(0);
    expect(r.out).toContain(`Re-embedded ${rows} of ${rows}`);
    expect(r.out).toContain(
      `Index rebuilt: ${rows} of ${rows} snippets indexed, ${rows} re-embedded`,
    );
    expect(indexCount(dataDir)).toBe(rows);
    const state = readDb(dataDir, (db) =>
      db
        .prepare(
          `SELECT COUNT(*) AS n, SUM(index_pending) AS pending,
             (SELECT COUNT(*) FROM snippet_embeddings) AS embedded
           FROM snippets`,
        )
        .get(),
    );
    expect(state).toEqual({ n: rows, pending: 0, embedded: rows });
  });

  it('backup, restore and reindex on a read-only data dir say so in one line and exit 1', async (ctx) => {
    const dir = readOnlyDataDir();
    if (!dir) return ctx.skip(); // mount not permitted here: said by the skip
    const refusal =
      `Cannot write to the data directory ${dir} (EROFS): read-only file system. ` +
      'Make it writable (a read-only mount or its permissions), or set ADAM_DATA_DIR to another directory.\n';
    const runs = [['backup'], ['restore', '20260101-000000-000', '--yes'], ['reindex']].map(
      async (args) => [args[0], await runCli(dir, ...args)] as const,
    );
    for (const [name, r] of await Promise.all(runs)) {
      expect(r.err, name).toBe(refusal);
      expect(r.code, name).toBe(1);
      // Only the line naming the directory it would have acted on.
      expect(r.out, name).toBe(`Data directory: ${dir} (ADAM_DATA_DIR in the environment)\n`);
    }
  });

  it('names an unknown command and exits 2', async () => {
    const r = await runCli(dataDir, 'frobnicate');
    expect(r.code).toBe(2);
    expect(r.err).toContain('Unknown command: frobnicate');
    expect(r.err).toContain('reindex');
  });
});

describe('adam with no command, adam serve', () => {
  it('prints its help with no command instead of starting a server', async () => {
    const r = await runCli(tempDir());
    expect(r.code).toBe(0);
    expect(r.err).toBe('');
    expect(r.out).toMatch(/^Usage: adam <command>/);
    expect(r.out).toMatch(/^ {2}serve {9}start the API and console$/m);
  });

  it('serve starts a server; backup, restore and reindex refuse while it runs', async () => {
    const dir = tempDir();
    linkSharedModel(dir);
    const server = spawnCli(dir, ['serve'], { PORT: '0' });
    const listening = /listening on http:\/\/127\.0\.0\.1:(\d+)/;
    await until(() => listening.test(server.output()) || server.child.exitCode !== null, {
      what: () => `the server to listen:\n${server.output()}`,
    });
    const port = listening.exec(server.output())?.[1];
    expect(port, `the server exited:\n${server.output()}`).toBeDefined();
    expect((await fetch(`http://127.0.0.1:${port}/api/v1/health`)).status).toBe(200);
    const pid = server.child.pid!;

    const refusal = `A server (pid ${pid}) is using ${dir}: stop it first, or use the console's Maintenance screen.\n`;
    for (const args of [['backup'], ['restore', '20260101-000000-000', '--yes'], ['reindex']]) {
      const r = await runCli(dir, ...args);
      expect(r.code, args[0]).toBe(1);
      expect(r.err, args[0]).toBe(refusal);
      expect(r.out, args[0]).toBe(`Data directory: ${dir} (ADAM_DATA_DIR in the environment)\n`);
    }
    // Listing only reads.
    const list = await runCli(dir, 'backups');
    expect(list.code).toBe(0);

    server.child.kill('SIGTERM');
    expect((await server.exited).code).toBe(0);
    // Stopped: the directory is free again.
    const backup = await runCli(dir, 'backup');
    expect(backup.err).toBe('');
    expect(backup.code).toBe(0);
  }, 120_000);
});
