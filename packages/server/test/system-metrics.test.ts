import os from 'node:os';
import { afterEach, describe, expect, it } from 'vitest';
import { MetricsHistory, SystemMetrics } from '@adam/contracts';
import { startServer, type TestServer } from './helpers.js';
import { until } from './until.js';

let s: TestServer | undefined;
afterEach(async () => {
  await s?.close();
  s = undefined;
});

const METRICS = '/api/v1/admin/system/metrics';
const HISTORY = '/api/v1/admin/system/metrics/history';

describe('system metrics over HTTP', () => {
  it('answers the machine figures with a key, 401 without', async () => {
    s = await startServer();
    const key = await s.login();
    const r = await s.api(METRICS, { key });
    expect(r.status).toBe(200);
    const m = SystemMetrics.parse(r.body);
    expect(m.cpu_per_core).toHaveLength(os.cpus().length);
    expect(Math.abs(m.memory_total! - os.totalmem()) / os.totalmem()).toBeLessThan(0.01);
    expect(m.disk_total).toBeGreaterThan(0);

    for (const p of [METRICS, `${HISTORY}?range=1h`]) {
      const r = await s.api(p);
      expect(r.status, p).toBe(401);
      expect(r.body.detail, p).toBeTruthy();
    }
  });

  it('answers 422 naming the range for any range but 1h, 24h and 7d', async () => {
    s = await startServer();
    const key = await s.login();
    for (const range of ['5m', '', '1H', '30d']) {
      const r = await s.api(`${HISTORY}?range=${range}`, { key });
      expect(r.status, range).toBe(422);
      expect(r.body.detail, range).toMatch(/^Invalid query: range/);
    }
  });

  it('keeps a history of the samples, every range oldest first, across a restart', async () => {
    s = await startServer({ build: { metricsSampleIntervalMs: 100 } });
    const key = await s.login();
    const hour = await until(
      async () => {
        const r = await s!.api(`${HISTORY}?range=1h`, { key });
        return r.status === 200 && r.body.metrics.length >= 2 && MetricsHistory.parse(r.body);
      },
      { what: 'two samples in the 1h history' },
    );
    expect(hour.range).toBe('1h');
    const stamps = hour.metrics.map((m) => Date.parse(m.timestamp));
    expect(stamps).toEqual([...stamps].sort((a, b) => a - b));
    expect(hour.metrics[1]!.cpu_per_core).toHaveLength(os.cpus().length);

    // Without a query the range is the hour.
    expect((await s.api(HISTORY, { key })).body.range).toBe('1h');
    for (const [range, interval] of [
      ['24h', 60],
      ['7d', 600],
    ] as const) {
      const r = await s.api(`${HISTORY}?range=${range}`, { key });
      expect(r.status).toBe(200);
      const h = MetricsHistory.parse(r.body);
      expect(h.interval_s).toBe(interval);
      // The minute and the 10 minutes in progress.
      expect(h.metrics.length).toBeGreaterThanOrEqual(1);
    }

    const dataDir = s.dataDir;
    await s.close();
    s = await startServer({ dataDir });
    const again = await s.api(`${HISTORY}?range=1h`, { key: await s.login() });
    expect(again.body.metrics.length).toBeGreaterThanOrEqual(hour.metrics.length);
    expect(again.body.metrics[0].timestamp).toBe(hour.metrics[0]!.timestamp);
  });
});
