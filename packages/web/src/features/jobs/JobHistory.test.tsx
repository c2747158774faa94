import { describe, expect, it } from 'vitest';
import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import type { Job, JobDetail, JobPage, JobThroughput } from '@adam/contracts';
import { json, mockFetch, type RecordedCall } from '../../test/fetchMock';
import { renderApp } from '../../test/renderApp';
import { loggedIn } from '../../test/session';
import { jobList, makeJob } from './jobs.fixtures';

const QUEUE = '/dashboard/sources/queue';

const throughput: JobThroughput = {
  window_hours: 24,
  jobs_created: 3,
  jobs_finished: 2,
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

const page = (jobs: Job[], next_cursor: string | null, total = 120): JobPage => ({
  ...jobList(jobs, total),
  next_cursor,
  total_exact: true,
});

const done = (id: number) =>
  makeJob({ id, status: 'completed', completed_at: '2026-03-01T10:05:00.000Z' });

function routes(extra: Record<string, (c: RecordedCall) => Response> = {}) {
  return {
    ...loggedIn(),
    'GET /sources/jobs/active': json(jobList([])),
    'GET /sources/jobs/queue': json(jobList([])),
    'GET /sources/jobs/stuck': json(jobList([])),
    'GET /sources/jobs/throughput': () => json(throughput),
    ...extra,
  };
}

describe('Job history (issue 28)', () => {
  it('pages by cursor: older asks with the next cursor, newer goes back; filters restart', async () => {
    const calls: RecordedCall[] = [];
    mockFetch(
      routes({
        'GET /sources/jobs/history': (c) => {
          calls.push(c);
          if (c.query.cursor === 'c2') return json(page([done(51), done(50)], null));
          return json(page([done(101), done(100)], 'c2'));
        },
      }),
    );
    // The history's own pages, not the tab count's auto-refresh (limit=1), which can land last
    // on a slow machine.
    const lastPageCall = () => calls.filter((c) => c.query.limit !== '1').at(-1)!;
    renderApp(QUEUE);
    const user = userEvent.setup();
    await user.click(await screen.findByRole('tab', { name: /History/ }));
    expect(await screen.findByTestId('job-row-101')).toBeInTheDocument();
    expect(screen.getByTestId('history-range')).toHaveTextContent('Jobs 1–2 of 120');

    await user.click(screen.getByRole('button', { name: /Older/ }));
    expect(await screen.findByTestId('job-row-51')).toBeInTheDocument();
    expect(lastPageCall().query).toMatchObject({ cursor: 'c2', limit: '50' });
    expect(screen.getByTestId('history-range')).toHaveTextContent('Jobs 51–52 of 120');
    expect(screen.getByRole('button', { name: /Older/ })).toBeDisabled();

    await user.click(screen.getByRole('button', { name: /Newer/ }));
    expect(await screen.findByTestId('job-row-101')).toBeInTheDocument();

    await user.click(screen.getByRole('button', { name: /Older/ }));
    await screen.findByTestId('job-row-51');
    await user.type(screen.getByRole('textbox', { name: 'Search' }), 'honey');
    await waitFor(() => expect(lastPageCall().query).toMatchObject({ q: 'honey' }));
    expect(lastPageCall().query.cursor).toBeUndefined();
  });

  it('shows the error state with a retry when the history cannot be loaded', async () => {
    mockFetch(
      routes({
        'GET /sources/jobs/history': () => json({ detail: 'database is locked' }, 500),
      }),
    );
    renderApp(QUEUE);
    const user = userEvent.setup();
    await user.click(await screen.findByRole('tab', { name: /History/ }));
    expect(await screen.findByText('Could not load the job history')).toBeInTheDocument();
    expect(screen.getByRole('button', { name: /retry/i })).toBeInTheDocument();
  });

  it('opens a job detail from its row, deep-linked, with each URL outcome', async () => {
    const job = makeJob({
      id: 42,
      status: 'completed',
      urls: ['https://a.example/ok', 'https://a.example/gone'],
    });
    const detail: JobDetail = {
      job,
      queued_by: 'relaunch of job 40',
      ended_at: '2026-03-01T10:05:00.000Z',
      durations: { queued_ms: 1500, run_ms: 298_500, total_ms: 300_000 },
      result: null,
      url_outcomes: [
        {
          url: 'https://a.example/gone',
          status: 'failed',
          reason: 'HTTP 404',
          snippets: 0,
          bytes: null,
          duration_ms: null,
          at: '2026-03-01T10:01:00.000Z',
        },
        {
          url: 'https://a.example/ok',
          status: 'ok',
          reason: null,
          snippets: 17,
          bytes: null,
          duration_ms: null,
          at: null,
        },
      ],
      url_counts: { total: 2, ok: 1, failed: 1, skipped: 0, pending: 0 },
      url_outcomes_left_out: 0,
      snippets_count: 17,
    };
    mockFetch(
      routes({
        'GET /sources/jobs/active': () => json(jobList([job])),
        'GET /sources/jobs/history': () => json(page([job], null, 1)),
        'GET /sources/jobs/42/detail': () => json(detail),
        'GET /sources/jobs/9/detail': () => json({ detail: 'Job 9 not found' }, 404),
      }),
    );
    renderApp(QUEUE);
    const user = userEvent.setup();
    await user.click(await screen.findByRole('button', { name: 'Details of job 42' }));
    const drawer = await screen.findByRole('dialog');
    expect(await within(drawer).findByText('relaunch of job 40')).toBeInTheDocument();
    expect(within(drawer).getByText('5 min 0 s')).toBeInTheDocument();
    const rows = within(drawer).getAllByTestId('url-outcome');
    expect(rows[0]).toHaveTextContent('https://a.example/gone');
    expect(rows[0]).toHaveTextContent('HTTP 404');
    expect(rows[0]).toHaveTextContent('failed');
    expect(rows[1]).toHaveTextContent('17');
    expect(within(drawer).getByRole('link', { name: /View snippets/ })).toHaveAttribute(
      'href',
      '/dashboard/sources/snippets?job_id=42',
    );
  });

  it('says a deep-linked job does not exist', async () => {
    mockFetch(
      routes({
        'GET /sources/jobs/history': () => json(page([], null, 0)),
        'GET /sources/jobs/9/detail': () => json({ detail: 'Job 9 not found' }, 404),
      }),
    );
    renderApp(`${QUEUE}?job=9`);
    expect(await screen.findByText('Job not found')).toBeInTheDocument();
  });
});
