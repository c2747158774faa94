import type {
  EvaluationTrigger,
  Judgment,
  JudgmentKind,
  EvaluationMode,
  ModeSummary,
  RunState,
} from '@adam/contracts';
import type { Db } from './db.js';

export interface EvalSetRow {
  id: number;
  name: string;
  description: string;
  latest_version_id: number | null;
  next_query_key: number;
  /** 0/1: run on its own by the evaluation watch. */
  watched: number;
  created_at: string;
  updated_at: string;
}
export interface EvalVersionRow {
  id: number;
  set_id: number;
  number: number;
  change: string;
  query_count: number;
  created_at: string;
}
export interface EvalQueryRow {
  id: number;
  version_id: number;
  query_key: number;
  position: number;
  text: string;
  filters: string | null;
}
/** A query as written into a new version (judgments already in their stored form). */
export interface NewEvalQuery {
  key: number;
  text: string;
  filters: string | null;
  judgments: Judgment[];
}
export interface EvalRunRow {
  id: number;
  set_id: number;
  version_id: number;
  modes: string;
  status: string;
  trigger: EvaluationTrigger;
  job_id: number | null;
  state: string | null;
  summary: string;
  error: string | null;
  created_at: string;
  started_at: string | null;
  ended_at: string | null;
}
export interface EvalResultRow {
  run_id: number;
  query_key: number;
  mode: EvaluationMode;
  ranked: string;
  ndcg_10: number;
  recall_10: number;
  recall_100: number;
  mrr: number;
  latency_ms: number;
}

/** Evaluation sets, their immutable versions, queries and judgments, runs and their results. */
export class EvaluationRepository {
  constructor(private readonly db: Db) {}

  listSets(): EvalSetRow[] {
    return this.db.prepare('SELECT * FROM eval_sets ORDER BY id').all() as EvalSetRow[];
  }

  findSet(id: number): EvalSetRow | undefined {
    return this.db.prepare('SELECT * FROM eval_sets WHERE id = ?').get(id) as
      EvalSetRow | undefined;
  }

  insertSet(name: string, description: string, now: string): number {
    return Number(
      this.db
        .prepare(
          'INSERT INTO eval_sets (name, description, created_at, updated_at) VALUES (?, ?, ?, ?)',
        )
        .run(name, description, now, now).lastInsertRowid,
    );
  }

  updateSet(
    id: number,
    fields: { name?: string; description?: string; watched?: boolean },
    now: string,
  ): void {
    const watched = fields.watched === undefined ? null : fields.watched ? 1 : 0;
    this.db
      .prepare(
        `UPDATE eval_sets SET name = COALESCE(?, name), description = COALESCE(?, description),
         watched = COALESCE(?, watched), updated_at = ? WHERE id = ?`,
      )
      .run(fields.name ?? null, fields.description ?? null, watched, now, id);
  }

  listWatchedSets(): EvalSetRow[] {
    return this.db
      .prepare('SELECT * FROM eval_sets WHERE watched = 1 ORDER BY id')
      .all() as EvalSetRow[];
  }

  /** The set's newest run of any status and trigger (what the schedule counts from). */
  latestRun(setId: number): EvalRunRow | undefined {
    return this.db
      .prepare('SELECT * FROM eval_runs WHERE set_id = ? ORDER BY id DESC LIMIT 1')
      .get(setId) as EvalRunRow | undefined;
  }

  /** The set's runs that are waiting or running, as stored (not yet settled against their jobs). */
  listUnfinishedRuns(setId: number): EvalRunRow[] {
    return this.db
      .prepare(
        `SELECT * FROM eval_runs WHERE set_id = ? AND status IN ('pending', 'running') ORDER BY id`,
      )
      .all(setId) as EvalRunRow[];
  }

  /** The set's last completed run before run `beforeId` (what a new run is compared with). */
  previousCompletedRun(setId: number, beforeId: number): EvalRunRow | undefined {
    return this.db
      .prepare(
        `SELECT * FROM eval_runs WHERE set_id = ? AND id < ? AND status = 'completed'
         ORDER BY id DESC LIMIT 1`,
      )
      .get(setId, beforeId) as EvalRunRow | undefined;
  }

  deleteSet(id: number): boolean {
    return this.db.prepare('DELETE FROM eval_sets WHERE id = ?').run(id).changes > 0;
  }

  /** Hands out `count` new query keys of the set (never reused, so versions stay comparable). */
  takeQueryKeys(setId: number, count: number): number {
    const row = this.db
      .prepare(
        'UPDATE eval_sets SET next_query_key = next_query_key + ? WHERE id = ? RETURNING next_query_key',
      )
      .get(count, setId) as { next_query_key: number };
    return row.next_query_key - count;
  }

  /** Writes a version with its queries and judgments and makes it the set's latest. */
  insertVersion(setId: number, change: string, queries: NewEvalQuery[], now: string): number {
    const last = this.db
      .prepare('SELECT COALESCE(MAX(number), 0) FROM eval_set_versions WHERE set_id = ?')
      .pluck()
      .get(setId) as number;
    const versionId = Number(
      this.db
        .prepare(
          'INSERT INTO eval_set_versions (set_id, number, change, query_count, created_at) VALUES (?, ?, ?, ?, ?)',
        )
        .run(setId, last + 1, change, queries.length, now).lastInsertRowid,
    );
    const q = this.db.prepare(
      'INSERT INTO eval_queries (version_id, query_key, position, text, filters) VALUES (?, ?, ?, ?, ?)',
    );
    const j = this.db.prepare(
      'INSERT OR REPLACE INTO eval_judgments (query_id, kind, ref, grade) VALUES (?, ?, ?, ?)',
    );
    queries.forEach((query, position) => {
      const queryId = q.run(
        versionId,
        query.key,
        position,
        query.text,
        query.filters,
      ).lastInsertRowid;
      for (const judgment of query.judgments)
        j.run(queryId, judgment.kind, judgment.ref, judgment.grade);
    });
    this.db
      .prepare('UPDATE eval_sets SET latest_version_id = ?, updated_at = ? WHERE id = ?')
      .run(versionId, now, setId);
    return versionId;
  }

  findVersion(id: number): EvalVersionRow | undefined {
    return this.db.prepare('SELECT * FROM eval_set_versions WHERE id = ?').get(id) as
      EvalVersionRow | undefined;
  }

  findVersionByNumber(setId: number, number: number): EvalVersionRow | undefined {
    return this.db
      .prepare('SELECT * FROM eval_set_versions WHERE set_id = ? AND number = ?')
      .get(setId, number) as EvalVersionRow | undefined;
  }

  listVersions(setId: number): EvalVersionRow[] {
    return this.db
      .prepare('SELECT * FROM eval_set_versions WHERE set_id = ? ORDER BY number DESC')
      .all(setId) as EvalVersionRow[];
  }

  listQueries(versionId: number): EvalQueryRow[] {
    return this.db
      .prepare('SELECT * FROM eval_queries WHERE version_id = ? ORDER BY position')
      .all(versionId) as EvalQueryRow[];
  }

  /** Every judgment of a version's queries, by query id. */
  judgmentsOf(versionId: number): Map<number, Judgment[]> {
    const rows = this.db
      .prepare(
        `SELECT j.query_id, j.kind, j.ref, j.grade FROM eval_judgments j
         JOIN eval_queries q ON q.id = j.query_id WHERE q.version_id = ?
         ORDER BY j.query_id, j.grade DESC, j.kind, j.ref`,
      )
      .all(versionId) as { query_id: number; kind: JudgmentKind; ref: string; grade: number }[];
    const out = new Map<number, Judgment[]>();
    for (const r of rows) {
      let list = out.get(r.query_id);
      if (!list) out.set(r.query_id, (list = []));
      list.push({ kind: r.kind, ref: r.ref, grade: r.grade });
    }
    return out;
  }

  // ------------------------------------------------------------- judged units' snippets

  /** The snippet ids of a source given by id (through its URL). */
  snippetIdsOfSource(sourceId: number): number[] {
    return this.db
      .prepare(
        'SELECT s.id FROM snippets s JOIN sources src ON src.url = s.source_url WHERE src.id = ?',
      )
      .pluck()
      .all(sourceId) as number[];
  }

  snippetIdsOfUrl(url: string): number[] {
    return this.db
      .prepare('SELECT id FROM snippets WHERE source_url = ?')
      .pluck()
      .all(url) as number[];
  }

  snippetIdsOfTitle(title: string): number[] {
    return this.db
      .prepare('SELECT id FROM snippets WHERE source_title = ?')
      .pluck()
      .all(title) as number[];
  }

  /** Which of the ids are snippets, which sources, which source URLs and titles (BEIR mapping). */
  existingSnippetIds(ids: number[]): Set<number> {
    return this.presentIds('SELECT id FROM snippets WHERE id IN', ids);
  }

  existingSourceIds(ids: number[]): Set<number> {
    return this.presentIds('SELECT id FROM sources WHERE id IN', ids);
  }

  existingSourceUrls(urls: string[]): Set<string> {
    const out = new Set<string>();
    for (const chunk of chunks(urls)) {
      const marks = chunk.map(() => '?').join(',');
      for (const u of this.db
        .prepare(`SELECT url FROM sources WHERE url IN (${marks})`)
        .pluck()
        .all(...chunk) as string[])
        out.add(u);
    }
    return out;
  }

  existingTitles(titles: string[]): Set<string> {
    const out = new Set<string>();
    for (const chunk of chunks(titles)) {
      const marks = chunk.map(() => '?').join(',');
      for (const t of this.db
        .prepare(`SELECT DISTINCT source_title FROM snippets WHERE source_title IN (${marks})`)
        .pluck()
        .all(...chunk) as string[])
        out.add(t);
    }
    return out;
  }

  private presentIds(sql: string, ids: number[]): Set<number> {
    const out = new Set<number>();
    for (const chunk of chunks(ids)) {
      const marks = chunk.map(() => '?').join(',');
      for (const id of this.db
        .prepare(`${sql} (${marks})`)
        .pluck()
        .all(...chunk) as number[])
        out.add(id);
    }
    return out;
  }

  snippetCount(): number {
    return this.db.prepare('SELECT COUNT(*) FROM snippets').pluck().get() as number;
  }

  // ------------------------------------------------------------------------------- runs

  insertRun(
    setId: number,
    versionId: number,
    modes: EvaluationMode[],
    now: string,
    trigger: EvaluationTrigger = 'manual',
  ): number {
    return Number(
      this.db
        .prepare(
          `INSERT INTO eval_runs (set_id, version_id, modes, status, created_at, "trigger")
           VALUES (?, ?, ?, 'pending', ?, ?)`,
        )
        .run(setId, versionId, JSON.stringify(modes), now, trigger).lastInsertRowid,
    );
  }

  setRunJob(id: number, jobId: number): void {
    this.db.prepare('UPDATE eval_runs SET job_id = ? WHERE id = ?').run(jobId, id);
  }

  /** A run starts again from nothing (a retried or resumed job): its earlier results go. */
  startRun(id: number, state: RunState, now: string): void {
    this.db.transaction(() => {
      this.db.prepare('DELETE FROM eval_run_results WHERE run_id = ?').run(id);
      this.db
        .prepare(
          `UPDATE eval_runs SET status = 'running', state = ?, started_at = ?, ended_at = NULL,
           error = NULL, summary = '[]' WHERE id = ?`,
        )
        .run(JSON.stringify(state), now, id);
    })();
  }

  insertResults(rows: EvalResultRow[]): void {
    const stmt = this.db.prepare(
      `INSERT OR REPLACE INTO eval_run_results
       (run_id, query_key, mode, ranked, ndcg_10, recall_10, recall_100, mrr, latency_ms)
       VALUES (@run_id, @query_key, @mode, @ranked, @ndcg_10, @recall_10, @recall_100, @mrr, @latency_ms)`,
    );
    this.db.transaction(() => {
      for (const r of rows) stmt.run(r);
    })();
  }

  endRun(
    id: number,
    end: {
      status: 'completed' | 'failed' | 'cancelled';
      summary: ModeSummary[];
      error: string | null;
    },
    now: string,
  ): void {
    this.db
      .prepare('UPDATE eval_runs SET status = ?, summary = ?, error = ?, ended_at = ? WHERE id = ?')
      .run(end.status, JSON.stringify(end.summary), end.error, now, id);
  }

  findRun(id: number): EvalRunRow | undefined {
    return this.db.prepare('SELECT * FROM eval_runs WHERE id = ?').get(id) as
      EvalRunRow | undefined;
  }

  listRuns(setId?: number): EvalRunRow[] {
    return (
      setId === undefined
        ? this.db.prepare('SELECT * FROM eval_runs ORDER BY id DESC LIMIT 500').all()
        : this.db
            .prepare('SELECT * FROM eval_runs WHERE set_id = ? ORDER BY id DESC LIMIT 500')
            .all(setId)
    ) as EvalRunRow[];
  }

  listResults(runId: number, mode?: EvaluationMode): EvalResultRow[] {
    return (
      mode === undefined
        ? this.db
            .prepare('SELECT * FROM eval_run_results WHERE run_id = ? ORDER BY mode, query_key')
            .all(runId)
        : this.db
            .prepare(
              'SELECT * FROM eval_run_results WHERE run_id = ? AND mode = ? ORDER BY query_key',
            )
            .all(runId, mode)
    ) as EvalResultRow[];
  }
}

/** SQLite's bound-parameter limit is 32766; stay well below it. */
function chunks<T>(list: T[], size = 500): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < list.length; i += size) out.push(list.slice(i, i + size));
  return out;
}
