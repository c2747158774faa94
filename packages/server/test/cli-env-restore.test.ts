import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ARTICLES } from './corpus.js';
import { linkSharedModel, saveText, startServer, tempDir } from './helpers.js';
import { adamNodeArgs } from './source-entry.js';

const serverRoot = path.resolve(import.meta.dirname, '..');

const spawned: ChildProcess[] = [];
afterAll(() => {
  for (const c of spawned) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
});

/**
 * The CLI as a child process, with an environment that has no ADAM_DATA_DIR unless given: what
 * it acts on comes from the `.env` file ADAM_ENV_FILE names (the checkout's own is left alone).
 */
function cli(args: string[], env: Record<string, string>, command?: string[]) {
  const base = Object.fromEntries(
    Object.entries(process.env).filter(([k]) => !k.startsWith('ADAM_')),
  ) as Record<string, string>;
  const argv = [process.execPath, ...adamNodeArgs('cli'), ...args];
  // `script` (the one wrapper used) writes its transcript to the file named last: not into the tree.
  const [file, ...rest] = command ? [...command, argv.join(' '), '/dev/null'] : argv;
  const child = spawn(file!, rest, {
    cwd: serverRoot,
    env: { ...base, ADAM_WEB_DIST: '', ...env },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  spawned.push(child);
  let out = '';
  let err = '';
  child.stdout.on('data', (d) => (out += d));
  child.stderr.on('data', (d) => (err += d));
  return {
    child,
    exited: new Promise<{ code: number | null; out: string; err: string }>((resolve) =>
      child.on('exit', (code) => resolve({ code, out, err })),
    ),
  };
}

const run = (args: string[], env: Record<string, string>) => {
  const c = cli(args, env);
  c.child.stdin.end();
  return c.exited;
};

const snippetCount = (dataDir: string) => {
  const db = new Database(path.join(dataDir, 'adam.db'), { readonly: true });
  try {
    return db.prepare('SELECT COUNT(*) FROM snippets').pluck().get() as number;
  } finally {
    db.close();
  }
};

let dataDir: string;
let envFile: string;
let backupId: string;
let snippetsAtBackup: number;

beforeAll(async () => {
  dataDir = tempDir();
  linkSharedModel(dataDir);
  envFile = path.join(tempDir('adam-env-'), '.env');
  fs.writeFileSync(envFile, `# as a user writes it\nADAM_DATA_DIR=${dataDir}\n`);
  const s = await startServer({ dataDir });
  await s.adam.reconciled;
  const key = await s.login();
  await saveText(s, key, ARTICLES.photosynthesis, 'photosynthesis');
  await s.close();
  snippetsAtBackup = snippetCount(dataDir);

  const r = await run(['backup'], { ADAM_ENV_FILE: envFile });
  expect(r.code, r.err).toBe(0);
  backupId = /^Backup (\S+) created/m.exec(r.out)![1]!;

  // Changed after the backup: a restore takes this away, its safety backup keeps it.
  const s2 = await startServer({ dataDir });
  await saveText(s2, await s2.login(), ARTICLES.volcanoes, 'volcanoes');
  await s2.close();
  expect(snippetCount(dataDir)).toBeGreaterThan(snippetsAtBackup);
}, 120_000);

describe('adam CLI: .env, the data directory it names, restore that asks and keeps a safety backup', () => {
  it('reads ADAM_DATA_DIR from the .env file and says which directory it acts on', async () => {
    const r = await run(['backups'], { ADAM_ENV_FILE: envFile });
    expect(r.code, r.err).toBe(0);
    expect(r.out).toContain(`Data directory: ${dataDir} (ADAM_DATA_DIR in ${envFile})`);
    expect(r.out).toContain(backupId);
  });

  it('lets a variable set in the environment win over the file, as npm start does', async () => {
    const other = tempDir();
    const r = await run(['backups'], { ADAM_ENV_FILE: envFile, ADAM_DATA_DIR: other });
    expect(r.code, r.err).toBe(0);
    expect(r.out).toContain(`Data directory: ${other} (ADAM_DATA_DIR in the environment)`);
    expect(r.out).toContain('No backups.');
  });

  it('refuses to restore with nobody to ask and no --yes, and changes nothing', async () => {
    const before = snippetCount(dataDir);
    const r = await run(['restore', backupId], { ADAM_ENV_FILE: envFile });
    expect(r.code).toBe(2);
    expect(r.err).toContain('Refusing to restore without confirmation');
    expect(r.err).toContain('--yes');
    expect(snippetCount(dataDir)).toBe(before);
    const list = await run(['backups'], { ADAM_ENV_FILE: envFile });
    expect(list.out).not.toContain('safety');
  });

  it('asks on a terminal and restores nothing on "n"', async () => {
    const before = snippetCount(dataDir);
    // `script` gives the CLI a terminal; the answer is typed once the question is shown.
    const c = cli(['restore', backupId], { ADAM_ENV_FILE: envFile }, ['script', '-qec']);
    await new Promise<void>((resolve) => {
      let seen = '';
      let typed = false;
      c.child.stdout.on('data', (d) => {
        seen += d;
        // Once: the terminal echoes the question and the answer back.
        if (!typed && seen.includes('[y/N]')) {
          typed = true;
          c.child.stdin.write('n\n');
          resolve();
        }
      });
    });
    const r = await c.exited;
    expect(r.out).toContain(`Replace the data in ${dataDir} with backup ${backupId}?`);
    expect(r.out).toContain('Nothing restored.');
    expect(r.code).toBe(1);
    expect(snippetCount(dataDir)).toBe(before);
  });

  it('with --yes makes a safety backup first, listed as such, then restores', async () => {
    const changed = snippetCount(dataDir);
    const r = await run(['restore', backupId, '--yes'], { ADAM_ENV_FILE: envFile });
    expect(r.code, r.err).toBe(0);
    const safety = /^Safety backup (\S+): /m.exec(r.out)?.[1];
    expect(safety, r.out).toBeDefined();
    expect(r.out).toContain(`Restored backup ${backupId}`);
    expect(snippetCount(dataDir)).toBe(snippetsAtBackup);

    const list = await run(['backups'], { ADAM_ENV_FILE: envFile });
    const line = list.out.split('\n').find((l) => l.startsWith(safety!));
    expect(line).toMatch(/\bsafety\b/);
    expect(line).toContain(`${changed} snippets`);

    // The safety backup undoes the restore.
    const undo = await run(['restore', safety!, '--yes'], { ADAM_ENV_FILE: envFile });
    expect(undo.code, undo.err).toBe(0);
    expect(snippetCount(dataDir)).toBe(changed);
  }, 120_000);
});
