import { expect, test } from '@playwright/test';
import { FIXTURE_SITE_URL } from './fixtures';
import { login, requireChromium, toast } from './support';

requireChromium();

/**
 * The operator's whole path through the pipeline, screen to screen by the console's own links:
 * add sources → watch the job live → browse its snippets → open one → delete it.
 */
test('add sources, follow the job live, browse its snippets, open one and delete it', async ({
  page,
}) => {
  test.setTimeout(120_000);
  await login(page);
  const menu = page.getByRole('navigation', { name: /Agent 1/ });
  const addSources = menu.getByRole('link', { name: 'Add Sources' });
  if (!(await addSources.isVisible())) await menu.getByText('Sources', { exact: true }).click();
  await addSources.click();
  await expect(page).toHaveURL(/\/dashboard\/sources\/add$/);

  await page
    .getByRole('textbox', { name: 'URLs' })
    .fill(`${FIXTURE_SITE_URL}/articles/lighthouse-lenses\n${FIXTURE_SITE_URL}/pages/7`);
  await page.getByRole('button', { name: 'Process Sources' }).click();

  // Followed live: the card's status moves on its own to completed, with the success toast.
  const card = page.getByTestId('followed-job').first();
  await expect(card).toBeVisible();
  const jobId = Number(/Job #(\d+)/.exec((await card.textContent()) ?? '')?.[1]);
  expect(jobId).toBeGreaterThan(0);
  await expect(toast(page, /^Sources processed: \d+ segments$/)).toBeVisible({ timeout: 60_000 });
  await expect(card.getByTestId('job-status')).toHaveText('completed');
  await expect(card.getByTestId('job-percent')).toHaveText('100%');

  // Its snippets, pre-filtered by the job.
  await card.getByRole('link', { name: /View snippets/ }).click();
  await expect(page).toHaveURL(new RegExp(`/dashboard/sources/snippets\\?job_id=${jobId}$`));
  await expect(page.getByText(`Job #${jobId}`)).toBeVisible();
  const rows = page.getByTestId('snippet-row');
  await expect(rows.first()).toBeVisible();
  const totalText = (await page.getByTestId('snippet-total').textContent()) ?? '';
  const total = Number(totalText.split(' of ')[1]?.replace(/,/g, ''));
  expect(total).toBeGreaterThan(0);

  // One snippet, inspected then deleted.
  await rows.first().click();
  const dialog = page.getByRole('dialog');
  await expect(dialog.getByTestId('snippet-text')).toBeVisible();
  const title = (await dialog.locator('.mantine-Modal-title').textContent()) ?? '';
  const id = Number(title.replace(/\D/g, ''));
  await dialog.getByRole('button', { name: 'Delete snippet' }).click();
  await page
    .getByRole('dialog')
    .filter({ hasText: `Delete snippet ${id}?` })
    .getByRole('button', { name: 'Delete', exact: true })
    .click();
  await expect(toast(page, `Snippet ${id} deleted`)).toBeVisible();
  await expect(page.getByTestId('snippet-total')).toHaveText(new RegExp(` of ${total - 1}$`));

  // The queue's history has the job, completed.
  await page.goto(`/dashboard/sources/queue?job_id=${jobId}`);
  const results = page.getByLabel('Job search results');
  await expect(results.getByTestId(`job-row-${jobId}`)).toContainText('completed');
});
