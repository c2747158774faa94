import fs from 'node:fs';
import path from 'node:path';
import { expect, test, type Page } from '@playwright/test';
import * as OTPAuth from 'otpauth';
import { CHROMIUM } from '../playwright.config';
import { API_KEY_STORAGE_KEY, LOGGED_IN_STORAGE_KEY } from '../src/session/storage';

/** Outside CI, a machine without Debian's chromium skips the browser tests and says why. */
export function requireChromium(): void {
  test.skip(
    !fs.existsSync(CHROMIUM) && !process.env.CI,
    `Chromium not found at ${CHROMIUM}: install it with 'apt-get install chromium' to run the end-to-end tests`,
  );
}

export const ADMIN = { email: 'admin@example.com', password: 'admin' };

export async function fillLogin(page: Page, email = ADMIN.email, password = ADMIN.password) {
  await page.getByLabel('Email').fill(email);
  await page.getByLabel('Password', { exact: true }).fill(password);
  await page.getByRole('button', { name: 'Access Control Center' }).click();
}

/**
 * Opens `path` logged in as the admin. The session is made through the API and written where the
 * login screen writes it (the tab's sessionStorage), so a test of another screen loads the
 * console once instead of the login screen, the overview and then its screen; the login screen's
 * own tests go through it with fillLogin.
 */
export async function login(page: Page, path = '/dashboard/overview') {
  const response = await page.request.post('/api/v1/auth/login', { data: ADMIN });
  expect(response.status(), 'admin login').toBe(200);
  const { api_key: apiKey } = (await response.json()) as { api_key: string };
  // Any page of the origin gives the tab its sessionStorage; the health answer is the lightest.
  await page.goto('/api/v1/health');
  await page.evaluate(
    ([keyName, flagName, key]) => {
      sessionStorage.setItem(keyName, key);
      sessionStorage.setItem(flagName, 'true');
    },
    [API_KEY_STORAGE_KEY, LOGGED_IN_STORAGE_KEY, apiKey] as const,
  );
  await page.goto(path);
  // The dashboard's frame is drawn: the session was taken (a refused one shows the login screen).
  await expect(page.getByTestId('sidebar-footer')).toBeVisible();
}

export function totp(secret: string, at = Date.now()): string {
  return new OTPAuth.TOTP({
    secret: OTPAuth.Secret.fromBase32(secret),
    digits: 6,
    period: 30,
    algorithm: 'SHA1',
  }).generate({ timestamp: at });
}

export function toast(page: Page, text: string | RegExp) {
  return page.locator('.mantine-Notification-root').filter({ hasText: text });
}

/**
 * Full-page screenshots for a human look, only when asked: ADAM_SHOTS=1 writes them to
 * /tmp/shots, ADAM_SHOTS=<dir> to that folder.
 */
export async function shot(page: Page, name: string): Promise<void> {
  const setting = process.env.ADAM_SHOTS;
  if (!setting) return;
  const dir = setting === '1' ? '/tmp/shots' : setting;
  fs.mkdirSync(path.dirname(path.join(dir, name)), { recursive: true });
  // Let charts and lazy panels settle before the picture.
  await page.waitForTimeout(600);
  await page.screenshot({ path: path.join(dir, `${name}.png`), fullPage: true });
}

/** Calls the API as the logged-in console does (the session key from session storage). */
export async function pageApi<T>(page: Page, method: string, apiPath: string, body?: unknown) {
  const key = await page.evaluate(() => sessionStorage.getItem('adam.api_key') ?? '');
  const response = await page.request.fetch(`/api/v1${apiPath}`, {
    method,
    headers: { 'X-API-Key': key },
    data: body,
  });
  return { status: response.status(), body: (await response.json().catch(() => null)) as T };
}
