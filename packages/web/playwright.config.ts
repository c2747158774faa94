import path from 'node:path';
import { defineConfig } from '@playwright/test';
import { E2E_APP_PORT as PORT } from './e2e/fixtures';

// Debian's chromium; the e2e specs skip with a message when it is missing outside CI.
export const CHROMIUM = process.env.ADAM_E2E_CHROMIUM ?? '/usr/bin/chromium';
const root = path.resolve(import.meta.dirname, '..', '..');
// Per port, so two suites on two ports never share a store.
const dataDir = path.join(import.meta.dirname, `.e2e-data-${PORT}`);

export default defineConfig({
  testDir: './e2e',
  // Per port too: a run clears its output folder, which must not be another run's.
  outputDir: path.join(import.meta.dirname, 'test-results', String(PORT)),
  fullyParallel: false,
  workers: 1,
  retries: process.env.CI ? 1 : 0,
  timeout: 60_000,
  expect: { timeout: 10_000 },
  reporter: process.env.CI ? [['list']] : [['list']],
  use: {
    baseURL: `http://127.0.0.1:${PORT}`,
    browserName: 'chromium',
    headless: true,
    viewport: { width: 1400, height: 900 },
    launchOptions: {
      executablePath: CHROMIUM,
      args: [
        '--headless',
        '--no-sandbox',
        '--disable-gpu',
        '--disable-background-networking',
        '--disable-component-update',
        '--disable-sync',
        '--no-first-run',
      ],
    },
    trace: 'retain-on-failure',
  },
  webServer: {
    // `npm start`'s script (builds whatever is missing, then serves API + console) beside a
    // local fixture site and a fake encyclopedia.
    command: `rm -rf "${dataDir}" && "${path.join(root, 'node_modules', '.bin', 'tsx')}" "${path.join(import.meta.dirname, 'e2e', 'serve.ts')}"`,
    url: `http://127.0.0.1:${PORT}/api/v1/health`,
    reuseExistingServer: false,
    timeout: 240_000,
    stdout: 'ignore',
    stderr: 'pipe',
    env: {
      PORT: String(PORT),
      HOST: '127.0.0.1',
      ADAM_DATA_DIR: dataDir,
      ADAM_LOG_LEVEL: 'warn',
    },
  },
});
