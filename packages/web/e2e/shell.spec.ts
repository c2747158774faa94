import { expect, test } from '@playwright/test';
import { ADMIN, fillLogin, login, requireChromium, toast, totp } from './support';

requireChromium();
test.describe.configure({ mode: 'serial' });

test('logged out: dashboard paths redirect to the login screen, which shows the default credentials', async ({
  page,
}) => {
  await page.goto('/dashboard/settings/processing');
  await expect(page).toHaveURL(/\/$/);
  await expect(page.getByRole('button', { name: 'Access Control Center' })).toBeVisible();
  await expect(page.getByText(/admin@example\.com/).first()).toBeVisible();

  await page.goto('/some/other/path');
  await expect(page.getByRole('button', { name: 'Access Control Center' })).toBeVisible();
  // No 2FA field until the server asks for it.
  await expect(page.getByLabel('2FA Code')).toHaveCount(0);
});

test('login: a wrong password gets a toast, the right one opens the overview', async ({ page }) => {
  await page.goto('/');
  await fillLogin(page, ADMIN.email, 'wrong-password');
  await expect(toast(page, 'Invalid credentials')).toBeVisible();
  await expect(page).toHaveURL(/\/$/);

  await fillLogin(page);
  await expect(toast(page, 'Login successful!')).toBeVisible();
  await expect(page).toHaveURL(/\/dashboard\/overview$/);
});

test('logged in: redirect rules and the page-not-found screen', async ({ page }) => {
  await login(page, '/');
  await expect(page).toHaveURL(/\/dashboard\/overview$/);
  await page.goto('/anything/else');
  await expect(page).toHaveURL(/\/dashboard\/overview$/);
  await page.goto('/dashboard');
  await expect(page).toHaveURL(/\/dashboard\/overview$/);
  await page.goto('/dashboard/no/such/tab');
  await expect(page.getByText(/does not exist/i)).toBeVisible();
  await page.goto('/dashboard/agent2/control');
  await expect(page.getByText('Creativity Threshold')).toBeVisible();
  await expect(page.getByRole('button', { name: 'Apply Evolution Parameters' })).toBeVisible();
});

test('the realtime channel connects with the session key', async ({ page }) => {
  await login(page);
  await expect(page.getByLabel('Live updates')).toHaveText('connected');
});

test('sidebar: an expanded group stays expanded after a reload', async ({ page }) => {
  await login(page);
  const menu = page.getByRole('navigation', { name: /Agent 1/ });
  const processing = menu.getByRole('link', { name: 'Processing', exact: true });
  if (!(await processing.isVisible())) await menu.getByText('Settings', { exact: true }).click();
  await expect(processing).toBeVisible();
  await page.reload();
  await expect(
    page
      .getByRole('navigation', { name: /Agent 1/ })
      .getByRole('link', { name: 'Processing', exact: true }),
  ).toBeVisible();

  await page
    .getByRole('navigation', { name: /Agent 1/ })
    .getByText('Settings', { exact: true })
    .click();
  await expect(
    page
      .getByRole('navigation', { name: /Agent 1/ })
      .getByRole('link', { name: 'Processing', exact: true }),
  ).toBeHidden();
  await page.reload();
  await expect(
    page
      .getByRole('navigation', { name: /Agent 1/ })
      .getByRole('link', { name: 'Processing', exact: true }),
  ).toBeHidden();
});

test('processing settings: a change is saved on the server and shown after a reload', async ({
  page,
}) => {
  await login(page, '/dashboard/settings/processing');
  const batch = page.getByLabel('Batch Size');
  await expect(batch).toHaveValue('32');
  await expect(page.getByLabel('Dimension')).toHaveValue('384');
  await batch.fill('64');
  await page.getByRole('button', { name: 'Apply Processing Settings' }).click();
  await expect(toast(page, /saved/i)).toBeVisible();

  await page.reload();
  await expect(page.getByLabel('Batch Size')).toHaveValue('64');
  const saved = await page.evaluate(async () => {
    const key = sessionStorage.getItem('adam.api_key') ?? '';
    const r = await fetch('/api/v1/admin/settings/processing', { headers: { 'X-API-Key': key } });
    return (await r.json()) as { embedding_batch_size: number };
  });
  expect(saved.embedding_batch_size).toBe(64);
});

test('logout returns to the login screen and closes the dashboard', async ({ page }) => {
  await login(page);
  await page
    .getByRole('button', { name: /logout/i })
    .first()
    .click();
  await expect(page.getByRole('button', { name: 'Access Control Center' })).toBeVisible();
  await page.goto('/dashboard/overview');
  await expect(page).toHaveURL(/\/$/);
});

// Last: it leaves 2FA on for the admin of this run's fresh data directory.
test('two-factor: enabled on the Security screen, then required at login', async ({ page }) => {
  await login(page, '/dashboard/settings/security');
  await page.getByRole('button', { name: /enable two-factor/i }).click();
  const secretText = page.getByTestId('totp-secret');
  await expect(secretText).toBeVisible();
  const secret = ((await secretText.textContent()) ?? '').replace(/\s+/g, '');
  expect(secret).toMatch(/^[A-Z2-7]{16,}$/);
  await expect(page.getByRole('img', { name: /QR code/i })).toBeVisible();
  await page.getByLabel('Authentication Code').fill(totp(secret));
  await page.getByRole('button', { name: /confirm|verify|activate/i }).click();
  await expect(page.getByText(/two-factor authentication is (on|enabled)/i).first()).toBeVisible();

  await page
    .getByRole('button', { name: /logout/i })
    .first()
    .click();
  await fillLogin(page);
  await expect(
    toast(page, 'Two-factor authentication required. Please enter your 2FA code.'),
  ).toBeVisible();
  const code = page.getByLabel('2FA Code');
  await expect(code).toBeVisible();
  await code.fill('000000');
  await page.getByRole('button', { name: 'Access Control Center' }).click();
  await expect(toast(page, 'Invalid 2FA code')).toBeVisible();
  // The enabling code's time step is spent; the next step's code is valid now too.
  await code.fill(totp(secret, Date.now() + 30_000));
  await page.getByRole('button', { name: 'Access Control Center' }).click();
  await expect(page).toHaveURL(/\/dashboard\/overview$/);
});
