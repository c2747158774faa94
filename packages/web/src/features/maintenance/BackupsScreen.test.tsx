import { describe, expect, it, vi } from 'vitest';
import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import type { Backup, RestoreResult } from '@adam/contracts';
import { json, mockFetch } from '../../test/fetchMock';
import { renderApp } from '../../test/renderApp';
import { loggedIn } from '../../test/session';

const counts = { snippets: 120, vectors: 118, users: 1, rules: 2, jobs: 4, sources: 3 };
const backup = (id: string, over: Partial<Backup> = {}): Backup => ({
  id,
  created_at: '2026-03-01T10:00:00.000Z',
  size_mb: 3.25,
  reason: 'manual',
  counts,
  ...over,
});
const restored: RestoreResult = {
  id: '20260301-100000-000',
  restored_at: '2026-03-02T08:00:00.000Z',
  counts,
  reconcile: { total_disk: 120, total_index: 118, marked_pending: 2, reindexed: 2, index_only: 0 },
  safety_backup: '20260302-080000-000',
};

describe('Backups', () => {
  it('lists backups with date, size and counts', async () => {
    mockFetch({
      ...loggedIn(),
      'GET /admin/maintenance/backups': json([
        backup('20260301-100000-000'),
        backup('20260228-090000-000', { reason: 'auto' }),
      ]),
    });
    renderApp('/dashboard/maintenance/backup');
    const table = await screen.findByRole('table', { name: 'Backups' });
    const row = within(table).getByText('20260301-100000-000').closest('tr') as HTMLElement;
    expect(within(row).getByText('3.25 MB')).toBeInTheDocument();
    expect(within(row).getByText('120')).toBeInTheDocument();
    expect(within(row).getByText('manual')).toBeInTheDocument();
    expect(within(table).getByText('auto')).toBeInTheDocument();
  });

  it('restore asks for confirmation, calls only once confirmed, then refetches everything', async () => {
    const { callsTo } = mockFetch({
      ...loggedIn(),
      'GET /admin/maintenance/backups': json([backup('20260301-100000-000')]),
      'POST /admin/maintenance/restore/20260301-100000-000': json(restored),
    });
    const { queryClient } = renderApp('/dashboard/maintenance/backup');
    const invalidate = vi.spyOn(queryClient, 'invalidateQueries');
    const u = userEvent.setup();
    const restore = await screen.findByRole('button', {
      name: 'Restore backup 20260301-100000-000',
    });

    await u.click(restore);
    let dialog = await screen.findByRole('dialog', { name: 'Restore backup 20260301-100000-000?' });
    await u.click(within(dialog).getByRole('button', { name: 'Cancel' }));
    await waitFor(() => expect(screen.queryByRole('dialog')).not.toBeInTheDocument());
    expect(callsTo('POST', '/admin/maintenance/restore/20260301-100000-000')).toHaveLength(0);

    await u.click(restore);
    dialog = await screen.findByRole('dialog', { name: 'Restore backup 20260301-100000-000?' });
    expect(callsTo('POST', '/admin/maintenance/restore/20260301-100000-000')).toHaveLength(0);
    await u.click(within(dialog).getByRole('button', { name: 'Restore' }));

    expect(await screen.findByText('Backup 20260301-100000-000 restored')).toBeInTheDocument();
    expect(screen.getByText(/kept as safety backup 20260302-080000-000/)).toBeInTheDocument();
    expect(callsTo('POST', '/admin/maintenance/restore/20260301-100000-000')).toHaveLength(1);
    // Everything cached is stale after a restore.
    expect(invalidate).toHaveBeenCalledWith();
    await waitFor(() => expect(callsTo('GET', '/admin/maintenance/backups')).toHaveLength(2));
  });

  it("shows 'Failed to start restore' and the server's reason on a 409", async () => {
    mockFetch({
      ...loggedIn(),
      'GET /admin/maintenance/backups': json([backup('20260301-100000-000')]),
      'POST /admin/maintenance/restore/20260301-100000-000': json(
        { detail: 'Cannot restore while 1 job(s) are processing: wait for them or cancel them' },
        409,
      ),
    });
    renderApp('/dashboard/maintenance/backup');
    const u = userEvent.setup();
    await u.click(
      await screen.findByRole('button', { name: 'Restore backup 20260301-100000-000' }),
    );
    await u.click(
      within(await screen.findByRole('dialog')).getByRole('button', { name: 'Restore' }),
    );
    expect((await screen.findAllByText('Failed to start restore')).length).toBe(2);
    expect(
      screen.getByText(
        'Cannot restore while 1 job(s) are processing: wait for them or cancel them',
      ),
    ).toBeInTheDocument();
  });

  it('shows a running state while the backup is written, then the new backup', async () => {
    let finish: (r: Response) => void = () => {};
    let listed: Backup[] = [];
    const { callsTo } = mockFetch({
      ...loggedIn(),
      'GET /admin/maintenance/backups': () => json(listed),
      'POST /admin/maintenance/backup': () => new Promise<Response>((r) => (finish = r)),
    });
    renderApp('/dashboard/maintenance/backup');
    expect(await screen.findByText('No backup yet')).toBeInTheDocument();
    const u = userEvent.setup();
    await u.click(screen.getByRole('button', { name: 'Create backup' }));
    expect(await screen.findByLabelText('Creating backup…')).toHaveAttribute('aria-busy', 'true');

    listed = [backup('20260302-080000-000')];
    finish(json(listed[0]));
    expect(await screen.findByText('Backup 20260302-080000-000 created')).toBeInTheDocument();
    expect(screen.queryByLabelText('Creating backup…')).not.toBeInTheDocument();
    expect(
      await screen.findByRole('button', { name: 'Restore backup 20260302-080000-000' }),
    ).toBeInTheDocument();
    expect(callsTo('POST', '/admin/maintenance/backup')).toHaveLength(1);
  });

  it("says 'Failed to start backup' and 'Failed to load backups'", async () => {
    mockFetch({
      ...loggedIn(),
      'GET /admin/maintenance/backups': json([]),
      'POST /admin/maintenance/backup': json({ detail: 'A backup is already running' }, 409),
    });
    const first = renderApp('/dashboard/maintenance/backup');
    const u = userEvent.setup();
    await u.click(await screen.findByRole('button', { name: 'Create backup' }));
    expect((await screen.findAllByText('Failed to start backup')).length).toBe(2);
    expect(screen.getByText('A backup is already running')).toBeInTheDocument();
    first.unmount();

    mockFetch({
      ...loggedIn(),
      'GET /admin/maintenance/backups': json({ detail: 'disk error' }, 500),
    });
    renderApp('/dashboard/maintenance/backup');
    expect((await screen.findAllByText('Failed to load backups')).length).toBe(2);
  });
});
