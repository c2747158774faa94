import { expect, test, type Locator } from '@playwright/test';
import { login, requireChromium, toast, shot, pageApi } from './support';

requireChromium();
test.describe.configure({ mode: 'serial' });

const WIKI = '/dashboard/model/playground/wikipedia';
const RULES = '/dashboard/settings/scraping';

const step = (list: Locator, id: string) => list.locator(`[data-step="${id}"]`);

test('encyclopedia: empty and missing titles, then fetch → analyse → save, the job completes', async ({
  page,
}) => {
  test.setTimeout(180_000);
  await login(page, WIKI);
  const status = page.getByRole('region', { name: 'Status' });
  // The e2e server runs the embedded queue with one worker.
  await expect(status.getByText('embedded queue', { exact: true })).toBeVisible();
  await expect(status.getByText('running (1)', { exact: true })).toBeVisible();
  await expect(status.getByText('connected', { exact: true })).toBeVisible();
  await shot(page, 'wiki-empty');

  const fetchForm = page.getByRole('form', { name: 'Fetch article' });
  const title = fetchForm.getByLabel('Title');
  const fetchButton = fetchForm.getByRole('button', { name: 'Fetch' });
  await expect(fetchButton).toBeDisabled();

  // A title of blanks only: refused before any call.
  await title.fill('   ');
  await fetchButton.click();
  await expect(fetchForm.getByText('Le titre est vide').first()).toBeVisible();
  await expect(toast(page, 'Le titre est requis')).toBeVisible();

  // An article the encyclopedia does not have.
  await title.fill('No such article anywhere');
  await fetchButton.click();
  await expect(toast(page, 'Failed to fetch article')).toBeVisible();
  await expect(step(page.getByRole('list', { name: 'Fetch steps' }), 'api')).toHaveAttribute(
    'data-status',
    'error',
  );

  // The real one, in English (the default).
  await title.fill('  Honey   bee ');
  await fetchButton.click();
  const text = page.getByLabel('Article text');
  await expect(text).toHaveValue(/honey bee \(also spelled honeybee\)/i);
  await expect(title).toHaveValue('Honey bee');
  const fetchSteps = page.getByRole('list', { name: 'Fetch steps' });
  for (const id of ['validate', 'api', 'clean', 'ui']) {
    await expect(step(fetchSteps, id)).toHaveAttribute('data-status', 'success');
  }

  const analyse = page.getByRole('form', { name: 'Analyse article' });
  await analyse.getByLabel('Question').fill('What do honey bees produce and store?');
  await analyse.getByRole('button', { name: 'Analyze' }).click();
  const sentences = page.getByRole('table', { name: 'Top sentences' });
  // The first analysis loads the embedding model.
  await expect(sentences).toBeVisible({ timeout: 90_000 });
  await expect(sentences.getByText(/honey/i).first()).toBeVisible();
  const score = (await sentences.getByTestId('sentence-score').first().textContent())?.trim() ?? '';
  expect(score).toMatch(/^\d\.\d{4}$/);

  // Save: the job runs on the embedded worker to 100%.
  await page.getByRole('button', { name: 'Save segments' }).click();
  const saveSteps = page.getByRole('list', { name: 'Save steps' });
  await expect(step(saveSteps, 'job')).toHaveAttribute('data-status', 'success', {
    timeout: 60_000,
  });
  for (const id of ['validate', 'size', 'save', 'worker']) {
    await expect(step(saveSteps, id)).toHaveAttribute('data-status', 'success');
  }
  await expect(page.getByTestId('job-progress')).toHaveText('100%');
  await expect(page.getByRole('button', { name: 'Saved' })).toBeDisabled();
  await expect(toast(page, /Article saved/)).toBeVisible();

  await page.getByRole('button', { name: /Debug/ }).click();
  const debug = page.getByLabel('Debug panel');
  await expect(debug.getByTestId('debug-job-id')).toHaveText(/^\d+$/);
  await shot(page, 'wiki-saved');

  // The saved article's snippets exist on the server.
  const jobId = Number(await debug.getByTestId('debug-job-id').textContent());
  const job = await pageApi<{ status: string; stats: { segments_created?: number } }>(
    page,
    'GET',
    `/sources/jobs/${jobId}`,
  );
  expect(job.body.status).toBe('completed');
  expect(job.body.stats.segments_created ?? 0).toBeGreaterThan(0);

  await page.getByRole('button', { name: 'Reset' }).click();
  await expect(text).toHaveValue('');
  await expect(title).toHaveValue('');
  await expect(page.getByTestId('job-progress')).toHaveText('0%');
});

test('scraping rules: add, toggle (persisted), highlight from a link, edit inline, delete', async ({
  page,
}) => {
  await login(page, RULES);
  await expect(page.getByText('No scraping rules')).toBeVisible();
  await shot(page, 'rules-empty');

  // Domain required.
  const form = page.getByRole('form', { name: 'Add scraping rule' });
  await form.getByRole('button', { name: 'Add rule' }).click();
  await expect(form.getByText('Domain is required')).toBeVisible();

  await form.getByLabel('Domain').fill('bees.example.org');
  await form.getByRole('button', { name: 'Add rule' }).click();
  await expect(toast(page, 'Rule added for bees.example.org')).toBeVisible();
  const row = page.locator('tr[data-domain="bees.example.org"]');
  await expect(row).toBeVisible();
  await expect(row.getByText('allow')).toBeVisible();

  // A duplicate domain: the server's 409 detail after the spec text.
  await form.getByLabel('Domain').fill('bees.example.org');
  await form.getByRole('button', { name: 'Add rule' }).click();
  await expect(toast(page, /^Failed to add rule: .*already exists/)).toBeVisible();

  // More rules for the table, set up through the API.
  await pageApi(page, 'POST', '/rules/scraping', {
    domain: 'news.example.com',
    mode: 'selector',
    target: 'article .body',
  });
  await pageApi(page, 'POST', '/rules/scraping', { domain: 'spam.example.net', mode: 'deny' });

  // Enabled off, persisted; then on again, persisted.
  await page.reload();
  const toggle = page.getByRole('switch', { name: 'Enabled bees.example.org' });
  await expect(toggle).toBeChecked();
  await toggle.click({ force: true });
  await expect(toast(page, 'Rule for bees.example.org disabled')).toBeVisible();
  await page.reload();
  await expect(page.getByRole('switch', { name: 'Enabled bees.example.org' })).not.toBeChecked();
  await page.getByRole('switch', { name: 'Enabled bees.example.org' }).click({ force: true });
  await expect(toast(page, 'Rule for bees.example.org enabled')).toBeVisible();
  await page.reload();
  await expect(page.getByRole('switch', { name: 'Enabled bees.example.org' })).toBeChecked();

  // Opened from elsewhere with the domain: its row is highlighted.
  await page.goto(`${RULES}?domain=news.example.com`);
  const news = page.locator('tr[data-domain="news.example.com"]');
  await expect(news).toHaveAttribute('data-highlighted', 'true');
  await expect(page.locator('tr[data-domain="bees.example.org"]')).not.toHaveAttribute(
    'data-highlighted',
    'true',
  );
  await expect(news).toBeInViewport();
  await shot(page, 'rules-data-highlighted');

  // Inline edit: selector → deny without a target (sent as null).
  await news.getByRole('button', { name: 'Edit news.example.com' }).click();
  await news.getByRole('combobox', { name: 'Mode' }).click();
  await page.getByRole('option', { name: 'deny' }).click();
  await news.getByRole('textbox', { name: 'Target' }).fill('');
  await shot(page, 'rules-editing');
  await news.getByRole('button', { name: 'Save' }).click();
  await expect(toast(page, 'Rule for news.example.com updated')).toBeVisible();
  await expect(news.getByText('deny')).toBeVisible();
  const stored = await pageApi<{ domain: string; mode: string; target: string | null }[]>(
    page,
    'GET',
    '/rules/scraping',
  );
  expect(stored.body.find((r) => r.domain === 'news.example.com')).toMatchObject({
    mode: 'deny',
    target: null,
  });

  // Delete asks first; cancelling keeps the rule.
  await page.getByRole('button', { name: 'Delete spam.example.net' }).click();
  const dialog = page.getByRole('dialog');
  await expect(dialog.getByText(/Delete the rule for spam\.example\.net\?/)).toBeVisible();
  await dialog.getByRole('button', { name: 'Cancel' }).click();
  await expect(page.locator('tr[data-domain="spam.example.net"]')).toBeVisible();
  await page.getByRole('button', { name: 'Delete spam.example.net' }).click();
  await page.getByRole('dialog').getByRole('button', { name: 'Delete' }).click();
  await expect(toast(page, 'Rule for spam.example.net deleted')).toBeVisible();
  await expect(page.locator('tr[data-domain="spam.example.net"]')).toHaveCount(0);
  await page.reload();
  await expect(page.locator('tr[data-domain="news.example.com"]')).toBeVisible();
  await expect(page.locator('tr[data-domain="spam.example.net"]')).toHaveCount(0);
});
