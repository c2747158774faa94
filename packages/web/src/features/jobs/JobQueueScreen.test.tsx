import { describe, expect, it, vi } from 'vitest';
import { act, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import type { Job, JobStatus, JobThroughput } from '@adam/contracts';
import { FakeWebSocket } from '../../test/fakeSocket';
import { json, mockFetch, type Route } from '../../test/fetchMock';
import { renderApp } from '../../test/renderApp';
import { loggedIn } from '../../test/session';
import { jobError, jobList, makeJob } from './jobs.fixtures';
import { jobKeys } from './jobs.api';

const QUEUE = '/dashboard/sources/queue';

const throughput: JobThroughput = {
  window_hours: 24,
  jobs_created: 30,
  jobs_finished: 24,
  jobs_per_hour: 1,
  wait_p50_s: 2,
  wait_p95_s: 14.2,
  run_p50_s: 40,
  run_p95_s: 185,
  failure_rate: 0.125,
  hourly: Array.from({ length: 24 }, (_, i) => ({
    hour: new Date(Date.UTC(2026, 2, 1, i)).toISOString(),
    created: i % 3,
    finished: i % 2,
  })),
};

/** The queue's calls: `active` answers `jobs`, the other tabs are empty unless given. */
function queueRoutes(jobs: Job[], extra: Record<string, Route | Response> = {}) {
  return {
    ...loggedIn(),
    'GET /sources/jobs/active': json(jobList(jobs)),
    'GET /sources/jobs/queue': json(jobList([])),
    'GET /sources/jobs/history': json(jobList([])),
    'GET /sources/jobs/stuck': json(jobList([])),
    'GET /sources/jobs/throughput': json(throughput),
    ...extra,
  };
}

const actionLabels = (id: number) => ({
  cancel: `Cancel job ${id}`,
  relaunch: `Relaunch job ${id}`,
  delete: `Delete job ${id}`,
  snippets: `View snippets of job ${id}`,
  errors: `View errors of job ${id}`,
});

describe('Job queue: actions by status (spec 002 §4)', () => {
  const cases: { status: JobStatus; cancel: boolean; relaunch: boolean }[] = [
    { status: 'pending', cancel: true, relaunch: false },
    { status: 'processing', cancel: true, relaunch: false },
    { status: 'completed', cancel: false, relaunch: true },
    { status: 'failed', cancel: false, relaunch: true },
    { status: 'cancelled', cancel: false, relaunch: true },
  ];

  it.each(cases)(
    '$status: cancel $cancel, relaunch $relaunch, delete and view snippets always',
    async ({ status, cancel, relaunch }) => {
      mockFetch(queueRoutes([makeJob({ id: 7, status })]));
      renderApp(QUEUE);
      const labels = actionLabels(7);
      expect(await screen.findByRole('button', { name: labels.delete })).toBeInTheDocument();
      expect(screen.getByRole('link', { name: labels.snippets })).toHaveAttribute(
        'href',
        '/dashboard/sources/snippets?job_id=7',
      );
      expect(!!screen.queryByRole('button', { name: labels.cancel })).toBe(cancel);
      expect(!!screen.queryByRole('button', { name: labels.relaunch })).toBe(relaunch);
      // No errors recorded: no view-errors action.
      expect(screen.queryByRole('button', { name: labels.errors })).toBeNull();
    },
  );

  it('offers view errors only for a job with errors, and lists url, type, message and diagnostic', async () => {
    const failing = makeJob({
      id: 8,
      status: 'completed',
      errors: [jobError('http://site.test/status/404', 'HTTP 404 Not Found')],
    });
    const { callsTo } = mockFetch(
      queueRoutes([failing, makeJob({ id: 9, status: 'completed' })], {
        'GET /sources/jobs/8/errors': json({ job_id: 8, errors: failing.errors, total: 1 }),
      }),
    );
    renderApp(QUEUE);
    const u = userEvent.setup();
    await u.click(await screen.findByRole('button', { name: 'View errors of job 8' }));
    expect(screen.queryByRole('button', { name: 'View errors of job 9' })).toBeNull();

    const dialog = await screen.findByRole('dialog');
    const list = await within(dialog).findByRole('list', { name: 'Job errors' });
    expect(within(list).getByText('http://site.test/status/404')).toBeInTheDocument();
    expect(within(list).getByText('fetch')).toBeInTheDocument();
    expect(within(list).getByText('HTTP 404 Not Found')).toBeInTheDocument();
    expect(within(list).getByText('Not Found')).toBeInTheDocument();
    expect(within(list).getByText('0.12')).toBeInTheDocument();
    expect(callsTo('GET', '/sources/jobs/8/errors')).toHaveLength(1);
  });
});

describe('Job queue: actions', () => {
  it('deletes a job only after confirmation', async () => {
    const { callsTo } = mockFetch(
      queueRoutes([makeJob({ id: 4, status: 'failed' })], {
        'DELETE /sources/jobs/4': json({ id: 4, deleted: true }),
      }),
    );
    renderApp(QUEUE);
    const u = userEvent.setup();
    await u.click(await screen.findByRole('button', { name: 'Delete job 4' }));
    const dialog = await screen.findByRole('dialog');
    expect(callsTo('DELETE', '/sources/jobs/4')).toHaveLength(0);
    await u.click(within(dialog).getByRole('button', { name: 'Cancel' }));
    expect(callsTo('DELETE', '/sources/jobs/4')).toHaveLength(0);

    await u.click(screen.getByRole('button', { name: 'Delete job 4' }));
    await u.click(await screen.findByRole('button', { name: 'Delete job' }));
    expect(await screen.findByText('Job 4 deleted')).toBeInTheDocument();
    expect(callsTo('DELETE', '/sources/jobs/4')).toHaveLength(1);
  });

  it('cancels all pending jobs only after confirmation and says how many', async () => {
    const { callsTo } = mockFetch(
      queueRoutes([], {
        'POST /sources/jobs/cancel_pending': json({ cancelled: 3, job_ids: [1, 2, 3] }),
      }),
    );
    renderApp(QUEUE);
    const u = userEvent.setup();
    await u.click(await screen.findByRole('button', { name: 'Cancel all pending' }));
    await screen.findByRole('dialog');
    expect(callsTo('POST', '/sources/jobs/cancel_pending')).toHaveLength(0);
    await u.click(screen.getByRole('button', { name: 'Keep them' }));
    expect(callsTo('POST', '/sources/jobs/cancel_pending')).toHaveLength(0);

    await u.click(screen.getByRole('button', { name: 'Cancel all pending' }));
    await u.click(await screen.findByRole('button', { name: 'Cancel pending jobs' }));
    expect(await screen.findByText('Cancelled 3 pending jobs')).toBeInTheDocument();
    expect(callsTo('POST', '/sources/jobs/cancel_pending')).toHaveLength(1);
  });

  it('relaunches with the chosen priority', async () => {
    const { callsTo } = mockFetch(
      queueRoutes([makeJob({ id: 5, status: 'failed' })], {
        'POST /sources/jobs/5/relaunch': (call) =>
          json({
            job_id: 11,
            relaunched_from: 5,
            job: makeJob({ id: 11, priority: call.query.priority as Job['priority'] }),
          }),
      }),
    );
    renderApp(QUEUE);
    const u = userEvent.setup();
    await u.click(await screen.findByRole('button', { name: 'Relaunch job 5' }));
    const menu = await screen.findByRole('menu');
    expect(
      within(menu)
        .getAllByRole('menuitem')
        .map((i) => i.textContent),
    ).toEqual(['normal', 'high', 'low']);
    await u.click(within(menu).getByRole('menuitem', { name: 'low' }));
    expect(
      await screen.findByText('Job 5 relaunched as job 11 (low priority)'),
    ).toBeInTheDocument();
    const [call] = callsTo('POST', '/sources/jobs/5/relaunch');
    expect(call?.query).toEqual({ priority: 'low' });
  });

  it('cancels a processing job', async () => {
    const { callsTo } = mockFetch(
      queueRoutes([makeJob({ id: 6, status: 'processing' })], {
        'POST /sources/jobs/6/cancel': json(makeJob({ id: 6, status: 'cancelled' })),
      }),
    );
    renderApp(QUEUE);
    const u = userEvent.setup();
    await u.click(await screen.findByRole('button', { name: 'Cancel job 6' }));
    expect(await screen.findByText('Job 6 cancelled')).toBeInTheDocument();
    expect(callsTo('POST', '/sources/jobs/6/cancel')).toHaveLength(1);
  });
});

describe('Job queue: tabs and refresh', () => {
  it('shows each tab with the total of its list', async () => {
    const { callsTo } = mockFetch(
      queueRoutes([makeJob({ id: 1 }), makeJob({ id: 2 }), makeJob({ id: 3 })], {
        'GET /sources/jobs/queue': json(jobList([makeJob({ id: 3 })], 12)),
        'GET /sources/jobs/history': json(jobList([makeJob({ id: 9, status: 'completed' })], 420)),
        'GET /sources/jobs/stuck': json(jobList([], 0)),
      }),
    );
    renderApp(QUEUE);
    await waitFor(() => expect(screen.getByTestId('tab-count-active')).toHaveTextContent('3'));
    await waitFor(() => expect(screen.getByTestId('tab-count-queue')).toHaveTextContent('12'));
    expect(screen.getByTestId('tab-count-history')).toHaveTextContent('420');
    expect(screen.getByTestId('tab-count-stuck')).toHaveTextContent('0');
    // Tabs not shown ask for their count only.
    expect(callsTo('GET', '/sources/jobs/history')[0]?.query).toEqual({ limit: '1' });

    const u = userEvent.setup();
    await u.click(screen.getByRole('tab', { name: /History/ }));
    expect(await screen.findByTestId('job-row-9')).toBeInTheDocument();
    // The history pages by cursor, HISTORY_PAGE_SIZE at a time.
    expect(callsTo('GET', '/sources/jobs/history').some((c) => c.query.limit === '50')).toBe(true);
  });

  it('auto-refreshes by default every 5 s, with 2, 5, 10 and 30 s to choose from', async () => {
    mockFetch(queueRoutes([makeJob({ id: 1 })]));
    const app = renderApp(QUEUE);
    await screen.findByTestId('job-row-1');
    const refetchInterval = () =>
      app.queryClient
        .getQueryCache()
        .find({ queryKey: jobKeys.list('active'), exact: true })
        ?.observers.map((o) => o.options.refetchInterval);

    expect(screen.getByRole('switch', { name: 'Auto-refresh' })).toBeChecked();
    expect(screen.getByRole('combobox', { name: 'Refresh interval' })).toHaveValue('5 s');
    expect(refetchInterval()).toContain(5000);

    const u = userEvent.setup();
    await u.click(screen.getByRole('combobox', { name: 'Refresh interval' }));
    const options = await screen.findAllByRole('option');
    expect(options.map((o) => o.textContent)).toEqual(['2 s', '5 s', '10 s', '30 s']);
    await u.click(screen.getByRole('option', { name: '2 s' }));
    await waitFor(() => expect(refetchInterval()).toContain(2000));

    await u.click(screen.getByRole('switch', { name: 'Auto-refresh' }));
    await waitFor(() => expect(refetchInterval()?.every((i) => i === false)).toBe(true));
  });

  it('updates progress and stage in place from a pushed job_progress, without a refetch', async () => {
    const { callsTo } = mockFetch(
      queueRoutes([makeJob({ id: 3, status: 'pending' }), makeJob({ id: 4, status: 'pending' })]),
    );
    renderApp(QUEUE);
    const row = await screen.findByTestId('job-row-3');
    await waitFor(() => expect(FakeWebSocket.instances).toHaveLength(1));
    const socket = FakeWebSocket.latest()!;
    act(() => socket.open());
    const fetched = callsTo('GET', '/sources/jobs/active').length;

    act(() =>
      socket.push({
        type: 'job_progress',
        job_id: 3,
        progress: 0.42,
        stage: 'Processed 5 of 12 URLs',
        stats: { segments_created: 17 },
        segmentation_method: 'semantic',
        last_fallback_reason: null,
        timestamp: new Date().toISOString(),
      }),
    );
    // The cache notifies on its next tick; no request is made meanwhile.
    await waitFor(() => expect(within(row).getByTestId('job-percent')).toHaveTextContent('42%'));
    expect(within(row).getByTestId('job-stage')).toHaveTextContent('Processed 5 of 12 URLs');
    expect(within(row).getByTestId('job-status')).toHaveTextContent('processing');
    expect(within(row).getByText('17')).toBeInTheDocument();
    // The other job is untouched and nothing was fetched again.
    expect(within(screen.getByTestId('job-row-4')).getByTestId('job-percent')).toHaveTextContent(
      '0%',
    );
    expect(callsTo('GET', '/sources/jobs/active')).toHaveLength(fetched);
  });

  it('expands a job to list its URLs', async () => {
    const urls = ['https://a.test/1', 'https://a.test/2', 'https://b.test/3'];
    mockFetch(queueRoutes([makeJob({ id: 2, urls })]));
    renderApp(QUEUE);
    const u = userEvent.setup();
    await u.click(await screen.findByRole('button', { name: '3 URLs' }));
    for (const url of urls) expect(screen.getByRole('link', { name: url })).toBeInTheDocument();
  });

  it('shows the empty state of a tab', async () => {
    mockFetch(queueRoutes([]));
    renderApp(QUEUE);
    expect(await screen.findByText('No active jobs')).toBeInTheDocument();
  });
});

describe('Job queue: beyond the spec', () => {
  it('finds jobs by id or URL through /sources/jobs/find', async () => {
    const { callsTo } = mockFetch(
      queueRoutes([], {
        'GET /sources/jobs/find': json({
          jobs: [makeJob({ id: 77, status: 'completed', urls: ['https://x.test/honeybees'] })],
          total: 1,
        }),
      }),
    );
    renderApp(QUEUE);
    const u = userEvent.setup();
    await u.type(await screen.findByRole('textbox', { name: 'Find a job' }), 'honeybees');
    const results = await screen.findByLabelText('Job search results');
    expect(await within(results).findByTestId('job-row-77')).toBeInTheDocument();
    expect(within(results).getByText(/1 found/)).toBeInTheDocument();
    const calls = callsTo('GET', '/sources/jobs/find');
    expect(calls[calls.length - 1]?.query).toEqual({ q: 'honeybees' });
  });

  it('finds the job a cross-link names with ?job_id=', async () => {
    const { callsTo } = mockFetch(
      queueRoutes([], {
        'GET /sources/jobs/find': json({ jobs: [makeJob({ id: 7, status: 'failed' })], total: 1 }),
      }),
    );
    renderApp(`${QUEUE}?job_id=7`);
    const results = await screen.findByLabelText('Job search results');
    expect(await within(results).findByTestId('job-row-7')).toBeInTheDocument();
    expect(screen.getByRole('textbox', { name: 'Find a job' })).toHaveValue('7');
    expect(callsTo('GET', '/sources/jobs/find').at(-1)?.query).toEqual({ q: '7' });
  });

  it('shows the 24 h throughput strip: jobs per hour, p95 wait and run, failure rate', async () => {
    mockFetch(queueRoutes([]));
    renderApp(QUEUE);
    const strip = await screen.findByLabelText('Job throughput, last 24 h');
    await waitFor(() => expect(within(strip).getByText('Jobs / hour')).toBeInTheDocument());
    expect(within(strip).getByText('14 s')).toBeInTheDocument();
    expect(within(strip).getByText('3 m 05 s')).toBeInTheDocument();
    expect(within(strip).getByText('12.5%')).toBeInTheDocument();
  });

  it('says so when the server has no throughput figures', async () => {
    const consoleError = vi.spyOn(console, 'error').mockImplementation(() => {});
    mockFetch(
      queueRoutes([], { 'GET /sources/jobs/throughput': json({ detail: 'Not Found' }, 404) }),
    );
    renderApp(QUEUE);
    expect(
      await screen.findByText('Throughput figures are not available from this server.'),
    ).toBeInTheDocument();
    // Job errors go to the console only (spec 002 §8): no toast.
    expect(screen.queryByText('Not Found')).toBeNull();
    expect(consoleError).toHaveBeenCalledWith('Job throughput failed', expect.anything());
  });
});
