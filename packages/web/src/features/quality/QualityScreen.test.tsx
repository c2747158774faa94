import { describe, expect, it } from 'vitest';
import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import type {
  BeirImportSummary,
  EvaluationQuery,
  EvaluationSet,
  EvaluationSetVersion,
} from '@adam/contracts';
import { json, mockFetch } from '../../test/fetchMock';
import { renderApp } from '../../test/renderApp';
import { loggedIn } from '../../test/session';
import { snippet } from '../snippets/snippets.fixtures';

const QUALITY = '/dashboard/index/quality';
/** The screen's first appearance: its lazy chunk loads cold in the file's first test. */
const COLD = { timeout: 60_000 };

function evalSet(id: number, over: Partial<EvaluationSet> = {}): EvaluationSet {
  return {
    id,
    name: `Set ${id}`,
    description: '',
    latest: {
      id: id * 10,
      number: 2,
      change: 'query added',
      query_count: 2,
      created_at: '2026-11-27T10:00:00.000Z',
    },
    created_at: '2026-11-20T10:00:00.000Z',
    updated_at: '2026-11-27T10:00:00.000Z',
    watched: false,
    ...over,
  };
}

const QUERIES: EvaluationQuery[] = [
  {
    id: 1,
    key: 11,
    text: 'how do bees communicate',
    filters: null,
    judgments: [
      { kind: 'snippet', ref: '3', grade: 3 },
      { kind: 'source_title', ref: 'Honeybees', grade: 1 },
    ],
  },
  { id: 2, key: 12, text: 'volcano lava', filters: null, judgments: [] },
];

function version(set: EvaluationSet, queries = QUERIES): EvaluationSetVersion {
  return { set, version: set.latest, queries };
}

const result = (id: number, source: { title: string | null; url: string | null }) => ({
  ...snippet(id, { source_info: source }),
  snippet_id: id,
  similarity: 0.5,
  score: 0.7,
  found_by: ['keyword' as const],
  vector_score: 0.5,
  keyword_score: 3,
  rerank_score: null,
});

const searchAnswer = (mode = 'hybrid') => ({
  query: 'bees dance',
  mode,
  results: [
    result(3, { title: 'Honeybees', url: 'https://fixture.test/bees' }),
    result(4, { title: 'Waggle dance', url: 'https://fixture.test/waggle' }),
  ],
  total: 2,
  latency_ms: 4,
});

// Whole-app renders with modals: slow on a shared 2-core machine; every wait is on a condition.
describe('Quality screen (evaluation sets)', { timeout: 120_000 }, () => {
  it('explains what a set is when there is none, and offers create and import', async () => {
    mockFetch({ ...loggedIn(), 'GET /evaluation/sets': json({ sets: [] }) });
    renderApp(QUALITY);
    expect(await screen.findByText('No evaluation sets yet', {}, COLD)).toBeInTheDocument();
    expect(screen.getByText(/A run scores the search against it/)).toBeInTheDocument();
    expect(screen.getByRole('button', { name: 'Create a set' })).toBeInTheDocument();
    expect(screen.getByRole('button', { name: 'Import BEIR files' })).toBeInTheDocument();
  });

  it('lists the sets and shows the first one’s queries with graded judgments', async () => {
    const one = evalSet(1, { name: 'Support questions', description: 'what users ask' });
    mockFetch({
      ...loggedIn(),
      'GET /evaluation/sets': json({ sets: [one, evalSet(2, { name: 'BEIR import' })] }),
      'GET /evaluation/sets/1': json(version(one)),
    });
    renderApp(QUALITY);
    const rows = await screen.findAllByTestId('set-row', {}, COLD);
    expect(rows).toHaveLength(2);
    expect(rows[0]).toHaveTextContent('Support questions');
    expect(rows[0]).toHaveTextContent('2 queries · v2');
    expect(rows[0]).toHaveAttribute('aria-current', 'true');
    expect(await screen.findByTestId('set-title')).toHaveTextContent('Support questions');
    const queries = await screen.findAllByTestId('query-row');
    expect(queries).toHaveLength(2);
    const badges = within(queries[0]!).getAllByTestId('judgment');
    expect(badges.map((b) => b.textContent)).toEqual(['Snippet 3 · 3', 'Source “Honeybees” · 1']);
    expect(within(queries[1]!).getByText('No judgment')).toBeInTheDocument();
  });

  it('watches a set through its switch: PATCH {watched}', async () => {
    const one = evalSet(1);
    const { callsTo } = mockFetch({
      ...loggedIn(),
      'GET /evaluation/sets': json({ sets: [one] }),
      'GET /evaluation/sets/1': json(version(one)),
      'PATCH /evaluation/sets/1': json({ ...one, watched: true }),
    });
    renderApp(QUALITY);
    const user = userEvent.setup();
    const watch = await screen.findByLabelText('Watch Set 1', {}, COLD);
    expect(watch).not.toBeChecked();
    await user.click(watch);
    await waitFor(() => expect(callsTo('PATCH', '/evaluation/sets/1')).toHaveLength(1));
    expect(callsTo('PATCH', '/evaluation/sets/1')[0]!.body).toEqual({ watched: true });
  });

  it('shows the server’s detail when the sets cannot be loaded, and retries', async () => {
    let fail = true;
    const { callsTo } = mockFetch({
      ...loggedIn(),
      'GET /evaluation/sets': () =>
        fail ? json({ detail: 'Database is locked' }, 500) : json({ sets: [] }),
    });
    renderApp(QUALITY);
    expect(
      await screen.findByText('Could not load the evaluation sets', {}, COLD),
    ).toBeInTheDocument();
    expect(screen.getByText('Database is locked')).toBeInTheDocument();
    fail = false;
    await userEvent.setup().click(screen.getByRole('button', { name: 'Retry' }));
    expect(await screen.findByText('No evaluation sets yet')).toBeInTheDocument();
    expect(callsTo('GET', '/evaluation/sets').length).toBeGreaterThanOrEqual(2);
  });

  it('creates a set with its name and description, then selects it', async () => {
    const created = evalSet(5, {
      name: 'Product FAQ',
      description: 'questions from the help desk',
      latest: { ...evalSet(5).latest, number: 1, query_count: 0, change: 'created' },
    });
    let sets: EvaluationSet[] = [];
    const { callsTo, calls } = mockFetch({
      ...loggedIn(),
      'GET /evaluation/sets': () => json({ sets }),
      'POST /evaluation/sets': () => {
        sets = [created];
        return json(created, 201);
      },
      'GET /evaluation/sets/5': json(version(created, [])),
    });
    const app = renderApp(QUALITY);
    const user = userEvent.setup();
    await user.click(await screen.findByRole('button', { name: 'Create a set' }, COLD));
    const dialog = await screen.findByRole('dialog', { name: 'New evaluation set' });
    await user.type(within(dialog).getByLabelText(/Name/), '  Product FAQ ');
    await user.type(within(dialog).getByLabelText(/Description/), 'questions from the help desk');
    await user.click(within(dialog).getByRole('button', { name: 'Create set' }));
    await waitFor(() => expect(callsTo('POST', '/evaluation/sets')).toHaveLength(1));
    expect(callsTo('POST', '/evaluation/sets')[0]!.body).toEqual({
      name: 'Product FAQ',
      description: 'questions from the help desk',
    });
    expect(await screen.findByTestId('set-title')).toHaveTextContent('Product FAQ');
    await waitFor(() => expect(app.location()).toContain('set=5'));
    expect(await screen.findByText('No queries in this set')).toBeInTheDocument();
    expect(calls.some((c) => c.method === 'GET' && c.path === '/evaluation/sets/5')).toBe(true);
  });

  it('adds a query by searching and grading results: the POST carries the judgments', async () => {
    const one = evalSet(1);
    const after = version({ ...one, latest: { ...one.latest, number: 3, query_count: 3 } }, [
      ...QUERIES,
      { id: 9, key: 19, text: 'bees dance', filters: null, judgments: [] },
    ]);
    const { callsTo } = mockFetch({
      ...loggedIn(),
      'GET /evaluation/sets': json({ sets: [one] }),
      'GET /evaluation/sets/1': json(version(one)),
      'POST /snippets/search': (call) => json(searchAnswer((call.body as { mode: string }).mode)),
      'POST /evaluation/sets/1/queries': json(after, 201),
    });
    renderApp(QUALITY);
    const user = userEvent.setup();
    await user.click(await screen.findByRole('button', { name: 'Add a query' }, COLD));
    const dialog = await screen.findByRole('dialog', { name: 'Add a query' });
    const save = within(dialog).getByRole('button', { name: 'Add query' });
    expect(save).toBeDisabled();
    await user.type(within(dialog).getByLabelText('Query'), 'bees dance');
    await user.click(within(dialog).getByRole('button', { name: 'Search' }));
    const results = await within(dialog).findAllByTestId('judging-result');
    expect(callsTo('POST', '/snippets/search')[0]!.body).toEqual({
      query: 'bees dance',
      k: 20,
      mode: 'hybrid',
    });
    // Nothing graded yet: no save.
    expect(save).toBeDisabled();
    await user.click(within(results[0]!).getByLabelText('3'));
    // The second result judges its whole source: the grade carries over to the source.
    await user.click(within(results[1]!).getByLabelText('2'));
    await user.click(within(results[1]!).getByLabelText('Judge the whole source of snippet 4'));
    expect(within(dialog).getByText(/2 judgment\(s\)/)).toBeInTheDocument();
    await user.click(save);
    await waitFor(() => expect(callsTo('POST', '/evaluation/sets/1/queries')).toHaveLength(1));
    expect(callsTo('POST', '/evaluation/sets/1/queries')[0]!.body).toEqual({
      text: 'bees dance',
      judgments: [
        { snippet_id: 3, grade: 3 },
        { source_url: 'https://fixture.test/waggle', grade: 2 },
      ],
    });
    await waitFor(() => expect(screen.queryByRole('dialog', { name: 'Add a query' })).toBeNull());
    expect(await screen.findByText('Saved as version 3 of the set')).toBeInTheDocument();
  });

  it('opens the add flow from a search-history link, searched in its mode, and shows a refusal', async () => {
    const one = evalSet(1);
    const { callsTo } = mockFetch({
      ...loggedIn(),
      'GET /evaluation/sets': json({ sets: [one] }),
      'GET /evaluation/sets/1': json(version(one)),
      'POST /snippets/search': (call) => json(searchAnswer((call.body as { mode: string }).mode)),
      'POST /evaluation/sets/1/queries': json(
        { detail: 'Set 1 holds 5000 queries, the most a set may hold' },
        422,
      ),
    });
    const app = renderApp(`${QUALITY}?add_query=bees%20dance&mode=keyword`);
    const dialog = await screen.findByRole('dialog', { name: 'Add a query' }, COLD);
    expect(within(dialog).getByLabelText('Query')).toHaveValue('bees dance');
    await waitFor(() => expect(callsTo('POST', '/snippets/search')).toHaveLength(1));
    expect(callsTo('POST', '/snippets/search')[0]!.body).toEqual({
      query: 'bees dance',
      k: 20,
      mode: 'keyword',
    });
    const user = userEvent.setup();
    const results = await within(dialog).findAllByTestId('judging-result');
    await user.click(within(results[0]!).getByLabelText('1'));
    await user.click(within(dialog).getByRole('button', { name: 'Add query' }));
    expect(
      await within(dialog).findByText('Set 1 holds 5000 queries, the most a set may hold'),
    ).toBeInTheDocument();
    // Cancelling drops the link's parameters: the flow does not reopen.
    await user.click(within(dialog).getByRole('button', { name: 'Cancel' }));
    await waitFor(() => expect(app.location()).not.toContain('add_query'));
  });

  it('edits a query’s judgments: a grade changed and one removed', async () => {
    const one = evalSet(1);
    const { callsTo } = mockFetch({
      ...loggedIn(),
      'GET /evaluation/sets': json({ sets: [one] }),
      'GET /evaluation/sets/1': json(version(one)),
      'POST /snippets/search': json(searchAnswer()),
      'PUT /evaluation/sets/1/queries/11/judgments': json(version(one)),
    });
    renderApp(QUALITY);
    const user = userEvent.setup();
    await user.click(
      await screen.findByRole(
        'button',
        { name: 'Edit judgments of “how do bees communicate”' },
        COLD,
      ),
    );
    const dialog = await screen.findByRole('dialog', { name: 'Edit judgments' });
    const judgments = within(dialog).getByLabelText('Judgments');
    await user.click(
      within(within(judgments).getByLabelText('Grade of Snippet 3')).getByLabelText('2'),
    );
    await user.click(
      within(within(judgments).getByLabelText('Grade of Source “Honeybees”')).getByLabelText('–'),
    );
    await user.click(within(dialog).getByRole('button', { name: 'Save judgments' }));
    await waitFor(() =>
      expect(callsTo('PUT', '/evaluation/sets/1/queries/11/judgments')).toHaveLength(1),
    );
    expect(callsTo('PUT', '/evaluation/sets/1/queries/11/judgments')[0]!.body).toEqual({
      judgments: [{ snippet_id: 3, grade: 2 }],
    });
  });

  it('imports BEIR files under their layout names and shows the summary with the corpus job', async () => {
    const imported = evalSet(7, { name: 'Generated BEIR' });
    const summary: BeirImportSummary = {
      set: imported,
      queries: 3,
      judgments: 4,
      queries_without_judgments: 1,
      mapped: { snippet: 0, source: 0, source_url: 1, source_title: 2 },
      unmapped: { count: 1, ids: ['doc-missing'] },
      corpus: { job_id: 42, records: 4 },
    };
    const { callsTo } = mockFetch({
      ...loggedIn(),
      'GET /evaluation/sets': json({ sets: [] }),
      'POST /evaluation/sets/import': json(summary, 201),
      'GET /evaluation/sets/7': json(version(imported, [])),
    });
    renderApp(QUALITY);
    const user = userEvent.setup();
    await user.click(await screen.findByRole('button', { name: 'Import BEIR files' }, COLD));
    const dialog = await screen.findByRole('dialog', { name: 'Import a BEIR set' });
    await user.type(within(dialog).getByLabelText(/Set name/), 'Generated BEIR');
    const inputs = dialog.querySelectorAll<HTMLInputElement>('input[type="file"]');
    expect(inputs).toHaveLength(3);
    await user.upload(inputs[0]!, new File(['{"_id":"q1","text":"lava"}\n'], 'my-queries.jsonl'));
    await user.upload(inputs[1]!, [
      new File(['query-id\tcorpus-id\tscore\n'], 'test.tsv'),
      new File(['query-id\tcorpus-id\tscore\n'], 'dev.tsv'),
    ]);
    await user.upload(inputs[2]!, new File(['{"_id":"d1","text":"x"}\n'], 'docs.jsonl'));
    await user.click(within(dialog).getByRole('button', { name: 'Import' }));
    await waitFor(() => expect(callsTo('POST', '/evaluation/sets/import')).toHaveLength(1));
    const form = callsTo('POST', '/evaluation/sets/import')[0]!.rawBody as FormData;
    expect(form.get('name')).toBe('Generated BEIR');
    expect(form.get('import_corpus')).toBe('true');
    expect(form.getAll('file').map((f) => (f as File).name)).toEqual([
      'queries.jsonl',
      'qrels/test.tsv',
      'qrels/dev.tsv',
      'corpus.jsonl',
    ]);
    const shown = await within(dialog).findByLabelText('Import summary');
    expect(shown).toHaveTextContent('Set “Generated BEIR” created');
    expect(shown).toHaveTextContent('1 unmapped id(s)');
    expect(within(shown).getByTestId('unmapped-ids')).toHaveTextContent('doc-missing');
    expect(within(shown).getByRole('link', { name: 'job #42' })).toHaveAttribute(
      'href',
      '/dashboard/sources/queue?job=42',
    );
  });

  it('shows the line the server refused a BEIR upload for', async () => {
    mockFetch({
      ...loggedIn(),
      'GET /evaluation/sets': json({ sets: [] }),
      'POST /evaluation/sets/import': json(
        { detail: 'queries.jsonl line 2: text: expected string' },
        422,
      ),
    });
    renderApp(QUALITY);
    const user = userEvent.setup();
    await user.click(await screen.findByRole('button', { name: 'Import BEIR files' }, COLD));
    const dialog = await screen.findByRole('dialog', { name: 'Import a BEIR set' });
    const importButton = within(dialog).getByRole('button', { name: 'Import' });
    expect(importButton).toBeDisabled();
    await user.type(within(dialog).getByLabelText(/Set name/), 'x');
    const inputs = dialog.querySelectorAll<HTMLInputElement>('input[type="file"]');
    await user.upload(inputs[0]!, new File(['{}'], 'queries.jsonl'));
    await user.upload(inputs[1]!, new File(['query-id\tcorpus-id\tscore\n'], 'test.tsv'));
    await user.click(importButton);
    expect(
      await within(dialog).findByText('queries.jsonl line 2: text: expected string'),
    ).toBeInTheDocument();
  });

  it('shows an older version read-only from the history', async () => {
    const one = evalSet(1);
    const v1 = {
      set: one,
      version: { ...one.latest, id: 9, number: 1, change: 'created', query_count: 1 },
      queries: [QUERIES[1]!],
    };
    mockFetch({
      ...loggedIn(),
      'GET /evaluation/sets': json({ sets: [one] }),
      'GET /evaluation/sets/1': json(version(one)),
      'GET /evaluation/sets/1/versions': json({ versions: [one.latest, v1.version] }),
      'GET /evaluation/sets/1/versions/1': json(v1),
    });
    renderApp(QUALITY);
    const user = userEvent.setup();
    await user.click(await screen.findByRole('tab', { name: 'Versions (2)' }, COLD));
    await user.click(await screen.findByRole('button', { name: 'View version 1' }));
    expect(await screen.findByText('Version 1 of 2')).toBeInTheDocument();
    const rows = await screen.findAllByTestId('query-row');
    expect(rows).toHaveLength(1);
    expect(rows[0]).toHaveTextContent('volcano lava');
    expect(screen.queryByRole('button', { name: /Edit judgments/ })).toBeNull();
    expect(screen.queryByRole('button', { name: 'Add a query' })).toBeNull();
    await user.click(screen.getByRole('button', { name: 'Back to the latest' }));
    expect(await screen.findAllByTestId('query-row')).toHaveLength(2);
  });
});
