import { expect, test, type Page } from '@playwright/test';
import { FIXTURE_SITE_URL } from './fixtures';
import { login, pageApi, requireChromium, shot } from './support';

/**
 * Logs Système against a real server. The lines come from what the server really logs: the e2e
 * servers keep warnings and errors (ADAM_LOG_LEVEL=warn), so the tests cause warnings — jobs
 * whose only URL answers 404 fail ('Job N (process_urls) failed: ...') and wrong passwords are
 * refused ('Failed login for ...').
 */

requireChromium();
test.describe.configure({ mode: 'serial' });

const LOGS = '/dashboard/monitoring/logs';
/** One more failed job than a page holds (spec 001 §9: 20 lines a page). */
const FAILED_JOBS = 21;

const rows = (page: Page) => page.getByTestId('log-row');
const messageOf = (page: Page, i: number) => rows(page).nth(i).getByRole('cell').nth(3);

async function messages(page: Page): Promise<string[]> {
  return rows(page).evaluateAll((trs) =>
    trs.map((tr) => tr.querySelectorAll('td')[3]?.querySelector('p')?.textContent ?? ''),
  );
}

/** A refused login: the server logs a warning naming the e-mail. */
async function failLogin(page: Page, email: string) {
  const response = await page.request.post('/api/v1/auth/login', {
    headers: { 'X-Requested-With': 'adam-console' },
    data: { email, password: 'not-the-password' },
  });
  expect(response.status()).toBe(401);
}

test('pages through the lines: Next shows page 2 with older lines, Previous returns', async ({
  page,
}) => {
  await login(page);
  const run = Date.now();
  const ids: number[] = [];
  for (let i = 0; i < FAILED_JOBS; i++) {
    const { status, body } = await pageApi<{ job_id: number }>(page, 'POST', '/sources/process', {
      urls: [`${FIXTURE_SITE_URL}/status/404?logs=${run}-${i}`],
    });
    expect(status).toBe(200);
    ids.push(body.job_id);
  }
  for (const id of ids) {
    await expect
      .poll(
        async () =>
          (await pageApi<{ status: string }>(page, 'GET', `/sources/jobs/${id}`)).body.status,
        { timeout: 60_000 },
      )
      .toBe('failed');
  }

  await page.goto(LOGS);
  await expect(page.getByRole('heading', { name: 'Logs Système' })).toBeVisible();
  await expect(page.getByText('Page 1', { exact: true })).toBeVisible();
  await expect(rows(page)).toHaveCount(20);
  await expect(messageOf(page, 0)).toContainText(/Job \d+ \(process_urls\) failed/);
  await expect(page.getByRole('button', { name: 'Previous' })).toBeDisabled();
  await shot(page, 'logs-page-1');
  const first = await messages(page);

  await page.getByRole('button', { name: 'Next' }).click();
  await expect(page.getByText('Page 2', { exact: true })).toBeVisible();
  await expect(page.getByRole('button', { name: 'Previous' })).toBeEnabled();
  await expect(rows(page).first()).toBeVisible();
  // Page 2 holds older lines, none of those page 1 showed.
  await expect
    .poll(async () => (await messages(page)).filter((m) => first.includes(m)))
    .toEqual([]);
  expect((await messages(page)).length).toBeGreaterThan(0);

  await page.getByRole('button', { name: 'Previous' }).click();
  await expect(page.getByText('Page 1', { exact: true })).toBeVisible();
  await expect(rows(page)).toHaveCount(20);
  await expect(page.getByRole('button', { name: 'Previous' })).toBeDisabled();
});

test('a search narrows the rows to the matching lines', async ({ page }) => {
  await login(page);
  // Unique to this run, so a retry finds only its own lines.
  const token = `seeker${Date.now()}`;
  await failLogin(page, `${token}-a@example.test`);
  await failLogin(page, `${token}-b@example.test`);
  await failLogin(page, `bystander${Date.now()}@example.test`);

  await page.goto(LOGS);
  await expect(rows(page).first()).toBeVisible();
  await expect
    .poll(async () => (await messages(page)).some((m) => m.includes('bystander')))
    .toBe(true);

  const search = page.getByRole('textbox', { name: 'Search' });
  await search.fill(token);
  await search.press('Enter');
  await expect(rows(page)).toHaveCount(2);
  const found = await messages(page);
  expect(found.every((m) => m.startsWith('Failed login for ') && m.includes(token))).toBe(true);
  expect(found.join('\n')).toContain(`${token}-a@example.test`);
  expect(found.join('\n')).toContain(`${token}-b@example.test`);
  await expect(page.getByText('Page 1', { exact: true })).toBeVisible();
  await expect(page.getByRole('button', { name: 'Next' })).toBeDisabled();
  await shot(page, 'logs-search');

  await search.fill(`${token}-nothing`);
  await search.press('Enter');
  await expect(page.getByText('Aucun log pour la période sélectionnée')).toBeVisible();
});
