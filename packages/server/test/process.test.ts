import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { linkSharedModel, tempDir } from './helpers.js';
import {
  cleanEnv,
  ensureServerBuilt,
  freePort,
  groupAlive,
  killGroup,
  portOpen,
  repoRoot,
  serverRoot,
  spawnNpm,
} from './process-tree.js';
import { HAS_REDIS, REDIS_SKIP_REASON, startRedis } from './redis-helpers.js';
import { until } from './until.js';
import { adamNodeArgs } from './source-entry.js';

const started: ChildProcess[] = [];
afterEach(() => {
  for (const c of started.splice(0)) if (c.exitCode === null) c.kill('SIGKILL');
});

function startProcess(env: Record<string, string>) {
  const child = spawn(process.execPath, adamNodeArgs('main'), {
    cwd: serverRoot,
    env: { ...process.env, ADAM_WEB_DIST: '', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  child.stdout.on('data', (d) => (out += d));
  child.stderr.on('data', (d) => (err += d));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  const output = () => ({ out, err });
  started.push(child);
  return { child, exited, output };
}

describe('server process', () => {
  it('finishes, flushes its logs and exits 0 on SIGTERM', async () => {
    const dataDir = tempDir();
    // The server listens once its engine is warm: with the run's converted model, not a new one.
    linkSharedModel(dataDir);
    const p = startProcess({ PORT: '0', ADAM_DATA_DIR: dataDir });
    const port = await until(
      () => /listening on http:\/\/127\.0\.0\.1:(\d+)/.exec(p.output().out)?.[1],
      { what: () => `the server to listen:\n${p.output().out}` },
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
  });

  it('refuses to start on a bad setting, naming it, with exit code 2', async () => {
    const p = startProcess({ PORT: 'eighty', ADAM_DATA_DIR: tempDir() });
    expect(await p.exited).toBe(2);
    expect(p.output().err).toContain('PORT="eighty"');
  });
});

/** A server listening on a fresh data directory (which it holds). */
async function firstServer() {
  const dataDir = tempDir();
  linkSharedModel(dataDir);
  const first = startProcess({ PORT: '0', ADAM_DATA_DIR: dataDir });
  await until(() => /listening on/.test(first.output().out), {
    what: () => `the first server to listen:\n${first.output().out}`,
  });
  return { dataDir, first };
}

describe('start-up refusals', () => {
  it('says in one line that the port is busy, naming PORT, and exits 1', async () => {
    const busy = net.createServer();
    await new Promise<void>((r) => busy.listen(0, '127.0.0.1', () => r()));
    const port = (busy.address() as net.AddressInfo).port;
    try {
      const dataDir = tempDir();
      linkSharedModel(dataDir);
      const p = startProcess({ PORT: String(port), ADAM_DATA_DIR: dataDir });
      expect(await p.exited).toBe(1);
      expect(p.output().err).toBe(
        `Port ${port} is already in use (PORT=${port}): stop the other server or set PORT to a free port.\n`,
      );
      expect(p.output().out).not.toMatch(/\bat .*:\d+:\d+/);
      // It let go of the data directory too.
      expect(fs.existsSync(path.join(dataDir, 'server.lock'))).toBe(false);
    } finally {
      await new Promise((r) => busy.close(r));
    }
  });

  it('refuses a second server on the same data directory, naming the first', async () => {
    const { dataDir, first } = await firstServer();
    const lock = JSON.parse(fs.readFileSync(path.join(dataDir, 'server.lock'), 'utf8'));
    expect(lock).toMatchObject({ pid: first.child.pid, role: 'server' });

    const second = startProcess({ PORT: '0', ADAM_DATA_DIR: dataDir });
    expect(await second.exited).toBe(1);
    expect(second.output().err).toBe(
      `A server (pid ${first.child.pid}) is using ${dataDir}: stop it first, or use the console's Maintenance screen.\n`,
    );

    // A clean shutdown removes the lock.
    first.child.kill('SIGTERM');
    expect(await first.exited).toBe(0);
    expect(fs.existsSync(path.join(dataDir, 'server.lock'))).toBe(false);
  });

  it('takes over the lock a killed server left behind', async () => {
    const { dataDir, first } = await firstServer();
    first.child.kill('SIGKILL');
    await first.exited;
    expect(fs.existsSync(path.join(dataDir, 'server.lock'))).toBe(true);

    const second = startProcess({ PORT: '0', ADAM_DATA_DIR: dataDir });
    await until(() => /listening on/.test(second.output().out), {
      what: () => `the second server to listen:\n${second.output().out}`,
    });
    const lock = JSON.parse(fs.readFileSync(path.join(dataDir, 'server.lock'), 'utf8'));
    expect(lock.pid).toBe(second.child.pid);
  });
});

// `npm start` and `npm run worker` as a process supervisor runs them: a signal to npm's pid must
// stop the server, free its port and leave no process behind.
describe('npm start and npm run worker under a supervisor', () => {
  let pgid: number | undefined;
  // A fresh clone's build: over two minutes on a loaded 2-core machine.
  beforeAll(() => ensureServerBuilt(), 600_000);
  afterEach(() => killGroup(pgid));

  for (const signal of ['SIGTERM', 'SIGINT'] as const) {
    it(`npm start: ${signal} to npm stops the server, frees the port and leaves no process`, async () => {
      const dataDir = tempDir();
      linkSharedModel(dataDir);
      const port = await freePort();
      const npm = spawnNpm(['start'], {
        PORT: String(port),
        ADAM_DATA_DIR: dataDir,
        ADAM_WEB_DIST: '',
        ADAM_NO_BUILD: '1',
      });
      pgid = npm.pid;
      await until(() => npm.output().includes('ADAM listening on'), {
        what: () => `the server to listen:\n${npm.output()}`,
      });
      expect(await portOpen(port)).toBe(true);

      process.kill(npm.pid!, signal);
      expect(await npm.exited).toBe(0);
      await until(() => !groupAlive(pgid!), { what: 'the process tree to end' });
      expect(await portOpen(port)).toBe(false);
      expect(npm.output()).toContain(`${signal} received: finishing requests and closing`);
      expect(fs.existsSync(path.join(dataDir, 'server.lock'))).toBe(false);
    });
  }

  it("reads the repository's .env, where a variable set in the environment wins", async () => {
    // A copy of the start script in a root of its own, beside the real packages: the test
    // never writes a .env into the checkout.
    const root = tempDir('adam-envfile-');
    fs.mkdirSync(path.join(root, 'scripts'));
    fs.copyFileSync(path.join(repoRoot, 'scripts/start.mjs'), path.join(root, 'scripts/start.mjs'));
    fs.symlinkSync(path.join(repoRoot, 'packages'), path.join(root, 'packages'), 'dir');
    const dataDir = tempDir();
    linkSharedModel(dataDir);
    const [filePort, envPort] = [await freePort(), await freePort()];
    fs.writeFileSync(
      path.join(root, '.env'),
      `# a comment\nPORT=${filePort}\nADAM_DATA_DIR=${dataDir}\nADAM_WEB_DIST=\nADAM_LOG_LEVEL=warn\n`,
    );
    const child = spawn(process.execPath, [path.join(root, 'scripts/start.mjs')], {
      env: cleanEnv({ ADAM_NO_BUILD: '1', ADAM_LOG_LEVEL: 'info' }),
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true,
    });
    pgid = child.pid;
    let out = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (out += d));
    await until(() => out.includes('ADAM listening on'), {
      what: () => `the server to listen:\n${out}`,
    });
    expect(out).toContain(`read ${path.join(root, '.env')}`);
    // PORT and ADAM_DATA_DIR come from the file; ADAM_LOG_LEVEL=info from the environment wins
    // over the file's warn (an info line is printed).
    expect(out).toContain(`ADAM listening on http://127.0.0.1:${filePort} (data in ${dataDir}`);
    expect(await portOpen(filePort)).toBe(true);
    expect(await portOpen(envPort)).toBe(false);
    process.kill(child.pid!, 'SIGTERM');
    await until(() => !groupAlive(pgid!), { what: 'the server to stop' });
  });

  it.skipIf(!HAS_REDIS)(
    'npm run worker: SIGTERM to npm stops the worker and leaves no process',
    async () => {
      const redis = await startRedis();
      try {
        const dataDir = tempDir();
        linkSharedModel(dataDir);
        const npm = spawnNpm(['run', 'worker'], {
          REDIS_URL: redis.url,
          ADAM_DATA_DIR: dataDir,
          ADAM_NO_BUILD: '1',
        });
        pgid = npm.pid;
        await until(() => /waiting for jobs/.test(npm.output()), {
          what: () => `the worker to start:\n${npm.output()}`,
        });
        process.kill(npm.pid!, 'SIGTERM');
        expect(await npm.exited).toBe(0);
        await until(() => !groupAlive(pgid!), { what: 'the process tree to end' });
        expect(npm.output()).toMatch(/worker .* stopped/);
      } finally {
        await redis.stop();
      }
    },
  );
  if (!HAS_REDIS) it.skip(REDIS_SKIP_REASON, () => {});
});
