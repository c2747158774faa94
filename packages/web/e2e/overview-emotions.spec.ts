import { expect, test, type Page } from '@playwright/test';
import { FIXTURE_SITE_URL } from './fixtures';
import { ADMIN, login, requireChromium, shot } from './support';

requireChromium();
test.describe.configure({ mode: 'serial' });

const card = (page: Page, title: string) =>
  page.getByRole('main').getByRole('group', { name: title, exact: true }).first();

test('fresh server: the overview invites to add sources and the emotions screen is empty', async ({
  page,
}) => {
  await login(page);
  await expect(page.getByRole('heading', { name: 'System Overview' })).toBeVisible();
  await expect(page.getByText('No snippets yet')).toBeVisible();
  await expect(page.getByRole('link', { name: 'Add sources' })).toHaveAttribute(
    'href',
    '/dashboard/sources/add',
  );
  await expect(page.getByRole('link', { name: 'Open the encyclopedia playground' })).toBeVisible();
  await expect(card(page, 'Total snippets').getByTestId('metric-value')).toHaveText('0');

  const simulated = page.getByRole('region', { name: 'Simulated dashboard metrics' });
  await expect(simulated.getByText('Simulated', { exact: true })).toBeVisible();
  await expect(simulated.getByText(/display-only demo values/i)).toBeVisible();
  // Our own login is already in the activity.
  await expect(page.getByRole('list', { name: 'Recent activity' })).toBeVisible();
  await shot(page, 'overview-empty');

  await page.goto('/dashboard/emotions');
  await expect(page.getByRole('heading', { name: 'Emotion Analytics' })).toBeVisible();
  await expect(page.getByText('No emotions in this period')).toBeVisible();
  await expect(page.getByRole('region', { name: 'Emotion timeline' })).toBeVisible();
  await shot(page, 'emotions-empty');
});

test('after a job: real counts, the job in recent activity, an emotion distribution and timeline', async ({
  page,
}) => {
  test.setTimeout(120_000);
  const auth = await page.request.post('/api/v1/auth/login', { data: ADMIN });
  expect(auth.ok()).toBe(true);
  const { api_key } = (await auth.json()) as { api_key: string };
  const headers = { 'X-API-Key': api_key };

  const queued = await page.request.post('/api/v1/sources/process', {
    headers,
    data: {
      urls: [`${FIXTURE_SITE_URL}/articles/honeybees`, `${FIXTURE_SITE_URL}/articles/tidal-power`],
    },
  });
  expect(queued.ok()).toBe(true);
  const { job_id } = (await queued.json()) as { job_id: number };
  await expect
    .poll(
      async () => {
        const r = await page.request.get(`/api/v1/sources/jobs/${job_id}`, { headers });
        return ((await r.json()) as { status: string }).status;
      },
      { timeout: 90_000, intervals: [500, 1000] },
    )
    .toBe('completed');

  await login(page);
  await expect(page.getByText('No snippets yet')).toHaveCount(0);
  const snippets = card(page, 'Total snippets').getByTestId('metric-value');
  await expect(snippets).not.toHaveText('0');
  await expect(snippets).toHaveText(/^[\d,]+$/);
  expect(Number((await snippets.textContent())?.replace(/,/g, ''))).toBeGreaterThan(0);
  await expect(card(page, 'Sources').getByTestId('metric-value')).toHaveText('2');
  await expect(card(page, 'Throughput').getByTestId('metric-value')).toContainText('1');

  const activity = page.getByRole('list', { name: 'Recent activity' });
  await expect(activity.getByRole('link', { name: `Job #${job_id}` }).first()).toBeVisible();
  await expect(activity.getByText(new RegExp(`Job ${job_id}\\b`)).first()).toBeVisible();
  await expect(activity.getByRole('link', { name: 'Snippets' }).first()).toHaveAttribute(
    'href',
    `/dashboard/sources/snippets?job_id=${job_id}`,
  );
  await expect(
    page.getByRole('region', { name: 'Simulated dashboard metrics' }).getByText('Simulated', {
      exact: true,
    }),
  ).toBeVisible();
  // Live counts arrive over the channel.
  await expect(
    page
      .getByRole('region', { name: 'Live counts' })
      .getByRole('group', { name: 'Jobs completed' }),
  ).toContainText('1');
  await shot(page, 'overview-data');

  await page.goto('/dashboard/emotions');
  const distribution = page.getByRole('region', { name: 'Dominant emotions' });
  await expect(distribution).toBeVisible();
  await expect(distribution.getByRole('group', { name: /^Dominant / }).first()).toContainText('%');
  await expect(
    page.getByRole('region', { name: 'Per-emotion figures' }).getByRole('row'),
  ).toHaveCount(9);
  const timeline = page.getByRole('region', { name: 'Emotion timeline' });
  // All snippets were stored in this hour: one dot per emotion, not yet a line.
  await expect(timeline.locator('.recharts-line-dots circle').first()).toBeVisible();
  await expect(page.getByText('No snippet was stored in these hours.')).toHaveCount(0);
  await shot(page, 'emotions-data');
});
