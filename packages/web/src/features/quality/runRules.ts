/** Pure rules of the runs part of Index → Quality: chart points, state changes, figures. */
import {
  EVALUATION_MODES,
  type EvaluationRun,
  type QueryMetrics,
  type RunState,
  type EvaluationMode,
} from '@adam/contracts';

export type MetricId = keyof QueryMetrics;

export const METRIC_LABELS: Record<MetricId, string> = {
  ndcg_10: 'nDCG@10',
  recall_10: 'Recall@10',
  recall_100: 'Recall@100',
  mrr: 'MRR',
};

/** The chart's choices (issue 27: nDCG@10, recall@10 selectable). */
export const CHART_METRICS = ['ndcg_10', 'recall_10'] as const satisfies readonly MetricId[];
export type ChartMetric = (typeof CHART_METRICS)[number];

const MODE_COLORS = ['blue.6', 'teal.6', 'grape.6', 'orange.6', 'pink.6', 'cyan.6'];

/** A mode's colour, by its place in the contract's list: a new mode gets the next colour. */
export function modeColor(mode: EvaluationMode): string {
  const i = EVALUATION_MODES.indexOf(mode);
  return MODE_COLORS[(i < 0 ? 0 : i) % MODE_COLORS.length]!;
}

/** A mode's label: hybrid_rerank → "hybrid + rerank". */
export function modeLabel(mode: string): string {
  return mode.replace(/_rerank$/, ' + rerank').replace(/_/g, ' ');
}

/** Metrics are fractions 0–1: three decimals tell runs apart. */
export const formatMetric = (v: number | null | undefined) =>
  typeof v === 'number' && Number.isFinite(v) ? v.toFixed(3) : '-';

export const formatDelta = (v: number) =>
  `${v > 0 ? '+' : v < 0 ? '−' : '±'}${Math.abs(v).toFixed(3)}`;

export const deltaColor = (v: number) => (v > 0.0005 ? 'teal' : v < -0.0005 ? 'red' : 'dimmed');

export const formatMs = (v: number) => `${v < 10 ? v.toFixed(1) : Math.round(v)} ms`;

/** The state a run measured, in one line. */
export function describeState(state: RunState): string {
  return [
    state.embedder,
    `${state.index.type}, ${state.index.storage} storage, ${state.index.dimension}d`,
    `vector weight ${state.fusion.vector_weight}`,
    `${state.snippet_count.toLocaleString('en-US')} snippets`,
    ...(state.reranker ? [`reranker ${state.reranker.model} (top ${state.reranker.top_n})`] : []),
  ].join(' · ');
}

export interface StateChange {
  what: string;
  from: string;
  to: string;
  /** A change of model, index or fusion (worth a marker); a snippet count alone is not. */
  major: boolean;
}

/** What differs between the states two runs measured, in the order an operator reads it. */
export function stateChanges(before: RunState | null, after: RunState | null): StateChange[] {
  if (!before || !after) return [];
  const changes: StateChange[] = [];
  const add = (what: string, from: string, to: string, major = true) => {
    if (from !== to) changes.push({ what, from, to, major });
  };
  add('embedder', before.embedder, after.embedder);
  add('index', before.index.type, after.index.type);
  add('storage', before.index.storage, after.index.storage);
  add('dimension', String(before.index.dimension), String(after.index.dimension));
  add('vector weight', String(before.fusion.vector_weight), String(after.fusion.vector_weight));
  const reranker = (s: RunState) =>
    s.reranker ? `${s.reranker.model} (top ${s.reranker.top_n})` : 'none';
  // A run without the rerank mode records no reranker: only two that both name one differ.
  if (before.reranker && after.reranker) add('reranker', reranker(before), reranker(after));
  add(
    'snippets',
    before.snippet_count.toLocaleString('en-US'),
    after.snippet_count.toLocaleString('en-US'),
    false,
  );
  return changes;
}

/** The state's changes, and a new version of the set (its judgments moved, not the search). */
function runChanges(before: EvaluationRun, after: EvaluationRun): StateChange[] {
  const changes = stateChanges(before.state, after.state);
  if (before.version !== after.version)
    changes.unshift({
      what: 'set version',
      from: `v${before.version}`,
      to: `v${after.version}`,
      major: true,
    });
  return changes;
}

const runLabel = (run: Pick<EvaluationRun, 'id'>) => `#${run.id}`;

export interface ChartPoint {
  label: string;
  runId: number;
  when: string;
  /** What changed since the point before (empty for the first). */
  changes: StateChange[];
  [mode: string]: number | string | StateChange[] | null;
}

/** The completed runs oldest first, one point each, a value per mode the run measured. */
export function chartPoints(runs: readonly EvaluationRun[], metric: MetricId): ChartPoint[] {
  const completed = runs
    .filter((r) => r.status === 'completed')
    .slice()
    .sort((a, b) => a.id - b.id);
  return completed.map((run, i) => {
    const point: ChartPoint = {
      label: runLabel(run),
      runId: run.id,
      when: run.ended_at ?? run.created_at,
      changes: i === 0 ? [] : runChanges(completed[i - 1]!, run),
    };
    for (const m of run.summary) point[m.mode] = m[metric];
    return point;
  });
}

/** The modes any of the runs measured, in the contract's order. */
export function modesOf(runs: readonly Pick<EvaluationRun, 'modes'>[]): EvaluationMode[] {
  const seen = new Set(runs.flatMap((r) => r.modes));
  return EVALUATION_MODES.filter((m) => seen.has(m));
}

/** Base and head a comparison opens with: the last two completed runs (older as base). */
export function defaultPair(runs: readonly EvaluationRun[]): { base: number; head: number } | null {
  const completed = runs.filter((r) => r.status === 'completed').sort((a, b) => b.id - a.id);
  return completed.length >= 2 ? { base: completed[1]!.id, head: completed[0]!.id } : null;
}
