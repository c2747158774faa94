import { afterEach, describe, expect, it, vi } from 'vitest';
import { act, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { INDEX_SEARCH_K } from '@adam/contracts';
import { json, mockFetch } from '../../test/fetchMock';
import { renderApp } from '../../test/renderApp';
import { loggedIn } from '../../test/session';
import { INDEX_CONTENT_PAGE_SIZE, INDEX_STATS_POLL_MS } from './index.api';
import { indexStats, searchResponse, snippet } from './index.fixtures';

describe('Index Statistics', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it('polls GET /admin/index/stats every 30 s', async () => {
    vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval'] });
    const { callsTo } = mockFetch({
      ...loggedIn(),
      'GET /admin/index/stats': json(indexStats()),
    });
    renderApp('/dashboard/index/stats');
    expect((await screen.findAllByText('1,234')).length).toBeGreaterThan(0);
    expect(INDEX_STATS_POLL_MS).toBe(30_000);
    expect(callsTo('GET', '/admin/index/stats')).toHaveLength(1);
    act(() => vi.advanceTimersByTime(INDEX_STATS_POLL_MS - 1000));
    expect(callsTo('GET', '/admin/index/stats')).toHaveLength(1);
    act(() => vi.advanceTimersByTime(1000));
    await waitFor(() => expect(callsTo('GET', '/admin/index/stats')).toHaveLength(2));
    act(() => vi.advanceTimersByTime(INDEX_STATS_POLL_MS));
    await waitFor(() => expect(callsTo('GET', '/admin/index/stats')).toHaveLength(3));
  });

  it('shows every figure of the stats answer', async () => {
    mockFetch({ ...loggedIn(), 'GET /admin/index/stats': json(indexStats({ storage: 'i8' })) });
    renderApp('/dashboard/index/stats');
    expect(await screen.findByText('2.50 MB')).toBeInTheDocument();
    for (const text of [
      'HNSW (usearch, cosine, M=16)',
      '384',
      'builtin-hash-384',
      '1.25 ms',
      '50.0%',
      'i8: 8-bit integers, a quarter of the memory',
      '98.0% (50 sampled queries, i8)',
    ]) {
      expect(screen.getAllByText(text).length).toBeGreaterThan(0);
    }
  });

  it("says 'Failed to fetch index statistics' when the call fails, without the client's generic toast", async () => {
    mockFetch({
      ...loggedIn(),
      'GET /admin/index/stats': json({ detail: 'Index not loaded' }, 503),
    });
    renderApp('/dashboard/index/stats');
    expect((await screen.findAllByText('Failed to fetch index statistics')).length).toBe(2);
    // The detail is shown in the panel, once (the call is silent: no second toast of it).
    expect(screen.getAllByText('Index not loaded')).toHaveLength(1);
  });

  it('test search: opens a modal, sends query and k (default 10), shows similarities', async () => {
    const { callsTo } = mockFetch({
      ...loggedIn(),
      'GET /admin/index/stats': json(indexStats()),
      'POST /admin/index/search': json(searchResponse('honey', [3, 9])),
    });
    renderApp('/dashboard/index/stats');
    const u = userEvent.setup();
    await u.click(await screen.findByRole('button', { name: 'Test search' }));
    const dialog = await screen.findByRole('dialog', { name: 'Test search' });
    const search = within(dialog).getByRole('button', { name: 'Search' });
    expect(search).toBeDisabled();
    await u.type(within(dialog).getByLabelText('Query'), '  honey ');
    await u.click(search);
    // The cosine as a bar and a percentage, the fused score beside it.
    expect(await within(dialog).findByText('70.0%')).toBeInTheDocument();
    expect(within(dialog).getByText('60.0%')).toBeInTheDocument();
    expect(
      within(dialog)
        .getAllByTestId('score')
        .map((c) => c.textContent),
    ).toEqual(['0.900', '0.800']);
    expect(callsTo('POST', '/admin/index/search')[0]?.body).toEqual({
      query: 'honey',
      k: INDEX_SEARCH_K,
      mode: 'hybrid',
    });
  });
});

describe('Index Search', () => {
  it('needs a non-empty query and sends the chosen k', async () => {
    const { callsTo } = mockFetch({
      ...loggedIn(),
      'POST /admin/index/search': json(searchResponse('bees', [5])),
    });
    renderApp('/dashboard/index/search');
    const u = userEvent.setup();
    const query = await screen.findByLabelText('Query');
    await u.type(query, '   ');
    expect(screen.getByRole('button', { name: 'Search' })).toBeDisabled();
    await u.type(query, 'bees');
    const k = screen.getByLabelText('k');
    expect(k).toHaveValue(String(INDEX_SEARCH_K));
    await u.clear(k);
    await u.type(k, '3');
    await u.click(screen.getByRole('radio', { name: 'Vector' }));
    await u.click(screen.getByRole('button', { name: 'Search' }));
    const table = await screen.findByRole('table', { name: 'Search results' });
    expect(within(table).getByText('#5')).toBeInTheDocument();
    expect(within(table).getByText('science')).toBeInTheDocument();
    expect(within(table).getByText('0.82')).toBeInTheDocument();
    expect(within(table).getByTestId('found-by')).toHaveTextContent(
      'keywordvectorv 0.700 · k 5.00',
    );
    expect(callsTo('POST', '/admin/index/search')[0]?.body).toEqual({
      query: 'bees',
      k: 3,
      mode: 'vector',
    });
  });

  it('before the first search, says what is searched, or that the index is empty', async () => {
    mockFetch({
      ...loggedIn(),
      'GET /admin/index/stats': json(indexStats({ total_vectors: 1234, embedder: 'builtin-384' })),
      'POST /admin/index/search': json(searchResponse('bees', [5])),
    });
    const { unmount } = renderApp('/dashboard/index/search');
    expect(await screen.findByText('Search the index')).toBeInTheDocument();
    expect(screen.getByText('1,234 vectors')).toBeInTheDocument();
    expect(screen.getByText('embedder builtin-384')).toBeInTheDocument();
    const u = userEvent.setup();
    await u.type(screen.getByLabelText('Query'), 'bees');
    await u.click(screen.getByRole('button', { name: 'Search' }));
    await screen.findByRole('table', { name: 'Search results' });
    expect(screen.queryByText('Search the index')).not.toBeInTheDocument();
    unmount();

    mockFetch({ ...loggedIn(), 'GET /admin/index/stats': json(indexStats({ total_vectors: 0 })) });
    renderApp('/dashboard/index/search');
    expect(await screen.findByText('The index is empty')).toBeInTheDocument();
    expect(screen.getByRole('link', { name: 'Add sources' })).toHaveAttribute(
      'href',
      '/dashboard/sources/add',
    );
  });

  it("says 'Search failed' on a failed search", async () => {
    mockFetch({
      ...loggedIn(),
      'POST /admin/index/search': json({ detail: 'Embedder unavailable' }, 503),
    });
    renderApp('/dashboard/index/search');
    const u = userEvent.setup();
    await u.type(await screen.findByLabelText('Query'), 'bees');
    await u.click(screen.getByRole('button', { name: 'Search' }));
    expect((await screen.findAllByText('Search failed')).length).toBe(2);
    expect(screen.getByText('Embedder unavailable')).toBeInTheDocument();
  });
});

describe('Index Content', () => {
  const page = (ids: number[], total: number, n = 1) =>
    json({
      snippets: ids.map((id) => ({ ...snippet(id), snippet_id: id })),
      total,
      page: n,
      per_page: INDEX_CONTENT_PAGE_SIZE,
    });

  it('pages on the server by 50, filters by search and theme, and a filter change goes to page 1', async () => {
    const { callsTo } = mockFetch({
      ...loggedIn(),
      'GET /admin/index/entries': (call) => page([1, 2], 120, Number(call.query.page)),
    });
    renderApp('/dashboard/index/content');
    const table = await screen.findByRole('table', { name: 'Index content' });
    expect(within(table).getByText('#1')).toBeInTheDocument();
    expect(callsTo('GET', '/admin/index/entries')[0]?.query).toEqual({
      page: '1',
      per_page: '50',
    });
    expect(screen.getByText('1–50 of 120 indexed snippets')).toBeInTheDocument();

    const u = userEvent.setup();
    await u.click(screen.getByRole('button', { name: '2' }));
    await waitFor(() =>
      expect(callsTo('GET', '/admin/index/entries').at(-1)?.query.page).toBe('2'),
    );

    await u.type(screen.getByLabelText('Search'), 'honey');
    await waitFor(() =>
      expect(callsTo('GET', '/admin/index/entries').at(-1)?.query).toEqual({
        page: '1',
        per_page: '50',
        search: 'honey',
      }),
    );

    await u.click(screen.getByRole('combobox', { name: 'Theme' }));
    await u.click(await screen.findByRole('option', { name: 'philosophy' }));
    await waitFor(() =>
      expect(callsTo('GET', '/admin/index/entries').at(-1)?.query).toEqual({
        page: '1',
        per_page: '50',
        search: 'honey',
        theme: 'philosophy',
      }),
    );
  });

  it('goes to the next and previous page by their cursors, to page 1 by number', async () => {
    const { callsTo } = mockFetch({
      ...loggedIn(),
      'GET /admin/index/entries': (call) => {
        const n = call.query.cursor ? Number(call.query.cursor.slice(1)) : Number(call.query.page);
        return json({
          snippets: [{ ...snippet(n * 100), snippet_id: n * 100 }],
          total: 500,
          total_exact: true,
          page: n,
          per_page: INDEX_CONTENT_PAGE_SIZE,
          next_cursor: n < 10 ? `c${n + 1}` : null,
          prev_cursor: n > 1 ? `c${n - 1}` : null,
        });
      },
    });
    renderApp('/dashboard/index/content');
    await screen.findByText('#100');
    const u = userEvent.setup();
    const to = async (button: string, row: string) => {
      await u.click(screen.getByRole('button', { name: button }));
      expect(await screen.findByText(row)).toBeInTheDocument();
      return callsTo('GET', '/admin/index/entries').at(-1)!.query;
    };
    expect(await to('2', '#200')).toMatchObject({ page: '2', cursor: 'c2' });
    expect(await to('3', '#300')).toMatchObject({ page: '3', cursor: 'c3' });
    expect(await to('2', '#200')).toMatchObject({ page: '2', cursor: 'c2' });
    expect(await to('1', '#100')).toEqual({ page: '1', per_page: '50' });
  });

  it("says 'Failed to fetch index info' when the call fails, and shows an empty index as such", async () => {
    mockFetch({
      ...loggedIn(),
      'GET /admin/index/entries': json({ detail: 'boom' }, 500),
    });
    const first = renderApp('/dashboard/index/content');
    expect((await screen.findAllByText('Failed to fetch index info')).length).toBe(2);
    first.unmount();

    mockFetch({ ...loggedIn(), 'GET /admin/index/entries': page([], 0) });
    renderApp('/dashboard/index/content');
    expect(await screen.findByText('The index is empty')).toBeInTheDocument();
  });
});
