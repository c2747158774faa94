// `npm start` (and `npm run worker`): builds whatever is missing or older than its sources, then
// serves API + console (or runs a Redis-mode worker) in this same process.
//
// Signals: the root package.json runs this with `exec`, so npm's child is this process and the
// SIGINT/SIGTERM npm forwards reaches the server, which closes and exits; npm exits after it.
// Without `exec`, npm's `sh -c` took the signal and died, and this process kept the port.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';

const root = path.resolve(import.meta.dirname, '..');

// The repository's `.env` (see `.env.example`), if there is one: a variable already set in the
// environment wins, so `PORT=9000 npm start` still does what it says.
const envFile = path.join(root, '.env');
if (fs.existsSync(envFile)) {
  process.loadEnvFile(envFile);
  console.log(`[start] read ${envFile}`);
}

/** Packages in build order, each with what its build reads and the file its build writes last. */
const packages = [
  {
    name: '@adam/contracts',
    dir: 'packages/contracts',
    inputs: ['src', 'tsconfig.json', 'package.json'],
    output: 'dist/index.js',
  },
  {
    name: '@adam/server',
    dir: 'packages/server',
    inputs: [
      'src',
      'tsconfig.build.json',
      'package.json',
      'scripts/bundle.mjs',
      'scripts/boot.cjs',
    ],
    // Written after the bundles (its code cache comes after it, or at the first start).
    output: 'dist/boot.cjs',
  },
  {
    name: '@adam/web',
    dir: 'packages/web',
    inputs: ['src', 'index.html', 'vite.config.ts', 'package.json', 'scripts'],
    output: 'dist/index.html',
  },
];

function newestMtime(p) {
  const st = fs.statSync(p, { throwIfNoEntry: false });
  if (!st) return 0;
  if (!st.isDirectory()) return st.mtimeMs;
  let newest = 0;
  for (const entry of fs.readdirSync(p))
    newest = Math.max(newest, newestMtime(path.join(p, entry)));
  return newest;
}

/**
 * Runs one package's build in its own process group: a SIGINT/SIGTERM received meanwhile stops
 * the whole build (npm, its shell, tsc or vite), not only npm, and then this process.
 */
function build(name) {
  return new Promise((resolve) => {
    const child = spawn('npm', ['run', 'build', '-w', name], {
      cwd: root,
      stdio: 'inherit',
      detached: true,
    });
    let signalled = null;
    const forward = (signal) => {
      signalled = signal;
      try {
        process.kill(-child.pid, signal);
      } catch {
        // already gone
      }
    };
    process.on('SIGINT', forward);
    process.on('SIGTERM', forward);
    child.on('exit', (code) => {
      process.off('SIGINT', forward);
      process.off('SIGTERM', forward);
      if (signalled) process.exit(1);
      resolve(code);
    });
  });
}

let upstreamRebuilt = false;
// ADAM_NO_BUILD=1 serves the builds as they are (parallel end-to-end runs with their own
// ADAM_WEB_DIST must not rebuild the shared dist folders under each other).
for (const pkg of process.env.ADAM_NO_BUILD === '1' ? [] : packages) {
  const dir = path.join(root, pkg.dir);
  const output = fs.statSync(path.join(dir, pkg.output), { throwIfNoEntry: false });
  const sources = Math.max(...pkg.inputs.map((i) => newestMtime(path.join(dir, i))));
  if (!output || output.mtimeMs < sources || upstreamRebuilt) {
    console.log(`[start] building ${pkg.name}...`);
    const status = await build(pkg.name);
    if (status !== 0) {
      console.error(`[start] build of ${pkg.name} failed`);
      process.exit(status ?? 1);
    }
    upstreamRebuilt = true;
  }
}

if (process.argv[2] === 'worker') {
  // `npm run worker`: the CLI reads its command ('worker') from process.argv.
  await import(path.join(root, 'packages/server/dist/cli.js'));
} else {
  // The main thread's CommonJS bundle with its code cache (boot.cjs); a build made before it
  // existed (ADAM_NO_BUILD=1) still has the ES module entry.
  const boot = path.join(root, 'packages/server/dist/boot.cjs');
  if (fs.existsSync(boot)) {
    await createRequire(import.meta.url)(boot).serveMain();
  } else {
    const { serve, configOrExit } = await import(path.join(root, 'packages/server/dist/main.js'));
    await serve(configOrExit());
  }
}
