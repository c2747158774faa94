import { afterEach, describe, expect, it, vi } from 'vitest';
import { act, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { FakeWebSocket } from '../../test/fakeSocket';
import { json, mockFetch, type Route } from '../../test/fetchMock';
import { renderApp } from '../../test/renderApp';
import { loggedIn } from '../../test/session';
import {
  databaseMetrics,
  metricsHistory,
  realtimeMetrics,
  redisMetrics,
  systemMetrics,
} from './monitoring.fixtures';
import type { HistoryRange } from '@adam/contracts';

const PATH = '/dashboard/monitoring/realtime';

/** The screen's calls answered from the fixtures; `routes` override some. */
function setup(routes: Record<string, Route | Response> = {}, refreshMs = 5000) {
  return mockFetch({
    ...loggedIn(),
    'GET /admin/settings/resources': json({ metrics_refresh_ms: refreshMs }),
    'GET /metrics/realtime': json(
      realtimeMetrics({
        segmentsPerSecond: 4.5,
        searchesPerSecond: 1.2,
        activeJobs: 2,
        jobsPerMinute: 0.6,
      }),
    ),
    'GET /admin/system/metrics': json(systemMetrics()),
    'GET /admin/system/metrics/history': (call) =>
      json(metricsHistory(call.query.range as HistoryRange)),
    'GET /admin/database/metrics': json(databaseMetrics()),
    ...routes,
  });
}

const section = (name: string) => screen.getByRole('region', { name });
const requestUpdates = () =>
  (FakeWebSocket.latest()?.sent ?? []).filter((m) => JSON.parse(m).type === 'request_update')
    .length;

/** The console at `path` once the lazily loaded screen is there (slow on a busy machine). */
async function open(path: string) {
  const app = renderApp(path);
  await screen.findByRole('heading', { name: 'Centre de Contrôle ADAM' });
  return app;
}

afterEach(() => {
  vi.useRealTimers();
});

describe('Control Centre', () => {
  it('shows health, the channel, badges, the system panel, the databases and an all-clear', async () => {
    setup();
    await open(PATH);
    expect(
      await screen.findByRole('heading', { name: 'Centre de Contrôle ADAM' }),
    ).toBeInTheDocument();
    // (100 − 30 + 100 − 50) / 2
    await waitFor(() => expect(screen.getByLabelText('Global health')).toHaveTextContent('60%'));
    expect(screen.getByLabelText('WebSocket')).toHaveTextContent('WebSocket: disconnected');
    act(() => FakeWebSocket.latest()!.open());
    expect(screen.getByLabelText('WebSocket')).toHaveTextContent('WebSocket: connected');
    expect(screen.getByLabelText('CPU badge')).toHaveTextContent('CPU 30.0%');
    expect(screen.getByLabelText('CPU badge')).toHaveAttribute('data-level', 'ok');
    expect(screen.getByLabelText('RAM badge')).toHaveTextContent('RAM 50.0%');
    expect(screen.getByLabelText('Pipeline rates')).toHaveTextContent(
      'Segments / s 4.5Searches / s 1.2Active jobs 2Jobs / min 0.6',
    );

    const cpu = await screen.findByRole('region', { name: 'CPU' });
    const cores = within(cpu).getAllByRole('meter');
    expect(cores.map((c) => c.getAttribute('aria-label'))).toEqual([
      'Core 1',
      'Core 2',
      'Core 3',
      'Core 4',
    ]);
    // 12, 65, 85, 40 %: red above 80, yellow above 60.
    expect(cores.map((c) => c.getAttribute('data-level'))).toEqual([
      'ok',
      'warning',
      'error',
      'ok',
    ]);
    expect(within(cpu).getByText('3.20 GHz')).toBeInTheDocument();
    expect(within(cpu).getByText('55 °C')).toBeInTheDocument();
    expect(within(cpu).getByText('312')).toBeInTheDocument();
    expect(within(cpu).getByText('1,480')).toBeInTheDocument();
    const memory = section('Memory');
    expect(within(memory).getByText('12.3 / 31.3 GB')).toBeInTheDocument();
    expect(within(memory).getByText('4.4 GB')).toBeInTheDocument();
    expect(within(memory).getByText('0.3 GB')).toBeInTheDocument();
    // No GPU on this machine: every figure '-'.
    const gpu = section('GPU');
    expect(within(gpu).getByText('No GPU reported by this machine.')).toBeInTheDocument();
    expect(within(gpu).getAllByText('-').length).toBeGreaterThanOrEqual(3);
    const storage = section('Storage');
    expect(within(storage).getByText('120.0 / 480.0 GB')).toBeInTheDocument();
    expect(within(storage).getByText('140')).toBeInTheDocument();
    expect(within(storage).getByText('0.80 ms')).toBeInTheDocument();

    const db = await screen.findByRole('region', { name: 'Redis' });
    expect(within(db).getByText('not configured')).toBeInTheDocument();
    expect(within(section('FAISS')).getByText('usearch HNSW (on disk)')).toBeInTheDocument();
    expect(within(section('FAISS')).getByText('4,200')).toBeInTheDocument();
    expect(within(section('LMDB')).getByText('SQLite 3.46 (WAL)')).toBeInTheDocument();
    // The store's bytes for each byte of text: a multiple, said as one, with what it means.
    expect(within(section('LMDB')).getByText('5.20×')).toBeInTheDocument();
    expect(within(section('LMDB')).getByText('Disk per text byte')).toHaveAttribute(
      'title',
      expect.stringContaining('embedding vector'),
    );
    expect(
      screen.getByText('All clear: CPU and memory are within their thresholds.'),
    ).toBeInTheDocument();
  });

  it('shows a configured Redis with its figures', async () => {
    setup({ 'GET /admin/database/metrics': json(databaseMetrics({ redis: redisMetrics() })) });
    await open(PATH);
    const redis = await screen.findByRole('region', { name: 'Redis' });
    await within(redis).findByText('Redis 7.2 (BullMQ queue)');
    expect(within(redis).getByText('91.0%')).toBeInTheDocument();
    expect(within(redis).getByText('3.5 / 256 MB')).toBeInTheDocument();
  });

  it('raises the alerts and colours the badges above their thresholds', async () => {
    setup({ 'GET /metrics/realtime': json(realtimeMetrics({ cpuUsage: 85, memoryUsage: 78 })) });
    await open(PATH);
    const alerts = await screen.findByLabelText('Alerts');
    await within(alerts).findByText('CPU critical');
    expect(within(alerts).getByText('Memory high')).toBeInTheDocument();
    expect(within(alerts).getByText('CPU at 85.0% (above 80%)')).toBeInTheDocument();
    expect(within(alerts).getByText('Memory at 78.0% (above 75%)')).toBeInTheDocument();
    expect(screen.getByLabelText('CPU badge')).toHaveAttribute('data-level', 'error');
    expect(screen.getByLabelText('RAM badge')).toHaveAttribute('data-level', 'warning');
    // Health clamps nothing here: (15 + 22) / 2.
    expect(screen.getByLabelText('Global health')).toHaveTextContent('19%');
  });

  it('switches the network figures between MB/s and Mbps (× 8)', async () => {
    setup();
    await open(PATH);
    const network = await screen.findByRole('region', { name: 'Network' });
    expect(within(network).getByText('2.50 MB/s')).toBeInTheDocument();
    expect(within(network).getByText('0.50 MB/s')).toBeInTheDocument();
    await userEvent.setup().click(within(network).getByText('Mbps'));
    expect(within(network).getByText('20.0 Mbps')).toBeInTheDocument();
    expect(within(network).getByText('4.0 Mbps')).toBeInTheDocument();
    expect(section('Network history')).toHaveTextContent('Mbps');
  });

  it('takes its interval from the resources setting, or from the tab parameter (ms)', async () => {
    setup({}, 7000);
    const first = await open(PATH);
    const slider = await screen.findByRole('slider', { name: 'Refresh interval' });
    await waitFor(() => expect(slider).toHaveAttribute('aria-valuenow', '7'));
    first.unmount();

    await open(`${PATH}?refresh=12000`);
    expect(await screen.findByRole('slider', { name: 'Refresh interval' })).toHaveAttribute(
      'aria-valuenow',
      '12',
    );
    expect(screen.getByRole('button', { name: 'Pause' })).toBeInTheDocument();
  });

  it('opens paused with active=false: the slider is disabled and nothing polls', async () => {
    vi.useFakeTimers({ shouldAdvanceTime: true });
    const api = setup({}, 60_000);
    await open(`${PATH}?active=false&refresh=1000`);
    const resume = await screen.findByRole('button', { name: 'Resume' });
    expect(screen.getByRole('slider', { name: 'Refresh interval' })).toHaveAttribute(
      'aria-disabled',
      'true',
    );
    // What it never had it loads once, then nothing (the interval is 1 s).
    await screen.findByText('3.20 GHz');
    await act(() => vi.advanceTimersByTimeAsync(5000));
    expect(api.callsTo('GET', '/admin/system/metrics')).toHaveLength(1);
    expect(api.callsTo('GET', '/admin/database/metrics')).toHaveLength(1);
    await userEvent.setup({ advanceTimers: vi.advanceTimersByTime }).click(resume);
    await act(() => vi.advanceTimersByTimeAsync(3000));
    expect(api.callsTo('GET', '/admin/system/metrics').length).toBeGreaterThan(2);
    expect(screen.getByRole('slider', { name: 'Refresh interval' })).not.toHaveAttribute(
      'aria-disabled',
      'true',
    );
  });

  it('pausing stops every poll of the screen and its request_update; resuming restarts them', async () => {
    vi.useFakeTimers({ shouldAdvanceTime: true });
    // The header's own realtime poll at 60 s stays out of the counted window.
    const api = setup({}, 60_000);
    await open(`${PATH}?refresh=1000`);
    await screen.findByText('3.20 GHz');
    await waitFor(() => expect(api.callsTo('GET', '/admin/settings/resources')).toHaveLength(1));
    act(() => FakeWebSocket.latest()!.open());
    const polled = [
      '/admin/system/metrics',
      '/admin/system/metrics/history',
      '/admin/database/metrics',
      '/metrics/realtime',
    ];
    const counts = () => polled.map((path) => api.callsTo('GET', path).length);

    // Running: every call and a request_update each second.
    let before = counts();
    let updates = requestUpdates();
    await act(() => vi.advanceTimersByTimeAsync(3000));
    counts().forEach((n, i) => expect(n - before[i]!).toBeGreaterThanOrEqual(2));
    expect(requestUpdates() - updates).toBeGreaterThanOrEqual(2);

    const u = userEvent.setup({ advanceTimers: vi.advanceTimersByTime });
    await u.click(screen.getByRole('button', { name: 'Pause' }));
    expect(screen.getByRole('slider', { name: 'Refresh interval' })).toHaveAttribute(
      'aria-disabled',
      'true',
    );
    expect(screen.getByText('Paused: nothing is refreshed until you resume.')).toBeInTheDocument();
    before = counts();
    updates = requestUpdates();
    await act(() => vi.advanceTimersByTimeAsync(10_000));
    expect(counts()).toEqual(before);
    expect(requestUpdates()).toBe(updates);

    await u.click(screen.getByRole('button', { name: 'Resume' }));
    await act(() => vi.advanceTimersByTimeAsync(3000));
    counts().forEach((n, i) => expect(n).toBeGreaterThan(before[i]!));
    expect(requestUpdates()).toBeGreaterThan(updates);
  });

  it('keeps the last figures on screen with the spec error line when a poll fails', async () => {
    let fail = false;
    const failing = (body: unknown) => () => (fail ? json({ detail: 'boom' }, 500) : json(body));
    setup({
      'GET /metrics/realtime': failing(realtimeMetrics()),
      'GET /admin/system/metrics': failing(systemMetrics()),
      'GET /admin/system/metrics/history': failing(metricsHistory('1h')),
      'GET /admin/database/metrics': failing(databaseMetrics()),
    });
    await open(`${PATH}?refresh=1000`);
    await screen.findByText('3.20 GHz');
    await screen.findByText('SQLite 3.46 (WAL)');
    await waitFor(() => expect(screen.getByLabelText('Global health')).toHaveTextContent('60%'));
    expect(screen.queryByText(/^Erreur/)).not.toBeInTheDocument();
    fail = true;
    for (const line of [
      'Erreur temps réel',
      'Erreur système',
      'Erreur CPU',
      'Erreur RAM',
      'Erreur réseau',
      'Erreur disque',
      'Erreur base de données',
    ]) {
      expect(await screen.findByText(line)).toBeInTheDocument();
    }
    expect(screen.getByText('3.20 GHz')).toBeInTheDocument();
    expect(screen.getByText('SQLite 3.46 (WAL)')).toBeInTheDocument();
    expect(screen.getByLabelText('Global health')).toHaveTextContent('60%');
    expect(within(section('CPU history')).queryByText('No samples in this range yet.')).toBeNull();
  });

  it('follows metrics.update pushes on the channel', async () => {
    setup();
    await open(PATH);
    await waitFor(() => expect(screen.getByLabelText('Global health')).toHaveTextContent('60%'));
    act(() => {
      FakeWebSocket.latest()!.open();
      FakeWebSocket.latest()!.push({
        type: 'metrics.update',
        ...realtimeMetrics({ cpuUsage: 90, memoryUsage: 90 }),
      });
    });
    expect(screen.getByLabelText('Global health')).toHaveTextContent('10%');
    expect(screen.getByLabelText('CPU badge')).toHaveTextContent('CPU 90.0%');
  });

  it('each history chart has its own range', async () => {
    const api = setup();
    await open(PATH);
    const disk = await screen.findByRole('region', { name: 'Disk history' });
    await waitFor(() =>
      expect(api.callsTo('GET', '/admin/system/metrics/history').map((c) => c.query.range)).toEqual(
        ['1h'],
      ),
    );
    await userEvent.setup().click(within(disk).getByText('7d'));
    await waitFor(() =>
      expect(
        api.callsTo('GET', '/admin/system/metrics/history').map((c) => c.query.range),
      ).toContain('7d'),
    );
    expect(within(disk).getByRole('radio', { name: '7d' })).toBeChecked();
    expect(within(section('CPU history')).getByRole('radio', { name: '1h' })).toBeChecked();
  });
});
