import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';

export const serverRoot = path.resolve(import.meta.dirname, '..');
export const repoRoot = path.resolve(serverRoot, '..', '..');

export async function freePort(): Promise<number> {
  const srv = net.createServer();
  await new Promise<void>((r) => srv.listen(0, '127.0.0.1', () => r()));
  const port = (srv.address() as net.AddressInfo).port;
  await new Promise((r) => srv.close(r));
  return port;
}

/** Whether something accepts connections on 127.0.0.1:port. */
export function portOpen(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const s = net.connect(port, '127.0.0.1', () => {
      s.destroy();
      resolve(true);
    });
    s.on('error', () => resolve(false));
  });
}

/** Whether any process of the group is left. */
export function groupAlive(pgid: number): boolean {
  try {
    process.kill(-pgid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Kills what is left of a process group: the cleanup of a test that failed half-way. */
export function killGroup(pgid: number | undefined): void {
  if (!pgid) return;
  try {
    process.kill(-pgid, 'SIGKILL');
  } catch {
    // already gone
  }
}

/** The test runner's environment without what an outer `npm test` put there for its own run. */
export function cleanEnv(env: Record<string, string>): NodeJS.ProcessEnv {
  const out: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env)) {
    if (!k.startsWith('npm_') && k !== 'INIT_CWD') out[k] = v;
  }
  return { ...out, ...env };
}

/**
 * `npm start` and `npm run worker` import the builds: made here when missing (a fresh clone
 * running `npm test`), otherwise used as they are.
 */
export function ensureServerBuilt(): void {
  const outputs = [
    path.join(repoRoot, 'packages/contracts/dist/index.js'),
    path.join(serverRoot, 'dist/main.js'),
    path.join(serverRoot, 'dist/cli.js'),
  ];
  if (outputs.every((f) => fs.existsSync(f))) return;
  const r = spawnSync('npm', ['run', 'build', '-w', '@adam/contracts', '-w', '@adam/server'], {
    cwd: repoRoot,
    env: cleanEnv({}),
    encoding: 'utf8',
  });
  if (r.status !== 0) throw new Error(`build failed:\n${r.stdout}\n${r.stderr}`);
}

/** `npm <args>` from the repository root in its own process group, its output collected. */
export function spawnNpm(
  args: string[],
  env: Record<string, string>,
): ChildProcess & { output: () => string; exited: Promise<number | null> } {
  const child = spawn('npm', args, {
    cwd: repoRoot,
    env: cleanEnv(env),
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  let out = '';
  child.stdout!.on('data', (d) => (out += d));
  child.stderr!.on('data', (d) => (out += d));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  return Object.assign(child, { output: () => out, exited });
}
