// Prints the built console's JavaScript and CSS sizes, raw and gzip: first the files the first
// screen loads (those index.html references), then every lazy chunk. `npm run size -w @adam/web`
// after a build.
import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';

const dist = path.resolve(import.meta.dirname, '..', process.argv[2] ?? 'dist');
const html = fs.readFileSync(path.join(dist, 'index.html'), 'utf8');
const initial = new Set(
  [...html.matchAll(/(?:src|href)="\/?(assets\/[^"]+\.(?:js|css))"/g)].map((m) => m[1]),
);
const files = fs
  .readdirSync(path.join(dist, 'assets'))
  .filter((f) => /\.(js|css)$/.test(f))
  .map((f) => {
    const buf = fs.readFileSync(path.join(dist, 'assets', f));
    return { file: `assets/${f}`, raw: buf.length, gzip: zlib.gzipSync(buf, { level: 9 }).length };
  })
  .sort((a, b) => b.raw - a.raw);

const kb = (n) => `${(n / 1024).toFixed(1)} kB`;
const row = (f) => `  ${f.file.padEnd(52)} ${kb(f.raw).padStart(10)} ${kb(f.gzip).padStart(10)}`;
const sum = (list, key) => list.reduce((s, f) => s + f[key], 0);

const first = files.filter((f) => initial.has(f.file));
const lazy = files.filter((f) => !initial.has(f.file));
console.log(
  `${'first screen (index.html)'.padEnd(54)} ${'raw'.padStart(10)} ${'gzip'.padStart(10)}`,
);
first.forEach((f) => console.log(row(f)));
console.log(
  `  ${'total'.padEnd(52)} ${kb(sum(first, 'raw')).padStart(10)} ${kb(sum(first, 'gzip')).padStart(10)}`,
);
console.log(`lazy chunks (${lazy.length})`);
lazy.forEach((f) => console.log(row(f)));
console.log(
  `  ${'total'.padEnd(52)} ${kb(sum(lazy, 'raw')).padStart(10)} ${kb(sum(lazy, 'gzip')).padStart(10)}`,
);
