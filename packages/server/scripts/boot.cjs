// The server's start file (`npm start`, `node dist/boot.cjs`): loads main.cjs, the main thread's
// CommonJS bundle, through vm.Script with a V8 code cache beside it, so a start skips most of
// compiling the bundle. The build makes the cache; V8 checks it (its version, its flags, the
// source's length) and compiles as usual when it does not fit, e.g. under other flags
// (NODE_OPTIONS=--max-old-space-size=...): the server then writes one for them once it listens.
// The cache's name holds main.cjs's size and time, so a changed bundle never meets an old cache.
//
//   node boot.cjs                      serve (as `node main.js` does)
//   node boot.cjs --write-code-cache   load main.cjs without serving, write its cache
//   require('./boot.cjs').serveMain()  serve (scripts/start.mjs)
//   require('./boot.cjs').loadMain()   main.cjs's exports, and whether the cache was taken
'use strict';
/* eslint-disable @typescript-eslint/no-require-imports -- CommonJS on purpose: vm.Script with a code cache runs CommonJS only */
const fs = require('node:fs');
const path = require('node:path');
const vm = require('node:vm');
const Module = require('node:module');
const crypto = require('node:crypto');

const mainFile = path.join(__dirname, 'main.cjs');

/** main.cjs's cache file: named by Node's version and platform and this main.cjs's size and time. */
function cacheFileOf(stat) {
  const key = crypto
    .createHash('sha256')
    .update([process.version, process.arch, process.platform, stat.size, stat.mtimeMs].join('\n'))
    .digest('hex')
    .slice(0, 16);
  return `${mainFile}.${key}.cache`;
}

/**
 * @returns {{ exports: any, script: vm.Script, cacheFile: string, cache: 'taken' | 'rejected' | 'none' }}
 */
function loadMain() {
  const source = fs.readFileSync(mainFile, 'utf8');
  const cacheFile = cacheFileOf(fs.statSync(mainFile));
  let cachedData;
  try {
    cachedData = fs.readFileSync(cacheFile);
  } catch {
    cachedData = undefined;
  }
  const script = new vm.Script(Module.wrap(source), {
    filename: mainFile,
    cachedData,
    // The build turns main.cjs's import() into require() (a script from the cache loses this
    // callback); kept for an import() that would slip in, which then works without a cache.
    importModuleDynamically: vm.constants.USE_MAIN_CONTEXT_DEFAULT_LOADER,
  });
  const mod = new Module(mainFile, module);
  mod.filename = mainFile;
  mod.paths = Module._nodeModulePaths(__dirname);
  const wrapper = script.runInThisContext({ displayErrors: true });
  wrapper.call(mod.exports, mod.exports, Module.createRequire(mainFile), mod, mainFile, __dirname);
  mod.loaded = true;
  const cache =
    cachedData === undefined ? 'none' : script.cachedDataRejected ? 'rejected' : 'taken';
  return { exports: mod.exports, script, cacheFile, cache };
}

/** Written whole, then renamed: a start never reads half a cache, two writers never mix. */
function writeCache(script, cacheFile) {
  const tmp = `${cacheFile}.${process.pid}.tmp`;
  fs.writeFileSync(tmp, script.createCachedData());
  fs.renameSync(tmp, cacheFile);
}

/** Serves; a cache that was missing or did not fit is written once the server listens. */
async function serveMain() {
  const { exports, script, cacheFile, cache } = loadMain();
  await exports.serve(exports.configOrExit());
  if (cache === 'taken') return;
  setImmediate(() => {
    try {
      writeCache(script, cacheFile);
    } catch {
      // A read-only install: every start compiles, as without a cache.
    }
  });
}

module.exports = { loadMain, serveMain };

if (require.main === module) {
  if (process.argv[2] === '--write-code-cache') {
    for (const name of fs.readdirSync(__dirname)) {
      if (name.startsWith('main.cjs.') && name.endsWith('.cache'))
        fs.rmSync(path.join(__dirname, name));
    }
    const { script, cacheFile } = loadMain();
    writeCache(script, cacheFile);
  } else {
    serveMain().catch((e) => {
      console.error(e);
      process.exit(1);
    });
  }
}
