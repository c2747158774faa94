import fs from 'node:fs';
import path from 'node:path';
import { expect, test, type Page } from '@playwright/test';
import { E2E_HUB_REPOS, FIXTURE_SITE_URL, suiteDataDir } from './fixtures';
import { login, pageApi, requireChromium, shot, toast } from './support';

/**
 * Models end to end against the fake hub (fixtures-server.ts): register the tiny ONNX embedder,
 * install it with progress, activate it while search keeps answering through the re-embedding,
 * test it; install a language pack; delete an unused file in Model Cleanup.
 */

requireChromium();
test.describe.configure({ mode: 'serial' });

const MODEL = 'tiny-embedder';
const card = (page: Page, name: string) => page.getByRole('article', { name, exact: true });

interface SearchBody {
  results: unknown[];
}
const search = (page: Page) =>
  pageApi<SearchBody>(page, 'POST', '/snippets/search', { query: 'honeybees pollen hive' });

test('registers and installs a model from the hub, with its progress', async ({ page }) => {
  await login(page);
  // Some snippets first, so that activating the model has something to re-embed.
  const job = await pageApi<{ job_id: number }>(page, 'POST', '/sources/process', {
    urls: [`${FIXTURE_SITE_URL}/articles/honeybees`],
  });
  await expect
    .poll(
      async () =>
        (await pageApi<{ status: string }>(page, 'GET', `/sources/jobs/${job.body.job_id}`)).body
          .status,
      { timeout: 60_000 },
    )
    .toBe('completed');

  await page.goto('/dashboard/model/management');
  await expect(page.getByRole('heading', { name: 'Model Management' })).toBeVisible();
  await expect(page.getByText('Total Models')).toBeVisible();
  await shot(page, 'models-catalogue');
  // A retry of the serial group finds the model of the first attempt: nothing to redo.
  const registry = await pageApi<{ models: { name: string }[] }>(page, 'GET', '/admin/models');
  test.skip(
    registry.body.models.some((m) => m.name === MODEL),
    'the first attempt installed the model',
  );
  await page.getByRole('button', { name: 'New Model' }).click();
  const dialog = page.getByRole('dialog', { name: 'New Model' });
  await dialog.getByRole('textbox', { name: 'Name' }).fill(MODEL);
  await dialog.getByRole('combobox', { name: 'Type' }).click();
  await page.getByRole('option', { name: 'embedding', exact: true }).click();
  await dialog.getByRole('textbox', { name: 'Hub repository' }).fill(E2E_HUB_REPOS.embedder);
  await dialog.getByRole('button', { name: 'Create' }).click();
  await expect(dialog).toBeHidden();

  const tiny = card(page, MODEL);
  await expect(tiny.getByText('not installed', { exact: true })).toBeVisible();
  await tiny.getByRole('button', { name: 'Install', exact: true }).click();
  await expect(
    toast(page, `Starting installation for ${MODEL}. This may take a few minutes...`),
  ).toBeVisible();
  await expect(toast(page, `${MODEL} installed successfully!`)).toBeVisible({ timeout: 30_000 });
  await expect(tiny.getByText('installed', { exact: true })).toBeVisible();
  const progress = await pageApi<{ progress: number; downloaded_bytes: number }>(
    page,
    'GET',
    `/admin/models/${await tiny.getAttribute('data-model-id')}/progress`,
  );
  expect(progress.body.progress).toBe(100);
  expect(progress.body.downloaded_bytes).toBeGreaterThan(0);
  await shot(page, 'models-installed');
});

test('activates it: search answers during the re-embedding, then in the new space', async ({
  page,
}) => {
  await login(page, '/dashboard/model/management');
  const tiny = card(page, MODEL);
  const before = await search(page);
  expect(before.body.results.length).toBeGreaterThan(0);

  const toggle = tiny.getByRole('switch', { name: `Active: ${MODEL}` });
  if (!(await toggle.isChecked())) {
    await toggle.click();
    await expect(toast(page, `${MODEL} activated`)).toBeVisible();
  }
  // Until the switch swaps the index, and after it, every search answers.
  await expect
    .poll(
      async () => {
        const r = await search(page);
        expect(r.status).toBe(200);
        expect(r.body.results.length).toBeGreaterThan(0);
        const index = await pageApi<{ dimension: number }>(page, 'GET', '/admin/index/stats');
        return index.body.dimension;
      },
      { timeout: 60_000 },
    )
    .toBe(64);
  await expect(tiny.getByText('active', { exact: true })).toBeVisible();

  await tiny.getByRole('button', { name: 'Test', exact: true }).click();
  const dialog = page.getByRole('dialog', { name: `Test ${MODEL}` });
  await dialog.getByRole('button', { name: 'Run Test' }).click();
  await expect(dialog.getByText('"dimension": 64')).toBeVisible();
  await shot(page, 'models-test');
  await page.keyboard.press('Escape');
});

test('installs a language pack from the Available Language Packs grid', async ({ page }) => {
  await login(page, '/dashboard/model/management');
  await page.getByRole('tab', { name: /SpaCy Models/ }).click();
  const french = page.getByRole('button', { name: 'French language pack', exact: true });
  test.skip(
    (await french.getByText('installed', { exact: true }).count()) > 0,
    'the first attempt installed the pack',
  );
  await french.click();
  const dialog = page.getByRole('dialog', { name: 'Install Language Pack' });
  await expect(dialog.getByText('French', { exact: true })).toBeVisible();
  await dialog.getByRole('button', { name: 'Install', exact: true }).click();
  await expect(toast(page, 'Language pack fr installed')).toBeVisible({ timeout: 30_000 });
  await expect(dialog).toBeHidden();
  const packs = await pageApi<{ code: string; installed: boolean }[]>(
    page,
    'GET',
    '/admin/models/language-packs',
  );
  expect(packs.body.find((p) => p.code === 'fr')?.installed).toBe(true);
  await shot(page, 'models-language-packs');
});

test('Model Cleanup lists a file no model uses and deletes it', async ({ page }) => {
  const stray = path.join(suiteDataDir('models'), 'models', 'leftovers', 'old-weights.bin');
  fs.mkdirSync(path.dirname(stray), { recursive: true });
  fs.writeFileSync(stray, Buffer.alloc(2048, 7));
  await login(page, '/dashboard/maintenance/cleanup');
  await expect(page.getByRole('heading', { name: 'Model Cleanup' })).toBeVisible();
  await expect(page.getByRole('table').getByText('leftovers/old-weights.bin')).toBeVisible();
  await shot(page, 'models-cleanup');
  await page.getByRole('button', { name: 'Delete leftovers/old-weights.bin' }).click();
  await page.getByRole('dialog').getByRole('button', { name: 'Delete' }).click();
  await expect(toast(page, 'File deleted')).toBeVisible();
  await expect(page.getByRole('table').getByText('leftovers/old-weights.bin')).toBeHidden();
  expect(fs.existsSync(stray)).toBe(false);
});
