/**
 * Runs the layout spec against a server already running (ADAM_LAYOUT_URL, default
 * http://127.0.0.1:8162), without starting the e2e fixtures and servers: for a look at a store
 * with real data. `ADAM_SHOTS=<dir>` saves the pictures.
 */
import { defineConfig } from '@playwright/test';
import base from '../playwright.config';

export default defineConfig({
  ...base,
  testDir: '.',
  testMatch: 'layout.spec.ts',
  projects: undefined,
  webServer: undefined,
  outputDir: '../test-results/layout',
  use: { ...base.use, baseURL: process.env.ADAM_LAYOUT_URL ?? 'http://127.0.0.1:8162' },
});
