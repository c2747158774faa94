// The server's start file (`npm start`, `node dist/boot.cjs`): loads main.cjs, the main thread's
// CommonJS bundle, through vm.Script with the V8 code cache the build made beside it
// (main.cjs.cache), so a start skips most of compiling the bundle. V8 itself checks the cache
// (its version, its flags, the source) and compiles as usual when it does not fit.
//
//   node boot.cjs                      serve (as `node main.js` does)
//   node boot.cjs --write-code-cache   load main.cjs without serving, write main.cjs.cache
//   require('./boot.cjs').loadMain()   main.cjs's exports (and whether the cache was taken)
'use strict';
/* eslint-disable @typescript-eslint/no-require-imports -- CommonJS on purpose: vm.Script with a code cache runs CommonJS only */
const fs = require('node:fs');
const path = require('node:path');
const vm = require('node:vm');
const Module = require('node:module');

const mainFile = path.join(__dirname, 'main.cjs');
const cacheFile = `${mainFile}.cache`;

/** @returns {{ exports: any, script: vm.Script, cache: 'taken' | 'rejected' | 'none' }} */
function loadMain() {
  const source = fs.readFileSync(mainFile, 'utf8');
  let cachedData;
  try {
    cachedData = fs.readFileSync(cacheFile);
  } catch {
    cachedData = undefined;
  }
  const script = new vm.Script(Module.wrap(source), {
    filename: mainFile,
    cachedData,
    // The bundle's import() calls (swagger, at route building) load as from a module file.
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
  return { exports: mod.exports, script, cache };
}

module.exports = { loadMain };

if (require.main === module) {
  if (process.argv[2] === '--write-code-cache') {
    fs.rmSync(cacheFile, { force: true });
    const { script } = loadMain();
    // Written whole then renamed: a start never reads half a cache.
    fs.writeFileSync(`${cacheFile}.tmp`, script.createCachedData());
    fs.renameSync(`${cacheFile}.tmp`, cacheFile);
  } else {
    const { serve, configOrExit } = loadMain().exports;
    serve(configOrExit()).catch((e) => {
      console.error(e);
      process.exit(1);
    });
  }
}
