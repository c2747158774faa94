import { describe, expect, it, vi } from 'vitest';
import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import type { Source } from '@adam/contracts';
import { json, mockFetch } from '../../test/fetchMock';
import { renderApp } from '../../test/renderApp';
import { loggedIn } from '../../test/session';

const MANAGE = '/dashboard/sources/manage';

function makeSource(overrides: Partial<Source> = {}): Source {
  const id = overrides.id ?? 1;
  return {
    id,
    url: `https://bees.test/articles/${id}`,
    kind: 'web',
    domain: 'bees.test',
    title: `Article ${id}`,
    language: 'en',
    segments_count: 12,
    last_job_id: 3,
    last_status: 'ok',
    last_error: null,
    created_at: '2026-03-01T10:00:00.000Z',
    updated_at: '2026-03-01T10:05:00.000Z',
    schedule: 'off',
    last_sync_at: null,
    next_sync_at: null,
    missing_count: 0,
    last_sync: null,
    ...overrides,
  };
}

describe('Manage Sources', () => {
  it('sends search, domain and page to the server; a filter change goes back to page 1', async () => {
    const sources = Array.from({ length: 3 }, (_, i) => makeSource({ id: i + 1 }));
    const { calls } = mockFetch({
      ...loggedIn(),
      'GET /sources/list': json({ sources, total: 120 }),
    });
    renderApp(MANAGE);
    await screen.findByTestId('source-row-1');
    const lastQuery = () => calls.filter((c) => c.path === '/sources/list').at(-1)?.query;
    expect(lastQuery()).toEqual({ page: '1', per_page: '50' });

    const u = userEvent.setup();
    await u.click(screen.getByRole('button', { name: '2' }));
    await waitFor(() => expect(lastQuery()).toEqual({ page: '2', per_page: '50' }));

    await u.type(screen.getByRole('textbox', { name: 'Search' }), 'honey');
    await waitFor(() =>
      expect(lastQuery()).toEqual({ search: 'honey', page: '1', per_page: '50' }),
    );
    await u.type(screen.getByRole('combobox', { name: 'Domain' }), 'bees.test');
    await waitFor(() =>
      expect(lastQuery()).toEqual({
        search: 'honey',
        domain: 'bees.test',
        page: '1',
        per_page: '50',
      }),
    );
  });

  it('refetches with the kind chosen, back on page 1, and lists only what the server answers', async () => {
    const web = makeSource({ id: 1 });
    const file = makeSource({ id: 2, kind: 'file', url: 'upload://report.pdf', domain: 'upload' });
    const { calls } = mockFetch({
      ...loggedIn(),
      'GET /sources/list': (call) =>
        json(
          call.query.kind === 'file'
            ? { sources: [file], total: 1 }
            : { sources: [web, file], total: 120 },
        ),
    });
    renderApp(MANAGE);
    await screen.findByTestId('source-row-1');
    const lastQuery = () => calls.filter((c) => c.path === '/sources/list').at(-1)?.query;
    const u = userEvent.setup();
    await u.click(screen.getByRole('button', { name: '2' }));
    await waitFor(() => expect(lastQuery()).toEqual({ page: '2', per_page: '50' }));

    const kind = screen.getByRole('combobox', { name: 'Kind' });
    expect(kind).toHaveValue('All kinds');
    await u.click(kind);
    expect((await screen.findAllByRole('option')).map((o) => o.textContent)).toEqual([
      'All kinds',
      'Web pages',
      'Uploaded files',
      'Imports',
    ]);
    await u.click(screen.getByRole('option', { name: 'Uploaded files' }));
    await waitFor(() => expect(lastQuery()).toEqual({ kind: 'file', page: '1', per_page: '50' }));
    await waitFor(() => expect(screen.queryByTestId('source-row-1')).not.toBeInTheDocument());
    expect(within(screen.getByTestId('source-row-2')).getByTestId('source-kind')).toHaveTextContent(
      'file',
    );

    // Back to every kind: the parameter is left out again.
    await u.click(screen.getByRole('combobox', { name: 'Kind' }));
    await u.click(await screen.findByRole('option', { name: 'All kinds' }));
    await waitFor(() => expect(lastQuery()).toEqual({ page: '1', per_page: '50' }));
  });

  it('shows segments per source, its last status and error, and links to its snippets and rule', async () => {
    mockFetch({
      ...loggedIn(),
      'GET /sources/list': json({
        sources: [
          makeSource({ id: 1, segments_count: 1234 }),
          makeSource({
            id: 2,
            url: 'https://down.test/x',
            domain: 'down.test',
            title: null,
            segments_count: 0,
            last_status: 'failed',
            last_error: 'HTTP 404 Not Found',
          }),
        ],
        total: 2,
      }),
    });
    renderApp(MANAGE);
    const row = await screen.findByTestId('source-row-1');
    expect(within(row).getByTestId('segments-count')).toHaveTextContent('1,234');
    expect(
      within(row).getByRole('link', { name: 'Browse snippets of https://bees.test/articles/1' }),
    ).toHaveAttribute(
      'href',
      `/dashboard/sources/snippets?source_url=${encodeURIComponent('https://bees.test/articles/1')}`,
    );
    expect(within(row).getByRole('link', { name: 'Scraping rule of bees.test' })).toHaveAttribute(
      'href',
      '/dashboard/settings/scraping?domain=bees.test',
    );
    const failed = screen.getByTestId('source-row-2');
    expect(within(failed).getByText('failed')).toBeInTheDocument();
    expect(within(failed).getAllByText('HTTP 404 Not Found').length).toBeGreaterThan(0);
  });

  it('deletes a source with its snippets only after confirmation', async () => {
    const { callsTo } = mockFetch({
      ...loggedIn(),
      'GET /sources/list': json({ sources: [makeSource({ id: 5 })], total: 1 }),
      'DELETE /sources/5': json({
        id: 5,
        deleted: true,
        snippets_deleted: 12,
        vectors_deleted: 12,
      }),
    });
    renderApp(MANAGE);
    const u = userEvent.setup();
    const remove = await screen.findByRole('button', {
      name: 'Delete https://bees.test/articles/5',
    });
    await u.click(remove);
    await screen.findByRole('dialog');
    expect(callsTo('DELETE', '/sources/5')).toHaveLength(0);
    await u.click(screen.getByRole('button', { name: 'Cancel' }));
    expect(callsTo('DELETE', '/sources/5')).toHaveLength(0);

    await u.click(remove);
    await u.click(await screen.findByRole('button', { name: 'Delete source and snippets' }));
    expect(await screen.findByText('Source deleted with 12 snippets')).toBeInTheDocument();
    expect(callsTo('DELETE', '/sources/5')[0]?.query).toEqual({ delete_snippets: 'true' });
  });

  it('shows the empty state when no source exists', async () => {
    mockFetch({ ...loggedIn(), 'GET /sources/list': json({ sources: [], total: 0 }) });
    renderApp(MANAGE);
    expect(await screen.findByText('No sources yet')).toBeInTheDocument();
  });

  it('shows a failed load in the page and the console, not as a toast (spec 002 §8)', async () => {
    const consoleError = vi.spyOn(console, 'error').mockImplementation(() => {});
    mockFetch({ ...loggedIn(), 'GET /sources/list': json({ detail: 'Store offline' }, 500) });
    renderApp(MANAGE);
    expect(await screen.findByText('Could not load the sources')).toBeInTheDocument();
    expect(screen.getAllByText('Store offline')).toHaveLength(1);
    expect(consoleError).toHaveBeenCalledWith('Source list failed', expect.anything());
  });
});

describe('Manage Sources: keeping sources fresh (issue 24)', () => {
  const lastSync = {
    job_id: 41,
    outcome: 'changed' as const,
    ended_at: new Date(Date.now() - 3 * 3600_000 - 60_000).toISOString(),
    error: null,
    pages_added: 0,
    pages_changed: 1,
    pages_unchanged: 0,
    pages_removed: 0,
    pages_failed: 0,
    segments_added: 3,
    segments_kept: 9,
    segments_removed: 2,
    reembedded: 3,
  };

  it('shows kind, schedule, last sync with its counts, and next sync; files cannot be synced', async () => {
    mockFetch({
      ...loggedIn(),
      'GET /sources/list': json({
        sources: [
          makeSource({
            id: 1,
            schedule: 'daily',
            last_sync_at: lastSync.ended_at,
            next_sync_at: new Date(Date.now() + 2 * 3600_000 + 300_000).toISOString(),
            missing_count: 1,
            last_sync: lastSync,
          }),
          makeSource({ id: 2, kind: 'file', url: 'upload://report.pdf' }),
        ],
        total: 2,
      }),
    });
    renderApp(MANAGE);
    const row = await screen.findByTestId('source-row-1');
    expect(within(row).getByTestId('source-kind')).toHaveTextContent('web');
    expect(within(row).getByTestId('source-schedule')).toHaveTextContent('daily');
    const last = within(row).getByTestId('source-last-sync');
    expect(last).toHaveTextContent('changed');
    expect(last).toHaveTextContent('3 h ago');
    expect(last).toHaveTextContent('missing ×1');
    expect(
      within(row).getByLabelText(
        'Last sync changed: Pages: 0 added, 1 changed, 0 unchanged, 0 removed, 0 failed; ' +
          'Segments: 3 added, 9 kept, 2 removed, 3 re-embedded',
      ),
    ).toBeInTheDocument();
    expect(within(row).getByTestId('source-next-sync')).toHaveTextContent('in 2 h');
    expect(within(row).getByRole('button', { name: `Sync now ${makeSource().url}` })).toBeEnabled();

    const file = screen.getByTestId('source-row-2');
    expect(within(file).getByTestId('source-kind')).toHaveTextContent('file');
    expect(within(file).getByText('Never')).toBeInTheDocument();
    expect(
      within(file).getByRole('button', { name: 'Sync now upload://report.pdf' }),
    ).toBeDisabled();
    expect(
      within(file).getByRole('button', { name: 'Schedule of upload://report.pdf' }),
    ).toBeDisabled();
  });

  it('posts Sync now, says which job it queued, and shows a 409 detail as a toast', async () => {
    let answer = json({ job_id: 77, source_ids: [1] });
    const { callsTo } = mockFetch({
      ...loggedIn(),
      'GET /sources/list': json({ sources: [makeSource({ id: 1 })], total: 1 }),
      'POST /sources/1/sync': () => answer,
    });
    renderApp(MANAGE);
    const u = userEvent.setup();
    const button = await screen.findByRole('button', { name: `Sync now ${makeSource().url}` });
    await u.click(button);
    expect(
      await screen.findByText(`Sync of ${makeSource().url} queued as job 77`),
    ).toBeInTheDocument();
    expect(callsTo('POST', '/sources/1/sync')).toHaveLength(1);

    answer = json({ detail: 'Source 1 is already being synced by job 77' }, 409);
    await u.click(button);
    expect(
      await screen.findByText('Source 1 is already being synced by job 77'),
    ).toBeInTheDocument();
    expect(callsTo('POST', '/sources/1/sync')).toHaveLength(2);
  });

  it('sets a cron schedule and shows the server’s 422 under the input', async () => {
    const { callsTo } = mockFetch({
      ...loggedIn(),
      'GET /sources/list': json({ sources: [makeSource({ id: 1 })], total: 1 }),
      'PUT /sources/1/schedule': (call) =>
        (call.body as { schedule: string }).schedule === '61 * * * *'
          ? json(
              {
                detail:
                  "'61 * * * *' is not a valid cron expression: Constraint error, got value 61 expected range 0-59",
              },
              422,
            )
          : json(makeSource({ id: 1, schedule: '*/30 * * * *' })),
    });
    renderApp(MANAGE);
    const u = userEvent.setup();
    await u.click(await screen.findByRole('button', { name: `Schedule of ${makeSource().url}` }));
    const dialog = await screen.findByRole('dialog');
    await u.click(within(dialog).getByRole('combobox', { name: 'Schedule' }));
    await u.click(await screen.findByRole('option', { name: 'cron expression' }));
    const cron = within(dialog).getByRole('textbox', { name: /Cron expression/ });
    await u.type(cron, '61 * * * *');
    await u.click(within(dialog).getByRole('button', { name: 'Save schedule' }));
    expect(
      await within(dialog).findByText(
        "'61 * * * *' is not a valid cron expression: Constraint error, got value 61 expected range 0-59",
      ),
    ).toBeInTheDocument();
    expect(cron).toHaveAttribute('aria-invalid', 'true');

    await u.clear(cron);
    await u.type(cron, '*/30 * * * *');
    await u.click(within(dialog).getByRole('button', { name: 'Save schedule' }));
    expect(
      await screen.findByText(`Schedule of ${makeSource().url} set to */30 * * * *`),
    ).toBeInTheDocument();
    expect(callsTo('PUT', '/sources/1/schedule').map((c) => c.body)).toEqual([
      { schedule: '61 * * * *' },
      { schedule: '*/30 * * * *' },
    ]);
  });

  it('lists a source’s sync history', async () => {
    mockFetch({
      ...loggedIn(),
      'GET /sources/list': json({ sources: [makeSource({ id: 1 })], total: 1 }),
      'GET /sources/1/syncs': json({
        syncs: [
          {
            ...lastSync,
            id: 9,
            source_id: 1,
            started_at: '2026-03-02T08:00:00.000Z',
            outcome: 'failed',
            error: 'HTTP 503 Service Unavailable',
          },
        ],
      }),
    });
    renderApp(MANAGE);
    const u = userEvent.setup();
    await u.click(
      await screen.findByRole('button', { name: `Sync history of ${makeSource().url}` }),
    );
    const row = await screen.findByTestId('sync-row-9');
    expect(row).toHaveTextContent('failed');
    expect(row).toHaveTextContent('HTTP 503 Service Unavailable');
    expect(row).toHaveTextContent('0 / 1 / 0 / 0 / 0');
    expect(within(row).getByRole('link', { name: '#41' })).toHaveAttribute(
      'href',
      '/dashboard/sources/queue?job_id=41',
    );
  });

  it('prunes missing pages only after the preview is confirmed, then refreshes the list', async () => {
    const gone = 'https://bees.test/gone';
    const { callsTo } = mockFetch({
      ...loggedIn(),
      'GET /sources/list': json({ sources: [makeSource({ id: 1 })], total: 1 }),
      'GET /sources/prune/preview': json({
        sources: 1,
        snippets: 14,
        threshold: 2,
        candidates: [{ id: 8, url: gone, missing_count: 1, snippets: 14 }],
      }),
      'POST /sources/prune': json({
        sources_deleted: 1,
        snippets_deleted: 14,
        vectors_deleted: 14,
      }),
    });
    renderApp(MANAGE);
    const u = userEvent.setup();
    await screen.findByTestId('source-row-1');

    await u.click(screen.getByRole('button', { name: 'Prune missing pages' }));
    const dialog = await screen.findByRole('dialog');
    expect(await within(dialog).findByTestId('prune-summary')).toHaveTextContent(
      '1 source and their 14 snippets will be deleted',
    );
    expect(within(dialog).getByRole('table', { name: 'Pages to prune' })).toHaveTextContent(gone);
    await u.click(within(dialog).getByRole('button', { name: 'Cancel' }));
    expect(callsTo('POST', '/sources/prune')).toHaveLength(0);

    await u.click(screen.getByRole('button', { name: 'Prune missing pages' }));
    await waitFor(() => expect(callsTo('GET', '/sources/prune/preview')).toHaveLength(2));
    const lists = callsTo('GET', '/sources/list').length;
    await u.click(await screen.findByRole('button', { name: 'Prune 1 source' }));
    expect(await screen.findByText('Pruned 1 source with 14 snippets')).toBeInTheDocument();
    expect(callsTo('POST', '/sources/prune').map((c) => c.body)).toEqual([{ source_ids: [8] }]);
    await waitFor(() => expect(callsTo('GET', '/sources/list').length).toBeGreaterThan(lists));
  });

  it('says so when there is nothing to prune', async () => {
    const { callsTo } = mockFetch({
      ...loggedIn(),
      'GET /sources/list': json({ sources: [makeSource({ id: 1 })], total: 1 }),
      'GET /sources/prune/preview': json({ sources: 0, snippets: 0, threshold: 2, candidates: [] }),
    });
    renderApp(MANAGE);
    const u = userEvent.setup();
    await screen.findByTestId('source-row-1');
    await u.click(screen.getByRole('button', { name: 'Prune missing pages' }));
    expect(await screen.findByText('Nothing to prune')).toBeInTheDocument();
    expect(callsTo('POST', '/sources/prune')).toHaveLength(0);
  });
});
