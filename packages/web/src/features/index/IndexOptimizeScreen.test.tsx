import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { act, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import type { Job, MaintenanceResult } from '@adam/contracts';
import { FakeWebSocket } from '../../test/fakeSocket';
import { json, mockFetch } from '../../test/fetchMock';
import { renderApp } from '../../test/renderApp';
import { loggedIn } from '../../test/session';
import { indexStats, job } from './index.fixtures';
import { OPTIMIZE_PROGRESS } from './useFakeProgress';

const queued = (action: string, id: number): MaintenanceResult => ({
  action,
  status: 'queued',
  message: `Compacting the index graph as job ${id}`,
  job_id: id,
  counts: { vectors: 1234 },
});

/** The routes of the optimize tab with a job whose record the test changes. */
function setup(current: { job: Job }) {
  return mockFetch({
    ...loggedIn(),
    'GET /admin/index/stats': json(indexStats()),
    'POST /admin/index/optimize': () => json(queued('optimize_index', current.job.id)),
    'POST /admin/index/rebuild': () => json(queued('rebuild_index', current.job.id)),
    'GET /sources/jobs/7': () => json(current.job),
  });
}

const progressText = () => screen.getByTestId('optimize-progress').textContent;

describe('Optimize Index', () => {
  beforeEach(() => {
    // Only intervals are simulated: the fake progress and the polls; the rest runs for real.
    vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval'] });
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it('simulates 10% rising 10 every 500 ms up to 90, then shows 100% and the result when the job completes', async () => {
    const current = { job: job(7) };
    const { callsTo } = setup(current);
    renderApp('/dashboard/index/optimize');
    act(() => FakeWebSocket.latest()?.open());
    const u = userEvent.setup();
    await u.click(await screen.findByRole('button', { name: 'Optimize' }));

    const dialog = await screen.findByRole('dialog');
    expect(within(dialog).getByText('Optimize Index')).toBeInTheDocument();
    expect(progressText()).toBe(`${OPTIMIZE_PROGRESS.start}%`);
    expect(callsTo('POST', '/admin/index/optimize')).toHaveLength(1);

    const seen: string[] = [];
    for (let i = 0; i < 10; i++) {
      act(() => vi.advanceTimersByTime(OPTIMIZE_PROGRESS.tickMs));
      seen.push(progressText() ?? '');
    }
    expect(seen).toEqual(['20%', '30%', '40%', '50%', '60%', '70%', '80%', '90%', '90%', '90%']);
    // The job is still running: the simulation never reaches 100 by itself.
    await within(dialog).findByText(/Re-indexed 3 of 10 snippets/);

    current.job = job(7, {
      status: 'completed',
      progress: 1,
      completed_at: '2026-03-01T10:00:02.500Z',
      metadata: { action: 'optimize_index', result: { total: 10, indexed: 10, reembedded: 0 } },
    });
    act(() =>
      FakeWebSocket.latest()?.push({
        type: 'job_completed',
        job_id: 7,
        segments_created: 0,
        timestamp: 'now',
      }),
    );
    await waitFor(() => expect(progressText()).toBe('100%'));
    expect(within(dialog).getByText('Index ready')).toBeInTheDocument();
    expect(within(dialog).getByText('indexed: 10')).toBeInTheDocument();
    expect(within(dialog).getByText('Took 2.5 s')).toBeInTheDocument();
  });

  it("shows the job's pushed segment progress under the simulated bar, until its end", async () => {
    const current = { job: job(7) };
    setup(current);
    renderApp('/dashboard/index/optimize');
    act(() => FakeWebSocket.latest()?.open());
    const u = userEvent.setup();
    await u.click(await screen.findByRole('button', { name: 'Optimize' }));
    const dialog = await screen.findByRole('dialog');
    await within(dialog).findByText(/job #7/);
    // Nothing pushed yet: no second bar.
    expect(within(dialog).queryByTestId('segment-progress')).not.toBeInTheDocument();

    const push = (processed: number, stage: string) =>
      act(() =>
        FakeWebSocket.latest()?.push({
          type: 'segment_progress',
          job_id: 7,
          processed,
          total: 10,
          stage,
          timestamp: 'now',
        }),
      );
    // Another job's figures go to that job, not to this modal.
    act(() =>
      FakeWebSocket.latest()?.push({
        type: 'segment_progress',
        job_id: 8,
        processed: 1,
        total: 2,
        stage: 'elsewhere',
        timestamp: 'now',
      }),
    );
    push(4, 'Re-indexed 4 of 10 snippets');
    const bar = await within(dialog).findByTestId('segment-progress');
    expect(within(bar).getByText('Snippets re-indexed')).toBeInTheDocument();
    expect(within(bar).getByTestId('segment-count')).toHaveTextContent('4 / 10');
    expect(within(bar).getByTestId('segment-stage')).toHaveTextContent(
      'Re-indexed 4 of 10 snippets',
    );
    expect(
      within(bar).getByRole('progressbar', { name: 'Snippets re-indexed of job 7: 4 of 10' }),
    ).toHaveAttribute('aria-valuenow', '40');

    push(10, 'Re-indexed 10 of 10 snippets');
    await waitFor(() =>
      expect(within(dialog).getByTestId('segment-count')).toHaveTextContent('10 / 10'),
    );
    current.job = job(7, {
      status: 'completed',
      progress: 1,
      stage: 'Re-indexed 10 of 10 snippets',
    });
    act(() =>
      FakeWebSocket.latest()?.push({
        type: 'job_completed',
        job_id: 7,
        segments_created: 0,
        timestamp: 'now',
      }),
    );
    await waitFor(() => expect(progressText()).toBe('100%'));
    // The last figures stay once the job ended (its refetch does not wipe them).
    expect(within(dialog).getByTestId('segment-count')).toHaveTextContent('10 / 10');
  });

  it('stops at the current value and says so when the job fails', async () => {
    const current = { job: job(7) };
    setup(current);
    renderApp('/dashboard/index/optimize');
    act(() => FakeWebSocket.latest()?.open());
    const u = userEvent.setup();
    await u.click(await screen.findByRole('button', { name: 'Optimize' }));
    await screen.findByRole('dialog');
    act(() => vi.advanceTimersByTime(1000));
    expect(progressText()).toBe('30%');

    current.job = job(7, {
      status: 'failed',
      errors: [{ type: 'index', error: 'disk full', message: 'disk full', url: null, at: 'now' }],
    });
    act(() =>
      FakeWebSocket.latest()?.push({
        type: 'job_failed',
        job_id: 7,
        error: 'disk full',
        timestamp: 'now',
      }),
    );
    expect((await screen.findAllByText('Failed to optimize index')).length).toBeGreaterThan(0);
    expect(screen.getByRole('dialog')).toHaveTextContent('disk full');
    act(() => vi.advanceTimersByTime(2000));
    expect(progressText()).toBe('30%');
  });

  it('a failed call shows the spec message', async () => {
    mockFetch({
      ...loggedIn(),
      'GET /admin/index/stats': json(indexStats()),
      'POST /admin/index/optimize': json(
        { detail: 'The index is already being rebuilt by job 3 (processing)' },
        409,
      ),
    });
    renderApp('/dashboard/index/optimize');
    const u = userEvent.setup();
    await u.click(await screen.findByRole('button', { name: 'Optimize' }));
    expect((await screen.findAllByText('Failed to optimize index')).length).toBeGreaterThan(0);
    expect(screen.getByRole('dialog')).toHaveTextContent(
      'The index is already being rebuilt by job 3 (processing)',
    );
  });

  it('rebuild asks for confirmation and sends nothing when cancelled', async () => {
    const current = { job: job(7) };
    const { callsTo } = setup(current);
    renderApp('/dashboard/index/optimize');
    const u = userEvent.setup();
    await u.click(await screen.findByRole('button', { name: 'Rebuild' }));
    const confirm = await screen.findByRole('dialog', { name: 'Rebuild the index?' });
    await u.click(within(confirm).getByRole('button', { name: 'Cancel' }));
    await waitFor(() => expect(screen.queryByRole('dialog')).not.toBeInTheDocument());
    expect(callsTo('POST', '/admin/index/rebuild')).toHaveLength(0);

    await u.click(screen.getByRole('button', { name: 'Rebuild' }));
    const again = await screen.findByRole('dialog', { name: 'Rebuild the index?' });
    await u.click(within(again).getByRole('button', { name: 'Rebuild' }));
    await waitFor(() => expect(callsTo('POST', '/admin/index/rebuild')).toHaveLength(1));
    expect(callsTo('POST', '/admin/index/optimize')).toHaveLength(0);
  });

  it('shows the current vectors and size', async () => {
    setup({ job: job(7) });
    renderApp('/dashboard/index/optimize');
    const current = await screen.findByLabelText('Current index');
    await within(current).findByText('1,234');
    expect(within(current).getByText('2.50 MB')).toBeInTheDocument();
  });
});
