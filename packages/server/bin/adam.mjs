#!/usr/bin/env node
// `npx adam ...` from the repository root runs this file: npm links a workspace's bin into
// node_modules/.bin at install, and npx finds it there only if its target exists. dist/ does not
// exist in a fresh clone, so the link points here (committed) and this builds the server first
// when its build is missing or older than its sources, as `npm start` does.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

const server = path.resolve(import.meta.dirname, '..');
const root = path.resolve(server, '../..');
const cli = path.join(server, 'dist/cli.js');

function newestMtime(p) {
  const st = fs.statSync(p, { throwIfNoEntry: false });
  if (!st) return 0;
  if (!st.isDirectory()) return st.mtimeMs;
  let newest = 0;
  for (const entry of fs.readdirSync(p))
    newest = Math.max(newest, newestMtime(path.join(p, entry)));
  return newest;
}

const built = fs.statSync(cli, { throwIfNoEntry: false });
const sources = Math.max(
  newestMtime(path.join(server, 'src')),
  newestMtime(path.join(root, 'packages/contracts/src')),
);
if (!built || built.mtimeMs < sources) {
  // On stderr: a script reading the command's output (`adam backups`) gets only that.
  console.error('[adam] building the server first (its build is missing or older than src/)...');
  for (const name of ['@adam/contracts', '@adam/server']) {
    const r = spawnSync('npm', ['run', 'build', '-w', name], {
      cwd: root,
      stdio: ['ignore', process.stderr, 'inherit'],
    });
    if (r.status !== 0) {
      console.error(`[adam] build of ${name} failed`);
      process.exit(r.status ?? 1);
    }
  }
}

await import(cli);
