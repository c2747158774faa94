import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { freePort, portOpen, serverRoot } from './process-tree.js';
import { until } from './until.js';
import { adamNodeArgs } from './source-entry.js';

/** Whether Debian's redis-server is installed; tests that need it skip (outside CI) when not. */
export const HAS_REDIS = spawnSync('redis-server', ['--version']).status === 0;
export const REDIS_SKIP_REASON =
  'redis-server not found: install it with `apt-get install redis-server` to run the Redis-mode tests';
if (!HAS_REDIS && process.env.CI)
  throw new Error('CI needs redis-server (the .ci/run script installs it)');

/** A throwaway redis-server on a free loopback port, without persistence. */
export async function startRedis(): Promise<{ url: string; stop: () => Promise<void> }> {
  const port = await freePort();
  const proc = spawn(
    'redis-server',
    ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'],
    {
      stdio: 'ignore',
    },
  );
  await until(() => portOpen(port), {
    interval: 50,
    what: `redis-server to listen on ${port}`,
  });
  return {
    url: `redis://127.0.0.1:${port}`,
    stop: () =>
      new Promise<void>((resolve) => {
        if (proc.exitCode !== null) return resolve();
        proc.once('exit', () => resolve());
        proc.kill('SIGTERM');
      }),
  };
}

/** Runs `adam <args>` from the sources (compiled for the run, or tsx), like the built CLI would. */
export function spawnCli(
  args: string[],
  env: Record<string, string>,
): ChildProcess & { output: () => string } {
  const child = spawn(process.execPath, [...adamNodeArgs('cli'), ...args], {
    cwd: serverRoot,
    env: { ...process.env, ADAM_WEB_DIST: '', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout!.on('data', (d) => (out += d));
  child.stderr!.on('data', (d) => (out += d));
  return Object.assign(child, { output: () => out });
}

/**
 * A redis-server with append-only persistence in its own directory, which a test can stop and
 * start again on the same port and data: what an operator's Redis restart looks like.
 */
export async function startPersistentRedis(dir: string): Promise<{
  url: string;
  port: number;
  /** SIGTERM: Redis flushes the append-only file and exits. */
  stop: () => Promise<void>;
  /** Starts it again on the same port and directory. */
  start: () => Promise<void>;
  running: () => boolean;
}> {
  const port = await freePort();
  let proc: ChildProcess | null = null;
  const start = async () => {
    proc = spawn(
      'redis-server',
      [
        '--port',
        String(port),
        '--bind',
        '127.0.0.1',
        '--dir',
        dir,
        '--appendonly',
        'yes',
        '--appendfsync',
        'always',
        '--save',
        '',
      ],
      { stdio: 'ignore' },
    );
    await until(() => portOpen(port), {
      interval: 50,
      what: `redis-server to listen on ${port}`,
    });
  };
  const stop = () =>
    new Promise<void>((resolve) => {
      const p = proc;
      if (!p || p.exitCode !== null || p.signalCode !== null) return resolve();
      p.once('exit', () => resolve());
      p.kill('SIGTERM');
    });
  await start();
  return {
    url: `redis://127.0.0.1:${port}`,
    port,
    stop,
    start,
    running: () => !!proc && proc.exitCode === null && proc.signalCode === null,
  };
}
