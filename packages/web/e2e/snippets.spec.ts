import path from 'node:path';
import Database from 'better-sqlite3';
import { expect, request, test, type APIRequestContext, type Page } from '@playwright/test';
import { FIXTURE_SITE_URL, suiteDataDir, suitePort } from './fixtures';
import { ADMIN, login, requireChromium, toast, shot } from './support';

requireChromium();
test.describe.configure({ mode: 'serial' });

const BASE = `http://127.0.0.1:${suitePort('snippets')}`;
// The store of this run (playwright.config.ts: one data directory per port).
const DB_FILE = path.join(suiteDataDir('snippets'), 'adam.db');
const SHOTS = process.env.ADAM_SHOTS ? '/tmp/shots' : null;

let api: APIRequestContext;
let jobId = 0;

async function apiJson<T>(method: 'GET' | 'POST', url: string, data?: unknown): Promise<T> {
  const response = await api.fetch(`/api/v1${url}`, { method, data });
  expect(response.ok(), `${method} ${url}: ${response.status()}`).toBe(true);
  return (await response.json()) as T;
}

/** The figure a summary card shows, as a number. */
async function figure(page: Page, key: string): Promise<number> {
  const text = (await page.getByTestId(`consistency-${key}`).textContent()) ?? '';
  return Number(text.replace(/,/g, ''));
}

test.beforeAll(async () => {
  const anonymous = await request.newContext({ baseURL: BASE });
  const r = await anonymous.post('/api/v1/auth/login', {
    data: { email: ADMIN.email, password: ADMIN.password },
  });
  const { api_key } = (await r.json()) as { api_key: string };
  await anonymous.dispose();
  api = await request.newContext({ baseURL: BASE, extraHTTPHeaders: { 'X-API-Key': api_key } });
});

test.afterAll(async () => {
  await api?.dispose();
});

test('empty store: the browser, search and analytics say there is nothing yet', async ({
  page,
}) => {
  await login(page, '/dashboard/sources/snippets');
  await expect(page.getByText('No snippets yet')).toBeVisible();
  await expect(page.getByTestId('consistency-total_disk')).toHaveText('0');
  await shot(page, 'snippets-browser-empty');

  await page.goto('/dashboard/snippets/search');
  await expect(page.getByRole('button', { name: 'Search' })).toBeDisabled();
  await expect(page.getByText('Searches need a non-empty query')).toBeVisible();
  await shot(page, 'snippets-search-empty');

  await page.goto('/dashboard/snippets/analytics');
  await expect(page.getByRole('heading', { name: 'Snippets Analytics' })).toBeVisible();
  await shot(page, 'snippets-analytics-empty');
});

test('a processed job: browse its snippets, open one, delete it', async ({ page }) => {
  const queued = await apiJson<{ job_id: number }>('POST', '/sources/process', {
    urls: [
      `${FIXTURE_SITE_URL}/articles/honeybees`,
      `${FIXTURE_SITE_URL}/articles/lighthouse-lenses`,
    ],
  });
  jobId = queued.job_id;
  await expect
    .poll(async () => (await apiJson<{ status: string }>('GET', `/sources/jobs/${jobId}`)).status, {
      timeout: 90_000,
      intervals: [500, 1000],
    })
    .toBe('completed');

  await login(page, `/dashboard/sources/snippets?job_id=${jobId}`);
  await expect(page.getByText(`Job #${jobId}`)).toBeVisible();
  const rows = page.getByTestId('snippet-row');
  await expect(rows.first()).toBeVisible();
  await expect(page.getByTestId('snippet-total')).toHaveText(/ of /);
  const shown = (await page.getByTestId('snippet-total').textContent()) ?? '';
  const total = Number(shown.split(' of ')[1]?.replace(/,/g, ''));
  expect(total).toBeGreaterThan(1);
  await shot(page, 'snippets-browser-job');

  await rows.first().click();
  const dialog = page.getByRole('dialog');
  await expect(dialog.getByTestId('snippet-text')).toBeVisible();
  await expect(dialog.getByText('Segmentation diagnostics')).toBeVisible();
  await expect(dialog.getByTestId('snippet-diagnostic').first()).toBeVisible();
  expect(await dialog.getByTestId('snippet-diagnostic').count()).toBeLessThanOrEqual(5);
  await expect(dialog.getByText('indexed', { exact: true }).first()).toBeVisible();
  await expect(dialog.getByText('384', { exact: true })).toBeVisible();
  await shot(page, 'snippets-modal');
  if (SHOTS) {
    await dialog.getByText('Vector id').scrollIntoViewIfNeeded();
    await page.screenshot({ path: `${SHOTS}/snippets-modal-index.png` });
  }

  const title = (await dialog.locator('.mantine-Modal-title').textContent()) ?? '';
  const id = Number(title.replace(/\D/g, ''));
  await dialog.getByRole('button', { name: 'Delete snippet' }).click();
  const confirm = page.getByRole('dialog').filter({ hasText: `Delete snippet ${id}?` });
  await confirm.getByRole('button', { name: 'Delete', exact: true }).click();
  await expect(toast(page, `Snippet ${id} deleted`)).toBeVisible();
  await expect(page.getByTestId('snippet-total')).toHaveText(new RegExp(` of ${total - 1}$`));
  const gone = await api.get(`/api/v1/snippets/${id}`);
  expect(gone.status()).toBe(404);
});

test('consistency tabs: orphans of each kind are counted and cleaned', async ({ page }) => {
  const list = await apiJson<{ snippets: { id: number }[] }>(
    'GET',
    `/snippets?job_id=${jobId}&sort_by=created_at&order=asc`,
  );
  const [vectorOnly, rowOnly] = list.snippets.map((s) => s.id);
  expect(vectorOnly && rowOnly).toBeTruthy();
  // No call makes an orphan (they come from crashes between the two writes), so the test makes
  // them in the store: a row deleted under its vector (index_only) and a row put back to pending
  // while its vector stays (disk_only).
  const db = new Database(DB_FILE);
  db.pragma('busy_timeout = 5000');
  db.prepare('DELETE FROM snippets WHERE id = ?').run(vectorOnly);
  db.prepare(
    'UPDATE snippets SET index_pending = 1, faiss_id = NULL, indexed_at = NULL WHERE id = ?',
  ).run(rowOnly);
  db.close();

  await login(page, '/dashboard/sources/snippets');
  await expect(page.getByTestId('consistency-index_only')).toHaveText('1');
  await expect(page.getByTestId('consistency-disk_only')).toHaveText('1');
  const disk = await figure(page, 'total_disk');
  expect(await figure(page, 'consistent')).toBe(disk - 1);

  await page.getByRole('tab', { name: /Index only/ }).click();
  const vectorRow = page.getByTestId('report-row-index_only');
  await expect(vectorRow).toHaveCount(1);
  await expect(vectorRow).toContainText(String(vectorOnly));
  await shot(page, 'snippets-index-only');
  await page.getByRole('button', { name: 'Remove orphaned vectors' }).click();
  await page.getByRole('dialog').getByRole('button', { name: 'Remove orphaned vectors' }).click();
  await expect(toast(page, 'Removed 1 orphaned vector(s) from the index')).toBeVisible();
  await expect(page.getByTestId('consistency-index_only')).toHaveText('0');

  await page.getByRole('tab', { name: /Disk only/ }).click();
  const rowOnlyRow = page.getByTestId('report-row-disk_only');
  await expect(rowOnlyRow).toHaveCount(1);
  await expect(rowOnlyRow).toContainText('pending indexing');
  await shot(page, 'snippets-disk-only');
  await page.getByRole('button', { name: 'Re-index snippets' }).click();
  await page.getByRole('dialog').getByRole('button', { name: 'Re-index snippets' }).click();
  await expect(toast(page, 'Re-indexed 1 snippet(s)')).toBeVisible();
  await expect(page.getByTestId('consistency-disk_only')).toHaveText('0');
  expect(await figure(page, 'consistent')).toBe(await figure(page, 'total_disk'));

  await page.getByRole('button', { name: 'Refresh snippet state' }).click();
  await expect(
    toast(page, /Snippet state refreshed: 0 re-indexed, 0 marked pending/),
  ).toBeVisible();
});

// The article's heading words are a snippet's section now, not its text (issue 29): the query
// is a word of the text itself.
test("search: 'honeybee' finds the honeybee snippets", async ({ page }) => {
  await login(page, '/dashboard/snippets/search');
  await page.getByLabel('Query').fill('honeybee');
  await page.getByRole('button', { name: 'Search' }).click();
  const results = page.getByTestId('search-result');
  await expect(results.first()).toBeVisible();
  expect(await results.count()).toBeLessThanOrEqual(5);
  await expect(results.first()).toContainText(/honey/i);
  // Both figures: the score results are ranked by, and the cosine to the query.
  await expect(results.first().getByTestId('score')).toHaveText(/^\d\.\d{4}$/);
  await expect(results.first().getByTestId('similarity')).toHaveText(/^cos -?\d\.\d{4}$/);
  await expect(page.getByTestId('search-latency')).toHaveText(/ms$/);
  await expect(page.getByText(/result\(s\) for “honeybee” · Hybrid/)).toBeVisible();
  await shot(page, 'snippets-search-results');

  // Keyword mode: every result holds a form of the word, found by the keyword side alone.
  await page.getByText('Keyword', { exact: true }).click();
  await page.getByLabel('Query').fill('scouting');
  await page.getByRole('button', { name: 'Search' }).click();
  await expect(page.getByText(/result\(s\) for “scouting” · Keyword/)).toBeVisible();
  await expect(results.first()).toContainText(/scout/i);
  await expect(results.first().getByTestId('found-by')).toContainText('keyword');
  await expect(results.first().getByTestId('found-by')).not.toContainText('vector');
  await shot(page, 'snippets-search-keyword');

  await results
    .first()
    .getByRole('button', { name: /Open snippet/ })
    .click();
  await expect(page.getByRole('dialog').getByTestId('snippet-text')).toBeVisible();
});

test('analytics: the stored snippets by theme, quality, growth and source', async ({ page }) => {
  const stats = await apiJson<{ total: number }>('GET', '/snippets?per_page=1');
  expect(stats.total).toBeGreaterThan(0);
  await login(page, '/dashboard/snippets/analytics');
  const sources = page.getByTestId('top-sources');
  await expect(sources).toBeVisible();
  // The job's articles are the top sources; every stored snippet is counted.
  await expect(sources).toContainText('/articles/');
  await expect(page.getByText('Quality distribution')).toBeVisible();
  await expect(page.getByTestId('languages')).toContainText('en');
  await shot(page, 'snippets-analytics-data');
});
