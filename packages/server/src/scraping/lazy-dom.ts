import { createRequire } from 'node:module';
import type * as Linkedom from 'linkedom';
import type * as ReadabilityModule from '@mozilla/readability';

// linkedom and readability take ~0.25 s of CPU to load and only the engine's threads parse
// pages: they load at their first use (synchronously, from their CommonJS builds), not on the
// server's thread while it starts.
const load = createRequire(import.meta.url);
let linkedom: typeof Linkedom | undefined;
let readability: typeof ReadabilityModule | undefined;

export const parseHTML: typeof Linkedom.parseHTML = (...args) =>
  (linkedom ??= load('linkedom') as typeof Linkedom).parseHTML(...args);

export function readabilityModule(): typeof ReadabilityModule {
  return (readability ??= load('@mozilla/readability') as typeof ReadabilityModule);
}
