// `npm start` (and `npm run worker`): builds whatever is missing or older than its sources, then
// serves API + console (or runs a Redis-mode worker).
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

const root = path.resolve(import.meta.dirname, '..');

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
    inputs: ['src', 'tsconfig.build.json', 'package.json'],
    output: 'dist/main.js',
  },
  {
    name: '@adam/web',
    dir: 'packages/web',
    inputs: ['src', 'index.html', 'vite.config.ts', 'package.json'],
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

let upstreamRebuilt = false;
// ADAM_NO_BUILD=1 serves the builds as they are (parallel end-to-end runs with their own
// ADAM_WEB_DIST must not rebuild the shared dist folders under each other).
for (const pkg of process.env.ADAM_NO_BUILD === '1' ? [] : packages) {
  const dir = path.join(root, pkg.dir);
  const output = fs.statSync(path.join(dir, pkg.output), { throwIfNoEntry: false });
  const sources = Math.max(...pkg.inputs.map((i) => newestMtime(path.join(dir, i))));
  if (!output || output.mtimeMs < sources || upstreamRebuilt) {
    console.log(`[start] building ${pkg.name}...`);
    const r = spawnSync('npm', ['run', 'build', '-w', pkg.name], { cwd: root, stdio: 'inherit' });
    if (r.status !== 0) {
      console.error(`[start] build of ${pkg.name} failed`);
      process.exit(r.status ?? 1);
    }
    upstreamRebuilt = true;
  }
}

if (process.argv[2] === 'worker') {
  // `npm run worker`: the CLI reads its command ('worker') from process.argv.
  await import(path.join(root, 'packages/server/dist/cli.js'));
} else {
  const { serve, configOrExit } = await import(path.join(root, 'packages/server/dist/main.js'));
  await serve(configOrExit());
}
