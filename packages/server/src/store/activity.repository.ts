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

  /** Deletes all but the newest `keep` rows; answers how many went. */
  deleteAllButNewest(keep: number): number {
    return this.db
      .prepare(
        'DELETE FROM activity WHERE id <= (SELECT id FROM activity ORDER BY id DESC LIMIT 1 OFFSET ?)',
      )
      .run(keep).changes;
  }
}
