import os from 'node:os';
import { defineConfig } from 'vitest/config';
import { useRunTmpdir } from './test/run-tmpdir.js';
import { sourceResolution } from './vitest.source.js';

useRunTmpdir();

/**
 * Tests that sit next to their code but are not unit tests by the tier's rule: they start ONNX
 * or embedder worker threads, load a model, or run a real index switch. They were most of the
 * unit tier's time; the integration tier runs them.
 */
const HEAVY_IN_SRC = [
  'src/embedding/onnx-embedder.test.ts',
  'src/embedding/onnx-runtime.test.ts',
  'src/embedding/onnx-reranker.test.ts',
  'src/embedding/embedder-pool.test.ts',
  'src/embedding/builtin-embedder.test.ts',
  'src/services/index.service.switch.test.ts',
];

/** Integration files that replace a module with vi.mock: they cannot share a worker's modules. */
const MOCKS_MODULES = ['test/startup-order.test.ts'];

const INTEGRATION_WORKERS = os.availableParallelism() + 1;

export default defineConfig({
  ...sourceResolution,
  test: {
    // Hang detectors, not races: waits are on conditions, so a long bound only slows a failure.
    // A loaded 2-core machine gives a test a small share of a core: with a CPU burner per core,
    // the OpenAPI fuzzing took over two minutes.
    testTimeout: 600_000,
    hookTimeout: 600_000,
    // Two tiers: `npm run test:unit` runs the first alone, `npm test` both.
    projects: [
      {
        extends: true,
        // Next to the code, with fakes or a temporary SQLite: no server, no model, no thread.
        // CPU-bound, so one worker per core; files share a worker's module cache (no module
        // state crosses files here, and importing the graph again per file was a third of the
        // tier's time).
        test: {
          name: 'unit',
          include: ['src/**/*.test.ts'],
          exclude: HEAVY_IN_SRC,
          maxWorkers: os.availableParallelism(),
          isolate: false,
          // Groups run one after the other: the unit tier first, then the integration tier.
          sequence: { groupOrder: 0 },
        },
      },
      {
        extends: true,
        // Real servers, processes, threads and models; they share one converted model.
        test: {
          name: 'integration',
          include: ['test/**/*.test.ts', ...HEAVY_IN_SRC],
          exclude: MOCKS_MODULES,
          globalSetup: ['test/global-setup.ts'],
          // Files share a worker's modules (below): each checks it put back what it patched.
          setupFiles: ['test/prototypes-put-back.ts'],
          // Mostly waiting on servers, processes and sockets: one file more than cores keeps them
          // busy (vitest's default in a run is one worker per core less one: one on two cores).
          maxWorkers: INTEGRATION_WORKERS,
          // Files share a worker's modules: importing the server's graph again per file was an
          // eighth of the tier's time. Every server, index and thread is per test; nothing in
          // src/ keeps state across servers but caches of loaded modules.
          isolate: false,
          sequence: { groupOrder: 1 },
        },
      },
      {
        extends: true,
        // The integration files that replace a module (vi.mock) get modules of their own.
        test: {
          name: 'integration-isolated',
          include: MOCKS_MODULES,
          globalSetup: ['test/global-setup.ts'],
          maxWorkers: INTEGRATION_WORKERS,
          sequence: { groupOrder: 1 },
        },
      },
    ],
  },
});
