import os from 'node:os';
import { defineConfig } from 'vitest/config';
import { defaultClientConditions } from 'vite';
import react from '@vitejs/plugin-react';

// Timeouts are hang detectors, not races: every wait is on a condition, so a long bound only slows
// a test that fails. A jsdom screen test needs a second or two of CPU; on a 2-core machine at load
// 15–50 it gets a tenth of a core or less, so the bounds grow with the load seen at start (1× when
// idle, at most 8×). ADAM_TEST_TIME_SCALE overrides the factor.
const load = os.loadavg()[0]! / Math.max(1, os.availableParallelism());
const scale = Number(process.env.ADAM_TEST_TIME_SCALE) || Math.min(8, Math.max(1, Math.ceil(load)));

export default defineConfig({
  plugins: [react()],
  resolve: { conditions: ['adam-source', ...defaultClientConditions] },
  test: {
    environment: 'jsdom',
    setupFiles: ['./src/test/setup.ts'],
    include: ['src/**/*.test.{ts,tsx}'],
    css: false,
    restoreMocks: true,
    // vitest's default in a run is one worker per core less one: one on a 2-core machine.
    maxWorkers: Math.max(2, os.availableParallelism()),
    // Files share a worker's modules and jsdom: importing the app's graph again per file was most
    // of the suite's time. src/test/setup.ts resets what a file may leave behind.
    isolate: false,
    testTimeout: 60_000 * scale,
    hookTimeout: 60_000 * scale,
    // Read by src/test/setup.ts (inject) for testing-library's waits (findBy…, waitFor).
    provide: { timeScale: scale },
  },
});
