import net from 'node:net';
import { buildApp, type Adam } from './app.js';
import { configOrExit, type Config } from './config.js';
import {
  DataDirBusy,
  DataDirNotWritable,
  isNotWritable,
  lockDataDir,
} from './lib/data-dir-lock.js';
import { DEFAULT_ADMIN_EMAIL, DEFAULT_ADMIN_PASSWORD } from '@adam/contracts';

// scripts/boot.cjs serves through main.cjs's exports: the configuration step is one of them.
export { configOrExit };

/** A start-up refusal a user can act on: printed as its one line, without a stack. */
export class StartError extends Error {}

/**
 * Starts the API and console on HOST:PORT and shuts down cleanly on SIGINT/SIGTERM. A busy port
 * or a data directory held by another server ends the process with one line and exit code 1.
 */
export async function serve(config: Config): Promise<void> {
  try {
    await start(config);
  } catch (e) {
    const plain = oneLine(e, config);
    if (plain) {
      console.error(plain);
      process.exit(1);
    }
    throw e;
  }
}

async function start(config: Config): Promise<void> {
  const lock = lockDataDir(config.dataDir);
  // Also on process.exit and on a crash that still runs exit handlers; a kill -9 leaves a lock
  // whose pid is dead, which the next start takes over.
  process.once('exit', lock.release);

  let adam: Adam | null = null;
  let closing = false;
  // The engine's threads, the vector index's load and the keyword index's start after listen:
  // on 2 cores they would otherwise compile and load beside the main thread's own start-up and
  // delay the first answer by seconds. Released on every path, so a close never waits on it.
  let releaseWarmUps = () => {};
  const warmUps = new Promise<void>((resolve) => (releaseWarmUps = resolve));
  const shutdown = async (signal: string) => {
    if (closing) return;
    closing = true;
    releaseWarmUps();
    // Before the app exists there is nothing to close (handlers are in place from the start,
    // so a supervisor's SIGTERM during the engine warm-up still ends the process cleanly).
    if (!adam) process.exit(0);
    const { app, log } = adam;
    log.info({ component: 'server' }, `${signal} received: finishing requests and closing`);
    const force = setTimeout(() => {
      log.error({ component: 'server' }, 'Shutdown took longer than 10 s: exiting');
      process.exit(1);
    }, 10_000);
    force.unref();
    try {
      await app.close();
      process.exit(0);
    } catch (e) {
      // A directory turned read-only: one line, not a stack (what was not saved is put back
      // from the store at the next start).
      const plain = oneLine(e, config);
      if (plain) console.error(plain);
      else log.error({ component: 'server', err: e }, 'Error during shutdown');
      process.exit(1);
    }
  };
  process.on('SIGINT', () => void shutdown('SIGINT'));
  process.on('SIGTERM', () => void shutdown('SIGTERM'));

  // Checked before the engine warms up (seconds): a busy port is said at once.
  await probePort(config);

  adam = await buildApp(config, {
    stdoutLogs: true,
    startGates: { engine: warmUps, index: warmUps, keyword: warmUps },
  });
  const { app, log, engineStarted, services } = adam;
  // Listening at once, the engine warming up meanwhile (the first start of a data dir also
  // converts the built-in model, ~8 s): /health says "starting" until it is done, and the
  // searches and jobs that need it wait for it.
  const started = performance.now();
  void engineStarted.then((ok) => {
    if (!ok || closing) return;
    const ms = Math.round(performance.now() - started);
    log.info({ component: 'engine' }, `Engine ready (${config.workers || 1} thread(s), +${ms} ms)`);
  });
  if (closing) return;
  try {
    await app.listen({ port: config.port, host: config.host });
  } catch (e) {
    releaseWarmUps();
    const message = listenErrorMessage(e, config);
    if (!message) throw e;
    closing = true;
    await app.close();
    throw new StartError(message);
  }
  releaseWarmUps();
  const addr = app.server.address();
  const where =
    addr && typeof addr === 'object' ? `http://${config.host}:${addr.port}` : String(addr);
  log.info(
    { component: 'server' },
    `ADAM listening on ${where} (data in ${config.dataDir}${config.webDist ? '' : ', API only'})`,
  );
  if (await services.auth.usesDefaultCredentials()) {
    log.info(
      { component: 'server' },
      `Log in as ${DEFAULT_ADMIN_EMAIL} / ${DEFAULT_ADMIN_PASSWORD}, then change the password under Settings → Security`,
    );
  }
}

/**
 * The one line a start or stop failure an operator can act on prints, or null for a bug (its
 * stack is printed). A write refused anywhere in the data directory (the store's open, the
 * index's folder, the lock) is said once, about the directory.
 */
function oneLine(e: unknown, config: Config): string | null {
  if (e instanceof StartError || e instanceof DataDirBusy || e instanceof DataDirNotWritable)
    return e.message;
  for (let c: unknown = e; c; c = (c as { cause?: unknown }).cause) {
    if (isNotWritable(c) || isReadOnlyStore(c))
      return new DataDirNotWritable(config.dataDir, asErrno(c)).message;
  }
  return null;
}

/** SQLite's own error for a store it cannot write (a read-only file or folder). */
function isReadOnlyStore(e: unknown): boolean {
  const code = (e as { code?: unknown })?.code;
  return typeof code === 'string' && /^SQLITE_(READONLY|CANTOPEN|IOERR)/.test(code);
}

function asErrno(e: unknown): NodeJS.ErrnoException {
  if (isNotWritable(e)) return e;
  const err = e as { code?: string; message?: string };
  return Object.assign(new Error(`${err.code}: ${err.message}`), { code: err.code });
}

/** Fails with the one-line message when HOST:PORT cannot be listened on (PORT=0 always can). */
async function probePort(config: Config): Promise<void> {
  if (config.port === 0) return;
  const probe = net.createServer();
  try {
    await new Promise<void>((resolve, reject) => {
      probe.once('error', reject);
      probe.listen({ port: config.port, host: config.host, exclusive: true }, resolve);
    });
  } catch (e) {
    const message = listenErrorMessage(e, config);
    if (message) throw new StartError(message);
    throw e;
  } finally {
    await new Promise((resolve) => probe.close(resolve));
  }
}

function listenErrorMessage(e: unknown, config: Config): string | null {
  const { port, host } = config;
  switch ((e as NodeJS.ErrnoException).code) {
    case 'EADDRINUSE':
      return `Port ${port} is already in use (PORT=${port}): stop the other server or set PORT to a free port.`;
    case 'EACCES':
      return `Port ${port} needs administrator rights (PORT=${port}): set PORT to 1024 or above.`;
    case 'EADDRNOTAVAIL':
      return `${host} is not an address of this machine (HOST=${host}): set HOST to 127.0.0.1, or 0.0.0.0 for every interface.`;
    default:
      return null;
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  serve(configOrExit()).catch((e: unknown) => {
    console.error(e);
    process.exit(1);
  });
}
