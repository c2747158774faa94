import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const SELF = import.meta.url;

/**
 * A compiled copy of src/ that threads and child processes started from the sources load
 * instead of the .ts files; the test run sets it (test/global-setup.ts). Read here rather than
 * in config.ts: every thread module reaches this file, and config.ts loads zod.
 */
export function compiledSourcesDir(): string | undefined {
  return process.env.ADAM_COMPILED_SOURCES || undefined;
}
/** Running from the .ts sources (vitest, tsx, `npm run dev`) rather than the compiled build. */
const SOURCE_MODE = SELF.endsWith('.ts');
const SRC_ROOT = fileURLToPath(new URL('../', SELF));

/**
 * A compiled copy of src/ (scripts/bundle.mjs) that threads and child processes started from the
 * sources load instead: the test run makes one (test/global-setup.ts), so each thread of its
 * hundreds of servers loads compiled modules rather than compiling the sources again through
 * tsx's loader (about 2 s of CPU per thread).
 */
function compiledSources(): string | undefined {
  return SOURCE_MODE ? compiledSourcesDir() : undefined;
}

/** Node's flags that load a .ts entry: tsx's loader and the sources' export condition. */
function sourceLoaderFlags(): string[] {
  return [
    '--import',
    pathToFileURL(createRequire(SELF).resolve('tsx')).href,
    '--conditions=adam-source',
  ];
}

export interface EntryModule {
  /** The module's file: a .ts source, or a compiled .js. */
  filename: string;
  /** The Node flags it needs, or undefined when it runs as it is (compiled). */
  loaderFlags: string[] | undefined;
}

/**
 * The module a thread or a child process starts from, named from the caller's folder without
 * its extension (`'../engine/analyze.worker'`), in the caller's own form: compiled .js next to
 * compiled code, the .ts source (with tsx's loader) next to sources, or its copy in the compiled
 * sources when a run made them.
 */
export function entryModule(callerUrl: string, relative: string): EntryModule {
  if (!callerUrl.endsWith('.ts')) {
    return {
      filename: fileURLToPath(new URL(`${relative}.js`, callerUrl)),
      loaderFlags: undefined,
    };
  }
  const source = fileURLToPath(new URL(`${relative}.ts`, callerUrl));
  const compiled = compiledSources();
  if (compiled) {
    const rel = path.relative(SRC_ROOT, source).replace(/\.ts$/, '.js');
    return { filename: path.join(compiled, rel), loaderFlags: undefined };
  }
  return { filename: source, loaderFlags: sourceLoaderFlags() };
}

/** `node` arguments that run an entry module as a process: its loader flags, then the file. */
export function processArgs(entry: EntryModule): string[] {
  return [...(entry.loaderFlags ?? []), entry.filename];
}

/**
 * The file a piscina pool loads for a thread module: compiled, its CommonJS door beside it (made
 * by scripts/bundle.mjs; piscina's require() of an ES module could abort the process in Node 20);
 * from the sources, the .ts itself with tsx's loader.
 */
export function threadEntry(callerUrl: string, relative: string): EntryModule {
  const entry = entryModule(callerUrl, relative);
  return entry.loaderFlags
    ? entry
    : { ...entry, filename: entry.filename.replace(/\.js$/, '.cjs') };
}
