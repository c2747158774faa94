import { describe, expect, it } from 'vitest';
import { act, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import type { QualityAlert } from '@adam/contracts';
import { FakeWebSocket } from '../../test/fakeSocket';
import { json, mockFetch } from '../../test/fetchMock';
import { renderApp } from '../../test/renderApp';
import { adminUser, loggedIn } from '../../test/session';

const alert = (over: Partial<QualityAlert> = {}): QualityAlert => ({
  id: 7,
  set_id: 3,
  set_name: 'Support questions',
  run_id: 42,
  base_run_id: 40,
  mode: 'hybrid',
  base_ndcg_10: 0.812,
  head_ndcg_10: 0.7,
  fall: 0.112,
  threshold: 0.05,
  trigger: 'rebuild',
  lost_count: 7,
  lost_queries: Array.from({ length: 6 }, (_, i) => ({
    key: i + 1,
    text: `lost query number ${i + 1}`,
    base_ndcg_10: 1,
    head_ndcg_10: 0.25,
  })),
  created_at: '2026-11-27T10:00:00.000Z',
  dismissed_at: null,
  dismissed_by: null,
  ...over,
});

function routes(alerts: QualityAlert[], role: 'administrator' | 'viewer' = 'administrator') {
  return {
    ...loggedIn(),
    'GET /auth/me': json({ ...adminUser, role }),
    'GET /analytics/overview': json({ detail: 'not under test' }, 500),
    'GET /analytics/activity/recent': json({ items: [] }),
    'GET /analytics/activity/timeline': json({ period: 'day', bucket: 'hour', buckets: [] }),
    'GET /evaluation/alerts': json({ alerts }),
  };
}

describe('Overview: search quality alerts', () => {
  it('lists open alerts with the set, mode, fall, lost queries, and a link to the run', async () => {
    mockFetch(routes([alert()]));
    renderApp('/dashboard/overview');
    const list = await screen.findByRole('list', { name: 'Search quality alerts' });
    const [row] = within(list).getAllByRole('listitem', { name: /^Search quality fell/ });
    expect(within(row!).getByText('Support questions')).toBeInTheDocument();
    expect(within(row!).getByText('Hybrid')).toBeInTheDocument();
    expect(within(row!).getByText(/0\.812 → 0\.700/)).toBeInTheDocument();
    expect(
      within(row!).getByText(/after a rebuild of the index, against run #\s*40/),
    ).toBeInTheDocument();
    expect(within(row!).getByText('7 queries lost:')).toBeInTheDocument();
    // Five named, the rest counted.
    expect(within(row!).getByText(/lost query number 5/)).toBeInTheDocument();
    expect(within(row!).queryByText(/lost query number 6/)).not.toBeInTheDocument();
    expect(within(row!).getByText('and 2 more')).toBeInTheDocument();
    expect(within(row!).getByRole('link', { name: 'Open in Quality' })).toHaveAttribute(
      'href',
      '/dashboard/index/quality?set=3&run=42',
    );
  });

  it('dismisses an alert with POST and takes it off the panel', async () => {
    let open = [alert(), alert({ id: 8, mode: 'keyword', set_name: 'Other set' })];
    const { callsTo } = mockFetch({
      ...routes([]),
      'GET /evaluation/alerts': () => json({ alerts: open }),
      'POST /evaluation/alerts/7/dismiss': () => {
        open = open.filter((a) => a.id !== 7);
        return json({ ...alert(), dismissed_at: '2026-11-27T11:00:00.000Z' });
      },
    });
    renderApp('/dashboard/overview');
    const u = userEvent.setup();
    const list = await screen.findByRole('list', { name: 'Search quality alerts' });
    expect(within(list).getAllByRole('listitem', { name: /^Search quality fell/ })).toHaveLength(2);
    const first = within(list).getAllByRole('listitem', { name: /^Search quality fell/ })[0]!;
    await u.click(within(first).getByRole('button', { name: 'Dismiss' }));
    await waitFor(() => expect(callsTo('POST', '/evaluation/alerts/7/dismiss')).toHaveLength(1));
    await waitFor(() => expect(screen.queryByText('Support questions')).not.toBeInTheDocument());
    expect(screen.getByText('Other set')).toBeInTheDocument();
  });

  it('is not shown without open alerts, and offers no Dismiss to a viewer', async () => {
    mockFetch(routes([]));
    const { unmount } = renderApp('/dashboard/overview');
    await screen.findByText('Recent activity');
    await waitFor(() => expect(screen.queryByText('Search quality')).not.toBeInTheDocument());
    unmount();

    mockFetch(routes([alert()], 'viewer'));
    renderApp('/dashboard/overview');
    await screen.findByRole('list', { name: 'Search quality alerts' });
    expect(screen.queryByRole('button', { name: 'Dismiss' })).not.toBeInTheDocument();
  });

  it('says when the alerts cannot be read', async () => {
    mockFetch({ ...routes([]), 'GET /evaluation/alerts': json({ detail: 'disk error' }, 500) });
    renderApp('/dashboard/overview');
    expect(
      await screen.findByText('Search quality alerts could not be loaded'),
    ).toBeInTheDocument();
    expect(screen.getByText('disk error')).toBeInTheDocument();
  });

  it('reads the alerts again when the channel pushes quality_alert', async () => {
    let open: QualityAlert[] = [];
    mockFetch({ ...routes([]), 'GET /evaluation/alerts': () => json({ alerts: open }) });
    renderApp('/dashboard/overview');
    await screen.findByText('Recent activity');
    await waitFor(() => expect(FakeWebSocket.latest()).toBeDefined());
    const socket = FakeWebSocket.latest()!;
    act(() => socket.open());
    open = [alert()];
    act(() =>
      socket.push({
        type: 'quality_alert',
        alert_id: 7,
        set_id: 3,
        set_name: 'Support questions',
        run_id: 42,
        mode: 'hybrid',
        fall: 0.112,
        lost_count: 7,
        timestamp: '2026-11-27T10:00:00.000Z',
      }),
    );
    expect(await screen.findByText('Support questions')).toBeInTheDocument();
  });
});
