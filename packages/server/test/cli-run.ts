import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { adamNodeArgs } from './source-entry.js';

const serverRoot = path.resolve(import.meta.dirname, '..');
const spawned: ChildProcess[] = [];

/** Runs `adam ...args` from the sources on the data dir, as an operator at a terminal would. */
export function runCli(dataDir: string, ...args: string[]) {
  const child = spawn(process.execPath, [...adamNodeArgs('cli'), ...args], {
    cwd: serverRoot,
    env: { ...process.env, ADAM_WEB_DIST: '', ADAM_DATA_DIR: dataDir },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  spawned.push(child);
  let out = '';
  let err = '';
  child.stdout.on('data', (d) => (out += d));
  child.stderr.on('data', (d) => (err += d));
  return new Promise<{ code: number | null; out: string; err: string }>((resolve) =>
    child.on('exit', (code) => resolve({ code, out, err })),
  );
}

/** Kills the CLI processes still running (a test's afterAll). */
export function killCliProcesses(): void {
  for (const c of spawned) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
}
