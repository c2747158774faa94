import { defineConfig } from 'vitest/config';
import { useRunTmpdir } from './test/run-tmpdir.js';
import { sourceResolution } from './vitest.source.js';

useRunTmpdir();

// `npm run test:reliability`: the fast checks (also in `npm test`) and the long ones (*.long.ts),
// one file at a time so each long check has the machine to itself, then the table of figures.
export default defineConfig({
  ...sourceResolution,
  test: {
    include: ['test/reliability/**/*.{test,long}.ts'],
    globalSetup: ['test/reliability/global-setup.ts'],
    fileParallelism: false,
    testTimeout: 600_000,
    hookTimeout: 120_000,
  },
});
