import path from 'node:path';
import { defineConfig } from '@playwright/test';

// Debian's chromium; the e2e specs skip with a message when it is missing outside CI.
export const CHROMIUM = process.env.ADAM_E2E_CHROMIUM ?? '/usr/bin/chromium';
const PORT = Number(process.env.ADAM_E2E_PORT ?? 8123);
const root = path.resolve(import.meta.dirname, '..', '..');
const dataDir = path.join(import.meta.dirname, '.e2e-data');

export default defineConfig({
  testDir: './e2e',
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
    // `npm start`'s script: builds whatever is missing, then serves API + console.
    command: `rm -rf "${dataDir}" && node "${path.join(root, 'scripts', 'start.mjs')}"`,
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
