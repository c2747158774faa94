import fs from 'node:fs';
import path from 'node:path';
import { defineConfig } from '@playwright/test';
import {
  E2E_BASE_PORT,
  FIXTURE_SITE_URL,
  SERVERS_READY_URL,
  selectedSuites,
  suitePort,
} from './e2e/fixtures';

// Debian's chromium; the e2e specs skip with a message when it is missing outside CI.
export const CHROMIUM = process.env.ADAM_E2E_CHROMIUM ?? '/usr/bin/chromium';
export const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
] as const;
// The list reporter marks skipped tests without their reason: say it once.
if (!fs.existsSync(CHROMIUM) && !process.env.CI && !process.env.TEST_WORKER_INDEX) {
  console.warn(
    `End-to-end tests skipped: Chromium not found at ${CHROMIUM}; install it with 'apt-get install chromium'`,
  );
}
const root = path.resolve(import.meta.dirname, '..', '..');
const tsx = path.join(root, 'node_modules', '.bin', 'tsx');
// ADAM_E2E_ONLY=snippets,shell starts and runs only those suites.
const suites = selectedSuites();

export default defineConfig({
  testDir: './e2e',
  // Per port: a run clears its output folder, which must not be another run's.
  outputDir: path.join(import.meta.dirname, 'test-results', String(E2E_BASE_PORT)),
  fullyParallel: false,
  workers: 1,
  retries: process.env.CI ? 1 : 0,
  timeout: 60_000,
  expect: { timeout: 10_000 },
  reporter: [['list']],
  // One project per spec file, each against its own server.
  projects: suites.map((suite) => ({
    name: suite,
    testMatch: `${suite}.spec.ts`,
    use: { baseURL: `http://127.0.0.1:${suitePort(suite)}` },
  })),
  use: {
    browserName: 'chromium',
    headless: true,
    viewport: { width: 1400, height: 900 },
    launchOptions: {
      executablePath: CHROMIUM,
      args: [...CHROMIUM_ARGS],
    },
    // Recording a trace (a screencast and a DOM snapshot per action) was a third of the run's
    // CPU: in CI only a retry records one, so a failure still comes with its trace.
    trace: process.env.CI ? 'on-first-retry' : 'retain-on-failure',
  },
  // The fixtures, then every suite's server side by side (e2e/start-servers.ts).
  webServer: [
    {
      command: `"${tsx}" "${path.join(import.meta.dirname, 'e2e', 'fixtures-server.ts')}"`,
      url: `${FIXTURE_SITE_URL}/`,
      reuseExistingServer: false,
      timeout: 60_000,
      stdout: 'ignore',
      stderr: 'pipe',
    },
    {
      command: `"${tsx}" "${path.join(import.meta.dirname, 'e2e', 'start-servers.ts')}"`,
      url: SERVERS_READY_URL,
      reuseExistingServer: false,
      timeout: 240_000,
      stdout: 'ignore',
      stderr: 'pipe',
    },
  ],
});
