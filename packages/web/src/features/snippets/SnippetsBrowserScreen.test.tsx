import { afterEach, describe, expect, it, vi } from 'vitest';
import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { json, mockFetch, type RecordedCall } from '../../test/fetchMock';
import { renderApp } from '../../test/renderApp';
import { loggedIn } from '../../test/session';
import { page, report, snippet } from './snippets.fixtures';

const BROWSER = '/dashboard/sources/snippets';

const last = (calls: RecordedCall[]) => calls[calls.length - 1]!;

function setup(routes: Parameters<typeof mockFetch>[0] = {}, path = BROWSER) {
  const mock = mockFetch({
    ...loggedIn(),
    'GET /snippets': json(page([snippet(1), snippet(2)])),
    'GET /snippets/consistency-check': json(report()),
    ...routes,
  });
  const app = renderApp(path);
  const lists = () => mock.callsTo('GET', '/snippets');
  return { ...mock, app, lists, user: userEvent.setup() };
}

async function pick(user: ReturnType<typeof userEvent.setup>, label: string, option: string) {
  await user.click(screen.getByLabelText(label, { selector: 'input' }));
  await user.click(await screen.findByRole('option', { name: option }));
}

const rowOf = (id: number) =>
  screen.getAllByTestId('snippet-row').find((r) => within(r).queryByText(String(id)) !== null)!;

describe('Snippets browser: the list call', () => {
  it('sends each filter as a query parameter, with per_page 50', async () => {
    const { lists, user } = setup();
    await screen.findAllByTestId('snippet-row');
    expect(last(lists()).query).toEqual({
      page: '1',
      per_page: '50',
      sort_by: 'created_at',
      order: 'desc',
    });

    await pick(user, 'Theme', 'philosophy');
    await waitFor(() => expect(last(lists()).query.theme).toBe('philosophy'));
    await user.type(screen.getByRole('textbox', { name: 'Min quality' }), '0.75');
    await waitFor(() => expect(last(lists()).query.min_quality).toBe('0.75'));
    await user.type(screen.getByRole('textbox', { name: 'Search' }), 'honey');
    await waitFor(() => expect(last(lists()).query.search).toBe('honey'));
    await pick(user, 'Sort by', 'Quality score');
    await user.click(screen.getByText('Asc'));

    await waitFor(() =>
      expect(last(lists()).query).toEqual({
        page: '1',
        per_page: '50',
        sort_by: 'quality_score',
        order: 'asc',
        theme: 'philosophy',
        min_quality: '0.75',
        search: 'honey',
        // The browser's filter narrows: every word (stemmed).
        match: 'all',
      }),
    );
  });

  it('starts pre-filtered by job_id and source_url from the URL; a chip removes its filter', async () => {
    const { lists, user, app } = setup(
      {},
      `${BROWSER}?job_id=12&source_url=${encodeURIComponent('https://a.org/x')}`,
    );
    await screen.findAllByTestId('snippet-row');
    expect(last(lists()).query).toMatchObject({ job_id: '12', source_url: 'https://a.org/x' });
    expect(screen.getByText('Job #12')).toBeInTheDocument();
    expect(screen.getByText('Source: https://a.org/x')).toBeInTheDocument();

    await user.click(screen.getByRole('button', { name: 'Remove job filter' }));
    await waitFor(() => expect(last(lists()).query.job_id).toBeUndefined());
    expect(last(lists()).query.source_url).toBe('https://a.org/x');
    expect(app.location()).toBe(`${BROWSER}?source_url=${encodeURIComponent('https://a.org/x')}`);
  });

  it('shows an estimated total as ≈ N', async () => {
    setup({ 'GET /snippets': () => json(page([snippet(1)], 170_000, 1, false)) });
    await screen.findAllByTestId('snippet-row');
    expect(screen.getByTestId('snippet-total')).toHaveTextContent('1–50 of ≈ 170,000');
  });

  it('goes back to page 1 when a filter changes', async () => {
    const { lists, user } = setup({
      'GET /snippets': (call) =>
        json(page([snippet(Number(call.query.page) * 100)], 120, Number(call.query.page))),
    });
    await screen.findAllByTestId('snippet-row');
    expect(screen.getByTestId('snippet-total')).toHaveTextContent('1–50 of 120');

    await user.click(screen.getByRole('button', { name: '2' }));
    await waitFor(() => expect(last(lists()).query.page).toBe('2'));
    expect(await screen.findByText('51–100 of 120')).toBeInTheDocument();

    await pick(user, 'Theme', 'science');
    await waitFor(() => expect(last(lists()).query).toMatchObject({ page: '1', theme: 'science' }));
    expect(await screen.findByText('1–50 of 120')).toBeInTheDocument();
  });

  it('goes to a neighbouring page by its cursor, to a far page and to page 1 by number', async () => {
    // Cursor "c<n>" leads to page n; each page answers the cursors of its neighbours.
    const { lists, user } = setup({
      'GET /snippets': (call) => {
        const n = call.query.cursor ? Number(call.query.cursor.slice(1)) : Number(call.query.page);
        return json({
          ...page([snippet(n * 100)], 500, n),
          next_cursor: n < 10 ? `c${n + 1}` : null,
          prev_cursor: n > 1 ? `c${n - 1}` : null,
        });
      },
    });
    await screen.findAllByTestId('snippet-row');
    const to = async (button: string, shown: string) => {
      await user.click(screen.getByRole('button', { name: button }));
      expect(await screen.findByText(shown)).toBeInTheDocument();
      return last(lists()).query;
    };
    expect(await to('2', '51–100 of 500')).toMatchObject({ page: '2', cursor: 'c2' });
    expect(await to('3', '101–150 of 500')).toMatchObject({ page: '3', cursor: 'c3' });
    expect(await to('2', '51–100 of 500')).toMatchObject({ page: '2', cursor: 'c2' });
    const first = await to('1', '1–50 of 500');
    expect(first.page).toBe('1');
    expect(first.cursor).toBeUndefined();
    const far = await to('5', '201–250 of 500');
    expect(far.page).toBe('5');
    expect(far.cursor).toBeUndefined();
    expect(await to('6', '251–300 of 500')).toMatchObject({ page: '6', cursor: 'c6' });
  });

  it("shows 'Failed to load snippet list: …' when the list fails", async () => {
    setup({ 'GET /snippets': json({ detail: 'database is locked' }, 500) });
    expect(
      await screen.findByText('Failed to load snippet list: database is locked'),
    ).toBeInTheDocument();
  });

  it('a 401 ends the session like the shell does, with no snippet toast on top', async () => {
    setup({
      'GET /snippets': json({ detail: 'Invalid API key' }, 401),
      'GET /snippets/consistency-check': json({ detail: 'Invalid API key' }, 401),
      'POST /auth/refresh': json({ detail: 'Session expired' }, 401),
    });
    expect(
      await screen.findByRole('button', { name: 'Access Control Center' }),
    ).toBeInTheDocument();
    expect(screen.queryByText(/Failed to load snippet list/)).toBeNull();
    expect(screen.queryByText(/Failed to check snippet consistency/)).toBeNull();
  });

  it('shows each index status: indexed (indexed_at or faiss_id), pending indexing, not in index', async () => {
    setup({
      'GET /snippets': json(
        page([
          snippet(1),
          snippet(2, { indexed_at: null, faiss_id: 2 }),
          snippet(3, { indexed_at: null, faiss_id: null, index_pending: true }),
          snippet(4, { indexed_at: null, faiss_id: null, index_pending: false }),
        ]),
      ),
    });
    await screen.findAllByTestId('snippet-row');
    expect(within(rowOf(1)).getByText('indexed')).toBeInTheDocument();
    expect(within(rowOf(2)).getByText('indexed')).toBeInTheDocument();
    expect(within(rowOf(3)).getByText('pending indexing')).toBeInTheDocument();
    expect(within(rowOf(4)).getByText('not in index')).toBeInTheDocument();
  });
});

describe('Snippets browser: selection, bulk delete and export', () => {
  afterEach(() => {
    Reflect.deleteProperty(URL, 'createObjectURL');
    Reflect.deleteProperty(URL, 'revokeObjectURL');
  });

  it('clears the selection when the list reloads', async () => {
    const { lists, user } = setup();
    await screen.findAllByTestId('snippet-row');
    await user.click(screen.getByRole('checkbox', { name: 'Select snippet 1' }));
    expect(screen.getByRole('checkbox', { name: 'Select snippet 1' })).toBeChecked();
    expect(screen.getByText('1 selected')).toBeInTheDocument();

    const before = lists().length;
    await user.click(screen.getByRole('button', { name: 'Reload' }));
    await waitFor(() => expect(lists().length).toBe(before + 1));
    await waitFor(() =>
      expect(screen.getByRole('checkbox', { name: 'Select snippet 1' })).not.toBeChecked(),
    );
    expect(screen.getByText('0 selected')).toBeInTheDocument();
  });

  it('asks before a bulk delete and deletes each id only after confirming', async () => {
    const { callsTo, user } = setup({
      'DELETE /snippets/1': json({
        id: 1,
        deleted: true,
        removed_from_store: true,
        removed_from_index: true,
      }),
      'DELETE /snippets/2': json({ detail: 'database is locked' }, 500),
    });
    await screen.findAllByTestId('snippet-row');
    await user.click(screen.getByRole('checkbox', { name: 'Select all on this page' }));
    expect(screen.getByText('2 selected')).toBeInTheDocument();

    // Cancelled: nothing is deleted.
    await user.click(screen.getByRole('button', { name: 'Delete selected' }));
    let dialog = await screen.findByRole('dialog');
    expect(within(dialog).getByText(/Delete 2 selected snippet/)).toBeInTheDocument();
    await user.click(within(dialog).getByRole('button', { name: 'Cancel' }));
    await waitFor(() => expect(screen.queryByRole('dialog')).toBeNull());
    expect(callsTo('DELETE', '/snippets/1')).toHaveLength(0);

    await user.click(screen.getByRole('button', { name: 'Delete selected' }));
    dialog = await screen.findByRole('dialog');
    expect(callsTo('DELETE', '/snippets/1')).toHaveLength(0);
    await user.click(within(dialog).getByRole('button', { name: 'Delete' }));

    expect(await screen.findByText('Failed to delete snippet 2: database is locked')).toBeVisible();
    expect(callsTo('DELETE', '/snippets/1')).toHaveLength(1);
    expect(callsTo('DELETE', '/snippets/2')).toHaveLength(1);
    expect(await screen.findByText('Deleted 1 snippet(s)')).toBeInTheDocument();
  });

  it('exports the selection in the chosen format and saves the file the server names', async () => {
    const createObjectURL = vi.fn(() => 'blob:export');
    // jsdom has no object URLs; removed again after the test.
    Object.assign(URL, { createObjectURL, revokeObjectURL: vi.fn() });
    const click = vi.spyOn(HTMLAnchorElement.prototype, 'click').mockImplementation(() => {});
    const { callsTo, user } = setup({
      'POST /snippets/export': () =>
        new Response('id,text\r\n1,a\r\n', {
          headers: {
            'content-type': 'text/csv; charset=utf-8',
            'content-disposition': 'attachment; filename="snippets-2026.csv"',
          },
        }),
    });
    await screen.findAllByTestId('snippet-row');
    expect(screen.getByRole('button', { name: 'Export' })).toBeDisabled();
    await user.click(screen.getByRole('checkbox', { name: 'Select snippet 2' }));
    await user.click(screen.getByRole('checkbox', { name: 'Select snippet 1' }));
    await pick(user, 'Export format', 'csv');
    await user.click(screen.getByRole('button', { name: 'Export' }));

    await waitFor(() => expect(click).toHaveBeenCalled());
    expect(callsTo('POST', '/snippets/export')[0]?.body).toEqual({ ids: [2, 1], format: 'csv' });
    expect(createObjectURL).toHaveBeenCalledTimes(1);
    expect((click.mock.contexts[0] as HTMLAnchorElement).download).toBe('snippets-2026.csv');
  });
});

describe('Snippets browser: consistency', () => {
  it('disables the non-all tabs without consistency data and says why', async () => {
    setup({ 'GET /snippets/consistency-check': json({ detail: 'index offline' }, 500) });
    expect(
      await screen.findByText('Failed to check snippet consistency: index offline'),
    ).toBeInTheDocument();
    expect(screen.getByText('Consistency data unavailable')).toBeInTheDocument();
    expect(screen.getByRole('tab', { name: /All/ })).toBeEnabled();
    for (const name of [/Consistent/, /Index only/, /Disk only/]) {
      expect(screen.getByRole('tab', { name })).toBeDisabled();
    }
  });

  it('shows the summary and lists each kind in its tab', async () => {
    const { user } = setup();
    expect(await screen.findByTestId('consistency-total_disk')).toHaveTextContent('3');
    const indexOnly = screen.getByRole('tab', { name: /Index only/ });
    await waitFor(() => expect(indexOnly).toBeEnabled());
    await user.click(indexOnly);
    const rows = await screen.findAllByTestId('report-row-index_only');
    expect(rows).toHaveLength(1);
    expect(within(rows[0]!).getByText('900')).toBeInTheDocument();

    await user.click(screen.getByRole('tab', { name: /Disk only/ }));
    expect(await screen.findByText('Lost vector')).toBeInTheDocument();
    expect(screen.getByText('pending indexing')).toBeInTheDocument();
  });

  it('cleans orphans of a kind only after confirming', async () => {
    const { callsTo, user } = setup({
      'POST /snippets/cleanup-orphaned': (call) =>
        call.query.cleanup_type === 'index_only'
          ? json({
              cleanup_type: 'index_only',
              action: 'removed_vectors',
              processed: 1,
              ids: [900],
            })
          : json({ detail: 'boom' }, 500),
    });
    const indexOnly = await screen.findByRole('tab', { name: /Index only/ });
    await waitFor(() => expect(indexOnly).toBeEnabled());
    await user.click(indexOnly);
    await user.click(await screen.findByRole('button', { name: 'Remove orphaned vectors' }));
    const dialog = await screen.findByRole('dialog');
    expect(callsTo('POST', '/snippets/cleanup-orphaned')).toHaveLength(0);
    await user.click(within(dialog).getByRole('button', { name: 'Remove orphaned vectors' }));
    expect(
      await screen.findByText('Removed 1 orphaned vector(s) from the index'),
    ).toBeInTheDocument();
    expect(callsTo('POST', '/snippets/cleanup-orphaned')[0]?.query).toEqual({
      cleanup_type: 'index_only',
    });

    await user.click(screen.getByRole('tab', { name: /Disk only/ }));
    await user.click(await screen.findByRole('button', { name: 'Delete orphaned snippets' }));
    const second = await screen.findByRole('dialog');
    await user.click(within(second).getByRole('button', { name: 'Delete orphaned snippets' }));
    expect(await screen.findByText('Failed to clean orphaned snippets')).toBeInTheDocument();
    const disk = callsTo('POST', '/snippets/cleanup-orphaned')[1]!;
    expect(disk.query).toEqual({ cleanup_type: 'disk_only' });
    expect(disk.body).toEqual({ delete: true });
  });

  it('refreshes the snippet state, then reloads the list and the consistency report', async () => {
    const { callsTo, lists, user } = setup({
      'POST /admin/refresh-snippet-state': json({
        total_disk: 3,
        total_index: 3,
        marked_pending: 1,
        reindexed: 1,
        index_only: 0,
      }),
    });
    await screen.findAllByTestId('snippet-row');
    await waitFor(() => expect(callsTo('GET', '/snippets/consistency-check')).toHaveLength(1));
    const listsBefore = lists().length;
    await user.click(screen.getByRole('button', { name: 'Refresh snippet state' }));
    expect(
      await screen.findByText('Snippet state refreshed: 1 re-indexed, 1 marked pending'),
    ).toBeInTheDocument();
    await waitFor(() => expect(callsTo('GET', '/snippets/consistency-check')).toHaveLength(2));
    expect(lists().length).toBe(listsBefore + 1);
  });
});
