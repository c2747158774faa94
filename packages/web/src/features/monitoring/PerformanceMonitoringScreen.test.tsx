import { afterEach, describe, expect, it, vi } from 'vitest';
import { act, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import type { HistoryRange } from '@adam/contracts';
import { json, mockFetch, type Route } from '../../test/fetchMock';
import { renderApp } from '../../test/renderApp';
import { loggedIn } from '../../test/session';
import { databaseMetrics, metricsHistory, systemMetrics } from './monitoring.fixtures';

const PATH = '/dashboard/monitoring/performance';

function setup(routes: Record<string, Route | Response> = {}, refreshMs = 5000) {
  return mockFetch({
    ...loggedIn(),
    'GET /admin/settings/resources': json({ metrics_refresh_ms: refreshMs }),
    'GET /admin/system/metrics': json(systemMetrics()),
    'GET /admin/system/metrics/history': (call) =>
      json(metricsHistory(call.query.range as HistoryRange)),
    'GET /admin/database/metrics': json(databaseMetrics()),
    ...routes,
  });
}

/** The console at `path` once the lazily loaded screen is there (slow on a busy machine). */
async function open(path: string) {
  const app = renderApp(path);
  await screen.findByRole('heading', { name: 'Performance Monitoring' });
  return app;
}

afterEach(() => {
  vi.useRealTimers();
});

describe('Performance Monitoring', () => {
  it("shows 'Loading...' until the first metrics, then the panels without pause or refresh controls", async () => {
    let answer: (response: Response) => void = () => {};
    setup({
      'GET /admin/system/metrics': () => new Promise<Response>((resolve) => (answer = resolve)),
    });
    await open(PATH);
    expect(
      await screen.findByRole('heading', { name: 'Performance Monitoring' }),
    ).toBeInTheDocument();
    expect(await screen.findByText('Loading...')).toBeInTheDocument();
    expect(screen.queryByRole('region', { name: 'CPU' })).not.toBeInTheDocument();
    answer(json(systemMetrics()));
    const cpu = await screen.findByRole('region', { name: 'CPU' });
    expect(screen.queryByText('Loading...')).not.toBeInTheDocument();
    expect(within(cpu).getAllByRole('meter')).toHaveLength(4);
    expect(await screen.findByText('SQLite 3.46 (WAL)')).toBeInTheDocument();
    expect(screen.getByRole('region', { name: 'RAM history' })).toBeInTheDocument();
    expect(screen.queryByRole('button', { name: /Pause|Resume/ })).not.toBeInTheDocument();
    expect(screen.queryByRole('slider')).not.toBeInTheDocument();
  });

  it("says 'Erreur système' when the first metrics fail", async () => {
    setup({ 'GET /admin/system/metrics': json({ detail: 'down' }, 500) });
    await open(PATH);
    expect(await screen.findByText('Erreur système')).toBeInTheDocument();
    expect(screen.queryByText('Loading...')).not.toBeInTheDocument();
  });

  it("polls at the resources setting's interval, and not while the header's monitoring is off", async () => {
    vi.useFakeTimers({ shouldAdvanceTime: true });
    const api = setup({}, 2000);
    await open(PATH);
    await screen.findByRole('region', { name: 'CPU' });
    await waitFor(() => expect(api.callsTo('GET', '/admin/settings/resources')).toHaveLength(1));
    const calls = () => api.callsTo('GET', '/admin/system/metrics').length;
    let before = calls();
    await act(() => vi.advanceTimersByTimeAsync(4100));
    expect(calls() - before).toBeGreaterThanOrEqual(2);

    const u = userEvent.setup({ advanceTimers: vi.advanceTimersByTime });
    await u.click(screen.getByRole('switch', { name: 'Monitoring On' }));
    expect(
      screen.getByText('Monitoring is off (header toggle): the figures are not refreshed.'),
    ).toBeInTheDocument();
    before = calls();
    const databaseBefore = api.callsTo('GET', '/admin/database/metrics').length;
    await act(() => vi.advanceTimersByTimeAsync(10_000));
    expect(calls()).toBe(before);
    expect(api.callsTo('GET', '/admin/database/metrics')).toHaveLength(databaseBefore);
  });
});
