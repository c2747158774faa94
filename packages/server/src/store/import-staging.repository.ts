import { prepared, type Db } from './db.js';
import type { NewSnippet } from './snippet.repository.js';

/** Where a staged row's vector came from (the import's counts). */
export type VectorOrigin = 'reused' | 'embedded' | 'analysed';

export type StagedSnippet = Omit<NewSnippet, 'job_id'> & { vector_origin: VectorOrigin };
export type StagedRow = StagedSnippet & { id: number };

/** An import's rows before they become snippets (migration 17). */
export class ImportStagingRepository {
  constructor(private readonly db: Db) {}

  insertMany(jobId: number, rows: readonly StagedSnippet[]): void {
    const insert = prepared(
      this.db,
      `INSERT INTO import_staging (job_id, text, text_hash, theme, quality_score, language, word_count,
         size_bytes, source_title, source_url, metadata, embedding, embedder_id, vector_origin)
       VALUES (@job_id, @text, @text_hash, @theme, @quality_score, @language, @word_count,
         @size_bytes, @source_title, @source_url, @metadata, @embedding, @embedder_id, @vector_origin)`,
    );
    this.db.transaction(() => {
      for (const r of rows) insert.run({ ...r, job_id: jobId });
    })();
  }

  /** A keyset page of a job's rows, in the order they were staged. */
  pageAfter(jobId: number, after: number, limit: number): StagedRow[] {
    return prepared(
      this.db,
      'SELECT * FROM import_staging WHERE job_id = ? AND id > ? ORDER BY id LIMIT ?',
    ).all(jobId, after, limit) as StagedRow[];
  }

  countForJob(jobId: number): number {
    return prepared(this.db, 'SELECT COUNT(*) FROM import_staging WHERE job_id = ?')
      .pluck()
      .get(jobId) as number;
  }

  deleteForJob(jobId: number): number {
    return prepared(this.db, 'DELETE FROM import_staging WHERE job_id = ?').run(jobId).changes;
  }

  /** Rows of jobs that are no longer running (a crash mid-import): nothing will commit them. */
  deleteOrphans(): number {
    return prepared(
      this.db,
      `DELETE FROM import_staging WHERE job_id NOT IN
         (SELECT id FROM jobs WHERE status IN ('pending', 'processing'))`,
    ).run().changes;
  }
}
