import { describe, expect, it } from 'vitest';
import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { json, mockFetch } from '../../test/fetchMock';
import { renderApp } from '../../test/renderApp';
import { loggedIn } from '../../test/session';
import { snippet } from './snippets.fixtures';

const SEARCH = '/dashboard/snippets/search';

const answer = {
  query: 'honey',
  mode: 'hybrid',
  results: [
    {
      ...snippet(3),
      snippet_id: 3,
      similarity: 0.6412,
      score: 0.8123,
      found_by: ['keyword', 'vector'],
      vector_score: 0.6412,
      keyword_score: 7.25,
      rerank_score: null,
    },
    {
      ...snippet(4, { quality_score: 0.3, theme: 'general' }),
      snippet_id: 4,
      similarity: 0.5,
      score: 0.3,
      found_by: ['vector'],
      vector_score: 0.5,
      keyword_score: null,
      rerank_score: null,
    },
  ],
  total: 2,
  latency_ms: 12.34,
  rerank: null,
};

describe('Snippets search', () => {
  it('asks for rerank in hybrid mode only, and shows its line and scores', async () => {
    const reranked = {
      ...answer,
      results: [
        { ...answer.results[1], rerank_score: 2.5 },
        { ...answer.results[0], rerank_score: -0.125 },
      ],
      rerank: { model: 'tiny-reranker', top_n: 20, latency_ms: 3.21 },
    };
    const { callsTo } = mockFetch({ ...loggedIn(), 'POST /snippets/search': json(reranked) });
    renderApp(SEARCH);
    const user = userEvent.setup();
    await user.type(await screen.findByLabelText('Query'), 'honey');
    await user.click(screen.getByRole('switch', { name: /Rerank/ }));
    await user.click(screen.getByRole('button', { name: 'Search' }));
    const results = await screen.findAllByTestId('search-result');
    expect(callsTo('POST', '/snippets/search')[0]?.body).toEqual({
      query: 'honey',
      k: 5,
      mode: 'hybrid',
      rerank: true,
    });
    expect(screen.getByTestId('rerank-line')).toHaveTextContent(
      'Reranked the top 20 with tiny-reranker in 3.21 ms',
    );
    expect(within(results[0]!).getByTestId('rerank-score')).toHaveTextContent('rerank 2.500');
    expect(within(results[1]!).getByTestId('rerank-score')).toHaveTextContent('rerank -0.125');
    // Not offered outside hybrid, and never sent there.
    await user.click(screen.getByRole('radio', { name: /Keyword/ }));
    expect(screen.queryByRole('switch', { name: /Rerank/ })).toBeNull();
    await user.click(screen.getByRole('button', { name: 'Search' }));
    await waitFor(() => expect(callsTo('POST', '/snippets/search')).toHaveLength(2));
    expect(callsTo('POST', '/snippets/search')[1]?.body).toEqual({
      query: 'honey',
      k: 5,
      mode: 'keyword',
    });
  });

  it('keeps the search button disabled while the query is blank', async () => {
    mockFetch({ ...loggedIn() });
    renderApp(SEARCH);
    const user = userEvent.setup();
    const button = await screen.findByRole('button', { name: 'Search' });
    expect(button).toBeDisabled();
    expect(screen.getByText('Searches need a non-empty query')).toBeInTheDocument();
    await user.type(screen.getByLabelText('Query'), '   ');
    expect(button).toBeDisabled();
    await user.type(screen.getByLabelText('Query'), 'bees');
    expect(button).toBeEnabled();
    expect(screen.queryByText('Searches need a non-empty query')).toBeNull();
  });

  it('sends the query with k 5 by default and the filters set, and shows the results', async () => {
    const { callsTo } = mockFetch({ ...loggedIn(), 'POST /snippets/search': json(answer) });
    renderApp(SEARCH);
    const user = userEvent.setup();
    await user.type(await screen.findByLabelText('Query'), '  honey ');
    await user.click(screen.getByRole('button', { name: 'Search' }));
    const results = await screen.findAllByTestId('search-result');
    expect(results).toHaveLength(2);
    expect(callsTo('POST', '/snippets/search')[0]?.body).toEqual({
      query: 'honey',
      k: 5,
      mode: 'hybrid',
    });
    expect(within(results[0]!).getByTestId('found-by')).toHaveTextContent(
      'keywordvectorv 0.641 · k 7.25',
    );
    expect(within(results[1]!).getByTestId('found-by')).toHaveTextContent('vectorv 0.500 · k –');
    expect(screen.getByText(/2 result\(s\) for “honey” · Hybrid/)).toBeInTheDocument();
    // Both figures: the fused score results are ranked by, and the cosine.
    expect(within(results[0]!).getByTestId('score')).toHaveTextContent('0.8123');
    expect(within(results[0]!).getByTestId('similarity')).toHaveTextContent('cos 0.6412');
    expect(within(results[1]!).getByTestId('score')).toHaveTextContent('0.3000');
    expect(within(results[0]!).getByText('0.82')).toBeInTheDocument();
    expect(within(results[1]!).getByText('general')).toBeInTheDocument();
    expect(screen.getByTestId('search-latency')).toHaveTextContent('12.34 ms');

    const k = screen.getByLabelText('Results (k)');
    await user.clear(k);
    await user.type(k, '20');
    await user.click(screen.getByLabelText('Theme', { selector: 'input' }));
    await user.click(await screen.findByRole('option', { name: 'science' }));
    await user.type(screen.getByLabelText('Min quality'), '0.5');
    await user.click(screen.getByRole('radio', { name: 'Keyword' }));
    await user.click(screen.getByRole('button', { name: 'Search' }));
    await waitFor(() => expect(callsTo('POST', '/snippets/search')).toHaveLength(2));
    expect(callsTo('POST', '/snippets/search')[1]?.body).toEqual({
      query: 'honey',
      k: 20,
      mode: 'keyword',
      filters: { theme: 'science', min_quality: 0.5 },
    });
  });

  it("toasts 'Search failed' when the search fails", async () => {
    mockFetch({
      ...loggedIn(),
      'POST /snippets/search': json({ detail: 'query: must not be empty' }, 422),
    });
    renderApp(SEARCH);
    const user = userEvent.setup();
    await user.type(await screen.findByLabelText('Query'), 'x');
    await user.click(screen.getByRole('button', { name: 'Search' }));
    expect(await screen.findAllByText('Search failed')).not.toHaveLength(0);
    expect(screen.getByText('query: must not be empty')).toBeInTheDocument();
  });

  it('opens the snippet details modal from a result', async () => {
    mockFetch({
      ...loggedIn(),
      'POST /snippets/search': json(answer),
      'GET /snippets/3': json(snippet(3)),
      'GET /snippets/3/index': json({ detail: 'Snippet not indexed' }, 404),
    });
    renderApp(SEARCH);
    const user = userEvent.setup();
    await user.type(await screen.findByLabelText('Query'), 'honey');
    await user.click(screen.getByRole('button', { name: 'Search' }));
    await user.click(await screen.findByRole('button', { name: 'Open snippet 3' }));
    const dialog = await screen.findByRole('dialog');
    expect(within(dialog).getByText('Snippet #3')).toBeInTheDocument();
    expect(await within(dialog).findByText('Snippet not indexed')).toBeInTheDocument();
  });
});
