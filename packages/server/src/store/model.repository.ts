import { prepared, type Db } from './db.js';

export interface ModelRow {
  id: number;
  name: string;
  type: string;
  language: string;
  status: string;
  active: number;
  /** What the operator or the catalogue says; installed_version is read from the files. */
  version: string;
  installed_version: string | null;
  description: string;
  load_time_ms: number | null;
  memory_mb: number | null;
  inference_speed: number | null;
  source_url: string | null;
  local_path: string | null;
  repo: string | null;
  revision: string;
  dimension: number | null;
  builtin: number;
  error: string | null;
  catalogue: string | null;
  /** The download's expected size: the catalogue's, then the hub listing's. */
  expected_bytes: number;
  /** Bytes on disk, measured when the install ended. */
  disk_bytes: number;
  downloaded_bytes: number;
  total_bytes: number;
  job_id: number | null;
  message: string;
  /** 'install' or 'uninstall': what the progress of a not_installed row refers to. */
  last_action: string | null;
  created_at: string;
  updated_at: string;
}

export type ModelWritable = Partial<Omit<ModelRow, 'id' | 'created_at' | 'updated_at'>>;
export type ModelInsert = Pick<ModelRow, 'name' | 'type' | 'language'> & ModelWritable;

export class ModelRepository {
  constructor(private readonly db: Db) {}

  list(): ModelRow[] {
    return prepared(this.db, 'SELECT * FROM models ORDER BY id').all() as ModelRow[];
  }

  /** The embedding models with what names their space (read on every search: narrow). */
  embeddingSpaces(): Pick<ModelRow, 'name' | 'catalogue' | 'repo' | 'revision'>[] {
    return prepared(
      this.db,
      "SELECT name, catalogue, repo, revision FROM models WHERE type = 'embedding' ORDER BY id",
    ).all() as Pick<ModelRow, 'name' | 'catalogue' | 'repo' | 'revision'>[];
  }

  findById(id: number): ModelRow | undefined {
    return prepared(this.db, 'SELECT * FROM models WHERE id = ?').get(id) as ModelRow | undefined;
  }

  /** Names compare without case (the column's collation). */
  findByName(name: string): ModelRow | undefined {
    return prepared(this.db, 'SELECT * FROM models WHERE name = ?').get(name) as
      ModelRow | undefined;
  }

  findByCatalogue(key: string): ModelRow | undefined {
    return prepared(this.db, 'SELECT * FROM models WHERE catalogue = ?').get(key) as
      ModelRow | undefined;
  }

  /** The row an install job works for (while the job is its latest). */
  findByJobId(jobId: number): ModelRow | undefined {
    return prepared(this.db, 'SELECT * FROM models WHERE job_id = ?').get(jobId) as
      ModelRow | undefined;
  }

  listByStatus(statuses: readonly string[]): ModelRow[] {
    return this.db
      .prepare(
        `SELECT * FROM models WHERE status IN (${statuses.map(() => '?').join(',')}) ORDER BY id`,
      )
      .all(...statuses) as ModelRow[];
  }

  /** The rows whose files are (or would be) the directory of repo@revision. */
  listByRepo(repo: string, revision: string): ModelRow[] {
    return prepared(
      this.db,
      'SELECT * FROM models WHERE repo = ? AND revision = ? ORDER BY id',
    ).all(repo, revision) as ModelRow[];
  }

  insert(r: ModelInsert): number {
    const now = new Date().toISOString();
    const row = { ...r, created_at: now, updated_at: now };
    const keys = Object.keys(row);
    return Number(
      this.db
        .prepare(
          `INSERT INTO models (${keys.join(', ')}) VALUES (${keys.map((k) => `@${k}`).join(', ')})`,
        )
        .run(row).lastInsertRowid,
    );
  }

  /**
   * Inserts a catalogue row unless its key (or its name) is already there: seeding leaves an
   * operator's edits alone. Answers whether a row was added.
   */
  insertIfAbsent(r: ModelInsert & { catalogue: string }): boolean {
    const now = new Date().toISOString();
    const row = { ...r, created_at: now, updated_at: now };
    const keys = Object.keys(row);
    return (
      this.db
        .prepare(
          `INSERT OR IGNORE INTO models (${keys.join(', ')}) VALUES (${keys.map((k) => `@${k}`).join(', ')})`,
        )
        .run(row).changes === 1
    );
  }

  /**
   * Writes `fields`; with `guard`, only while the row is in one of its statuses and/or still
   * belongs to that job (a job's late write must not touch the next install's row).
   */
  update(
    id: number,
    fields: ModelWritable,
    guard: { statuses?: readonly string[]; jobId?: number } = {},
  ): boolean {
    const keys = Object.keys(fields);
    const sets = [...keys.map((k) => `${k} = @${k}`), 'updated_at = @updated_at'].join(', ');
    let where = 'id = @id';
    if (guard.statuses)
      where += ` AND status IN (${guard.statuses.map((s) => `'${s}'`).join(',')})`;
    if (guard.jobId !== undefined) where += ' AND job_id = @guard_job_id';
    return (
      this.db.prepare(`UPDATE models SET ${sets} WHERE ${where}`).run({
        ...fields,
        id,
        guard_job_id: guard.jobId ?? null,
        updated_at: new Date().toISOString(),
      }).changes === 1
    );
  }

  /** Clears the active flag of the other models of a type (one active embedding model). */
  deactivateOthers(type: string, keepId: number): number[] {
    return this.db
      .prepare(
        'UPDATE models SET active = 0, updated_at = ? WHERE type = ? AND id != ? AND active = 1 RETURNING id',
      )
      .pluck()
      .all(new Date().toISOString(), type, keepId) as number[];
  }
}
