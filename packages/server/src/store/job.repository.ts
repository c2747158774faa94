import { prepared, type Db } from './db.js';

export interface JobRow {
  id: number;
  type: string;
  status: 'pending' | 'processing' | 'completed' | 'failed' | 'cancelled';
  priority: 'high' | 'normal' | 'low';
  priority_rank: number;
  urls: string;
  input: string;
  filters: string;
  metadata: string;
  progress: number;
  stage: string | null;
  stats: string;
  errors: string;
  done_urls: string;
  worker_id: string | null;
  attempts: number;
  created_at: string;
  started_at: string | null;
  completed_at: string | null;
  failed_at: string | null;
  cancelled_at: string | null;
  heartbeat_at: string | null;
  updated_at: string;
}

type JobTimes = Pick<
  JobRow,
  'id' | 'status' | 'created_at' | 'started_at' | 'completed_at' | 'failed_at'
>;

/** What a job list page filters on; every part optional. */
export interface JobListFilter {
  statuses: readonly string[] | null;
  type?: string | undefined;
  /** ISO instants, both inclusive. */
  createdFrom?: string | undefined;
  createdTo?: string | undefined;
  /** Text in one of the job's URLs or in its title (a scan of the rows the rest leaves). */
  q?: string | undefined;
}

/** A job's place in the newest-first order. */
export interface JobKey {
  created_at: string;
  id: number;
}

/**
 * `keysetOrder`: the page reads the created_at index in order and stops at its limit; the
 * status and type terms are kept off their indexes (unary +), else the planner takes jobs_claim
 * for `status IN` and sorts every matching row (200 ms at 100k jobs, see the bench).
 */
function filterSql(
  f: JobListFilter,
  keysetOrder = false,
): { sql: string; params: (string | number)[] } {
  const parts: string[] = [];
  const params: (string | number)[] = [];
  const plain = keysetOrder ? '+' : '';
  if (f.statuses) {
    parts.push(`${plain}status IN (${f.statuses.map(() => '?').join(',')})`);
    params.push(...f.statuses);
  }
  if (f.type) {
    parts.push(`${plain}type = ?`);
    params.push(f.type);
  }
  if (f.createdFrom) {
    parts.push('created_at >= ?');
    params.push(f.createdFrom);
  }
  if (f.createdTo) {
    parts.push('created_at <= ?');
    params.push(f.createdTo);
  }
  if (f.q) {
    const like = `%${f.q.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
    // The URLs' JSON text and a saved text's title (metadata, small; input holds the whole
    // text): LIKE with the caller's wildcards escaped, so no pattern from outside.
    parts.push(
      `(urls LIKE ? ESCAPE '\\' OR (CASE WHEN json_valid(metadata) THEN json_extract(metadata, '$.title') END) LIKE ? ESCAPE '\\')`,
    );
    params.push(like, like);
  }
  return { sql: parts.length ? `WHERE ${parts.join(' AND ')}` : '', params };
}

const PRIORITY_RANK = { high: 0, normal: 1, low: 2 } as const;

type Writable = Partial<Omit<JobRow, 'id' | 'created_at'>>;

export class JobRepository {
  constructor(private readonly db: Db) {}

  insert(j: {
    type: string;
    priority: 'high' | 'normal' | 'low';
    urls: string[];
    input: unknown;
    filters: unknown;
    metadata: unknown;
  }): number {
    const now = new Date().toISOString();
    // Above every id ever given (migration 12): never the id of a deleted or restored-away job.
    return Number(
      prepared(
        this.db,
        `INSERT INTO jobs (id, type, status, priority, priority_rank, urls, input, filters, metadata, created_at, updated_at)
         VALUES ((SELECT MAX(COALESCE((SELECT MAX(id) FROM jobs), 0), high) + 1 FROM job_id_floor),
           ?, 'pending', ?, ?, ?, ?, ?, ?, ?, ?)`,
      ).run(
        j.type,
        j.priority,
        PRIORITY_RANK[j.priority],
        JSON.stringify(j.urls),
        JSON.stringify(j.input ?? {}),
        JSON.stringify(j.filters ?? {}),
        JSON.stringify(j.metadata ?? {}),
        now,
        now,
      ).lastInsertRowid,
    );
  }

  // ------------------------------------------------------------ across a restore

  /** Of `ids`, the jobs that are cancelled, with when. */
  listCancelledAmong(ids: readonly number[]): { id: number; cancelled_at: string | null }[] {
    if (!ids.length) return [];
    return this.db
      .prepare(
        `SELECT id, cancelled_at FROM jobs WHERE status = 'cancelled'
         AND id IN (SELECT value FROM json_each(?))`,
      )
      .all(JSON.stringify(ids)) as { id: number; cancelled_at: string | null }[];
  }

  /** Jobs not yet ended (pending or processing). */
  listUnfinishedIds(): number[] {
    return this.db
      .prepare("SELECT id FROM jobs WHERE status IN ('pending', 'processing')")
      .pluck()
      .all() as number[];
  }

  /** Cancels these jobs (if not ended) as they were cancelled before: same time, no event. */
  cancelAgain(rows: readonly { id: number; cancelled_at: string | null }[], at: string): number[] {
    const stmt = this.db.prepare(
      `UPDATE jobs SET status = 'cancelled', cancelled_at = ?, stage = 'cancelled', worker_id = NULL,
         heartbeat_at = NULL, updated_at = ? WHERE id = ? AND status IN ('pending', 'processing') RETURNING id`,
    );
    return rows.flatMap((r) => (stmt.pluck().get(r.cancelled_at ?? at, at, r.id) as number) ?? []);
  }

  /**
   * Ends every processing job as failed with `message`, added to its errors: its work cannot
   * resume (what it recorded may be gone, its worker is not running it).
   */
  failProcessing(message: string, at: string): number[] {
    const error = JSON.stringify({ type: 'job', error: 'interrupted', message, url: null, at });
    return this.db
      .prepare(
        `UPDATE jobs SET status = 'failed', stage = ?, failed_at = ?, worker_id = NULL, heartbeat_at = NULL,
           errors = json_insert(CASE WHEN json_valid(errors) THEN errors ELSE '[]' END, '$[#]', json(?)),
           updated_at = ? WHERE status = 'processing' RETURNING id`,
      )
      .pluck()
      .all(message, at, error, at) as number[];
  }

  findById(id: number): JobRow | undefined {
    return prepared(this.db, 'SELECT * FROM jobs WHERE id = ?').get(id) as JobRow | undefined;
  }

  /**
   * One page of jobs, newest first on (created_at, id), strictly after `after` in that order:
   * a keyset, so a page costs its rows whatever its depth, and a job inserted meanwhile (newer)
   * never shifts the pages after it.
   */
  listPage(f: JobListFilter, after: JobKey | null, limit: number): JobRow[] {
    const { sql, params } = filterSql(f, true);
    const keyset = after ? `${sql ? ' AND' : 'WHERE'} (created_at, id) < (?, ?)` : '';
    const keyParams = after ? [after.created_at, after.id] : [];
    return this.db
      .prepare(`SELECT * FROM jobs ${sql}${keyset} ORDER BY created_at DESC, id DESC LIMIT ?`)
      .all(...params, ...keyParams, limit) as JobRow[];
  }

  /** The jobs `f` matches, counted up to `cap` (the count stops reading there). */
  countUpTo(f: JobListFilter, cap: number): number {
    const { sql, params } = filterSql(f);
    return this.db
      .prepare(`SELECT COUNT(*) FROM (SELECT 1 FROM jobs ${sql} LIMIT ?)`)
      .pluck()
      .get(...params, cap) as number;
  }

  /** Of a job's URLs, how many snippets each still has stored with this job's id. */
  snippetsPerUrl(jobId: number, urls: readonly string[]): Map<string, number> {
    if (!urls.length) return new Map();
    // One lookup per URL on the (source_url, created_at) index, not a scan of the job's snippets.
    const rows = this.db
      .prepare(
        `SELECT u.value AS url, (SELECT COUNT(*) FROM snippets s WHERE s.source_url = u.value AND s.job_id = ?) AS n
         FROM json_each(?) u`,
      )
      .all(jobId, JSON.stringify(urls)) as { url: string; n: number }[];
    return new Map(rows.map((r) => [r.url, r.n]));
  }

  /** Snippets stored with this job's id, on the snippets_job index. */
  countSnippets(jobId: number): number {
    const row = prepared(this.db, 'SELECT COUNT(*) AS n FROM snippets WHERE job_id = ?').get(jobId);
    return (row as { n: number }).n;
  }

  listStuck(heartbeatBefore: string, limit: number): { rows: JobRow[]; total: number } {
    const where = "WHERE status = 'processing' AND (heartbeat_at IS NULL OR heartbeat_at < ?)";
    const rows = this.db
      .prepare(`SELECT * FROM jobs ${where} ORDER BY created_at DESC LIMIT ?`)
      .all(heartbeatBefore, limit) as JobRow[];
    const total = this.db
      .prepare(`SELECT COUNT(*) FROM jobs ${where}`)
      .pluck()
      .get(heartbeatBefore) as number;
    return { rows, total };
  }

  countByStatus(): Record<string, number> {
    const rows = this.db
      .prepare('SELECT status, COUNT(*) AS n FROM jobs GROUP BY status')
      .all() as {
      status: string;
      n: number;
    }[];
    return Object.fromEntries(rows.map((r) => [r.status, r.n]));
  }

  /** Jobs waiting to run; counted on the jobs_claim index (status first), so it reads only them. */
  countPending(): number {
    const row = prepared(this.db, "SELECT COUNT(*) AS n FROM jobs WHERE status = 'pending'").get();
    return (row as { n: number }).n;
  }

  /** Jobs running now, counted on the jobs_claim index like countPending. */
  countProcessing(): number {
    const row = prepared(
      this.db,
      "SELECT COUNT(*) AS n FROM jobs WHERE status = 'processing'",
    ).get();
    return (row as { n: number }).n;
  }

  /**
   * Takes the next pending job (priority, then age) for a worker, atomically: of `types` (all
   * when unset) but not of `exceptTypes`.
   */
  claimNext(
    workerId: string,
    now: string,
    types?: readonly string[],
    exceptTypes: readonly string[] = [],
  ): JobRow | undefined {
    const typeFilter =
      (types ? `AND type IN (${types.map(() => '?').join(',')})` : '') +
      (exceptTypes.length ? ` AND type NOT IN (${exceptTypes.map(() => '?').join(',')})` : '');
    return this.db
      .prepare(
        `UPDATE jobs SET status = 'processing', worker_id = ?, started_at = COALESCE(started_at, ?),
           heartbeat_at = ?, attempts = attempts + 1, updated_at = ?
         WHERE id = (SELECT id FROM jobs WHERE status = 'pending' ${typeFilter}
                     ORDER BY priority_rank, created_at, id LIMIT 1)
         RETURNING *`,
      )
      .get(workerId, now, now, now, ...(types ?? []), ...exceptTypes) as JobRow | undefined;
  }

  listByStatusAndType(statuses: readonly string[], types: readonly string[]): JobRow[] {
    return this.db
      .prepare(
        `SELECT * FROM jobs WHERE status IN (${statuses.map(() => '?').join(',')})
         AND type IN (${types.map(() => '?').join(',')}) ORDER BY priority_rank, created_at, id`,
      )
      .all(...statuses, ...types) as JobRow[];
  }

  /** Updates a job only while it is in one of `whileStatus`: false when it moved on meanwhile. */
  update(id: number, fields: Writable, whileStatus?: readonly string[]): boolean {
    const keys = Object.keys(fields) as (keyof Writable)[];
    const sets = [...keys.map((k) => `${k} = @${k}`), 'updated_at = @updated_at'].join(', ');
    const guard = whileStatus
      ? ` AND status IN (${whileStatus.map((s) => `'${s}'`).join(',')})`
      : '';
    return (
      prepared(this.db, `UPDATE jobs SET ${sets} WHERE id = @id${guard}`).run({
        ...fields,
        id,
        updated_at: new Date().toISOString(),
      }).changes === 1
    );
  }

  /** Puts jobs left processing (a crash, a stopped worker) back in the queue. */
  requeueProcessing(workerIds?: readonly string[], types?: readonly string[]): number[] {
    let where = "status = 'processing'";
    const params: string[] = [];
    if (workerIds) {
      where += ` AND worker_id IN (${workerIds.map(() => '?').join(',')})`;
      params.push(...workerIds);
    }
    if (types) {
      where += ` AND type IN (${types.map(() => '?').join(',')})`;
      params.push(...types);
    }
    return this.db
      .prepare(
        `UPDATE jobs SET status = 'pending', worker_id = NULL, heartbeat_at = NULL, stage = 'requeued',
           updated_at = ? WHERE ${where} RETURNING id`,
      )
      .pluck()
      .all(new Date().toISOString(), ...params) as number[];
  }

  requeueStuck(heartbeatBefore: string): number[] {
    return this.db
      .prepare(
        `UPDATE jobs SET status = 'pending', worker_id = NULL, heartbeat_at = NULL, stage = 'requeued (stuck)', updated_at = ?
         WHERE status = 'processing' AND (heartbeat_at IS NULL OR heartbeat_at < ?) RETURNING id`,
      )
      .pluck()
      .all(new Date().toISOString(), heartbeatBefore) as number[];
  }

  cancelAllPending(at: string): number[] {
    return this.db
      .prepare(
        `UPDATE jobs SET status = 'cancelled', cancelled_at = ?, stage = 'cancelled', updated_at = ?
         WHERE status = 'pending' RETURNING id`,
      )
      .pluck()
      .all(at, at) as number[];
  }

  /** Jobs one of whose URLs contains `fragment` (case-insensitive for ASCII), newest first. */
  listByUrlFragment(fragment: string, limit: number): { rows: JobRow[]; total: number } {
    const where = `WHERE EXISTS (SELECT 1 FROM json_each(CASE WHEN json_valid(jobs.urls) THEN jobs.urls ELSE '[]' END)
      WHERE value LIKE ? ESCAPE '\\')`;
    const like = `%${fragment.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
    const rows = this.db
      .prepare(`SELECT * FROM jobs ${where} ORDER BY created_at DESC, id DESC LIMIT ?`)
      .all(like, limit) as JobRow[];
    const total = this.db.prepare(`SELECT COUNT(*) FROM jobs ${where}`).pluck().get(like) as number;
    return { rows, total };
  }

  /** The times of the jobs created, completed or failed at or after `iso`. */
  listTimesSince(iso: string): JobTimes[] {
    return this.db
      .prepare(
        // A UNION, not an OR: each part reads its own index (jobs_created, _completed, _failed).
        ['created_at', 'completed_at', 'failed_at']
          .map(
            (c) =>
              `SELECT id, status, created_at, started_at, completed_at, failed_at FROM jobs WHERE ${c} >= ?`,
          )
          .join(' UNION '),
      )
      .all(iso, iso, iso) as JobTimes[];
  }

  /** Jobs per time bucket (the first `keyLength` characters of `column`) from `iso` on. */
  countPerBucket(
    column: 'created_at' | 'completed_at' | 'failed_at',
    iso: string,
    keyLength: number,
  ): { key: string; n: number }[] {
    return this.db
      .prepare(
        `SELECT substr(${column}, 1, ?) AS key, COUNT(*) AS n FROM jobs WHERE ${column} >= ? GROUP BY key`,
      )
      .all(keyLength, iso) as { key: string; n: number }[];
  }

  countCreatedSince(iso: string): number {
    return this.db
      .prepare('SELECT COUNT(*) FROM jobs WHERE created_at >= ?')
      .pluck()
      .get(iso) as number;
  }

  deleteById(id: number): boolean {
    return this.db.prepare('DELETE FROM jobs WHERE id = ?').run(id).changes === 1;
  }

  deleteCompletedBefore(iso: string): number {
    return this.db
      .prepare("DELETE FROM jobs WHERE status = 'completed' AND completed_at < ?")
      .run(iso).changes;
  }
}
