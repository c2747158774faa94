import { prepared, type Db } from './db.js';
import type { NewSnippet } from './snippet.repository.js';

/** Where a staged row's vector came from (the import's counts). */
export type VectorOrigin = 'reused' | 'embedded' | 'analysed';

export type StagedSnippet = Omit<NewSnippet, 'job_id'> & { vector_origin: VectorOrigin };
export type StagedRow = StagedSnippet & { id: number };

/** What a moved import holds, counted over its staged rows. */
export interface MovedCounts {
  imported: number;
  duplicates: number;
  reused: number;
  embedded: number;
}

/**
 * An import's rows before they become snippets (migration 17). `snippet_id` is NULL until a row
 * is moved, then the snippet it became (0: it was a duplicate).
 */
export class ImportStagingRepository {
  constructor(private readonly db: Db) {}

  insertMany(jobId: number, rows: readonly StagedSnippet[]): void {
    const insert = prepared(
      this.db,
      `INSERT INTO import_staging (job_id, text, text_hash, theme, quality_score, language, word_count,
         size_bytes, source_title, source_url, section, metadata, embedding, embedder_id, vector_origin)
       VALUES (@job_id, @text, @text_hash, @theme, @quality_score, @language, @word_count,
         @size_bytes, @source_title, @source_url, @section, @metadata, @embedding, @embedder_id,
         @vector_origin)`,
    );
    this.db.transaction(() => {
      for (const r of rows) insert.run({ ...r, section: r.section ?? null, job_id: jobId });
    })();
  }

  /** The rows of a job staged after `after` still to move, in the order they were staged (a seek, never a scan of the moved ones). */
  pageToMove(jobId: number, after: number, limit: number): StagedRow[] {
    return prepared(
      this.db,
      `SELECT id, text, text_hash, theme, quality_score, language, word_count, size_bytes,
         source_title, source_url, section, metadata, embedding, embedder_id, vector_origin
       FROM import_staging WHERE job_id = ? AND id > ? AND snippet_id IS NULL ORDER BY id LIMIT ?`,
    ).all(jobId, after, limit) as StagedRow[];
  }

  /**
   * Records what each moved row became (null: a duplicate, kept as 0) and drops its text and
   * vector, now in snippets: their pages are freed a batch at a time, not all in the last step.
   */
  markMoved(moved: ReadonlyArray<{ id: number; snippet_id: number | null }>): void {
    const stmt = prepared(
      this.db,
      `UPDATE import_staging SET snippet_id = ?, text = '', metadata = '', embedding = NULL
       WHERE id = ?`,
    );
    this.db.transaction(() => {
      for (const m of moved) stmt.run(m.snippet_id ?? 0, m.id);
    })();
  }

  /** Snippets a job's move made, up to `limit` (all of them when not given). */
  movedSnippetIds(jobId: number, limit = -1): number[] {
    return prepared(
      this.db,
      'SELECT snippet_id FROM import_staging WHERE job_id = ? AND snippet_id > 0 ORDER BY id LIMIT ?',
    )
      .pluck()
      .all(jobId, limit) as number[];
  }

  /** Drops the staged rows of these snippets (their move was undone). */
  deleteMoved(jobId: number, snippetIds: readonly number[]): void {
    const stmt = prepared(
      this.db,
      'DELETE FROM import_staging WHERE job_id = ? AND snippet_id = ?',
    );
    this.db.transaction(() => {
      for (const id of snippetIds) stmt.run(jobId, id);
    })();
  }

  movedCounts(jobId: number): MovedCounts {
    return prepared(
      this.db,
      `SELECT COALESCE(SUM(snippet_id > 0), 0) AS imported, COALESCE(SUM(snippet_id = 0), 0) AS duplicates,
         COALESCE(SUM(snippet_id > 0 AND vector_origin = 'reused'), 0) AS reused,
         COALESCE(SUM(snippet_id > 0 AND vector_origin = 'embedded'), 0) AS embedded
       FROM import_staging WHERE job_id = ?`,
    ).get(jobId) as MovedCounts;
  }

  /**
   * The sources of a job's moved rows: each URL with the title and language of its first row
   * (SQLite takes bare columns from the row MIN picks) and its count.
   */
  movedSources(
    jobId: number,
  ): { url: string; title: string | null; language: string | null; n: number }[] {
    return prepared(
      this.db,
      `SELECT source_url AS url, source_title AS title, language, MIN(id) AS first, COUNT(*) AS n
       FROM import_staging WHERE job_id = ? AND snippet_id > 0 AND source_url IS NOT NULL
       GROUP BY source_url`,
    ).all(jobId) as { url: string; title: string | null; language: string | null; n: number }[];
  }

  countForJob(jobId: number): number {
    return prepared(this.db, 'SELECT COUNT(*) FROM import_staging WHERE job_id = ?')
      .pluck()
      .get(jobId) as number;
  }

  deleteForJob(jobId: number): number {
    return prepared(this.db, 'DELETE FROM import_staging WHERE job_id = ?').run(jobId).changes;
  }

  /** Jobs with staged rows that no longer run (a crash mid-import): their move is undone. */
  abandonedJobIds(): number[] {
    return prepared(
      this.db,
      `SELECT DISTINCT job_id FROM import_staging WHERE job_id NOT IN
         (SELECT id FROM jobs WHERE status IN ('pending', 'processing'))`,
    )
      .pluck()
      .all() as number[];
  }
}
