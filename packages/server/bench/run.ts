/**
 * Runs every bench in turn, each in its own process so its memory is released before the next.
 *
 *   npm run bench -w @adam/server              # all of them
 *   npm run bench -w @adam/server -- search    # those whose file name contains "search"
 *
 * Benches print figures and never assert on time; this exits non-zero only if one crashed.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { footer, machineLine, seconds, table } from './common.js';

/** Cheapest first; any other *.bench.ts found here runs after these. */
const ORDER = [
  'metrics-sampler',
  'relevance',
  'ingest',
  'list',
  'logs-query',
  'search',
  'embedder',
  'model-embedders',
];

const dir = import.meta.dirname;
const filter = process.argv[2];
const rank = (file: string) => {
  const i = ORDER.indexOf(file.replace(/\.bench\.ts$/, ''));
  return i < 0 ? ORDER.length : i;
};
const files = fs
  .readdirSync(dir)
  .filter((f) => f.endsWith('.bench.ts') && (!filter || f.includes(filter)))
  .sort((a, b) => rank(a) - rank(b) || a.localeCompare(b));

if (files.length === 0) {
  console.error(`No bench matches "${filter}".`);
  process.exit(1);
}

console.log(machineLine());
console.log(`benches: ${files.join(', ')}\n`);
const started = performance.now();

function runOne(file: string): Promise<{ code: number | null; ms: number }> {
  const t = performance.now();
  // Same node flags as this process (tsx's loader, --conditions=adam-source).
  const child = spawn(process.execPath, [...process.execArgv, path.join(dir, file)], {
    stdio: 'inherit',
  });
  return new Promise((resolve) => {
    child.on('close', (code) => resolve({ code, ms: performance.now() - t }));
  });
}

const results: { file: string; code: number | null; ms: number }[] = [];
for (const file of files) {
  console.log(`\n########## ${file}\n`);
  const r = await runOne(file);
  results.push({ file, ...r });
  if (r.code !== 0) console.log(`\n${file} exited with code ${r.code}`);
}

console.log('\n########## summary\n');
table(
  ['bench', 'time', 'result'],
  results.map((r) => [r.file, seconds(r.ms), r.code === 0 ? 'ok' : `exit ${r.code}`]),
);
footer(started);
process.exitCode = results.every((r) => r.code === 0) ? 0 : 1;
