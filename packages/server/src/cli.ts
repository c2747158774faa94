#!/usr/bin/env node
import path from 'node:path';
import readline from 'node:readline/promises';
import { configOrExit, readDotEnv, type Config } from './config.js';
import { buildCore, type Core, type CoreServices } from './core.js';
import { DataDirBusy, DataDirNotWritable, lockDataDir } from './lib/data-dir-lock.js';
import { AppError } from './lib/errors.js';
import { importFileHere } from './services/import-file.js';
import { parseUserCommand, runUserCommand, UsageError } from './cli-users.js';
import { AuditService } from './services/audit.service.js';
import { AuditRepository } from './store/audit.repository.js';

const USAGE = `Usage: adam <command>

Commands:
  serve         start the API and console
  worker        with REDIS_URL: take jobs from Redis and do their work (any machine)
  backup        back up ADAM_DATA_DIR (store + vector index) into ADAM_DATA_DIR/backups
  backups       list the backups, newest first
  restore ID    verify backup ID and replace the data with it, after a safety backup of the
                data as it is (asks first; --yes does not)
  reindex       re-embed every snippet with the active embedder and rebuild the index
  import FILE   import a JSON Lines file (an export, or {text, title, url, ...} a line)
  users         list the users: id, email, role, status, last login
  user create EMAIL --role ROLE [--name NAME]
                add a user (ROLE: administrator, operator or viewer) and print a one-time
                password they must change at their first login
  user reset-password EMAIL
                print a new one-time password for the user and end their sessions and API keys
  user set-role EMAIL ROLE
  user disable EMAIL    end the user's sessions and API keys; they cannot log in
  user enable EMAIL
  help          show this text

backup, restore, reindex and import work on the data directory directly: they refuse while a
server uses it (stop the server, or use the console's Maintenance screen while it runs). The
user commands work while a server runs, with the console's rules: the last active administrator
cannot be disabled or demoted.
Settings come from the environment (ADAM_DATA_DIR, PORT, ...) and the repository's .env, read
as \`npm start\` reads it (a variable set in the environment wins): see the README.`;

const dotEnv = readDotEnv();

/** Says on stdout which data directory a command acts on, and where that setting came from. */
function announce(config: Config): void {
  const from = {
    environment: 'ADAM_DATA_DIR in the environment',
    file: `ADAM_DATA_DIR in ${dotEnv.file}`,
    default: 'the default',
  }[dotEnv.dataDirFrom];
  console.log(`Data directory: ${config.dataDir} (${from})`);
}

/**
 * Runs a maintenance command; any error is printed as one line and exits 1. A command that
 * writes (`writes` names it) holds the data directory's lock while it runs: it refuses while a
 * server uses the directory, and a server started meanwhile refuses in turn.
 */
async function maintenance(
  fn: (services: CoreServices, config: Config, core: Core) => Promise<void>,
  writes?: 'backup' | 'restore' | 'reindex' | 'import',
  confirm?: (config: Config) => Promise<void>,
): Promise<never> {
  const config = configOrExit();
  announce(config);
  await confirm?.(config);
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
  // A command that changes the data is in the audit trail, as its API twin would be.
  if (writes && core) recordCommand(core, writes, code === 0);
  try {
    await core?.close();
  } catch (e) {
    console.error(`Error while closing the data directory: ${(e as Error).message}`);
    code = 1;
  }
  process.exit(code);
}

function recordCommand(core: Core, writes: string, ok: boolean): void {
  new AuditService({ audit: new AuditRepository(core.db), log: core.log }).record({
    user_id: null,
    user_email: 'cli',
    key_id: null,
    key_kind: null,
    action: `cli ${writes}`,
    target: args[0] ?? null,
    address: 'cli',
    status: null,
    outcome: ok ? 'ok' : 'failed',
    detail: null,
  });
}

const [command, ...args] = process.argv.slice(2);

switch (command) {
  case undefined:
    // No command: say what there is rather than start a server nobody asked for.
    console.log(USAGE);
    break;
  case 'serve': {
    const config = configOrExit();
    announce(config);
    // The HTTP layer and the Redis worker load only for the commands that run them: the other
    // commands start in a fraction of the time.
    const { serve } = await import('./main.js');
    await serve(config);
    break;
  }
  case 'worker': {
    const config = configOrExit();
    announce(config);
    const { startRedisWorker } = await import('./jobs/redis-worker.js');
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
  case 'restore': {
    const yes = args.includes('--yes') || args.includes('-y');
    const id = args.find((a) => !a.startsWith('-'));
    if (!id) {
      console.error(`restore needs a backup id (see: adam backups)\n\n${USAGE}`);
      process.exit(2);
    }
    const confirm = async (config: Config) => {
      if (yes) return;
      if (!process.stdin.isTTY) {
        console.error(
          `Refusing to restore without confirmation: nobody can answer here (no terminal). ` +
            `Run again with --yes to replace the data in ${config.dataDir} with backup ${id}.`,
        );
        process.exit(2);
      }
      const rl = readline.createInterface({ input: process.stdin, output: process.stdout });
      const answer = await rl.question(
        `Replace the data in ${config.dataDir} with backup ${id}? ` +
          `A safety backup of the data as it is now is made first. [y/N] `,
      );
      rl.close();
      if (!/^y(es)?$/i.test(answer.trim())) {
        console.log('Nothing restored.');
        process.exit(1);
      }
    };
    await maintenance(
      async ({ backups }) => {
        const r = await backups.restore(id);
        console.log(`Safety backup ${r.safety_backup}: the data as it was (restore it to undo)`);
        console.log(`Restored backup ${r.id}`);
        console.log(
          `  ${r.counts.snippets} snippets, ${r.counts.vectors} vectors, ${r.counts.users} users, ${r.counts.rules} rules, ${r.counts.jobs} jobs, ${r.counts.sources} sources`,
        );
        console.log(
          `  index: ${r.reconcile.reindexed} re-indexed, ${r.reconcile.marked_pending} were missing, ${r.reconcile.index_only} index-only`,
        );
        console.log('  API keys and logs were kept as they were.');
      },
      'restore',
      confirm,
    );
    break;
  }
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
  case 'users':
  case 'user': {
    let cmd;
    try {
      cmd = parseUserCommand(command, args);
    } catch (e) {
      if (!(e instanceof UsageError)) throw e;
      console.error(`${e.message}\n\n${USAGE}`);
      process.exit(2);
    }
    await maintenance(async (_services, config, core) => runUserCommand(core, config, cmd));
    break;
  }
  case 'help':
  case '--help':
  case '-h':
    console.log(USAGE);
    break;
  default:
    console.error(`Unknown command: ${command}\n\n${USAGE}`);
    process.exit(2);
}
