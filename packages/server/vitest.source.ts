import fs from 'node:fs';
import path from 'node:path';

/**
 * The test configs' module resolution: the workspace's packages from their TypeScript sources
 * (the `adam-source` condition), so `npm test` on a fresh clone needs no build. The condition
 * alone does not reach vitest's global setup files (vitest-dev/vitest#9429), which import src/:
 * each `@adam/contracts` entry is also an alias to its source file, read from the package's
 * `exports`.
 */
const contractsRoot = path.resolve(import.meta.dirname, '../contracts');
const contractsExports = JSON.parse(
  fs.readFileSync(path.join(contractsRoot, 'package.json'), 'utf8'),
) as { exports: Record<string, { 'adam-source': string }> };

const contractsAliases = Object.entries(contractsExports.exports).map(([subpath, entry]) => ({
  // '.' → '@adam/contracts', './constants' → '@adam/contracts/constants'
  find: new RegExp(`^@adam/contracts${subpath.slice(1).replaceAll('/', '\\/')}$`),
  replacement: path.join(contractsRoot, entry['adam-source']),
}));

export const sourceResolution = {
  resolve: { conditions: ['adam-source'], alias: contractsAliases },
  ssr: { resolve: { conditions: ['adam-source'] } },
};
