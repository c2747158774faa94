import { describe, expect, it } from 'vitest';
import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { json, mockFetch } from '../../test/fetchMock';
import { renderApp } from '../../test/renderApp';
import { loggedIn } from '../../test/session';
import { page, report, snippet } from './snippets.fixtures';
import { diagnosticsOf, indexStatus } from './snippetRules';

const diagnostics = Array.from({ length: 7 }, (_, i) => ({
  snippet: `Candidate segment ${i + 1}`,
  score: 0.5 + i / 100,
  status: i % 2 ? 'rejected' : 'accepted',
}));

const detailed = snippet(5, {
  section: 'Pollination › Biotic pollination',
  metadata: {
    segmentation_method: 'fallback',
    segmentation_fallback_reason: 'model unavailable',
    segmentation_diagnostic: diagnostics,
    quality_score_detailed: { coherence: 0.9, length_score: 0.4 },
    emotions: { joy: 0.6, fear: 0 },
    entities: [{ text: 'Karl von Frisch', label: 'PERSON' }],
  },
});

const indexInfo = {
  snippet_id: 5,
  faiss_id: 5,
  indexed_at: '2026-03-01T10:00:01.000Z',
  in_index: true,
  dimension: 384,
  embedder: 'builtin-v1',
  vector_norm: 1,
  vector_preview: [0.1, -0.2],
  nearest: [{ snippet_id: 9, similarity: 0.91 }],
};

async function openSnippet(routes: Parameters<typeof mockFetch>[0]) {
  const mock = mockFetch({
    ...loggedIn(),
    'GET /snippets': json(page([detailed])),
    'GET /snippets/consistency-check': json(report()),
    'GET /snippets/5': json(detailed),
    ...routes,
  });
  renderApp('/dashboard/sources/snippets');
  const user = userEvent.setup();
  await user.click(await screen.findByText(detailed.text));
  const dialog = await screen.findByRole('dialog');
  return { ...mock, user, dialog };
}

describe('Snippet details modal', () => {
  it("shows only the first 5 diagnostics, and 'Snippet not indexed' on a 404 from the index info", async () => {
    const { dialog, callsTo } = await openSnippet({
      'GET /snippets/5/index': json({ detail: 'Snippet not indexed' }, 404),
    });
    expect(await within(dialog).findAllByTestId('snippet-diagnostic')).toHaveLength(5);
    expect(within(dialog).getByText('Candidate segment 5')).toBeInTheDocument();
    expect(within(dialog).queryByText('Candidate segment 6')).toBeNull();
    expect(within(dialog).getByText('Showing the first 5 of 7 diagnostics.')).toBeInTheDocument();
    expect(await within(dialog).findByText('Snippet not indexed')).toBeInTheDocument();
    expect(screen.queryByText('Failed to fetch index info')).toBeNull();
    expect(callsTo('GET', '/snippets/5/index')).toHaveLength(1);
  });

  it('shows the quality parts, segmentation, emotions, entities, links and the index info', async () => {
    const { dialog } = await openSnippet({ 'GET /snippets/5/index': json(indexInfo) });
    expect(within(dialog).getByText('coherence')).toBeInTheDocument();
    expect(within(dialog).getByText('Pollination › Biotic pollination')).toBeInTheDocument();
    expect(within(dialog).getByText('length score')).toBeInTheDocument();
    expect(within(dialog).getByText('fallback')).toBeInTheDocument();
    expect(within(dialog).getByText('Fallback: model unavailable')).toBeInTheDocument();
    expect(within(dialog).getByText('joy')).toBeInTheDocument();
    expect(within(dialog).queryByText('fear')).toBeNull();
    expect(within(dialog).getByText('Karl von Frisch · PERSON')).toBeInTheDocument();
    expect(within(dialog).getByRole('link', { name: /Honeybees/ })).toHaveAttribute(
      'href',
      'https://fixture.test/articles/honeybees',
    );
    expect(within(dialog).getByRole('link', { name: 'Job #7' })).toHaveAttribute(
      'href',
      '/dashboard/sources/snippets?job_id=7',
    );
    expect(await within(dialog).findByText('builtin-v1')).toBeInTheDocument();
    expect(within(dialog).getByText('#9 · 0.910')).toBeInTheDocument();
  });

  it("says 'Failed to fetch index info' when the index info fails otherwise", async () => {
    const { dialog } = await openSnippet({
      'GET /snippets/5/index': json({ detail: 'boom' }, 500),
    });
    expect(await within(dialog).findByText('Failed to fetch index info')).toBeInTheDocument();
  });

  it('deletes the snippet only after confirming, then closes', async () => {
    const { dialog, user, callsTo } = await openSnippet({
      'GET /snippets/5/index': json(indexInfo),
      'DELETE /snippets/5': json({
        id: 5,
        deleted: true,
        removed_from_store: true,
        removed_from_index: true,
      }),
    });
    await user.click(within(dialog).getByRole('button', { name: 'Delete snippet' }));
    const confirm = await screen.findByText(/Delete snippet 5\?/);
    expect(callsTo('DELETE', '/snippets/5')).toHaveLength(0);
    const confirmDialog = confirm.closest('[role="dialog"]') as HTMLElement;
    await user.click(within(confirmDialog).getByRole('button', { name: 'Delete' }));
    expect(await screen.findByText('Snippet 5 deleted')).toBeInTheDocument();
    expect(callsTo('DELETE', '/snippets/5')).toHaveLength(1);
    await waitFor(() => expect(screen.queryByTestId('snippet-text')).toBeNull());
  });

  it("toasts 'Failed to delete snippet {id}: …' when the delete fails", async () => {
    const { dialog, user } = await openSnippet({
      'GET /snippets/5/index': json(indexInfo),
      'DELETE /snippets/5': json({ detail: 'Snippet 5 not found' }, 404),
    });
    await user.click(within(dialog).getByRole('button', { name: 'Delete snippet' }));
    const confirm = await screen.findByText(/Delete snippet 5\?/);
    const confirmDialog = confirm.closest('[role="dialog"]') as HTMLElement;
    await user.click(within(confirmDialog).getByRole('button', { name: 'Delete' }));
    expect(
      await screen.findByText('Failed to delete snippet 5: Snippet 5 not found'),
    ).toBeInTheDocument();
  });
});

describe('snippet rules', () => {
  it('index status: indexed with indexed_at or faiss_id, else pending, else not in index', () => {
    expect(indexStatus({ indexed_at: '2026-01-01', faiss_id: null, index_pending: true })).toBe(
      'indexed',
    );
    expect(indexStatus({ indexed_at: null, faiss_id: 0, index_pending: true })).toBe('indexed');
    expect(indexStatus({ indexed_at: null, faiss_id: null, index_pending: true })).toBe('pending');
    expect(indexStatus({ indexed_at: null, faiss_id: null, index_pending: false })).toBe('missing');
    expect(indexStatus({ indexed_at: null, faiss_id: null })).toBe('missing');
  });

  it('segmentation_diagnostic is one item or a list', () => {
    const one = { snippet: 'a', score: 0.5, status: 'accepted' };
    expect(diagnosticsOf({ segmentation_diagnostic: one })).toEqual([one]);
    expect(diagnosticsOf({ segmentation_diagnostic: [one, one] })).toHaveLength(2);
    expect(diagnosticsOf({})).toEqual([]);
  });
});
