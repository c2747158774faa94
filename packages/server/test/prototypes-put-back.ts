/**
 * Setup file of the integration tier, whose files share a worker's modules (isolate: false): a
 * method a file replaces on a class's prototype and leaves there is what the next file's servers
 * run (export-thread's all-zero LiveIndex.reconcile once answered snippets.test's refresh). Each
 * file ends by checking the prototypes tests patch are as it found them: one that is not fails
 * that file, naming the method, and is put back so no later file runs it.
 */
import { afterAll } from 'vitest';
import { LiveIndex } from '../src/services/index/live-index.js';
import { SnippetImporter } from '../src/services/snippet-importer.js';
import { SnippetRepository } from '../src/store/snippet.repository.js';

/** The classes whose prototypes integration tests patch (the servers of later files use them). */
const PATCHED: Record<string, { prototype: object }> = {
  LiveIndex,
  SnippetImporter,
  SnippetRepository,
};

const snapshot = () =>
  Object.entries(PATCHED).map(([name, c]) => ({
    name,
    proto: c.prototype,
    props: Object.getOwnPropertyDescriptors(c.prototype),
  }));

const found = snapshot();

afterAll(() => {
  const changed: string[] = [];
  for (const { name, proto, props } of found) {
    const now = Object.getOwnPropertyDescriptors(proto);
    for (const key of new Set([...Object.keys(props), ...Object.keys(now)])) {
      const was = props[key];
      const is = now[key];
      if (was?.value === is?.value && was?.get === is?.get && was?.set === is?.set) continue;
      changed.push(`${name}.prototype.${key}`);
      if (was) Object.defineProperty(proto, key, was);
      else delete (proto as Record<string, unknown>)[key];
    }
  }
  if (changed.length) {
    throw new Error(
      `Left patched by this file (put back now; files share a worker's modules): ${changed.join(', ')}`,
    );
  }
});
