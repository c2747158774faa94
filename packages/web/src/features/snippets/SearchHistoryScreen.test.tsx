import { describe, expect, it } from 'vitest';
import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import type { SearchHistoryEntry, SearchHistorySummary } from '@adam/contracts';
import { json, mockFetch } from '../../test/fetchMock';
import { renderApp } from '../../test/renderApp';
import { adminUser, loggedIn } from '../../test/session';

const PATH = '/dashboard/snippets/history';
/** The first find waits for the screen's lazy module too (slow on a busy machine). */

const entry = (id: number, over: Partial<SearchHistoryEntry> = {}): SearchHistoryEntry => ({
  id,
  at: '2026-11-27T10:00:00.000Z',
  user_id: 1,
  query: `query ${id}`,
  mode: 'hybrid',
  filters: null,
  k: 10,
  result_count: 4,
  top_score: 0.8,
  best_similarity: 0.71,
  keyword_matches: 2,
  result_ids: [1, 2, 3, 4],
  latency_ms: 12.5,
  rerank: null,
  outcome: 'ok',
  ...over,
});

const stats = (query: string, count: number) => ({
  normalized: query.toLowerCase(),
  query,
  mode: 'keyword' as const,
  count,
  avg_latency_ms: 20,
  p95_latency_ms: 30,
  avg_results: 3.5,
  last_at: '2026-11-27T10:00:00.000Z',
});

const summary = (over: Partial<SearchHistorySummary> = {}): SearchHistorySummary => ({
  days: 7,
  since: '2026-11-20T10:00:00.000Z',
  searches: 42,
  empty: 3,
  weak: 2,
  top_queries: [stats('Bee pollination', 12)],
  slowest: [entry(9, { query: 'slow one', latency_ms: 480 })],
  found_nothing: [stats('quantum bees', 3)],
  weak_matches: [stats('vague thing', 2)],
  recording: { enabled: true, retention_days: 30, dropped: 0 },
  ...over,
});

const emptySummary = summary({
  searches: 0,
  empty: 0,
  weak: 0,
  top_queries: [],
  slowest: [],
  found_nothing: [],
  weak_matches: [],
});

describe('Snippets → Search history', () => {
  it('shows the summary, links a top query to the evaluation set form, and pages by cursor', async () => {
    const { callsTo } = mockFetch({
      ...loggedIn(),
      'GET /search-history/summary': json(summary()),
      'GET /search-history': (call) =>
        call.query.cursor === '2'
          ? json({ entries: [entry(1, { query: 'oldest search' })], next_cursor: null })
          : json({
              entries: [
                entry(3, { query: 'empty one', result_count: 0, outcome: 'empty' }),
                entry(2, { rerank: { model: 'tiny', top_n: 20, latency_ms: 4 } }),
              ],
              next_cursor: '2',
            }),
    });
    renderApp(PATH);
    const u = userEvent.setup();
    expect(await screen.findByText('42')).toBeInTheDocument();
    expect(screen.getByText('Bee pollination')).toBeInTheDocument();
    expect(screen.getByText('quantum bees')).toBeInTheDocument();
    expect(screen.getByText('slow one')).toBeInTheDocument();
    const add = screen.getByRole('link', { name: 'Add "Bee pollination" to evaluation set' });
    expect(add).toHaveAttribute(
      'href',
      '/dashboard/index/quality?add_query=Bee+pollination&mode=keyword',
    );

    expect(await screen.findByText('empty one')).toBeInTheDocument();
    expect(screen.getByText('nothing found')).toBeInTheDocument();
    expect(screen.getByText('rerank 4.0 ms')).toBeInTheDocument();
    await u.click(screen.getByRole('button', { name: 'Older' }));
    expect(await screen.findByText('oldest search')).toBeInTheDocument();
    expect(screen.getByRole('button', { name: 'Older' })).toBeDisabled();

    await u.type(screen.getByLabelText('Query contains'), 'bee');
    await waitFor(() =>
      expect(callsTo('GET', '/search-history').some((c) => c.query.q === 'bee')).toBe(true),
    );
    expect(callsTo('GET', '/search-history').at(-1)?.query.cursor).toBeUndefined();
  });

  it('shows the empty states and that recording is off', async () => {
    mockFetch({
      ...loggedIn(),
      'GET /search-history/summary': json(
        summary({
          ...emptySummary,
          recording: { enabled: false, retention_days: 30, dropped: 0 },
        }),
      ),
      'GET /search-history': json({ entries: [], next_cursor: null }),
    });
    renderApp(PATH);
    expect(await screen.findByText('No searches recorded')).toBeInTheDocument();
    expect(await screen.findByText('Recording is off')).toBeInTheDocument();
    expect(screen.getAllByText('No searches in this period.')).toHaveLength(2);
  });

  it('shows an error with a retry when the history cannot be read', async () => {
    mockFetch({
      ...loggedIn(),
      'GET /search-history/summary': json({ detail: 'database is locked' }, 500),
      'GET /search-history': json({ detail: 'database is locked' }, 500),
    });
    renderApp(PATH);
    expect(await screen.findByText('Could not load the summary')).toBeInTheDocument();
    expect(await screen.findByText('Could not load the search history')).toBeInTheDocument();
  });

  it('clears the history only after the confirmation', async () => {
    const { callsTo } = mockFetch({
      ...loggedIn(),
      'GET /search-history/summary': json(summary()),
      'GET /search-history': json({ entries: [entry(1)], next_cursor: null }),
      'DELETE /search-history': json({ deleted: 42 }),
    });
    renderApp(PATH);
    const u = userEvent.setup();
    await u.click(await screen.findByRole('button', { name: 'Clear history' }));
    const dialog = await screen.findByRole('dialog');
    expect(within(dialog).getByText(/cannot be undone/)).toBeInTheDocument();
    expect(callsTo('DELETE', '/search-history')).toHaveLength(0);
    await u.click(within(dialog).getByRole('button', { name: 'Clear history' }));
    await waitFor(() => expect(callsTo('DELETE', '/search-history')).toHaveLength(1));
  });

  it('offers no clear or delete to a viewer', async () => {
    mockFetch({
      ...loggedIn(),
      'GET /auth/me': json({ ...adminUser, role: 'viewer' }),
      'GET /search-history/summary': json(summary()),
      'GET /search-history': json({ entries: [entry(1)], next_cursor: null }),
    });
    renderApp(PATH);
    expect(await screen.findByText('query 1')).toBeInTheDocument();
    expect(screen.queryByRole('button', { name: 'Clear history' })).toBeNull();
    expect(screen.queryByRole('button', { name: /Delete the search/ })).toBeNull();
    expect(screen.getByRole('link', { name: 'Add "query 1" to evaluation set' })).toBeVisible();
  });
});
