import { buildApp } from './app.js';
import { ConfigError, loadConfig, type Config } from './config.js';

/** Starts the API and console on HOST:PORT and shuts down cleanly on SIGINT/SIGTERM. */
export async function serve(config: Config): Promise<void> {
  const { app, log, engineStarted } = await buildApp(config, { stdoutLogs: true });
  // Listening once the engine is warm: the first search or ingestion does not pay its start
  // (the first start of a data dir also converts the built-in model, ~8 s).
  const started = performance.now();
  if (await engineStarted) {
    const ms = Math.round(performance.now() - started);
    log.info({ component: 'engine' }, `Engine ready (${config.workers || 1} thread(s), +${ms} ms)`);
  }
  await app.listen({ port: config.port, host: config.host });
  const addr = app.server.address();
  const where =
    addr && typeof addr === 'object' ? `http://${config.host}:${addr.port}` : String(addr);
  log.info(
    { component: 'server' },
    `ADAM listening on ${where} (data in ${config.dataDir}${config.webDist ? '' : ', API only'})`,
  );

  let closing = false;
  const shutdown = async (signal: string) => {
    if (closing) return;
    closing = true;
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
      log.error({ component: 'server', err: e }, 'Error during shutdown');
      process.exit(1);
    }
  };
  process.on('SIGINT', () => void shutdown('SIGINT'));
  process.on('SIGTERM', () => void shutdown('SIGTERM'));
}

export function configOrExit(): Config {
  try {
    return loadConfig();
  } catch (e) {
    if (e instanceof ConfigError) {
      console.error(e.message);
      process.exit(2);
    }
    throw e;
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  serve(configOrExit()).catch((e: unknown) => {
    console.error(e);
    process.exit(1);
  });
}
