import { expect, test, type Page } from '@playwright/test';
import { login, pageApi, requireChromium, shot } from './support';

/**
 * The Control Centre and Performance Monitoring against a real server: the figures are the
 * machine's own, and Pause stops the polling until Resume.
 */

requireChromium();
test.describe.configure({ mode: 'serial' });

interface Metrics {
  cpu_per_core: number[];
  memory_total: number | null;
}
interface Stores {
  redis: { engine: string } | null;
  faiss: { engine: string };
  lmdb: { engine: string };
}

const GB = 1024 ** 3;
const METRICS_PATH = '/api/v1/admin/system/metrics';

/** The times (ms) at which the page asked for GET /admin/system/metrics. */
function recordMetricsRequests(page: Page): number[] {
  const times: number[] = [];
  page.on('request', (request) => {
    if (new URL(request.url()).pathname === METRICS_PATH) times.push(Date.now());
  });
  return times;
}

test('the Control Centre shows the machine and the stores as the server reports them', async ({
  page,
}) => {
  await login(page);
  const metrics = (await pageApi<Metrics>(page, 'GET', '/admin/system/metrics')).body;
  const stores = (await pageApi<Stores>(page, 'GET', '/admin/database/metrics')).body;
  expect(metrics.cpu_per_core.length).toBeGreaterThan(0);

  await page.goto('/dashboard/monitoring/realtime');
  await expect(page.getByRole('heading', { name: 'Centre de Contrôle ADAM' })).toBeVisible();
  await expect(page.getByLabel('WebSocket')).toHaveText('WebSocket: connected');
  await expect(page.getByLabel('Global health')).toHaveText(/^\d+%$/);
  await expect(page.getByLabel('CPU badge')).toHaveText(/^CPU \d+\.\d%$/);

  const cpu = page.getByRole('region', { name: 'CPU', exact: true });
  await expect(cpu.getByRole('meter', { name: /^Core \d+$/ })).toHaveCount(
    metrics.cpu_per_core.length,
  );
  await expect(cpu.getByText(/GHz$|^-$/).first()).toBeVisible();
  // The memory total is the machine's, in GB to one decimal.
  const totalGB = (metrics.memory_total ?? 0) / GB;
  expect(totalGB).toBeGreaterThan(0.1);
  const memory = page.getByRole('region', { name: 'Memory', exact: true });
  await expect(memory.getByText(`/ ${totalGB.toFixed(1)} GB`, { exact: false })).toBeVisible();

  await expect(
    page.getByRole('region', { name: 'FAISS' }).getByText(stores.faiss.engine),
  ).toBeVisible();
  await expect(
    page.getByRole('region', { name: 'LMDB' }).getByText(stores.lmdb.engine),
  ).toBeVisible();
  await expect(
    page
      .getByRole('region', { name: 'Redis' })
      .getByText(stores.redis ? stores.redis.engine : 'not configured', { exact: true }),
  ).toBeVisible();
  await expect(
    page.getByRole('region', { name: 'CPU history' }).locator('svg').first(),
  ).toBeVisible();
  await shot(page, 'monitoring-control-centre');
});

test('Pause stops the polling and disables the slider; Resume starts it again', async ({
  page,
}) => {
  await login(page);
  const requests = recordMetricsRequests(page);
  await page.goto('/dashboard/monitoring/realtime?refresh=1000');
  const slider = page.getByRole('slider', { name: 'Refresh interval' });
  await expect(slider).toHaveAttribute('aria-valuenow', '1');
  await expect.poll(() => requests.length, { timeout: 15_000 }).toBeGreaterThanOrEqual(3);

  await page.getByRole('button', { name: 'Pause' }).click();
  await expect(slider).toBeDisabled();
  const pausedAt = Date.now();
  // Proving that nothing comes needs time to pass: three intervals of 1 s. A request already
  // on its way at the click may still be reported a moment later, hence the margin.
  await page.waitForTimeout(3500);
  expect(requests.filter((t) => t > pausedAt + 500)).toEqual([]);
  const whilePaused = requests.length;

  await page.getByRole('button', { name: 'Resume' }).click();
  await expect(slider).toBeEnabled();
  await expect
    .poll(() => requests.length, { timeout: 15_000 })
    .toBeGreaterThanOrEqual(whilePaused + 2);
});

test('Performance Monitoring shows the same panels, without pause or refresh controls', async ({
  page,
}) => {
  await login(page, '/dashboard/monitoring/performance');
  await expect(page.getByRole('heading', { name: 'Performance Monitoring' })).toBeVisible();
  await expect(page.getByRole('region', { name: 'CPU', exact: true })).toBeVisible();
  await expect(page.getByRole('region', { name: 'LMDB' })).toBeVisible();
  await expect(page.getByRole('region', { name: 'Disk history' })).toBeVisible();
  await expect(page.getByRole('button', { name: 'Pause' })).toHaveCount(0);
  await expect(page.getByRole('slider')).toHaveCount(0);
  await shot(page, 'monitoring-performance');
});
