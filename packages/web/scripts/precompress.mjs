// Run after `vite build`: writes NAME.br and NAME.gz beside each compressible file of the build,
// which the server sends to browsers that accept them (@fastify/static's preCompressed), so no
// request pays for compression. `node scripts/precompress.mjs [dist]`.
import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';

const COMPRESSIBLE = /\.(?:js|mjs|css|html|json|svg|txt|xml|webmanifest)$/;
// Below this a compressed copy saves less than its headers and its file cost.
const MIN_BYTES = 1024;

const dist = path.resolve(process.cwd(), process.argv[2] ?? 'dist');

function* files(dir) {
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, entry.name);
    if (entry.isDirectory()) yield* files(p);
    else if (entry.isFile()) yield p;
  }
}

let raw = 0;
let br = 0;
let gz = 0;
let count = 0;
for (const file of files(dist)) {
  if (!COMPRESSIBLE.test(file)) continue;
  const buf = fs.readFileSync(file);
  if (buf.length < MIN_BYTES) continue;
  const brotli = zlib.brotliCompressSync(buf, {
    params: {
      [zlib.constants.BROTLI_PARAM_QUALITY]: zlib.constants.BROTLI_MAX_QUALITY,
      [zlib.constants.BROTLI_PARAM_SIZE_HINT]: buf.length,
    },
  });
  const gzip = zlib.gzipSync(buf, { level: zlib.constants.Z_BEST_COMPRESSION });
  // A copy is kept only when smaller: otherwise the plain file is the better answer.
  if (brotli.length < buf.length) fs.writeFileSync(`${file}.br`, brotli);
  if (gzip.length < buf.length) fs.writeFileSync(`${file}.gz`, gzip);
  raw += buf.length;
  br += Math.min(brotli.length, buf.length);
  gz += Math.min(gzip.length, buf.length);
  count++;
}
const kb = (n) => `${(n / 1024).toFixed(1)} kB`;
console.log(
  `precompressed ${count} files in ${path.relative(process.cwd(), dist) || '.'}: ${kb(raw)} → brotli ${kb(br)}, gzip ${kb(gz)}`,
);
