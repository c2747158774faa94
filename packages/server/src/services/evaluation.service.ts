import { Readable } from 'node:stream';
import {
  EVALUATION_DEEP_K,
  EVALUATION_K,
  EvaluationQueryInput,
  SearchFilters,
  type BeirImportSummary,
  type EvaluationQuery,
  type EvaluationRun,
  type EvaluationSet,
  type EvaluationSetVersion,
  type EvaluationSetVersionInfo,
  type EvaluationTrigger,
  type ImportSummary,
  type Judgment,
  type JudgmentInput,
  type ModeSummary,
  type QueryComparison,
  type QueryResult,
  type RunComparison,
  type EvaluationMode,
  type RunState,
  type SearchMode,
  type SnippetSearchResponse,
  type UpdateEvaluationSet,
} from '@adam/contracts';
import type { z } from 'zod';
import { Conflict, NotFound, Unprocessable } from '../lib/errors.js';
import type { Logger } from '../logging.js';
import type {
  EvalResultRow,
  EvalRunRow,
  EvalSetRow,
  EvalVersionRow,
  EvaluationRepository,
  NewEvalQuery,
} from '../store/evaluation.repository.js';
import type { BeirUpload } from './beir-files.js';
import {
  hasRelevant,
  meanMetrics,
  percentile,
  queryMetrics,
  subtract,
  type Metrics,
} from './evaluation-metrics.js';
import { round } from '../lib/round.js';

type QueryInput = z.output<typeof EvaluationQueryInput>;
type SetInput = {
  name: string;
  description: string;
  queries: QueryInput[];
};

/** The search a run makes, through the snippet service (not HTTP). */
export type RunSearch = (req: {
  query: string;
  k: number;
  mode: SearchMode;
  filters?: z.output<typeof SearchFilters>;
  /** Set for a hybrid search: whether the rerank stage runs, whatever the settings say. */
  rerank?: boolean;
}) => Promise<SnippetSearchResponse>;

/** What the evaluation_run job hands the run: progress and whether to stop. */
export interface RunControl {
  progress(done: number, total: number): void;
  shouldStop(): boolean;
  cancelled(): boolean;
}

/** How the run ended, for the job. */
export type RunEnd =
  | { status: 'completed'; queries: number; modes: EvaluationMode[] }
  | { status: 'cancelled' }
  | { status: 'interrupted' }
  | { status: 'failed'; error: string };

/** Results are written in batches: a run of 300 queries × 3 modes makes 18 writes, not 900. */
const RESULT_BATCH = 50;
/** An nDCG@10 change under this is noise (float sums), not a gained or lost query. */
const OUTCOME_EPSILON = 0.001;

/** The key a judged unit has in the metrics: one per judgment. */
const unitKey = (j: Pick<Judgment, 'kind' | 'ref'>) => `${j.kind}:${j.ref}`;

function toJudgment(j: JudgmentInput): Judgment {
  if (j.snippet_id !== undefined)
    return { kind: 'snippet', ref: String(j.snippet_id), grade: j.grade };
  if (j.source_id !== undefined)
    return { kind: 'source', ref: String(j.source_id), grade: j.grade };
  if (j.source_url !== undefined) return { kind: 'source_url', ref: j.source_url, grade: j.grade };
  return { kind: 'source_title', ref: j.source_title!, grade: j.grade };
}

/** One judgment per unit: the last given wins. */
function uniqueJudgments(list: Judgment[]): Judgment[] {
  return [...new Map(list.map((j) => [unitKey(j), j])).values()];
}

export class EvaluationService {
  constructor(
    private readonly deps: {
      repo: EvaluationRepository;
      search: RunSearch;
      /** Queues an evaluation_run job for a run; answers the job's id. */
      queueRun: (runId: number) => number;
      /** Sends a JSON Lines import to the import path (POST /snippets/import's service). */
      importLines: (body: Readable) => Promise<ImportSummary>;
      /**
       * The state a run measures (embedder, index, fusion settings, snippet count, and the
       * configured reranker with its N, or null).
       */
      state: () => RunState;
      /** The configured reranker when it is installed (the hybrid_rerank mode needs one). */
      reranker?: () => { model: string; top_n: number } | null;
      log: Logger;
      now?: () => number;
      /** The status of a run's job (null once deleted): a run whose job ended unseen is closed. */
      jobStatus: (jobId: number) => string | null;
      /** Runs the whole DB write of a new version in one transaction. */
      transaction: <T>(fn: () => T) => T;
    },
  ) {}

  private now(): string {
    return new Date(this.deps.now?.() ?? Date.now()).toISOString();
  }

  // ------------------------------------------------------------------------------ sets

  listSets(): { sets: EvaluationSet[] } {
    return { sets: this.deps.repo.listSets().map((s) => this.toSet(s)) };
  }

  getSet(id: number): EvaluationSet {
    return this.toSet(this.setRow(id));
  }

  createSet(input: SetInput): EvaluationSet {
    const now = this.now();
    const id = this.deps.transaction(() => {
      const setId = this.deps.repo.insertSet(input.name, input.description, now);
      const first = this.deps.repo.takeQueryKeys(setId, input.queries.length);
      this.deps.repo.insertVersion(
        setId,
        'created',
        input.queries.map((q, i) => this.newQuery(first + i, q)),
        now,
      );
      return setId;
    });
    this.deps.log.info({ component: 'evaluation' }, `Evaluation set ${id} created`);
    return this.getSet(id);
  }

  updateSet(id: number, input: UpdateEvaluationSet): EvaluationSet {
    this.setRow(id);
    this.deps.repo.updateSet(id, input, this.now());
    return this.getSet(id);
  }

  deleteSet(id: number): void {
    const running = this.deps.repo
      .listRuns(id)
      .map((r) => this.settled(r))
      .some((r) => r.status === 'pending' || r.status === 'running');
    if (running) throw new Conflict(`Evaluation set ${id} has a run in progress: cancel it first`);
    if (!this.deps.repo.deleteSet(id)) throw new NotFound('evaluation set', id);
  }

  listVersions(id: number): { versions: EvaluationSetVersionInfo[] } {
    this.setRow(id);
    return { versions: this.deps.repo.listVersions(id).map(toVersionInfo) };
  }

  /** A version of the set with its queries (the latest when no number is given). */
  getVersion(id: number, number?: number): EvaluationSetVersion {
    const set = this.setRow(id);
    const version =
      number === undefined
        ? this.deps.repo.findVersion(set.latest_version_id!)
        : this.deps.repo.findVersionByNumber(id, number);
    if (!version) throw new NotFound(`version ${number} of evaluation set`, id);
    return {
      set: this.toSet(set),
      version: toVersionInfo(version),
      queries: this.queriesOf(version),
    };
  }

  /** Adds a query with its judgments (a search the console ran: ids and grades): a new version. */
  addQuery(id: number, input: QueryInput): EvaluationSetVersion {
    return this.newVersion(id, 'query added', (queries, key) => [
      ...queries,
      this.newQuery(key(), input),
    ]);
  }

  removeQuery(id: number, queryKey: number): EvaluationSetVersion {
    return this.newVersion(id, `query ${queryKey} removed`, (queries) => {
      if (!queries.some((q) => q.key === queryKey)) throw new NotFound('query', queryKey);
      return queries.filter((q) => q.key !== queryKey);
    });
  }

  replaceJudgments(id: number, queryKey: number, judgments: JudgmentInput[]): EvaluationSetVersion {
    return this.newVersion(id, `judgments of query ${queryKey} edited`, (queries) => {
      const at = queries.findIndex((q) => q.key === queryKey);
      if (at < 0) throw new NotFound('query', queryKey);
      const next = [...queries];
      next[at] = { ...next[at]!, judgments: uniqueJudgments(judgments.map(toJudgment)) };
      return next;
    });
  }

  /**
   * A set from a BEIR upload. Each corpus id becomes a judgment on what it names here: a
   * snippet id, else a source id, else a source URL, else the title its corpus.jsonl line gives
   * (or the id itself as a title). With import_corpus, the corpus goes through the import path
   * (an import_snippets job) and its documents are judged by their titles.
   */
  async importBeir(upload: BeirUpload): Promise<BeirImportSummary> {
    const { repo } = this.deps;
    const corpusTitle = new Map<string, string>();
    for (const doc of upload.corpus ?? []) corpusTitle.set(doc.id, doc.title || doc.id);
    const ids = [...new Set(upload.qrels.map((q) => q.corpusId))];
    const numeric = ids.filter((i) => /^[1-9][0-9]{0,15}$/.test(i)).map(Number);
    const snippets = repo.existingSnippetIds(numeric);
    const sources = repo.existingSourceIds(numeric);
    const urls = repo.existingSourceUrls(ids);
    const titles = repo.existingTitles([...new Set([...ids, ...corpusTitle.values()])]);
    const mapped = { snippet: 0, source: 0, source_url: 0, source_title: 0 };
    const target = new Map<string, Pick<Judgment, 'kind' | 'ref'>>();
    const unmapped: string[] = [];
    for (const id of ids) {
      const n = Number(id);
      const title = corpusTitle.get(id);
      let t: Pick<Judgment, 'kind' | 'ref'> | null = null;
      if (snippets.has(n)) t = { kind: 'snippet', ref: id };
      else if (sources.has(n)) t = { kind: 'source', ref: id };
      else if (urls.has(id)) t = { kind: 'source_url', ref: id };
      else if (title !== undefined && (upload.importCorpus || titles.has(title)))
        t = { kind: 'source_title', ref: title };
      else if (titles.has(id)) t = { kind: 'source_title', ref: id };
      if (t) {
        mapped[t.kind]++;
        target.set(id, t);
      } else unmapped.push(id);
    }

    const byQuery = new Map<string, Judgment[]>();
    for (const q of upload.qrels) {
      const t = target.get(q.corpusId);
      let list = byQuery.get(q.queryId);
      if (!list) byQuery.set(q.queryId, (list = []));
      if (t) list.push({ ...t, grade: q.grade });
    }
    const queries = [...byQuery].map(([queryId, judgments]) => ({
      text: upload.queries.get(queryId)!,
      judgments: uniqueJudgments(judgments),
    }));

    let corpus: BeirImportSummary['corpus'] = null;
    if (upload.importCorpus && upload.corpus?.length) {
      const lines = upload.corpus.map(
        (d) => `${JSON.stringify({ text: d.text, title: d.title || d.id })}\n`,
      );
      const summary = await this.deps.importLines(Readable.from(lines));
      corpus = { job_id: summary.job_id!, records: summary.records };
    }

    const now = this.now();
    const setId = this.deps.transaction(() => {
      const id = repo.insertSet(upload.name, upload.description, now);
      const first = repo.takeQueryKeys(id, queries.length);
      repo.insertVersion(
        id,
        'imported from BEIR files',
        queries.map((q, i) => ({ key: first + i, filters: null, ...q })),
        now,
      );
      return id;
    });
    this.deps.log.info(
      { component: 'evaluation' },
      `Evaluation set ${setId} imported from BEIR files: ${queries.length} queries, ${unmapped.length} corpus ids unmapped`,
    );
    return {
      set: this.getSet(setId),
      queries: queries.length,
      judgments: upload.qrels.filter((q) => target.has(q.corpusId)).length,
      queries_without_judgments: upload.queries.size - byQuery.size,
      mapped,
      unmapped: { count: unmapped.length, ids: unmapped.slice(0, 100) },
      corpus,
    };
  }

  // ------------------------------------------------------------------------------ runs

  startRun(input: {
    set_id: number;
    version?: number;
    modes: EvaluationMode[];
    trigger?: EvaluationTrigger;
  }): EvaluationRun {
    if (input.modes.includes('hybrid_rerank') && !this.deps.reranker?.()) {
      throw new Conflict(
        'hybrid_rerank needs a reranker: install a reranker model and choose it in the processing settings (reranker_model)',
      );
    }
    const set = this.setRow(input.set_id);
    const version =
      input.version === undefined
        ? this.deps.repo.findVersion(set.latest_version_id!)
        : this.deps.repo.findVersionByNumber(set.id, input.version);
    if (!version) throw new NotFound(`version ${input.version} of evaluation set`, set.id);
    if (version.query_count === 0)
      throw new Unprocessable(
        `Version ${version.number} of evaluation set ${set.id} has no queries`,
      );
    const runId = this.deps.repo.insertRun(
      set.id,
      version.id,
      input.modes,
      this.now(),
      input.trigger,
    );
    const jobId = this.deps.queueRun(runId);
    this.deps.repo.setRunJob(runId, jobId);
    return this.getRun(runId);
  }

  /** Whether the set has a run waiting or running (its job still alive). */
  hasRunInProgress(setId: number): boolean {
    return this.deps.repo.listUnfinishedRuns(setId).some((r) => {
      const status = this.settled(r).status;
      return status === 'pending' || status === 'running';
    });
  }

  listRuns(setId?: number): { runs: EvaluationRun[] } {
    return { runs: this.deps.repo.listRuns(setId).map((r) => this.toRun(r)) };
  }

  getRun(id: number): EvaluationRun {
    return this.toRun(this.runRow(id));
  }

  results(id: number, mode?: EvaluationMode): { results: QueryResult[] } {
    const run = this.runRow(id);
    const texts = new Map(
      this.deps.repo.listQueries(run.version_id).map((q) => [q.query_key, q.text]),
    );
    return {
      results: this.deps.repo
        .listResults(id, mode)
        .map((r) => toResult(r, texts.get(r.query_key) ?? '')),
    };
  }

  /**
   * Scores a run: every query of its version in every mode, through the real search. A snippet
   * counts as the unit it is judged as: its own judgment, else its source's.
   */
  async execute(runId: number, control: RunControl): Promise<RunEnd> {
    const { repo } = this.deps;
    const run = repo.findRun(runId);
    if (!run) return { status: 'failed', error: `Evaluation run ${runId} not found (deleted?)` };
    if (run.status === 'completed' || run.status === 'cancelled')
      return { status: 'failed', error: `Evaluation run ${runId} already ended (${run.status})` };
    const modes = JSON.parse(run.modes) as EvaluationMode[];
    const state = this.deps.state();
    // The reranker is part of what was measured only when a mode used it.
    repo.startRun(
      runId,
      { ...state, reranker: modes.includes('hybrid_rerank') ? state.reranker : null },
      this.now(),
    );
    const queries = repo.listQueries(run.version_id);
    const judgments = repo.judgmentsOf(run.version_id);
    const judged = queries.map((q) => this.judgedUnits(judgments.get(q.id) ?? []));
    const total = queries.length * modes.length;
    const perMode = new Map<EvaluationMode, { metrics: Metrics[]; latencies: number[] }>();
    let batch: EvalResultRow[] = [];
    let done = 0;
    try {
      for (const mode of modes) {
        const acc = { metrics: [] as Metrics[], latencies: [] as number[] };
        perMode.set(mode, acc);
        for (const [i, q] of queries.entries()) {
          if (control.shouldStop()) {
            repo.insertResults(batch);
            return this.stopped(runId, control);
          }
          const { grades, unitOf } = judged[i]!;
          const filters = q.filters
            ? (JSON.parse(q.filters) as z.output<typeof SearchFilters>)
            : undefined;
          const started = performance.now();
          // hybrid_rerank is hybrid with the stage on; hybrid itself is measured without it.
          const answer = await this.deps.search({
            query: q.text,
            k: EVALUATION_DEEP_K,
            mode: mode === 'hybrid_rerank' ? 'hybrid' : mode,
            filters,
            ...(mode === 'hybrid_rerank' || mode === 'hybrid'
              ? { rerank: mode === 'hybrid_rerank' }
              : {}),
          });
          const latency = performance.now() - started;
          const ranked = answer.results.map((r) => r.snippet_id);
          const m = queryMetrics(
            ranked.map((id) => unitOf.get(id) ?? null),
            grades,
          );
          if (hasRelevant(grades)) acc.metrics.push(m);
          acc.latencies.push(latency);
          batch.push({
            run_id: runId,
            query_key: q.query_key,
            mode,
            ranked: JSON.stringify(ranked),
            ...m,
            latency_ms: latency,
          });
          done++;
          if (batch.length >= RESULT_BATCH) {
            repo.insertResults(batch);
            batch = [];
            control.progress(done, total);
          }
        }
      }
      repo.insertResults(batch);
    } catch (e) {
      const error = (e as Error).message;
      repo.endRun(runId, { status: 'failed', summary: [], error }, this.now());
      return { status: 'failed', error };
    }
    const summary: ModeSummary[] = modes.map((mode) => {
      const acc = perMode.get(mode)!;
      const mean = meanMetrics(acc.metrics);
      return {
        mode,
        queries: acc.metrics.length,
        ndcg_10: round(mean.ndcg_10),
        recall_10: round(mean.recall_10),
        recall_100: round(mean.recall_100),
        mrr: round(mean.mrr),
        latency_p50_ms: round(percentile(acc.latencies, 50), 2),
        latency_p95_ms: round(percentile(acc.latencies, 95), 2),
      };
    });
    repo.endRun(runId, { status: 'completed', summary, error: null }, this.now());
    control.progress(total, total);
    return { status: 'completed', queries: queries.length, modes };
  }

  /** A cancelled run ends; one whose worker stops goes back to waiting (the job restarts it). */
  private stopped(runId: number, control: RunControl): RunEnd {
    if (control.cancelled()) {
      this.deps.repo.endRun(runId, { status: 'cancelled', summary: [], error: null }, this.now());
      return { status: 'cancelled' };
    }
    return { status: 'interrupted' };
  }

  /** The grades by unit, and which unit each judged snippet counts as (its own judgment first). */
  private judgedUnits(list: Judgment[]): {
    grades: Map<string, number>;
    unitOf: Map<number, string>;
  } {
    const grades = new Map<string, number>();
    const unitOf = new Map<number, string>();
    const { repo } = this.deps;
    for (const j of list) {
      const key = unitKey(j);
      grades.set(key, j.grade);
      if (j.kind === 'snippet') continue;
      const ids =
        j.kind === 'source'
          ? repo.snippetIdsOfSource(Number(j.ref))
          : j.kind === 'source_url'
            ? repo.snippetIdsOfUrl(j.ref)
            : repo.snippetIdsOfTitle(j.ref);
      for (const id of ids) if (!unitOf.has(id)) unitOf.set(id, key);
    }
    for (const j of list) if (j.kind === 'snippet') unitOf.set(Number(j.ref), unitKey(j));
    return { grades, unitOf };
  }

  /** Two runs side by side, per query (matched by key) and mode: head minus base. */
  compare(baseId: number, headId: number): RunComparison {
    const base = this.runRow(baseId);
    const head = this.runRow(headId);
    for (const r of [base, head])
      if (r.status !== 'completed')
        throw new Conflict(`Evaluation run ${r.id} is ${r.status}: only completed runs compare`);
    const texts = new Map(
      this.deps.repo.listQueries(head.version_id).map((q) => [q.query_key, q.text]),
    );
    const baseResults = new Map(
      this.deps.repo.listResults(base.id).map((r) => [`${r.mode}:${r.query_key}`, r]),
    );
    const queries: QueryComparison[] = [];
    for (const h of this.deps.repo.listResults(head.id)) {
      const b = baseResults.get(`${h.mode}:${h.query_key}`);
      if (!b) continue;
      const bm = metricsOf(b);
      const hm = metricsOf(h);
      const delta = subtract(hm, bm);
      const before = (JSON.parse(b.ranked) as number[]).slice(0, EVALUATION_K);
      const after = (JSON.parse(h.ranked) as number[]).slice(0, EVALUATION_K);
      const beforeAt = new Map(before.map((id, i) => [id, i + 1]));
      const afterSet = new Set(after);
      queries.push({
        key: h.query_key,
        text: texts.get(h.query_key) ?? '',
        mode: h.mode,
        base: roundMetrics(bm),
        head: roundMetrics(hm),
        delta: roundMetrics(delta),
        outcome:
          delta.ndcg_10 > OUTCOME_EPSILON
            ? 'gained'
            : delta.ndcg_10 < -OUTCOME_EPSILON
              ? 'lost'
              : 'unchanged',
        entered: after.filter((id) => !beforeAt.has(id)),
        left: before.filter((id) => !afterSet.has(id)),
        moved: after.flatMap((id, i) => {
          const from = beforeAt.get(id);
          return from !== undefined && from !== i + 1 ? [{ id, from, to: i + 1 }] : [];
        }),
      });
    }
    const modes = [...new Set(queries.map((q) => q.mode))];
    return {
      base: this.toRun(base),
      head: this.toRun(head),
      summary: modes.map((mode) => {
        const of = queries.filter((q) => q.mode === mode);
        return {
          mode,
          gained: of.filter((q) => q.outcome === 'gained').length,
          lost: of.filter((q) => q.outcome === 'lost').length,
          unchanged: of.filter((q) => q.outcome === 'unchanged').length,
          delta: roundMetrics(meanMetrics(of.map((q) => q.delta))),
        };
      }),
      queries,
    };
  }

  // --------------------------------------------------------------------------- helpers

  private newVersion(
    id: number,
    change: string,
    edit: (queries: NewEvalQuery[], key: () => number) => NewEvalQuery[],
  ): EvaluationSetVersion {
    this.deps.transaction(() => {
      const set = this.setRow(id);
      const current = this.queriesOf(this.deps.repo.findVersion(set.latest_version_id!)!).map(
        (q) => ({
          key: q.key,
          text: q.text,
          filters: q.filters ? JSON.stringify(q.filters) : null,
          judgments: q.judgments,
        }),
      );
      const next = edit(current, () => this.deps.repo.takeQueryKeys(id, 1));
      this.deps.repo.insertVersion(id, change, next, this.now());
    });
    return this.getVersion(id);
  }

  private newQuery(key: number, q: QueryInput): NewEvalQuery {
    return {
      key,
      text: q.text,
      filters: q.filters ? JSON.stringify(q.filters) : null,
      judgments: uniqueJudgments(q.judgments.map(toJudgment)),
    };
  }

  private queriesOf(version: EvalVersionRow): EvaluationQuery[] {
    const judgments = this.deps.repo.judgmentsOf(version.id);
    return this.deps.repo.listQueries(version.id).map((q) => ({
      id: q.id,
      key: q.query_key,
      text: q.text,
      filters: q.filters ? (JSON.parse(q.filters) as EvaluationQuery['filters']) : null,
      judgments: judgments.get(q.id) ?? [],
    }));
  }

  private setRow(id: number): EvalSetRow {
    const set = this.deps.repo.findSet(id);
    if (!set) throw new NotFound('evaluation set', id);
    return set;
  }

  private runRow(id: number): EvalRunRow {
    const run = this.deps.repo.findRun(id);
    if (!run) throw new NotFound('evaluation run', id);
    return run;
  }

  private toSet(s: EvalSetRow): EvaluationSet {
    return {
      id: s.id,
      name: s.name,
      description: s.description,
      watched: s.watched === 1,
      latest: toVersionInfo(this.deps.repo.findVersion(s.latest_version_id!)!),
      created_at: s.created_at,
      updated_at: s.updated_at,
    };
  }

  /**
   * A waiting or running run whose job is gone or ended without it (deleted, cancelled before
   * it began, its server stopped mid-run and the job failed) is closed here, when read: it
   * would otherwise stay "running" for ever and keep its set from being deleted.
   */
  private settled(r: EvalRunRow): EvalRunRow {
    if ((r.status !== 'pending' && r.status !== 'running') || r.job_id === null) return r;
    const job = this.deps.jobStatus(r.job_id);
    if (job === 'pending' || job === 'processing') return r;
    const status = job === 'cancelled' ? 'cancelled' : 'failed';
    const error =
      job === null ? `Its job ${r.job_id} was deleted` : `Its job ${r.job_id} ended ${job}`;
    this.deps.repo.endRun(
      r.id,
      { status, summary: [], error: status === 'failed' ? error : null },
      this.now(),
    );
    return this.deps.repo.findRun(r.id)!;
  }

  private toRun(row: EvalRunRow): EvaluationRun {
    const r = this.settled(row);
    return {
      id: r.id,
      set_id: r.set_id,
      set_name: this.deps.repo.findSet(r.set_id)?.name ?? '',
      version: this.deps.repo.findVersion(r.version_id)?.number ?? 0,
      modes: JSON.parse(r.modes) as EvaluationMode[],
      status: r.status as EvaluationRun['status'],
      trigger: r.trigger,
      job_id: r.job_id,
      state: r.state ? (JSON.parse(r.state) as RunState) : null,
      summary: JSON.parse(r.summary) as ModeSummary[],
      error: r.error,
      created_at: r.created_at,
      started_at: r.started_at,
      ended_at: r.ended_at,
    };
  }
}

function toVersionInfo(v: EvalVersionRow): EvaluationSetVersionInfo {
  return {
    id: v.id,
    number: v.number,
    change: v.change,
    query_count: v.query_count,
    created_at: v.created_at,
  };
}

function metricsOf(r: EvalResultRow): Metrics {
  return { ndcg_10: r.ndcg_10, recall_10: r.recall_10, recall_100: r.recall_100, mrr: r.mrr };
}

function roundMetrics(m: Metrics): Metrics {
  return {
    ndcg_10: round(m.ndcg_10),
    recall_10: round(m.recall_10),
    recall_100: round(m.recall_100),
    mrr: round(m.mrr),
  };
}

function toResult(r: EvalResultRow, text: string): QueryResult {
  return {
    key: r.query_key,
    text,
    mode: r.mode,
    ranked: JSON.parse(r.ranked) as number[],
    ...roundMetrics(metricsOf(r)),
    latency_ms: round(r.latency_ms, 2),
  };
}
