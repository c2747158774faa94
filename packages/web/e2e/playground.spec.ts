import { expect, test, type Page, type Route } from '@playwright/test';
import { CHROMIUM, CHROMIUM_ARGS } from '../playwright.config';
import { FIXTURE_SITE_URL } from './fixtures';
import { login, pageApi, requireChromium, shot, toast } from './support';

requireChromium();
test.describe.configure({ mode: 'serial' });
// Chromium runs sandboxed frames in a process of their own, whose requests Playwright neither
// sees nor routes; kept in-process, any request the inert preview made would pass page.route.
test.use({
  launchOptions: {
    executablePath: CHROMIUM,
    args: [...CHROMIUM_ARGS, '--disable-features=IsolateSandboxedIframes'],
  },
});

const PLAYGROUND = '/dashboard/model/playground';
const URL_PLAYGROUND = '/dashboard/model/playground/url';
const ARTICLE_URL = `${FIXTURE_SITE_URL}/articles/honeybees`;
const MARKER = 'Scout bees advertise a candidate cavity with a waggle dance';
const RULE = { domain: '127.0.0.1', mode: 'selector', target: 'article .post-body' };
const RULE_LABEL = '127.0.0.1 (selector:article .post-body)';

const CONTEXT = [
  'Every spring, a strong honeybee colony raises a new queen.',
  'Scout bees advertise a candidate cavity with a waggle dance on the surface of the cluster.',
  'Once about fifteen scouts are present at the same cavity, they switch from dancing to piping.',
  'Lighthouse lenses were ground by hand in Paris workshops.',
].join(' ');

async function scoresOf(page: Page): Promise<string[]> {
  const cells = page.getByRole('table', { name: 'Top sentences' }).getByTestId('sentence-score');
  return (await cells.allTextContents()).map((s) => s.trim());
}

/** The fixture site's rule, created afresh (a retried run finds the previous one). */
async function freshRule(page: Page): Promise<void> {
  const { body: rules } = await pageApi<{ id: number; domain: string }[]>(
    page,
    'GET',
    '/rules/scraping',
  );
  for (const r of rules.filter((r) => r.domain === RULE.domain)) {
    await pageApi(page, 'DELETE', `/rules/scraping/${r.id}`);
  }
  const created = await pageApi(page, 'POST', '/rules/scraping', RULE);
  expect(created.status).toBe(201);
}

test('playground: analyse pasted text, top sentences with 3-decimal scores, the model warning', async ({
  page,
}) => {
  // The first analysis loads the embedding model.
  test.setTimeout(180_000);
  await login(page, PLAYGROUND);
  const analyze = page.getByRole('button', { name: 'Analyze' });
  await expect(analyze).toBeDisabled();
  await shot(page, 'playground-empty');

  await page.getByLabel('Context').fill(CONTEXT);
  await expect(analyze).toBeDisabled();
  await page.getByLabel('Question').fill('How do scout bees advertise a cavity?');
  await analyze.click();
  const sentences = page.getByRole('table', { name: 'Top sentences' });
  await expect(sentences).toBeVisible({ timeout: 90_000 });
  await expect(sentences.getByText(/waggle dance/)).toBeVisible();
  const scores = await scoresOf(page);
  expect(scores.length).toBeGreaterThan(0);
  expect(scores.length).toBeLessThanOrEqual(3);
  for (const score of scores) expect(score).toMatch(/^-?\d\.\d{3}$/);

  // French without a French language pack: the server pushes a model_warning for the banner.
  await page
    .getByLabel('Context')
    .fill(
      'Les abeilles éclaireuses annoncent une cavité par une danse. Marie Curie travaillait à Paris.',
    );
  await page.getByLabel('Question').fill('Comment les abeilles annoncent-elles une cavité ?');
  await page.getByRole('combobox', { name: 'Language' }).click();
  await page.getByRole('option', { name: 'French (fr)' }).click();
  await analyze.click();
  await expect(page.getByRole('alert', { name: 'Model warning' })).toContainText(
    'No French language pack',
  );
  await expect(sentences.getByText(/abeilles/).first()).toBeVisible();
  await shot(page, 'playground-data');
});

test('URL playground: scrape a fixture article under a chosen rule, the preview inert, analyse, jump to the rule', async ({
  page,
}) => {
  test.setTimeout(180_000);
  await login(page);
  await freshRule(page);
  await page.goto(URL_PLAYGROUND);
  const scrap = page.getByRole('button', { name: 'Scrap' });
  const reset = page.getByRole('button', { name: 'Reset' });
  const urlInput = page.getByRole('textbox', { name: 'URL' });
  await expect(scrap).toBeDisabled();
  await expect(reset).toBeDisabled();
  await shot(page, 'url-playground-empty');

  // A failing page: the spec's text with the server's detail.
  await urlInput.fill(`${FIXTURE_SITE_URL}/status/404`);
  await scrap.click();
  await expect(toast(page, /^Failed to fetch URL: .*404/)).toBeVisible();
  await shot(page, 'url-playground-failed');

  // Every request that leaves the browser from here on (blocked ones never reach a route):
  // the preview must add none.
  const requests: string[] = [];
  const record = (route: Route) => {
    requests.push(route.request().url());
    return route.continue();
  };
  await page.route('**/*', record);

  await urlInput.fill(ARTICLE_URL);
  await page.getByRole('combobox', { name: 'Scraping rule' }).click();
  await page.getByRole('option', { name: RULE_LABEL }).click();
  await scrap.click();

  const info = page.getByRole('group', { name: 'Fetch info' });
  await expect(info.getByTestId('info-rule')).toHaveText(RULE_LABEL);
  await expect(info.getByTestId('info-domain')).toHaveText('127.0.0.1');
  const original = Number(
    (await info.getByTestId('info-original-length').innerText()).replace(/,/g, ''),
  );
  const clean = Number((await info.getByTestId('info-clean-length').innerText()).replace(/,/g, ''));
  expect(clean).toBeGreaterThan(0);
  expect(original).toBeGreaterThan(clean);
  const context = page.getByLabel('Context');
  await expect(context).toHaveValue(new RegExp(MARKER));
  // The selector kept the article body only: no cookie banner, no footer.
  await expect(context).not.toHaveValue(/cookie/i);
  expect((await context.inputValue()).length).toBe(clean);

  // The raw HTML preview: the page is there, inert.
  const frame = page.locator('iframe[title="Rendered page (inert)"]');
  await expect(frame).toHaveAttribute('sandbox', '');
  const inside = page.frameLocator('iframe[title="Rendered page (inert)"]');
  await expect(inside.getByText(MARKER)).toBeVisible();
  // The page's own script marks every .ad element; it never ran.
  await expect(inside.locator('.ad').first()).toBeVisible();
  await expect(inside.locator('.ad').first()).not.toHaveAttribute('data-seen', '1');
  // Only the console's own calls left: nothing for the page's stylesheet or scripts.
  const leaked = () => requests.filter((u) => !/^\/(api\/v1|assets)\//.test(new URL(u).pathname));
  expect(leaked()).toEqual([]);
  await expect(inside.locator('script')).toHaveCount(0);
  await page.getByText('Source', { exact: true }).click();
  await expect(page.getByLabel('Page source')).toContainText('/static/analytics.js');
  await shot(page, 'url-playground-source');
  await page.getByText('Rendered', { exact: true }).click();
  await expect(inside.getByText(MARKER)).toBeVisible();

  // Analyse the scraped text.
  await page.getByLabel('Question').fill('How do scout bees advertise a cavity?');
  await page.getByRole('button', { name: 'Analyze' }).click();
  await expect(page.getByRole('table', { name: 'Top sentences' })).toBeVisible({
    timeout: 90_000,
  });
  for (const score of await scoresOf(page)) expect(score).toMatch(/^-?\d\.\d{3}$/);
  await shot(page, 'url-playground-data');

  await page.unroute('**/*', record);
  expect(leaked()).toEqual([]);

  // The jump to the rule: the scraping rules, its row highlighted.
  await page.getByRole('link', { name: 'Edit rules for 127.0.0.1' }).click();
  await expect(page).toHaveURL(/\/dashboard\/settings\/scraping\?domain=127\.0\.0\.1$/);
  const row = page.locator('tr[data-domain="127.0.0.1"]');
  await expect(row).toHaveAttribute('data-highlighted', 'true');
  await expect(row).toBeInViewport();

  // Back: Reset clears everything and is disabled again.
  await page.goto(URL_PLAYGROUND);
  await urlInput.fill(ARTICLE_URL);
  await expect(reset).toBeEnabled();
  await reset.click();
  await expect(urlInput).toHaveValue('');
  await expect(reset).toBeDisabled();
});
