import { spawn, type ChildProcess } from 'node:child_process';
import { createRequire } from 'node:module';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { workerChildEnv, type Config } from './config.js';

const SELF = import.meta.url;
/** Under tsx (tests, `npm run dev`) the CLI is a .ts file that needs tsx's loader. */
const SOURCE_MODE = SELF.endsWith('.ts');

/**
 * Starts one local `adam worker` process with this server's configuration; its stderr is piped
 * so the queue can log what it says. The composition root hands this to the Redis queue.
 */
export function spawnWorkerProcess(config: Config): ChildProcess {
  const cli = fileURLToPath(new URL(SOURCE_MODE ? './cli.ts' : './cli.js', SELF));
  const args = SOURCE_MODE
    ? [
        '--conditions=adam-source',
        '--import',
        pathToFileURL(createRequire(SELF).resolve('tsx')).href,
        cli,
        'worker',
      ]
    : [cli, 'worker'];
  return spawn(process.execPath, args, {
    env: workerChildEnv(config),
    stdio: ['ignore', 'ignore', 'pipe'],
  });
}
