import { describe, expect, it } from 'vitest';
import { act, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import type { ActivityTimeline, LiveStats, OverviewStats, RecentActivity } from '@adam/contracts';
import { FakeWebSocket } from '../../test/fakeSocket';
import { json, mockFetch } from '../../test/fetchMock';
import { renderApp } from '../../test/renderApp';
import { loggedIn } from '../../test/session';

const stats = (over: Partial<OverviewStats> = {}): OverviewStats => ({
  total_snippets: 1234,
  total_segments: 1500,
  total_sources: 12,
  sources_with_content: 10,
  sources_failed: 2,
  total_vectors: 1200,
  index_size_mb: 1.76,
  active_jobs: 1,
  pending_jobs: 2,
  throughput_last_hour: 5,
  cache_hit_rate: 0.5,
  segments_per_second: 0.4,
  themes: { science: 800, technology: 400, general: 34 },
  average_quality: 0.71,
  generated_at: '2020-01-01T10:00:00.000Z',
  ...over,
});

const timeline = (period = 'day'): ActivityTimeline => ({
  period: period as ActivityTimeline['period'],
  bucket: period === 'hour' ? 'minute' : period === 'day' ? 'hour' : 'day',
  buckets: Array.from({ length: 12 }, (_, i) => ({
    start: new Date(Date.UTC(2026, 0, 1, i)).toISOString(),
    snippets: i,
    jobs_created: 1,
    jobs_completed: 1,
    jobs_failed: 0,
  })),
});

const activity: RecentActivity = {
  items: [
    {
      id: 2,
      kind: 'job_completed',
      message: 'Job 12 completed: 48 segments',
      level: 'success',
      job_id: 12,
      created_at: '2026-01-01T10:00:00.000Z',
    },
    {
      id: 1,
      kind: 'login',
      message: 'admin@example.com logged in',
      level: 'info',
      job_id: null,
      created_at: '2026-01-01T09:00:00.000Z',
    },
  ],
};

function routes(over: Partial<OverviewStats> = {}) {
  return {
    ...loggedIn(),
    'GET /analytics/overview': json(stats(over)),
    'GET /analytics/activity/recent': json(activity),
    'GET /evaluation/alerts': json({ alerts: [] }),
    'GET /analytics/activity/timeline': (call: { query: Record<string, string> }) =>
      json(timeline(call.query.period)),
  };
}

const card = (title: string) => screen.getByRole('group', { name: title });

describe('Overview', () => {
  it('asks for the last 10 activities and the day timeline by default, and shows the real totals', async () => {
    const { callsTo } = mockFetch(routes());
    renderApp('/dashboard/overview');
    await waitFor(() =>
      expect(within(card('Total snippets')).getByText('1,234')).toBeInTheDocument(),
    );
    expect(within(card('Total segments')).getByText('1,500')).toBeInTheDocument();
    expect(within(card('Sources')).getByText('12')).toBeInTheDocument();
    expect(
      within(card('Sources')).getByText('Distinct source URLs · 10 with content · 2 failed'),
    ).toBeInTheDocument();
    expect(within(card('Index size')).getByText(/1,200/)).toBeInTheDocument();
    expect(within(card('Index size')).getByText('1.76 MB')).toBeInTheDocument();
    expect(within(card('Active jobs')).getByText('1')).toBeInTheDocument();
    expect(within(card('Active jobs')).getByText('2 pending')).toBeInTheDocument();
    expect(within(card('Throughput')).getByText(/^5/)).toBeInTheDocument();
    expect(within(card('Cache hit rate')).getByText('50.0%')).toBeInTheDocument();
    expect(within(card('Average quality')).getByText('0.71')).toBeInTheDocument();

    expect(callsTo('GET', '/analytics/activity/recent')[0]?.query).toEqual({ limit: '10' });
    expect(callsTo('GET', '/analytics/activity/timeline')[0]?.query).toEqual({ period: 'day' });
  });

  it('lists recent activity coloured by level, with links to the job queue and its snippets', async () => {
    mockFetch(routes());
    renderApp('/dashboard/overview');
    const list = await screen.findByRole('list', { name: 'Recent activity' });
    const items = within(list).getAllByRole('listitem');
    expect(items).toHaveLength(2);
    expect(items[0]).toHaveAttribute('data-level', 'success');
    expect(items[1]).toHaveAttribute('data-level', 'info');
    expect(within(items[0]!).getByRole('link', { name: 'Job #12' })).toHaveAttribute(
      'href',
      '/dashboard/sources/queue',
    );
    expect(within(items[0]!).getByRole('link', { name: 'Snippets' })).toHaveAttribute(
      'href',
      '/dashboard/sources/snippets?job_id=12',
    );
    expect(within(items[1]!).queryByRole('link')).not.toBeInTheDocument();
  });

  it('refetches the timeline with the chosen period', async () => {
    const { callsTo } = mockFetch(routes());
    renderApp('/dashboard/overview');
    const u = userEvent.setup();
    await screen.findByRole('radio', { name: 'Week' });
    await u.click(screen.getByRole('radio', { name: 'Week' }));
    await waitFor(() =>
      expect(callsTo('GET', '/analytics/activity/timeline').map((c) => c.query.period)).toEqual([
        'day',
        'week',
      ]),
    );
  });

  it('shows the counts the channel pushes in stats_update', async () => {
    mockFetch(routes());
    renderApp('/dashboard/overview');
    await waitFor(() =>
      expect(within(card('Total snippets')).getByText('1,234')).toBeInTheDocument(),
    );
    const live = screen.getByRole('region', { name: 'Live counts' });
    expect(within(live).getByText(/Waiting for the realtime channel/)).toBeInTheDocument();

    await waitFor(() => expect(FakeWebSocket.latest()).toBeDefined());
    const socket = FakeWebSocket.latest()!;
    act(() => socket.open());
    const pushed: LiveStats = {
      total_snippets: 2001,
      total_vectors: 1990,
      pending_index: 11,
      jobs: { pending: 3, processing: 4, completed: 20, failed: 1, cancelled: 0 },
      workers: { mode: 'embedded', running: 2 },
      metrics: {
        cpuUsage: 10,
        memoryUsage: 20,
        segmentsPerSecond: 3.5,
        activeJobs: 0,
        jobsPerMinute: 0,
        searchesPerSecond: 0,
        timestamp: new Date().toISOString(),
      },
      uptime_s: 60,
    };
    act(() =>
      socket.push({ type: 'stats_update', stats: pushed, timestamp: new Date().toISOString() }),
    );

    await waitFor(() =>
      expect(within(card('Total snippets')).getByText('2,001')).toBeInTheDocument(),
    );
    expect(within(card('Total snippets')).getByText('11 pending indexing')).toBeInTheDocument();
    expect(within(card('Index size')).getByText(/1,990/)).toBeInTheDocument();
    expect(within(card('Active jobs')).getByText('4')).toBeInTheDocument();
    expect(within(card('Active jobs')).getByText('3 pending')).toBeInTheDocument();
    expect(within(card('Segments / s')).getByText('3.5')).toBeInTheDocument();
    expect(within(live).getByRole('group', { name: 'Jobs completed' })).toHaveTextContent('20');
    expect(within(live).getByRole('group', { name: 'Jobs failed' })).toHaveTextContent('1');
    expect(within(live).getByText('2 running (embedded)')).toBeInTheDocument();

    // The next push replaces the figures.
    act(() =>
      socket.push({
        type: 'stats_update',
        stats: { ...pushed, total_snippets: 2050, jobs: { ...pushed.jobs, processing: 0 } },
        timestamp: new Date().toISOString(),
      }),
    );
    await waitFor(() =>
      expect(within(card('Total snippets')).getByText('2,050')).toBeInTheDocument(),
    );
    expect(within(card('Active jobs')).getByText('0')).toBeInTheDocument();
  });

  it('labels the simulated metrics as simulated, apart from the real figures', async () => {
    mockFetch(routes());
    renderApp('/dashboard/overview');
    const panel = await screen.findByRole('region', { name: 'Simulated dashboard metrics' });
    expect(within(panel).getByText('Simulated')).toBeInTheDocument();
    expect(within(panel).getByText(/display-only demo values/i)).toBeInTheDocument();
    for (const label of [
      'CPU usage',
      'Memory usage',
      'Active jobs',
      'Segments / s',
      'Resonance latency',
      'Total snippets',
      'Total segments',
      'Emotional diversity',
      'Index size',
      'Cache hit rate',
    ]) {
      expect(within(panel).getByRole('group', { name: `Simulated ${label}` })).toBeInTheDocument();
    }
    // The real cards are outside the panel.
    expect(within(panel).queryByRole('group', { name: 'Total snippets' })).not.toBeInTheDocument();
  });

  it('on a fresh install invites to add sources or use the encyclopedia playground', async () => {
    mockFetch(routes({ total_snippets: 0, total_segments: 0, total_sources: 0, themes: {} }));
    renderApp('/dashboard/overview');
    expect(await screen.findByText('No snippets yet')).toBeInTheDocument();
    expect(screen.getByRole('link', { name: 'Add sources' })).toHaveAttribute(
      'href',
      '/dashboard/sources/add',
    );
    expect(screen.getByRole('link', { name: 'Open the encyclopedia playground' })).toHaveAttribute(
      'href',
      '/dashboard/model/playground/wikipedia',
    );
    expect(screen.getByText('No snippets to group by theme yet.')).toBeInTheDocument();
  });

  it('has no empty-install invitation once snippets exist', async () => {
    mockFetch(routes());
    renderApp('/dashboard/overview');
    await waitFor(() =>
      expect(within(card('Total snippets')).getByText('1,234')).toBeInTheDocument(),
    );
    expect(screen.queryByText('No snippets yet')).not.toBeInTheDocument();
  });

  it('shows the failure of the overview call with a retry', async () => {
    mockFetch({
      ...routes(),
      'GET /analytics/overview': json({ detail: 'Database is locked' }, 500),
    });
    renderApp('/dashboard/overview');
    expect(await screen.findByText('Failed to load the overview')).toBeInTheDocument();
    expect(screen.getByRole('button', { name: 'Retry' })).toBeInTheDocument();
  });
});
