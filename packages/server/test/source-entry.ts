import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { entryModule, processArgs } from '../src/lib/entry-module.js';

const SRC_MAIN = pathToFileURL(path.resolve(import.meta.dirname, '..', 'src', 'main.ts')).href;

/**
 * `node` arguments that run src/<name>.ts: from the run's compiled copy of src/ when the global
 * setup made one (a second to start instead of several through tsx), else the source with tsx.
 */
export function adamNodeArgs(name: 'cli' | 'main'): string[] {
  return processArgs(entryModule(SRC_MAIN, `./${name}`));
}
