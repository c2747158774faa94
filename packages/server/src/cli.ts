#!/usr/bin/env node
import path from 'node:path';
import type { Config } from './config.js';
import { buildCore, type Core, type CoreServices } from './core.js';
import { DataDirBusy, DataDirNotWritable, lockDataDir } from './lib/data-dir-lock.js';
import { AppError } from './lib/errors.js';
import { startRedisWorker } from './jobs/redis-worker.js';
import { importFileHere } from './services/import-file.js';
import { configOrExit, serve } from './main.js';

const USAGE = `Usage: adam <command>

Commands:
  serve         start the API and console
  worker        with REDIS_URL: take jobs from Redis and do their work (any machine)
  backup        back up ADAM_DATA_DIR (store + vector index) into ADAM_DATA_DIR/backups
  backups       list the backups, newest first
  restore ID    verify backup ID and replace the data with it
  reindex       re-embed every snippet with the active embedder and rebuild the index
  import FILE   import a JSON Lines file (an export, or {text, title, url, ...} a line)
  help          show this text

backup, restore, reindex and import work on the data directory directly: they refuse while a
server uses it (stop the server, or use the console's Maintenance screen while it runs).
Settings come from the environment (ADAM_DATA_DIR, PORT, ...): see the README.`;

/**
 * Runs a maintenance command; any error is printed as one line and exits 1. A command that
 * writes (`writes` names it) holds the data directory's lock while it runs: it refuses while a
 * server uses the directory, and a server started meanwhile refuses in turn.
 */
async function maintenance(
  fn: (services: CoreServices, config: Config, core: Core) => Promise<void>,
  writes?: 'backup' | 'restore' | 'reindex' | 'import',
): Promise<never> {
  const config = configOrExit();
  let core: Core | null = null;
  let code = 0;
  try {
    if (writes) process.once('exit', lockDataDir(config.dataDir, writes).release);
  } catch (e) {
    // Both are said in one line, no stack: another process holds it, or it is read-only.
    if (!(e instanceof DataDirBusy || e instanceof DataDirNotWritable)) throw e;
    console.error(e.message);
    process.exit(1);
  }
  try {
    // The core without the queue: a maintenance command must not start processing queued jobs.
    core = buildCore(config);
    await fn(core.services, config, core);
  } catch (e) {
    const msg = e instanceof AppError ? e.message : ((e as Error).stack ?? String(e));
    console.error(`Error: ${msg}`);
    code = 1;
  }
  try {
    await core?.close();
  } catch (e) {
    console.error(`Error while closing the data directory: ${(e as Error).message}`);
    code = 1;
  }
  process.exit(code);
}

const [command, ...args] = process.argv.slice(2);

switch (command) {
  case undefined:
    // No command: say what there is rather than start a server nobody asked for.
    console.log(USAGE);
    break;
  case 'serve':
    await serve(configOrExit());
    break;
  case 'worker': {
    const config = configOrExit();
    const worker = await startRedisWorker(config).catch((e: unknown) => {
      console.error(`Error: ${(e as Error).message}`);
      process.exit(2);
    });
    const stop = () => void worker.close();
    process.on('SIGINT', stop);
    process.on('SIGTERM', stop);
    await worker.stopped;
    process.exit(0);
    break;
  }
  case 'backup':
    await maintenance(async ({ backups }, config) => {
      const b = await backups.create('manual');
      console.log(`Backup ${b.id} created: ${path.join(config.dataDir, 'backups', b.id)}`);
      console.log(
        `  ${b.size_mb} MB, ${b.counts.snippets} snippets, ${b.counts.vectors} vectors, ${b.counts.users} users, ${b.counts.rules} rules`,
      );
    }, 'backup');
    break;
  case 'backups':
    await maintenance(async ({ backups }) => {
      const list = backups.list();
      if (list.length === 0) console.log('No backups.');
      for (const b of list) {
        console.log(
          `${b.id}  ${b.created_at}  ${b.reason.padEnd(6)}  ${String(b.size_mb).padStart(8)} MB  ${b.counts.snippets} snippets`,
        );
      }
    });
    break;
  case 'restore':
    if (!args[0]) {
      console.error(`restore needs a backup id (see: adam backups)\n\n${USAGE}`);
      process.exit(2);
    }
    await maintenance(async ({ backups }) => {
      const r = await backups.restore(args[0]!);
      console.log(`Restored backup ${r.id}`);
      console.log(
        `  ${r.counts.snippets} snippets, ${r.counts.vectors} vectors, ${r.counts.users} users, ${r.counts.rules} rules, ${r.counts.jobs} jobs, ${r.counts.sources} sources`,
      );
      console.log(
        `  index: ${r.reconcile.reindexed} re-indexed, ${r.reconcile.marked_pending} were missing, ${r.reconcile.index_only} index-only`,
      );
      console.log('  API keys and logs were kept as they were.');
    }, 'restore');
    break;
  case 'reindex':
    await maintenance(async ({ index }) => {
      const tty = process.stdout.isTTY;
      const r = await index.rebuild({
        reembed: true,
        onProgress: (done, total) =>
          process.stdout.write(
            `${tty ? '\r' : ''}Re-embedded ${done} of ${total}${tty ? '' : '\n'}`,
          ),
      });
      if (tty && r.indexed) process.stdout.write('\n');
      console.log(
        `Index rebuilt: ${r.indexed} of ${r.total} snippets indexed, ${r.reembedded} re-embedded`,
      );
    }, 'reindex');
    break;
  case 'import':
    if (!args[0]) {
      console.error(`import needs a file (JSON Lines)\n\n${USAGE}`);
      process.exit(2);
    }
    await maintenance(async (_services, config, core) => {
      const tty = process.stdout.isTTY;
      const r = await importFileHere(core, config, args[0]!, (stage) =>
        process.stdout.write(`${tty ? '\r' : ''}${stage}${tty ? '\x1b[K' : '\n'}`),
      );
      if (tty) process.stdout.write('\n');
      console.log(
        `Imported ${r.imported} snippets from ${r.records} records: ${r.duplicates} duplicates, ` +
          `${r.vectors_reused} vectors reused, ${r.reembedded} re-embedded, ${r.analysed} analysed`,
      );
    }, 'import');
    break;
  case 'help':
  case '--help':
  case '-h':
    console.log(USAGE);
    break;
  default:
    console.error(`Unknown command: ${command}\n\n${USAGE}`);
    process.exit(2);
}
