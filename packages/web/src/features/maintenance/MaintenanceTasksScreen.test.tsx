import { describe, expect, it } from 'vitest';
import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import {
  CLEAR_OLD_JOBS_DAYS,
  DUPLICATE_THRESHOLD_DEFAULT,
  LOW_QUALITY_THRESHOLD_DEFAULT,
  type MaintenanceRequest,
  type MaintenanceResult,
  type WorkersStatus,
} from '@adam/contracts';
import { json, mockFetch } from '../../test/fetchMock';
import { renderApp } from '../../test/renderApp';
import { loggedIn } from '../../test/session';
import { job } from '../index/index.fixtures';

const workers = (running: number): WorkersStatus => ({
  mode: 'embedded',
  running,
  workers: Array.from({ length: running }, (_, i) => ({
    id: `embedded-${i + 1}`,
    status: i === 0 ? 'busy' : 'idle',
    current_job: i === 0 ? 12 : null,
    started_at: '2026-03-01T10:00:00.000Z',
    processed: 5,
    failed: 1,
  })),
  queue: { pending: 2, processing: running ? 1 : 0 },
});

function answer(req: MaintenanceRequest): MaintenanceResult {
  if (req.action === 'optimize_index' || req.action === 'rebuild_index') {
    return {
      action: req.action,
      status: 'queued',
      message: `Compacting the index graph as job 31`,
      job_id: 31,
      counts: { vectors: 10 },
    };
  }
  return {
    action: req.action,
    status: 'completed',
    message: `Removed 4 snippet(s) with quality below ${req.params?.threshold}`,
    job_id: null,
    counts: { deleted: 4, found: 4 },
  };
}

function setup() {
  return mockFetch({
    ...loggedIn(),
    'POST /admin/maintenance/execute': (call) => json(answer(call.body as MaintenanceRequest)),
    'GET /admin/maintenance/workers/status': json(workers(1)),
    'POST /admin/maintenance/workers/start': (call) =>
      json(workers(1 + (call.body as { count: number }).count)),
    'POST /admin/maintenance/workers/stop': json(workers(0)),
    'GET /sources/jobs/31': json(
      job(31, {
        status: 'completed',
        progress: 1,
        metadata: { result: { total: 10, indexed: 10, reembedded: 0 } },
      }),
    ),
  });
}

const card = (title: string) => screen.findByLabelText(title);

describe('Maintenance Tasks', () => {
  it('offers every action of the spec', async () => {
    setup();
    renderApp('/dashboard/maintenance/tasks');
    for (const title of [
      'Optimize Index',
      'Rebuild Index',
      'Remove Duplicates',
      'Remove Low-Quality Snippets',
      'Reset Stuck Jobs',
      'Clear Old Jobs',
    ]) {
      expect(await card(title)).toBeInTheDocument();
    }
  });

  it('sends the threshold defaults (0.95 duplicates, 0.3 low quality) after confirmation', async () => {
    const { callsTo } = setup();
    renderApp('/dashboard/maintenance/tasks');
    const u = userEvent.setup();

    const dup = await card('Remove Duplicates');
    expect(within(dup).getByLabelText('Similarity threshold')).toHaveValue(
      String(DUPLICATE_THRESHOLD_DEFAULT),
    );
    await u.click(within(dup).getByRole('button', { name: 'Remove duplicates' }));
    const confirm = await screen.findByRole('dialog', { name: 'Remove duplicate snippets?' });
    expect(callsTo('POST', '/admin/maintenance/execute')).toHaveLength(0);
    await u.click(within(confirm).getByRole('button', { name: 'Remove duplicates' }));
    await waitFor(() => expect(callsTo('POST', '/admin/maintenance/execute')).toHaveLength(1));
    expect(callsTo('POST', '/admin/maintenance/execute')[0]?.body).toEqual({
      action: 'cleanup_duplicates',
      params: { threshold: 0.95 },
    });

    const low = await card('Remove Low-Quality Snippets');
    expect(within(low).getByLabelText('Quality threshold')).toHaveValue(
      String(LOW_QUALITY_THRESHOLD_DEFAULT),
    );
    await u.click(within(low).getByRole('button', { name: 'Remove low quality' }));
    await u.click(
      within(await screen.findByRole('dialog', { name: 'Remove low-quality snippets?' })).getByRole(
        'button',
        { name: 'Remove low quality' },
      ),
    );
    await waitFor(() => expect(callsTo('POST', '/admin/maintenance/execute')).toHaveLength(2));
    expect(callsTo('POST', '/admin/maintenance/execute')[1]?.body).toEqual({
      action: 'cleanup_low_quality',
      params: { threshold: 0.3 },
    });
    // The answer is shown on its card.
    expect(
      await within(low).findByText('Removed 4 snippet(s) with quality below 0.3'),
    ).toBeInTheDocument();
    expect(within(low).getByText('deleted: 4')).toBeInTheDocument();
  });

  it('keeps thresholds within 0–1 and sends the value chosen', async () => {
    const { callsTo } = setup();
    renderApp('/dashboard/maintenance/tasks');
    const u = userEvent.setup();
    const low = await card('Remove Low-Quality Snippets');
    const input = within(low).getByLabelText('Quality threshold');
    await u.clear(input);
    await u.type(input, '1.5');
    // Strict clamping: a value past the bound is not accepted.
    expect(Number((input as HTMLInputElement).value)).toBeLessThanOrEqual(1);
    await u.clear(input);
    await u.type(input, '0.6');
    await u.click(within(low).getByRole('button', { name: 'Preview' }));
    await waitFor(() => expect(callsTo('POST', '/admin/maintenance/execute')).toHaveLength(1));
    // A preview deletes nothing, so it needs no confirmation.
    expect(callsTo('POST', '/admin/maintenance/execute')[0]?.body).toEqual({
      action: 'cleanup_low_quality',
      params: { threshold: 0.6, dry_run: true },
    });
    expect(await within(low).findByText('Preview: nothing was deleted.')).toBeInTheDocument();
  });

  it('asks confirmation for every destructive action and sends nothing when cancelled', async () => {
    const { callsTo } = setup();
    renderApp('/dashboard/maintenance/tasks');
    const u = userEvent.setup();
    const destructive: [string, string, string][] = [
      ['Rebuild Index', 'Rebuild', 'Rebuild the index?'],
      ['Remove Duplicates', 'Remove duplicates', 'Remove duplicate snippets?'],
      ['Remove Low-Quality Snippets', 'Remove low quality', 'Remove low-quality snippets?'],
      ['Clear Old Jobs', 'Clear old jobs', 'Clear old jobs?'],
    ];
    for (const [title, button, question] of destructive) {
      await u.click(within(await card(title)).getByRole('button', { name: button }));
      const dialog = await screen.findByRole('dialog', { name: question });
      await u.click(within(dialog).getByRole('button', { name: 'Cancel' }));
      await waitFor(() => expect(screen.queryByRole('dialog')).not.toBeInTheDocument());
    }
    expect(callsTo('POST', '/admin/maintenance/execute')).toHaveLength(0);

    // Clear old jobs, confirmed: completed jobs older than 7 days.
    await u.click(
      within(await card('Clear Old Jobs')).getByRole('button', { name: 'Clear old jobs' }),
    );
    await u.click(
      within(await screen.findByRole('dialog', { name: 'Clear old jobs?' })).getByRole('button', {
        name: 'Clear old jobs',
      }),
    );
    await waitFor(() =>
      expect(callsTo('POST', '/admin/maintenance/execute')[0]?.body).toEqual({
        action: 'clear_old_jobs',
        params: { days: CLEAR_OLD_JOBS_DAYS },
      }),
    );
  });

  it('runs the non-destructive actions at once; a queued one links its job and follows it to the end', async () => {
    const { callsTo } = setup();
    renderApp('/dashboard/maintenance/tasks');
    const u = userEvent.setup();
    await u.click(
      within(await card('Reset Stuck Jobs')).getByRole('button', { name: 'Reset stuck jobs' }),
    );
    await waitFor(() =>
      expect(callsTo('POST', '/admin/maintenance/execute')[0]?.body).toEqual({
        action: 'reset_stuck_jobs',
      }),
    );
    const optimize = await card('Optimize Index');
    await u.click(within(optimize).getByRole('button', { name: 'Optimize' }));
    expect(screen.queryByRole('dialog')).not.toBeInTheDocument();
    expect(await within(optimize).findByText('Job #31 in the queue')).toBeInTheDocument();
    expect(await within(optimize).findByText('completed')).toBeInTheDocument();
    expect(within(optimize).getByText('indexed: 10')).toBeInTheDocument();
  });

  it("says 'Action failed' with the detail when an action fails", async () => {
    mockFetch({
      ...loggedIn(),
      'POST /admin/maintenance/execute': json(
        { detail: 'params.threshold: must be at most 1' },
        422,
      ),
      'GET /admin/maintenance/workers/status': json(workers(1)),
    });
    renderApp('/dashboard/maintenance/tasks');
    const u = userEvent.setup();
    const stuck = await card('Reset Stuck Jobs');
    await u.click(within(stuck).getByRole('button', { name: 'Reset stuck jobs' }));
    expect((await screen.findAllByText('Action failed')).length).toBe(2);
    expect(within(stuck).getByText('params.threshold: must be at most 1')).toBeInTheDocument();
  });

  it('shows the workers and starts (count, default 1) and stops them', async () => {
    const { callsTo } = setup();
    renderApp('/dashboard/maintenance/tasks');
    const u = userEvent.setup();
    const panel = await card('Workers');
    const list = await within(panel).findByRole('table', { name: 'Worker list' });
    expect(within(list).getByText('embedded-1')).toBeInTheDocument();
    expect(within(list).getByText('busy')).toBeInTheDocument();
    expect(within(list).getByText('#12')).toBeInTheDocument();
    expect(within(panel).getByLabelText('Count')).toHaveValue('1');

    await u.click(within(panel).getByRole('button', { name: 'Start' }));
    await waitFor(() =>
      expect(callsTo('POST', '/admin/maintenance/workers/start')[0]?.body).toEqual({ count: 1 }),
    );
    expect(await within(panel).findByText('embedded-2')).toBeInTheDocument();

    await u.click(within(panel).getByRole('button', { name: 'Stop' }));
    expect(
      await within(panel).findByText('No worker running: queued jobs wait until one starts.'),
    ).toBeInTheDocument();
    expect(callsTo('POST', '/admin/maintenance/workers/stop')).toHaveLength(1);
  });
});
