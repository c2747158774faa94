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
