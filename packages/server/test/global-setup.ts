import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { prepareBuiltinModel } from '../src/embedding/builtin-embedder.js';
import { alive, SHARED_TMPDIR_ENV } from './run-tmpdir.js';

/**
 * One converted built-in model, kept from run to run outside the run's own temporary folder
 * (test/run-tmpdir.ts); each test server's data dir links to it.
 */
export const SHARED_MODEL_ROOT = path.join(
  process.env[SHARED_TMPDIR_ENV] ?? os.tmpdir(),
  'adam-test-model-cache',
);

/**
 * scrypt's cost for the passwords the tests' servers and processes hash (log2 N; the default is
 * 15): hundreds of servers each hash the admin's password, check the default one and log in, and
 * at the default those three took about 0.5 s of CPU per server (~175 ms each here); the server
 * tests ran 786 s then, 667 s at this cost. The tests of the cost itself set their own.
 */
export const TEST_PASSWORD_HASH_COST = '10';

const serverRoot = path.resolve(import.meta.dirname, '..');
const COMPILED_PREFIX = '.test-compiled-';

/**
 * A compiled copy of src/ for this run, beside src/ (so its packages resolve from the server's
 * node_modules): the servers' threads and the processes the tests start load it rather than
 * compiling the sources through tsx each time (see src/lib/entry-module.ts). Copies left by runs
 * that were killed are removed.
 */
function compileSources(): string {
  for (const name of fs.readdirSync(serverRoot)) {
    const pid = Number(name.slice(COMPILED_PREFIX.length));
    if (name.startsWith(COMPILED_PREFIX) && !alive(pid)) {
      fs.rmSync(path.join(serverRoot, name), { recursive: true, force: true });
    }
  }
  const dir = path.join(serverRoot, `${COMPILED_PREFIX}${process.pid}`);
  execFileSync(
    process.execPath,
    [path.join(serverRoot, 'scripts', 'bundle.mjs'), dir, '--esm-only'],
    {
      stdio: ['ignore', 'ignore', 'inherit'],
    },
  );
  return dir;
}

export default async function setup(): Promise<() => void> {
  // Two projects of one run name this setup: the first one's copy serves both.
  if (process.env.ADAM_COMPILED_SOURCES) return () => {};
  // For the processes the tests start (they inherit this environment); in-process servers get
  // it from test/helpers.ts.
  process.env.ADAM_PASSWORD_HASH_COST ??= TEST_PASSWORD_HASH_COST;
  const compiled = compileSources();
  process.env.ADAM_COMPILED_SOURCES = compiled;
  await prepareBuiltinModel(SHARED_MODEL_ROOT);
  return () => {
    fs.rmSync(compiled, { recursive: true, force: true });
    delete process.env.ADAM_COMPILED_SOURCES;
  };
}
