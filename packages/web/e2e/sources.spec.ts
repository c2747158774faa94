import { expect, test } from '@playwright/test';
import { FIXTURE_SITE_URL } from './fixtures';
import { login, requireChromium, toast, shot, pageApi } from './support';

requireChromium();
test.describe.configure({ mode: 'serial' });

const HONEYBEES = `${FIXTURE_SITE_URL}/articles/honeybees`;
const TIDAL = `${FIXTURE_SITE_URL}/articles/tidal-power`;
const NOT_FOUND = `${FIXTURE_SITE_URL}/status/404`;

/** The job the add-sources run created, shared by the tests after it. */
let jobId = 0;

test('empty screens: no source, no stuck job, and an empty URL list is refused', async ({
  page,
}) => {
  await login(page, '/dashboard/sources/add');
  await expect(page.getByText('No job yet')).toBeVisible();
  await page.getByRole('button', { name: 'Process Sources' }).click();
  await expect(toast(page, 'Please enter at least one URL')).toBeVisible();
  await shot(page, 'sources-add-empty');

  await page.goto('/dashboard/sources/manage');
  await page.getByRole('textbox', { name: 'Search' }).fill('no-such-source-anywhere');
  await expect(page.getByText('No source matches')).toBeVisible();
  await shot(page, 'sources-manage-empty');

  await page.goto('/dashboard/sources/queue');
  await page.getByRole('tab', { name: /Stuck/ }).click();
  await expect(page.getByText('No stuck jobs')).toBeVisible();
  await shot(page, 'sources-queue-empty');
});

test('add sources: an invalid line is named, then the job is followed live to its toast', async ({
  page,
}) => {
  await login(page, '/dashboard/sources/add');
  const urls = page.getByRole('textbox', { name: 'URLs' });

  // The server's per-URL 422 names the form line.
  await urls.fill(`${HONEYBEES}\nnot a url`);
  await page.getByRole('button', { name: 'Process Sources' }).click();
  await expect(page.getByLabel('Invalid URLs')).toContainText('Line 2:');
  await expect(toast(page, /^Failed to queue sources: /)).toBeVisible();

  await urls.fill(`${HONEYBEES}\n\n  ${TIDAL}  \n${NOT_FOUND}\n`);
  await page.getByRole('button', { name: 'Process Sources' }).click();
  await expect(toast(page, /Job \d+ queued with 3 URLs/)).toBeVisible();
  const card = page.getByTestId('followed-job').first();
  await expect(card).toBeVisible();
  jobId = Number(/Job #(\d+)/.exec((await card.textContent()) ?? '')?.[1]);
  expect(jobId).toBeGreaterThan(0);

  await expect(toast(page, /^Sources processed: \d+ segments$/)).toBeVisible({ timeout: 60_000 });
  await expect(card.getByTestId('job-status')).toHaveText('completed');
  await expect(card.getByTestId('job-percent')).toHaveText('100%');
  // Two pages worked, the 404 recorded as the job's error.
  await expect(card).toContainText(NOT_FOUND);
  await expect(card.getByRole('link', { name: /View snippets/ })).toHaveAttribute(
    'href',
    `/dashboard/sources/snippets?job_id=${jobId}`,
  );
  await shot(page, 'sources-add-job');

  const { body: job } = await pageApi<{ stats: { segments_created: number; urls_failed: number } }>(
    page,
    'GET',
    `/sources/jobs/${jobId}`,
  );
  expect(job.stats.segments_created).toBeGreaterThan(0);
  expect(job.stats.urls_failed).toBe(1);
});

test('queue: the history tab shows the job, its errors name the 404 URL, and it is relaunched', async ({
  page,
}) => {
  expect(jobId).toBeGreaterThan(0);
  await login(page, '/dashboard/sources/queue');
  await expect(page.getByRole('switch', { name: 'Auto-refresh' })).toBeChecked();
  await page.getByRole('tab', { name: /History/ }).click();
  const row = page.getByTestId(`job-row-${jobId}`);
  await expect(row).toBeVisible();
  await expect(row.getByTestId('job-status')).toHaveText('completed');
  await expect(page.getByTestId('tab-count-history')).not.toHaveText('0');

  await row.getByRole('button', { name: '3 URLs' }).click();
  await expect(page.getByRole('link', { name: TIDAL, exact: true })).toBeVisible();
  await shot(page, 'sources-queue-history');

  await row.getByRole('button', { name: `View errors of job ${jobId}` }).click();
  const dialog = page.getByRole('dialog');
  await expect(dialog.getByRole('list', { name: 'Job errors' })).toContainText(NOT_FOUND);
  await shot(page, 'sources-queue-errors');
  await page.keyboard.press('Escape');
  await expect(dialog).toBeHidden();

  await row.getByRole('button', { name: `Relaunch job ${jobId}` }).click();
  await page.getByRole('menuitem', { name: 'high' }).click();
  const relaunched = toast(
    page,
    new RegExp(`Job ${jobId} relaunched as job \\d+ \\(high priority\\)`),
  );
  await expect(relaunched).toBeVisible();
  const newId = Number(/as job (\d+)/.exec((await relaunched.textContent()) ?? '')?.[1]);
  const { body: copy } = await pageApi<{ priority: string; urls: string[] }>(
    page,
    'GET',
    `/sources/jobs/${newId}`,
  );
  expect(copy.priority).toBe('high');
  expect(copy.urls).toHaveLength(3);
  // Shown in the history once done, in the active tab before.
  await expect(page.getByTestId(`job-row-${newId}`)).toBeVisible({ timeout: 60_000 });
});

test('queue: a job is deleted only after confirmation', async ({ page }) => {
  await login(page);
  const { body: created } = await pageApi<{ job_id: number }>(page, 'POST', '/sources/process', {
    urls: [`${FIXTURE_SITE_URL}/pages/7`],
    priority: 'low',
  });
  await page.goto('/dashboard/sources/queue');
  await page.getByRole('tab', { name: /History/ }).click();
  const row = page.getByTestId(`job-row-${created.job_id}`);
  await expect(row).toBeVisible({ timeout: 30_000 });

  await row.getByRole('button', { name: `Delete job ${created.job_id}` }).click();
  const dialog = page.getByRole('dialog');
  await expect(dialog).toContainText(`Delete the record of job ${created.job_id}?`);
  await dialog.getByRole('button', { name: 'Cancel' }).click();
  await expect(row).toBeVisible();

  await row.getByRole('button', { name: `Delete job ${created.job_id}` }).click();
  await page.getByRole('dialog').getByRole('button', { name: 'Delete job' }).click();
  await expect(toast(page, `Job ${created.job_id} deleted`)).toBeVisible();
  await expect(row).toBeHidden();
  expect((await pageApi(page, 'GET', `/sources/jobs/${created.job_id}`)).status).toBe(404);
});

test('queue: cancel all pending asks first, then says how many it cancelled', async ({ page }) => {
  await login(page);
  // Slow pages keep the worker busy so the later low-priority jobs wait.
  const ids: number[] = [];
  for (let i = 0; i < 4; i += 1) {
    const { body } = await pageApi<{ job_id: number }>(page, 'POST', '/sources/process', {
      urls: [`${FIXTURE_SITE_URL}/slow?ms=3000&n=${i}`],
      priority: 'low',
    });
    ids.push(body.job_id);
  }
  await page.goto('/dashboard/sources/queue');
  await page.getByRole('button', { name: 'Cancel all pending' }).click();
  const dialog = page.getByRole('dialog');
  await expect(dialog).toContainText('Every job still waiting for a worker will be cancelled.');
  await dialog.getByRole('button', { name: 'Keep them' }).click();
  await expect(dialog).toBeHidden();

  await page.getByRole('button', { name: 'Cancel all pending' }).click();
  await page.getByRole('dialog').getByRole('button', { name: 'Cancel pending jobs' }).click();
  const done = toast(page, /^(Cancelled \d+ pending jobs?|No pending job to cancel)$/);
  await expect(done).toBeVisible();
  const { body: queue } = await pageApi<{ total: number }>(page, 'GET', '/sources/jobs/queue');
  expect(queue.total).toBe(0);
  await shot(page, 'sources-queue-cancelled');

  // Leave nothing running for the tests after this one.
  for (const id of ids) await pageApi(page, 'POST', `/sources/jobs/${id}/cancel`);
});

test('queue: find a job by URL', async ({ page }) => {
  await login(page);
  const probe = await pageApi(page, 'GET', '/sources/jobs/find?q=1');
  // Until the route exists, /sources/jobs/find falls to /sources/jobs/:id and answers 422.
  test.skip(probe.status !== 200, 'GET /sources/jobs/find is not served by this server yet');
  await page.goto('/dashboard/sources/queue');
  await page.getByRole('textbox', { name: 'Find a job' }).fill('tidal-power');
  const results = page.getByLabel('Job search results');
  await expect(results.getByTestId(`job-row-${jobId}`)).toBeVisible();
});

test('manage sources: search, segments per source, delete a source with its snippets', async ({
  page,
}) => {
  await login(page, '/dashboard/sources/manage');
  const table = page.getByRole('table', { name: 'Sources' });
  await expect(table).toContainText(HONEYBEES);
  await expect(table).toContainText(NOT_FOUND);
  await shot(page, 'sources-manage');

  await page.getByRole('textbox', { name: 'Search' }).fill('honeybees');
  const row = table.getByRole('row').filter({ hasText: HONEYBEES });
  await expect(row).toHaveCount(1);
  await expect(table).not.toContainText(TIDAL);
  const segments = Number(
    ((await row.getByTestId('segments-count').textContent()) ?? '0').replace(/,/g, ''),
  );
  expect(segments).toBeGreaterThan(0);

  const before = await pageApi<{ total: number }>(
    page,
    'GET',
    `/snippets?source_url=${encodeURIComponent(HONEYBEES)}`,
  );
  expect(before.body.total).toBeGreaterThan(0);

  await row.getByRole('button', { name: `Delete ${HONEYBEES}` }).click();
  const dialog = page.getByRole('dialog');
  await expect(dialog).toContainText(`its ${segments} snippets`);
  await dialog.getByRole('button', { name: 'Delete source and snippets' }).click();
  await expect(toast(page, /^Source deleted with \d+ snippets?$/)).toBeVisible();
  await expect(page.getByText('No source matches')).toBeVisible();

  const after = await pageApi<{ total: number }>(
    page,
    'GET',
    `/snippets?source_url=${encodeURIComponent(HONEYBEES)}`,
  );
  expect(after.body.total).toBe(0);
});
