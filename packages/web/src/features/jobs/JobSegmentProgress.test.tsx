import { describe, expect, it } from 'vitest';
import { act, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import type { Job, JobDetail, JobThroughput } from '@adam/contracts';
import { FakeWebSocket } from '../../test/fakeSocket';
import { json, mockFetch } from '../../test/fetchMock';
import { renderApp } from '../../test/renderApp';
import { loggedIn } from '../../test/session';
import { jobList, makeJob } from './jobs.fixtures';

const QUEUE = '/dashboard/sources/queue';

const throughput: JobThroughput = {
  window_hours: 24,
  jobs_created: 0,
  jobs_finished: 0,
  jobs_per_hour: 0,
  wait_p50_s: null,
  wait_p95_s: null,
  run_p50_s: null,
  run_p95_s: null,
  failure_rate: null,
  hourly: [],
};

function routes(active: Job[], extra: Record<string, Response | (() => Response)> = {}) {
  return {
    ...loggedIn(),
    'GET /sources/jobs/active': json(jobList(active)),
    'GET /sources/jobs/queue': json(jobList([])),
    'GET /sources/jobs/history': json({ ...jobList([]), next_cursor: null, total_exact: true }),
    'GET /sources/jobs/stuck': json(jobList([])),
    'GET /sources/jobs/throughput': json(throughput),
    ...extra,
  };
}

const running = (id: number, over: Partial<Job> = {}) =>
  makeJob({ id, status: 'processing', progress: 0.4, stage: 'Re-indexing', ...over });

async function openSocket() {
  await waitFor(() => expect(FakeWebSocket.instances.length).toBeGreaterThan(0));
  const socket = FakeWebSocket.latest()!;
  act(() => socket.open());
  return socket;
}

const segments = (job_id: number, processed: number, total: number, stage: string) => ({
  type: 'segment_progress',
  job_id,
  processed,
  total,
  stage,
  timestamp: new Date().toISOString(),
});

describe('segment_progress in the running jobs list and the job detail', () => {
  it("shows a pushed job's segments as a second bar in its row only", async () => {
    mockFetch(
      routes([running(3, { type: 'optimize_index' }), running(4, { type: 'process_urls' })]),
    );
    renderApp(QUEUE);
    const row = await screen.findByTestId('job-row-3');
    const socket = await openSocket();
    expect(within(row).queryByTestId('segment-progress')).not.toBeInTheDocument();

    act(() => socket.push(segments(3, 120, 300, 'Re-indexed 120 of 300 snippets')));
    const bar = await within(row).findByTestId('segment-progress');
    expect(within(bar).getByTestId('segment-count')).toHaveTextContent('120 / 300');
    expect(within(bar).getByRole('progressbar')).toHaveAttribute('aria-valuenow', '40');
    act(() => socket.push(segments(3, 300, 300, 'Re-indexed 300 of 300 snippets')));
    await waitFor(() =>
      expect(within(row).getByTestId('segment-count')).toHaveTextContent('300 / 300'),
    );
    expect(
      within(screen.getByTestId('job-row-4')).queryByTestId('segment-progress'),
    ).not.toBeInTheDocument();
  });

  it('shows the segments and their stage in the job detail, following the pushes', async () => {
    const job = running(5, { type: 'save_segments', urls: [], stage: 'Saving' });
    const detail: JobDetail = {
      job,
      queued_by: null,
      ended_at: null,
      durations: { queued_ms: 10, run_ms: 1000, total_ms: 1010 },
      result: null,
      url_outcomes: [],
      url_counts: { total: 0, ok: 0, failed: 0, skipped: 0, pending: 0 },
      url_outcomes_left_out: 0,
      snippets_count: 0,
    };
    mockFetch(routes([job], { 'GET /sources/jobs/5/detail': json(detail) }));
    renderApp(`${QUEUE}?job=5`);
    const drawer = await screen.findByRole('dialog');
    await within(drawer).findByText('Save text');
    const socket = await openSocket();
    act(() => socket.push(segments(5, 7, 28, 'Embedding 7 of 28 segments')));
    const bar = await within(drawer).findByTestId('segment-progress');
    expect(within(bar).getByTestId('segment-count')).toHaveTextContent('7 / 28');
    expect(within(bar).getByTestId('segment-stage')).toHaveTextContent(
      'Embedding 7 of 28 segments',
    );
  });
});

describe('job type labels', () => {
  it('names optimisations "Optimize index", old rebuild_index rows queued as one included', async () => {
    mockFetch(
      routes([
        running(1, { type: 'optimize_index' }),
        running(2, { type: 'rebuild_index', metadata: { action: 'optimize_index' } }),
        running(3, { type: 'rebuild_index', metadata: { action: 'rebuild_index' } }),
        running(4, { type: 'some_future_type' }),
      ]),
    );
    renderApp(QUEUE);
    const typeOf = async (id: number) =>
      within(await screen.findByTestId(`job-row-${id}`)).getByTestId('job-type');
    expect(await typeOf(1)).toHaveTextContent('Optimize index');
    expect(await typeOf(2)).toHaveTextContent('Optimize index');
    // The stored type stays readable on hover.
    expect(await typeOf(2)).toHaveAttribute('title', 'rebuild_index');
    expect(await typeOf(3)).toHaveTextContent('Rebuild index');
    expect(await typeOf(4)).toHaveTextContent('some_future_type');
  });

  it('lists optimize_index among the history type filters, by its label', async () => {
    const { callsTo } = mockFetch(routes([]));
    renderApp(QUEUE);
    const user = userEvent.setup();
    await user.click(await screen.findByRole('tab', { name: /History/ }));
    await user.click(await screen.findByRole('combobox', { name: 'Type' }));
    await user.click(await screen.findByRole('option', { name: 'Optimize index' }));
    await waitFor(() =>
      expect(callsTo('GET', '/sources/jobs/history').at(-1)?.query).toMatchObject({
        type: 'optimize_index',
      }),
    );
  });
});
