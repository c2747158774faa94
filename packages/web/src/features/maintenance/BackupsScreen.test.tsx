import { afterEach, describe, expect, it, vi } from 'vitest';
import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import {
  DEFAULT_GENERAL_SETTINGS,
  type Backup,
  type BackupVerification,
  type RestoreResult,
} from '@adam/contracts';
import { json, mockFetch, noContent } from '../../test/fetchMock';
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
    expect(within(row).getByText('Manual')).toBeInTheDocument();
    expect(within(table).getByText('Automatic')).toBeInTheDocument();
    expect(
      within(row).getByRole('link', { name: 'Download backup 20260301-100000-000' }),
    ).toHaveAttribute('href', '/api/v1/admin/maintenance/backups/20260301-100000-000/download');
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

  it("delete asks for confirmation, then deletes; the server's refusal is shown", async () => {
    let listed = [
      backup('20260301-100000-000', { reason: 'safety' }),
      backup('20260228-090000-000'),
    ];
    const { callsTo } = mockFetch({
      ...loggedIn(),
      'GET /admin/maintenance/backups': () => json(listed),
      'DELETE /admin/maintenance/backups/20260301-100000-000': () => {
        listed = listed.slice(1);
        return noContent();
      },
      'DELETE /admin/maintenance/backups/20260228-090000-000': json(
        {
          detail:
            'Backup 20260228-090000-000 is being downloaded or verified: delete it once that ends',
        },
        409,
      ),
    });
    renderApp('/dashboard/maintenance/backup');
    const u = userEvent.setup();
    await u.click(await screen.findByRole('button', { name: 'Delete backup 20260301-100000-000' }));
    const dialog = await screen.findByRole('dialog', {
      name: 'Delete backup 20260301-100000-000?',
    });
    expect(within(dialog).getByText(/that restore cannot be undone/)).toBeInTheDocument();
    expect(callsTo('DELETE', '/admin/maintenance/backups/20260301-100000-000')).toHaveLength(0);
    await u.click(within(dialog).getByRole('button', { name: 'Delete' }));
    expect(await screen.findByText('Backup 20260301-100000-000 deleted')).toBeInTheDocument();
    await waitFor(() =>
      expect(
        screen.queryByRole('button', { name: 'Delete backup 20260301-100000-000' }),
      ).toBeNull(),
    );

    await u.click(screen.getByRole('button', { name: 'Delete backup 20260228-090000-000' }));
    await u.click(
      within(await screen.findByRole('dialog')).getByRole('button', { name: 'Delete' }),
    );
    expect(
      await screen.findByText('Backup 20260228-090000-000 was not deleted'),
    ).toBeInTheDocument();
    expect(screen.getByText(/is being downloaded or verified/)).toBeInTheDocument();
  });

  it('verify shows each check, passed or failed', async () => {
    const verification: BackupVerification = {
      id: '20260301-100000-000',
      ok: false,
      checked_at: '2026-03-02T08:00:00.000Z',
      checks: [
        { name: 'manifest', ok: true, detail: '3 files listed' },
        { name: 'files', ok: true, detail: 'all 3 files present' },
        { name: 'checksums', ok: false, detail: 'adam.db does not match its sha256 checksum' },
      ],
    };
    mockFetch({
      ...loggedIn(),
      'GET /admin/maintenance/backups': json([backup('20260301-100000-000')]),
      'POST /admin/maintenance/backups/20260301-100000-000/verify': json(verification),
    });
    renderApp('/dashboard/maintenance/backup');
    const u = userEvent.setup();
    await u.click(await screen.findByRole('button', { name: 'Verify backup 20260301-100000-000' }));
    expect(
      await screen.findByText('Backup 20260301-100000-000 failed verification'),
    ).toBeInTheDocument();
    const checks = screen.getByRole('list', { name: 'Checks of backup 20260301-100000-000' });
    expect(within(checks).getAllByRole('listitem')).toHaveLength(3);
    expect(
      within(checks).getByText(/adam.db does not match its sha256 checksum/),
    ).toBeInTheDocument();
  });

  it("uploads a file with progress, and shows the server's refusal", async () => {
    const sent: { body: unknown; headers: Record<string, string> }[] = [];
    let answer: { status: number; body: unknown } = {
      status: 201,
      body: backup('20260303-000000-000'),
    };
    class FakeXhr {
      status = 0;
      responseText = '';
      upload: {
        onprogress:
          ((e: { lengthComputable: boolean; loaded: number; total: number }) => void) | null;
      } = { onprogress: null };
      onload: (() => void) | null = null;
      onerror: (() => void) | null = null;
      onabort: (() => void) | null = null;
      withCredentials = false;
      private headers: Record<string, string> = {};
      open() {}
      setRequestHeader(k: string, v: string) {
        this.headers[k] = v;
      }
      abort() {}
      send(body: unknown) {
        sent.push({ body, headers: this.headers });
        this.upload.onprogress?.({ lengthComputable: true, loaded: 5, total: 10 });
        setTimeout(() => {
          this.status = answer.status;
          this.responseText = JSON.stringify(answer.body);
          this.onload?.();
        }, 0);
      }
    }
    vi.stubGlobal('XMLHttpRequest', FakeXhr);
    mockFetch({
      ...loggedIn(),
      'GET /admin/maintenance/backups': json([]),
    });
    renderApp('/dashboard/maintenance/backup');
    const u = userEvent.setup();
    await screen.findByText('No backup yet');
    const file = new File(['tar bytes'], 'adam-backup.tar', { type: 'application/x-tar' });
    const input = document.querySelector('input[type="file"]') as HTMLInputElement;
    await u.upload(input, file);
    expect(
      await screen.findByText('Backup 20260303-000000-000 uploaded and verified'),
    ).toBeInTheDocument();
    expect(sent[0]!.body).toBe(file);
    expect(sent[0]!.headers['Content-Type']).toBe('application/x-tar');

    answer = {
      status: 422,
      body: {
        detail:
          'Backup 20260303-000000-000 was refused: checksums: adam.db does not match its sha256 checksum',
      },
    };
    await u.upload(input, new File(['x'], 'broken.tar'));
    expect(await screen.findByText('Upload of broken.tar refused')).toBeInTheDocument();
    expect(screen.getByText(/checksums: adam.db does not match/)).toBeInTheDocument();
  });

  it("saves the retention settings and shows the server's field errors", async () => {
    const { callsTo } = mockFetch({
      ...loggedIn(),
      'GET /admin/maintenance/backups': json([]),
      'GET /admin/settings/general': json(DEFAULT_GENERAL_SETTINGS),
      'PUT /admin/settings/general': json(
        {
          detail: 'Invalid general settings: backup_retention_days: must be at most 3650',
          errors: [{ field: 'backup_retention_days', message: 'must be at most 3650' }],
        },
        422,
      ),
    });
    renderApp('/dashboard/maintenance/backup');
    const u = userEvent.setup();
    const kept = await screen.findByRole('textbox', { name: 'Automatic backups kept' });
    await u.clear(kept);
    await u.type(kept, '3');
    await u.click(screen.getByRole('button', { name: 'Save retention' }));
    await waitFor(() => expect(callsTo('PUT', '/admin/settings/general')).toHaveLength(1));
    const sent = callsTo('PUT', '/admin/settings/general')[0]!.body as { settings: object };
    expect(sent.settings).toMatchObject({
      backup_retention_count: 3,
      backup_retention_days: 0,
    });
    expect(await screen.findByText('must be at most 3650')).toBeInTheDocument();
  });
});

afterEach(() => {
  vi.unstubAllGlobals();
});
