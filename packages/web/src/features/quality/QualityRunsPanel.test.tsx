import { describe, expect, it } from 'vitest';
import { render, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { MemoryRouter } from 'react-router';
import type {
  EvaluationRun,
  ModeSummary,
  QueryComparison,
  QueryResult,
  RunComparison,
} from '@adam/contracts';
import { AppProviders } from '../../app/AppProviders';
import { createQueryClient } from '../../lib/queryClient';
import { applyRealtimeMessage } from '../../app/realtimeTable';
import { json, mockFetch, type Route } from '../../test/fetchMock';
import { loggedIn } from '../../test/session';
import { qualityKeys } from './quality.api';
import { QualityRunsPanel } from './QualityRunsPanel';
import { chartPoints, stateChanges } from './runRules';

const STATE = {
  embedder: 'builtin-v1',
  index: { type: 'hnsw', storage: 'memory', dimension: 384 },
  fusion: { vector_weight: 0.4 },
  snippet_count: 1200,
  reranker: null,
};

const summary = (mode: EvaluationRun['modes'][number], ndcg: number): ModeSummary => ({
  mode,
  queries: 3,
  ndcg_10: ndcg,
  recall_10: 0.8,
  recall_100: 1,
  mrr: 0.9,
  latency_p50_ms: 4.2,
  latency_p95_ms: 12,
});

function run(id: number, over: Partial<EvaluationRun> = {}): EvaluationRun {
  return {
    id,
    set_id: 1,
    set_name: 'Support questions',
    version: 1,
    modes: ['keyword', 'vector'],
    status: 'completed',
    trigger: 'manual',
    job_id: 100 + id,
    state: STATE,
    summary: [summary('keyword', 0.61), summary('vector', 0.52)],
    error: null,
    created_at: '2026-11-20T10:00:00.000Z',
    started_at: '2026-11-20T10:00:01.000Z',
    ended_at: '2026-11-20T10:00:09.000Z',
    ...over,
  };
}

const metrics = (ndcg: number) => ({ ndcg_10: ndcg, recall_10: 1, recall_100: 1, mrr: 1 });

function compared(key: number, text: string, base: number, head: number): QueryComparison {
  const delta = head - base;
  return {
    key,
    text,
    mode: 'keyword',
    base: metrics(base),
    head: metrics(head),
    delta: { ndcg_10: delta, recall_10: 0, recall_100: 0, mrr: 0 },
    outcome: delta > 0.001 ? 'gained' : delta < -0.001 ? 'lost' : 'unchanged',
    entered: delta === 0 ? [] : [41],
    left: delta === 0 ? [] : [42],
    moved: delta === 0 ? [] : [{ id: 43, from: 5, to: 2 }],
  };
}

function renderPanel(routes: Record<string, Route | Response>, path = '/') {
  const mock = mockFetch({
    ...loggedIn(),
    'GET /evaluation/sets/1/versions': json({
      versions: [
        { id: 12, number: 2, change: 'query added', query_count: 3, created_at: 'now' },
        { id: 11, number: 1, change: 'created', query_count: 2, created_at: 'now' },
      ],
    }),
    ...routes,
  });
  render(
    <MemoryRouter initialEntries={[path]}>
      <AppProviders queryClient={createQueryClient()} env="test">
        <QualityRunsPanel setId={1} />
      </AppProviders>
    </MemoryRouter>,
  );
  return { ...mock, user: userEvent.setup() };
}

describe('QualityRunsPanel', () => {
  it('says what a run does when the set has none, and starts one with the chosen modes and version', async () => {
    const runs: EvaluationRun[] = [];
    const { user, callsTo } = renderPanel({
      'GET /evaluation/runs': () => json({ runs }),
      'POST /evaluation/runs': (call) => {
        const started = run(7, {
          status: 'pending',
          job_id: 70,
          state: null,
          summary: [],
          ...(call.body as object),
        });
        runs.unshift(started);
        return json(started, 202);
      },
      'GET /sources/jobs/70': json({ id: 70, status: 'pending', progress: 0, stage: null }),
    });
    expect(await screen.findByText('No runs yet')).toBeInTheDocument();
    expect(screen.getByText(/searches every query of this set in each mode/)).toBeInTheDocument();

    const form = screen.getByLabelText('Start a run');
    // The contract's default modes are checked; the rerank mode comes from the contract too.
    expect(within(form).getByRole('checkbox', { name: 'keyword' })).toBeChecked();
    expect(within(form).getByRole('checkbox', { name: 'hybrid + rerank' })).not.toBeChecked();
    await user.click(within(form).getByRole('checkbox', { name: 'vector' }));
    await user.click(within(form).getByRole('checkbox', { name: 'hybrid + rerank' }));
    await user.click(within(form).getByRole('combobox', { name: 'Version' }));
    await user.click(await screen.findByRole('option', { name: /^v1 · 2 queries/ }));
    await user.click(within(form).getByRole('button', { name: 'Start run' }));

    await waitFor(() => expect(callsTo('POST', '/evaluation/runs')).toHaveLength(1));
    expect(callsTo('POST', '/evaluation/runs')[0]!.body).toEqual({
      set_id: 1,
      version: 1,
      modes: ['keyword', 'hybrid', 'hybrid_rerank'],
    });
    // The run shows at once, pending, with its job followed.
    const row = await screen.findByTestId('run-row');
    expect(row).toHaveTextContent('#7');
    expect(row).toHaveTextContent('pending');
    expect(within(row).getByRole('button', { name: 'Job #70' })).toBeInTheDocument();
  });

  it('refuses to start without a mode (the contract says so) and shows a refused start', async () => {
    const { user, callsTo } = renderPanel({
      'GET /evaluation/runs': json({ runs: [] }),
      'POST /evaluation/runs': json({ detail: 'Set 1 has no queries to run' }, 422),
    });
    const form = await screen.findByLabelText('Start a run');
    for (const mode of ['keyword', 'vector', 'hybrid'])
      await user.click(within(form).getByRole('checkbox', { name: mode }));
    expect(within(form).getByRole('button', { name: 'Start run' })).toBeDisabled();
    expect(within(form).getByText('Pick at least one mode.')).toBeInTheDocument();

    await user.click(within(form).getByRole('checkbox', { name: 'keyword' }));
    await user.click(within(form).getByRole('button', { name: 'Start run' }));
    expect(await within(form).findByRole('alert')).toHaveTextContent(
      'Could not start the run: Set 1 has no queries to run',
    );
    expect(callsTo('POST', '/evaluation/runs')[0]!.body).toEqual({
      set_id: 1,
      modes: ['keyword'],
    });
  });

  it('lists the runs with their figures per mode, trigger and state, and opens a run by ?run=', async () => {
    const results: QueryResult[] = [
      { key: 1, text: 'good query', mode: 'keyword', ...metrics(0.9), ranked: [1], latency_ms: 3 },
      { key: 2, text: 'bad query', mode: 'keyword', ...metrics(0.1), ranked: [2], latency_ms: 5 },
      { key: 3, text: 'mid query', mode: 'keyword', ...metrics(0.5), ranked: [3], latency_ms: 4 },
    ];
    const { user } = renderPanel(
      {
        'GET /evaluation/runs': json({
          runs: [
            run(3, { trigger: 'model_switch', state: { ...STATE, embedder: 'e5-small' } }),
            run(2),
            run(1, { status: 'failed', summary: [], error: 'Its job 99 was deleted' }),
          ],
        }),
        'GET /evaluation/runs/3': json(run(3)),
        'GET /evaluation/runs/3/results': json({ results }),
        'GET /evaluation/runs/compare': json({
          base: run(2),
          head: run(3),
          summary: [],
          queries: [],
        } satisfies RunComparison),
      },
      '/?run=3',
    );
    const rows = await screen.findAllByTestId('run-row');
    expect(rows).toHaveLength(3);
    expect(rows[0]).toHaveTextContent('model_switch');
    expect(rows[0]).toHaveTextContent('e5-small · hnsw, memory storage, 384d · vector weight 0.4');
    expect(within(rows[0]!).getAllByText('0.610').length).toBeGreaterThan(0);
    expect(rows[0]).toHaveTextContent('4.2 ms / 12 ms');
    expect(rows[2]).toHaveTextContent('Its job 99 was deleted');
    // The embedder change between #2 and #3 is named under the chart.
    expect(screen.getByLabelText('State changes between runs')).toHaveTextContent(
      'embedder builtin-v1 → e5-small',
    );

    // ?run=3 opened the run's detail: worst query first, then sorted the other way.
    const drawer = await screen.findByRole('dialog');
    await waitFor(() => expect(within(drawer).getAllByTestId('run-result')).toHaveLength(3));
    const texts = () =>
      within(drawer)
        .getAllByTestId('run-result')
        .map((r) => r.textContent);
    expect(texts()[0]).toMatch(/^bad query/);
    await user.click(within(drawer).getByRole('button', { name: /Sort by nDCG@10 descending/ }));
    expect(texts()[0]).toMatch(/^good query/);
  });

  it('compares the last two runs: the lost filter shows only the lost query and its moved results', async () => {
    const queries = [
      compared(1, 'volcano lava', 0.5, 0.9),
      compared(2, 'chess opening', 1, 0.2),
      compared(3, 'sourdough', 0.7, 0.7),
    ];
    const { user, callsTo } = renderPanel({
      'GET /evaluation/runs': json({ runs: [run(3), run(2), run(1)] }),
      'GET /evaluation/runs/compare': (call) =>
        json({
          base: run(Number(call.query.base)),
          head: run(Number(call.query.head)),
          summary: [
            {
              mode: 'keyword',
              gained: 1,
              lost: 1,
              unchanged: 1,
              delta: { ndcg_10: -0.1, recall_10: 0, recall_100: 0, mrr: 0.05 },
            },
          ],
          queries,
        } satisfies RunComparison),
      'GET /snippets/41': json({ id: 41, text: 'Magma rises through the crust' }),
      'GET /snippets/42': json({ detail: 'Snippet 42 not found' }, 404),
      'GET /snippets/43': json({ id: 43, text: 'The Sicilian defence' }),
    });
    const panel = await screen.findByLabelText('Compare runs');
    await waitFor(() => expect(within(panel).getAllByTestId('compared-query')).toHaveLength(3));
    expect(callsTo('GET', '/evaluation/runs/compare')[0]!.query).toEqual({ base: '2', head: '3' });
    expect(within(panel).getByLabelText('Deltas per mode')).toHaveTextContent('−0.100');

    await user.click(within(panel).getByText('lost (1)'));
    const lost = within(panel).getAllByTestId('compared-query');
    expect(lost).toHaveLength(1);
    expect(lost[0]).toHaveTextContent('chess opening');
    expect(lost[0]).toHaveTextContent('1.000 → 0.200');

    await user.click(lost[0]!);
    const moves = await within(panel).findByLabelText('Top 10 changes of chess opening');
    expect(await within(moves).findByText('Magma rises through the crust')).toBeInTheDocument();
    expect(await within(moves).findByText('The Sicilian defence')).toBeInTheDocument();
    expect(within(moves).getByText('5 → 2')).toBeInTheDocument();

    await user.click(within(panel).getByText('gained (1)'));
    expect(within(panel).getAllByTestId('compared-query')[0]).toHaveTextContent('volcano lava');
  });

  it('shows the error and a retry when the runs cannot be loaded', async () => {
    let fail = true;
    const { user } = renderPanel({
      'GET /evaluation/runs': () =>
        fail ? json({ detail: 'database is locked' }, 500) : json({ runs: [run(1)] }),
    });
    const title = await screen.findByText('Could not load the runs');
    expect(title.closest('[role="alert"]')).toHaveTextContent('database is locked');
    fail = false;
    await user.click(screen.getByRole('button', { name: /retry/i }));
    expect(await screen.findByTestId('run-row')).toHaveTextContent('#1');
  });
});

describe('run rules', () => {
  it('refreshes the run lists when an evaluation_run job is queued (not another job) and when a job ends', () => {
    const queryClient = createQueryClient();
    const invalidated = () => queryClient.getQueryState(qualityKeys.runList(1))?.isInvalidated;
    const created = (job_type: string) => ({
      type: 'job_created' as const,
      job_id: 5,
      job_type,
      status: 'pending',
      priority: 'normal',
      timestamp: 'now',
    });
    queryClient.setQueryData(qualityKeys.runList(1), []);
    applyRealtimeMessage(queryClient, created('process_urls'));
    expect(invalidated()).toBe(false);
    applyRealtimeMessage(queryClient, created('evaluation_run'));
    expect(invalidated()).toBe(true);

    queryClient.setQueryData(qualityKeys.runList(1), []);
    queryClient.setQueryData(qualityKeys.run(3), run(3));
    applyRealtimeMessage(queryClient, {
      type: 'job_completed',
      job_id: 5,
      segments_created: 0,
      timestamp: 'now',
    });
    expect(invalidated()).toBe(true);
    expect(queryClient.getQueryState(qualityKeys.run(3))?.isInvalidated).toBe(true);
  });

  it('plots completed runs oldest first and names what changed between two points', () => {
    const points = chartPoints(
      [
        run(3, { version: 2, state: { ...STATE, fusion: { vector_weight: 0.6 } } }),
        run(2, { status: 'failed', summary: [] }),
        run(1),
      ],
      'ndcg_10',
    );
    expect(points.map((p) => p.label)).toEqual(['#1', '#3']);
    expect(points[1]!.keyword).toBe(0.61);
    expect(points[1]!.changes).toEqual([
      { what: 'set version', from: 'v1', to: 'v2', major: true },
      { what: 'vector weight', from: '0.4', to: '0.6', major: true },
    ]);
    expect(stateChanges(STATE, { ...STATE, snippet_count: 1300 })).toEqual([
      { what: 'snippets', from: '1,200', to: '1,300', major: false },
    ]);
  });
});
