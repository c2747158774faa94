import { spawn } from 'node:child_process';
import path from 'node:path';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { linkSharedModel, tempDir } from './helpers.js';

const serverRoot = path.resolve(import.meta.dirname, '..');

function startProcess(env: Record<string, string>) {
  const child = spawn(
    process.execPath,
    ['--conditions=adam-source', '--import', 'tsx', 'src/main.ts'],
    {
      cwd: serverRoot,
      env: { ...process.env, ADAM_WEB_DIST: '', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  let out = '';
  let err = '';
  child.stdout.on('data', (d) => (out += d));
  child.stderr.on('data', (d) => (err += d));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  const output = () => ({ out, err });
  return { child, exited, output };
}

async function waitFor<T>(fn: () => T | undefined, ms: number): Promise<T> {
  const until = Date.now() + ms;
  for (;;) {
    const v = fn();
    if (v !== undefined) return v;
    if (Date.now() > until) throw new Error('timed out waiting');
    await new Promise((r) => setTimeout(r, 50));
  }
}

describe('server process', () => {
  it('finishes, flushes its logs and exits 0 on SIGTERM', async () => {
    const dataDir = tempDir();
    // The server listens once its engine is warm: with the run's converted model, not a new one.
    linkSharedModel(dataDir);
    const p = startProcess({ PORT: '0', ADAM_DATA_DIR: dataDir });
    const port = await waitFor(
      () => /listening on http:\/\/127\.0\.0\.1:(\d+)/.exec(p.output().out)?.[1],
      20_000,
    );
    const health = await fetch(`http://127.0.0.1:${port}/api/v1/health`);
    expect(health.status).toBe(200);

    p.child.kill('SIGTERM');
    expect(await p.exited).toBe(0);
    expect(p.output().out).toContain('SIGTERM received');
    const db = new Database(path.join(dataDir, 'adam.db'), { readonly: true });
    const messages = db.prepare('SELECT message FROM logs').pluck().all() as string[];
    db.close();
    expect(messages.some((m) => m.includes('SIGTERM received'))).toBe(true);
  }, 30_000);

  it('refuses to start on a bad setting, naming it, with exit code 2', async () => {
    const p = startProcess({ PORT: 'eighty', ADAM_DATA_DIR: tempDir() });
    expect(await p.exited).toBe(2);
    expect(p.output().err).toContain('PORT="eighty"');
  }, 30_000);
});
