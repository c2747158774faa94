import { spawn, type ChildProcess } from 'node:child_process';
import { workerChildEnv, type Config } from './config.js';
import { entryModule, processArgs } from './lib/entry-module.js';

/**
 * Starts one local `adam worker` process with this server's configuration; its stderr is piped
 * so the queue can log what it says. The composition root hands this to the Redis queue.
 */
export function spawnWorkerProcess(config: Config): ChildProcess {
  // Under tsx (tests, `npm run dev`) the CLI is a .ts file that needs tsx's loader.
  const args = [...processArgs(entryModule(import.meta.url, './cli')), 'worker'];
  return spawn(process.execPath, args, {
    env: workerChildEnv(config),
    stdio: ['ignore', 'ignore', 'pipe'],
  });
}
