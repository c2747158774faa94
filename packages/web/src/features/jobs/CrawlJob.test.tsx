import { describe, expect, it } from 'vitest';
import { act, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import {
  emptyCrawlProgress,
  type CrawlProgress,
  type FrontierEntry,
  type Job,
  type JobThroughput,
} from '@adam/contracts';
import { FakeWebSocket } from '../../test/fakeSocket';
import { json, mockFetch, type Route } from '../../test/fetchMock';
import { renderApp } from '../../test/renderApp';
import { loggedIn } from '../../test/session';
import { jobList, makeJob } from './jobs.fixtures';
import { crawlKeys, jobKeys } from './jobs.api';

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

function crawlJob(crawl: Partial<CrawlProgress>, overrides: Partial<Job> = {}): Job {
  return makeJob({
    id: 12,
    type: 'crawl_site',
    status: 'processing',
    urls: ['https://docs.test/'],
    stats: { crawl: { ...emptyCrawlProgress(), ...crawl } },
    ...overrides,
  });
}

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

const entry = (url: string, e: Partial<FrontierEntry> = {}): FrontierEntry => ({
  url,
  depth: 1,
  status: 'fetched',
  reason: null,
  http_status: 200,
  detail: null,
  discovered_from: 'https://docs.test/',
  ...e,
});

describe('Crawl jobs (issue 24)', () => {
  it('shows a crawl’s counts and skip reasons, moved live by job_progress', async () => {
    const skipped = { ...emptyCrawlProgress().skipped, robots: 2, duplicate: 1 };
    mockFetch(
      queueRoutes([
        crawlJob({ discovered: 40, queued: 25, fetched: 12, stored: 9, skipped }),
        makeJob({ id: 13, status: 'processing' }),
      ]),
    );
    renderApp(QUEUE);
    const counts = await screen.findByTestId('crawl-row-12');
    expect(within(counts).getByTestId('crawl-discovered')).toHaveTextContent('40');
    expect(within(counts).getByTestId('crawl-queued')).toHaveTextContent('25');
    expect(within(counts).getByTestId('crawl-fetched')).toHaveTextContent('12');
    expect(within(counts).getByTestId('crawl-stored')).toHaveTextContent('9');
    expect(within(counts).getByTestId('crawl-skipped')).toHaveTextContent('3');
    expect(within(counts).getByTestId('crawl-skip-reasons')).toHaveTextContent(
      '(robots.txt 2, duplicate 1)',
    );
    // A job that is not a crawl has no crawl line.
    expect(screen.queryByTestId('crawl-row-13')).toBeNull();

    await waitFor(() => expect(FakeWebSocket.instances).toHaveLength(1));
    const socket = FakeWebSocket.latest()!;
    act(() => socket.open());
    act(() =>
      socket.push({
        type: 'job_progress',
        job_id: 12,
        progress: 0.6,
        stage: 'Crawled 30 pages (depth 2): 24 stored, 5 skipped, 10 queued',
        stats: {
          crawl: {
            ...emptyCrawlProgress(),
            discovered: 45,
            queued: 10,
            fetched: 30,
            stored: 24,
            skipped: { ...skipped, too_large: 2 },
            depth: 2,
          },
        },
        segmentation_method: null,
        last_fallback_reason: null,
        timestamp: new Date().toISOString(),
      }),
    );
    await waitFor(() => expect(within(counts).getByTestId('crawl-stored')).toHaveTextContent('24'));
    expect(within(counts).getByTestId('crawl-discovered')).toHaveTextContent('45');
    expect(within(counts).getByTestId('crawl-skipped')).toHaveTextContent('5');
    expect(within(counts).getByTestId('crawl-skip-reasons')).toHaveTextContent(
      '(robots.txt 2, duplicate 1, too large 2)',
    );
  });

  it('lists the frontier with status and reason filters and pages', async () => {
    const job = crawlJob({ discovered: 3 }, { status: 'completed' });
    const { callsTo } = mockFetch(
      queueRoutes([job], {
        'GET /sources/jobs/12': json(job),
        'GET /sources/crawl/12/frontier': (call) =>
          call.query.reason === 'robots'
            ? json({
                entries: [
                  entry('https://docs.test/private', {
                    status: 'skipped',
                    reason: 'robots',
                    http_status: null,
                    detail: 'Disallowed by robots.txt',
                  }),
                ],
                total: 1,
                page: 1,
                per_page: 50,
              })
            : json({
                entries: [entry('https://docs.test/a'), entry('https://docs.test/b')],
                total: 120,
                page: Number(call.query.page),
                per_page: 50,
              }),
      }),
    );
    renderApp(QUEUE);
    const u = userEvent.setup();
    await u.click(await screen.findByRole('button', { name: 'Frontier of job 12' }));
    const dialog = await screen.findByRole('dialog');
    const table = await within(dialog).findByRole('table', { name: 'Frontier' });
    expect(table).toHaveTextContent('https://docs.test/a');
    expect(within(dialog).getByText('1–50 of 120')).toBeInTheDocument();
    expect(callsTo('GET', '/sources/crawl/12/frontier')[0]?.query).toEqual({
      page: '1',
      per_page: '50',
    });

    await u.click(within(dialog).getByRole('button', { name: '2' }));
    await waitFor(() =>
      expect(callsTo('GET', '/sources/crawl/12/frontier').at(-1)?.query.page).toBe('2'),
    );

    await u.click(within(dialog).getByRole('combobox', { name: 'Reason' }));
    await u.click(await screen.findByRole('option', { name: 'robots.txt' }));
    expect(await within(dialog).findByText('Disallowed by robots.txt')).toBeInTheDocument();
    expect(callsTo('GET', '/sources/crawl/12/frontier').at(-1)?.query).toEqual({
      reason: 'robots',
      page: '1',
      per_page: '50',
    });
  });

  it('polls a running crawl’s frontier, and stops once the crawl has ended', async () => {
    let job = crawlJob({ discovered: 1 }, { status: 'processing' });
    mockFetch(
      queueRoutes([job], {
        'GET /sources/jobs/12': () => json(job),
        'GET /sources/crawl/12/frontier': json({
          entries: [entry('https://docs.test/a', { status: 'pending', http_status: null })],
          total: 1,
          page: 1,
          per_page: 50,
        }),
      }),
    );
    const app = renderApp(QUEUE);
    const u = userEvent.setup();
    await u.click(await screen.findByRole('button', { name: 'Frontier of job 12' }));
    const dialog = await screen.findByRole('dialog');
    await within(dialog).findByRole('table', { name: 'Frontier' });
    const frontierPolling = () =>
      app.queryClient
        .getQueryCache()
        .find({ queryKey: crawlKeys.frontier(12, { status: null, reason: null, page: 1 }) })
        ?.observers.map((o) => o.options.refetchInterval);
    await waitFor(() => expect(frontierPolling()).toEqual([5000]));
    expect(within(dialog).getByText(/Crawling: refreshed every 5 s/)).toBeInTheDocument();

    job = { ...job, status: 'completed' };
    await act(() => app.queryClient.invalidateQueries({ queryKey: jobKeys.detail(12) }));
    await waitFor(() => expect(frontierPolling()).toEqual([false]));
  });
});
