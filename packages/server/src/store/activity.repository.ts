import type { ActivityItem } from '@adam/contracts';
import type { Db } from './db.js';

export type NewActivity = Omit<ActivityItem, 'id' | 'created_at'>;

export class ActivityRepository {
  constructor(private readonly db: Db) {}

  insert(a: NewActivity, at: string): number {
    return Number(
      this.db
        .prepare(
          'INSERT INTO activity (kind, message, level, job_id, created_at) VALUES (?, ?, ?, ?, ?)',
        )
        .run(a.kind, a.message, a.level, a.job_id, at).lastInsertRowid,
    );
  }

  listRecent(limit: number): ActivityItem[] {
    return this.db
      .prepare(
        'SELECT id, kind, message, level, job_id, created_at FROM activity ORDER BY id DESC LIMIT ?',
      )
      .all(limit) as ActivityItem[];
  }

  /**
   * Drops the job link of entries whose job is not in `jobs`, or is a job created after the
   * entry (an id given again before ids had a floor): after a restore, a link to a job the
   * restore took away would open another job, or none. Answers how many lost their link.
   */
  unlinkMissingJobs(): number {
    return this.db
      .prepare(
        `UPDATE activity SET job_id = NULL WHERE job_id IS NOT NULL AND NOT EXISTS
           (SELECT 1 FROM jobs WHERE jobs.id = activity.job_id AND jobs.created_at <= activity.created_at)`,
      )
      .run().changes;
  }

  /** Deletes all but the newest `keep` rows; answers how many went. */
  deleteAllButNewest(keep: number): number {
    return this.db
      .prepare(
        'DELETE FROM activity WHERE id <= (SELECT id FROM activity ORDER BY id DESC LIMIT 1 OFFSET ?)',
      )
      .run(keep).changes;
  }
}
