import { expect, test, type APIRequestContext } from '@playwright/test';
import { FIXTURE_SITE_URL } from './fixtures';
import { ADMIN, login, requireChromium, shot } from './support';

requireChromium();
test.describe.configure({ mode: 'serial' });

let key = '';

async function apiKey(request: APIRequestContext): Promise<string> {
  if (key) return key;
  const res = await request.post('/api/v1/auth/login', { data: ADMIN });
  expect(res.ok()).toBe(true);
  key = ((await res.json()) as { api_key: string }).api_key;
  return key;
}

async function call<T>(
  request: APIRequestContext,
  method: 'GET' | 'POST' | 'DELETE',
  path: string,
  data?: unknown,
): Promise<T> {
  const res = await request.fetch(`/api/v1${path}`, {
    method,
    data,
    headers: { 'X-API-Key': await apiKey(request) },
  });
  expect(res.ok(), `${method} ${path}: ${res.status()}`).toBe(true);
  return (await res.json()) as T;
}

const snippetTotal = async (request: APIRequestContext) =>
  (await call<{ total: number }>(request, 'GET', '/snippets?per_page=1')).total;

/** Processes the honeybees article through the API (once per server) and waits for its job. */
async function ensureArticle(request: APIRequestContext): Promise<void> {
  if ((await snippetTotal(request)) > 0) return;
  const { job_id } = await call<{ job_id: number }>(request, 'POST', '/sources/process', {
    urls: [`${FIXTURE_SITE_URL}/articles/honeybees`],
  });
  await expect
    .poll(
      async () =>
        (await call<{ status: string }>(request, 'GET', `/sources/jobs/${job_id}`)).status,
      { timeout: 60_000 },
    )
    .toBe('completed');
}

test('empty store: index and maintenance screens say so', async ({ page, request }) => {
  await login(page, '/dashboard/index/stats');
  await expect(page.getByText('No snippet in the index yet', { exact: false })).toBeVisible();
  await shot(page, 'index-stats-empty');
  await page.goto('/dashboard/index/content');
  await expect(page.getByText('The index is empty')).toBeVisible();
  await shot(page, 'index-content-empty');
  await page.goto('/dashboard/index/search');
  await expect(page.getByRole('button', { name: 'Search' })).toBeDisabled();
  await shot(page, 'index-search-empty');
  await page.goto('/dashboard/index/optimize');
  await expect(page.getByRole('button', { name: 'Optimize' })).toBeVisible();
  await shot(page, 'index-optimize-empty');
  // Every suite's server starts before the first suite runs, and the first auto backup is due
  // 5 minutes after start: on a slow machine it may be taken before this test comes.
  const backups = await call<{ reason: string }[]>(request, 'GET', '/admin/maintenance/backups');
  await page.goto('/dashboard/maintenance/backup');
  if (backups.every((b) => b.reason === 'auto') && backups.length > 0) {
    await expect(page.getByText('auto', { exact: true }).first()).toBeVisible();
    await expect(page.getByText('No backup yet')).toHaveCount(0);
  } else {
    expect(backups).toEqual([]);
    await expect(page.getByText('No backup yet')).toBeVisible();
  }
  await shot(page, 'maintenance-backup-empty');
  await page.goto('/dashboard/maintenance/tasks');
  await expect(page.getByLabel('Worker list')).toBeVisible();
  await shot(page, 'maintenance-tasks-empty');
});

test('with an article processed, index stats show its vectors', async ({ page, request }) => {
  await ensureArticle(request);
  const stats = await call<{ total_vectors: number }>(request, 'GET', '/admin/index/stats');
  expect(stats.total_vectors).toBeGreaterThan(0);

  await login(page, '/dashboard/index/stats');
  const vectors = page.getByText('Total Vectors').locator('..');
  await expect(vectors).toContainText(stats.total_vectors.toLocaleString('en-US'));
  await expect(page.getByLabel('Snippets by theme')).toBeVisible();
  await shot(page, 'index-stats-data');

  await page.getByRole('button', { name: 'Test search' }).click();
  const dialog = page.getByRole('dialog', { name: 'Test search' });
  await dialog.getByLabel('Query').fill('honey');
  await dialog.getByRole('button', { name: 'Search' }).click();
  await expect(dialog.getByRole('table', { name: 'Search results' })).toBeVisible();
  await shot(page, 'index-stats-test-search');

  await page.goto('/dashboard/index/content');
  const table = page.getByRole('table', { name: 'Index content' });
  await expect(table.locator('tbody tr').first()).toBeVisible();
  await shot(page, 'index-content-data');
});

test("index search finds 'honey' with its similarity", async ({ page, request }) => {
  await ensureArticle(request);
  await login(page, '/dashboard/index/search');
  await page.getByLabel('Query').fill('honey');
  await expect(page.getByLabel('k', { exact: true })).toHaveValue('10');
  await expect(page.getByRole('radio', { name: 'Hybrid' })).toBeChecked();
  await page.getByRole('button', { name: 'Search' }).click();
  const results = page.getByRole('table', { name: 'Search results' });
  await expect(results.locator('tbody tr').first()).toContainText(/honey/i);
  await expect(results.locator('tbody tr').first()).toContainText(/\d+\.\d%/);
  // The fused score the rows are ranked by, beside the cosine.
  await expect(results.getByTestId('score').first()).toHaveText(/^\d\.\d{3}$/);
  // "honey" is in no snippet's text (only in a title): the vector side found them.
  await expect(results.getByTestId('found-by').first()).toContainText('vector');
  await expect(results.getByTestId('found-by').first()).not.toContainText('keyword');
  await shot(page, 'index-search-data');
});

test('index storage: choosing f32 in the settings rebuilds the index, the stats show it', async ({
  page,
  request,
}) => {
  await ensureArticle(request);
  const before = await call<{ total_vectors: number; storage: string }>(
    request,
    'GET',
    '/admin/index/stats',
  );
  expect(before.storage).toBe('bf16'); // the default
  await login(page, '/dashboard/settings/processing');
  await page.getByRole('combobox', { name: 'Index Storage' }).click();
  await page.getByRole('option', { name: 'f32: 32-bit floats, exact vectors' }).click();
  await page.getByRole('button', { name: 'Apply Processing Settings' }).click();
  await expect(page.getByText('Processing settings saved')).toBeVisible();

  await expect
    .poll(
      async () => (await call<{ storage: string }>(request, 'GET', '/admin/index/stats')).storage,
      {
        timeout: 60_000,
      },
    )
    .toBe('f32');
  await page.goto('/dashboard/index/stats');
  await expect(page.getByText('f32: 32-bit floats, exact vectors')).toBeVisible();
  const vectors = page.getByText('Total Vectors').locator('..');
  await expect(vectors).toContainText(before.total_vectors.toLocaleString('en-US'));
  await expect(page.getByText(/sampled queries, f32\)/)).toBeVisible();
  await shot(page, 'index-stats-storage');
});

test('a maintenance action: low-quality cleanup asks first, then shows its result', async ({
  page,
}) => {
  await login(page, '/dashboard/maintenance/tasks');
  const card = page.getByLabel('Remove Low-Quality Snippets');
  await expect(card.getByLabel('Quality threshold')).toHaveValue('0.3');
  await card.getByRole('button', { name: 'Remove low quality' }).click();
  const confirm = page.getByRole('dialog', { name: 'Remove low-quality snippets?' });
  await expect(confirm).toBeVisible();
  await confirm.getByRole('button', { name: 'Remove low quality' }).click();
  await expect(card.getByText(/Removed \d+ snippet\(s\) with quality below 0\.3/)).toBeVisible();
  await expect(card.getByText(/^deleted: \d+$/)).toBeVisible();
  await shot(page, 'maintenance-tasks-data');
});

test('optimize: the modal reaches 100% with the real result', async ({ page, request }) => {
  await ensureArticle(request);
  await login(page, '/dashboard/index/optimize');
  await page.getByRole('button', { name: 'Optimize' }).click();
  const dialog = page.getByRole('dialog', { name: 'Optimize Index' });
  await expect(dialog).toBeVisible();
  await expect(dialog.getByTestId('optimize-progress')).toHaveText('100%', { timeout: 30_000 });
  await expect(dialog.getByText('Index ready')).toBeVisible();
  await expect(dialog.getByText(/^indexed: \d+$/)).toBeVisible();
  await shot(page, 'index-optimize-data');
  await dialog.getByRole('button', { name: 'Close' }).click();
  await expect(page.getByLabel('Current index')).not.toContainText('Never');
});

test('backup, delete a snippet, restore with confirmation: the snippet is back', async ({
  page,
  request,
}) => {
  await ensureArticle(request);
  await login(page, '/dashboard/maintenance/backup');
  await page.getByRole('button', { name: 'Create backup' }).click();
  const created = page.getByText(/^Backup \d{8}-\d{6}-\d{3} created$/);
  await expect(created).toBeVisible({ timeout: 30_000 });
  const id = ((await created.textContent()) ?? '').split(' ')[1] ?? '';
  const before = await snippetTotal(request);
  expect(before).toBeGreaterThan(0);

  const { snippets } = await call<{ snippets: { id: number }[] }>(
    request,
    'GET',
    '/snippets?per_page=1',
  );
  await call(request, 'DELETE', `/snippets/${snippets[0]?.id}`);
  expect(await snippetTotal(request)).toBe(before - 1);

  await page.getByRole('button', { name: `Restore backup ${id}` }).click();
  const confirm = page.getByRole('dialog', { name: `Restore backup ${id}?` });
  await expect(confirm).toBeVisible();
  await shot(page, 'maintenance-backup-confirm');
  await confirm.getByRole('button', { name: 'Restore' }).click();
  const report = page.getByRole('alert', { name: `Backup ${id} restored` });
  await expect(report).toBeVisible({ timeout: 30_000 });
  await expect(report).toContainText(`snippets: ${before.toLocaleString('en-US')}`);
  expect(await snippetTotal(request)).toBe(before);
  await shot(page, 'maintenance-backup-data');
});

test('system checklist: components, workers, websocket and environment', async ({ page }) => {
  await login(page, '/dashboard/system/checklist');
  await expect(page.getByLabel('Database: healthy')).toBeVisible();
  await expect(page.getByLabel('Vector index: healthy')).toBeVisible();
  await expect(page.getByLabel('Workers: healthy')).toBeVisible();
  await expect(page.getByLabel('WebSocket (this console): healthy')).toBeVisible();
  await expect(page.getByLabel('Environment')).toContainText(/version: \S+ · uptime:/);
  await page.getByRole('button', { name: 'Refresh' }).click();
  await expect(page.getByText(/^Checked at /)).toBeVisible();
  await shot(page, 'system-checklist-data');
});
