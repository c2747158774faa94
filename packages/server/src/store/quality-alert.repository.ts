import type { EvaluationTrigger, LostQuery } from '@adam/contracts';
import type { Db } from './db.js';

export interface QualityAlertRow {
  id: number;
  run_id: number;
  set_id: number;
  set_name: string;
  mode: string;
  base_run_id: number;
  base_ndcg_10: number;
  head_ndcg_10: number;
  fall: number;
  threshold: number;
  trigger: EvaluationTrigger;
  lost_count: number;
  /** JSON of LostQuery[]. */
  lost_queries: string;
  created_at: string;
  dismissed_at: string | null;
  dismissed_by: string | null;
}

export interface NewQualityAlert {
  run_id: number;
  set_id: number;
  mode: string;
  base_run_id: number;
  base_ndcg_10: number;
  head_ndcg_10: number;
  fall: number;
  threshold: number;
  lost_count: number;
  lost_queries: LostQuery[];
}

/** Alerts are listed with a bound: a flapping set cannot make the overview's answer unbounded. */
const LIST_LIMIT = 200;

const SELECT = `SELECT a.*, s.name AS set_name, r."trigger" AS "trigger" FROM quality_alerts a
  JOIN eval_sets s ON s.id = a.set_id JOIN eval_runs r ON r.id = a.run_id`;

/** Drop alerts of the evaluation watch. */
export class QualityAlertRepository {
  constructor(private readonly db: Db) {}

  /** Answers the new alert's id, or null when the run already has one for the mode. */
  insert(a: NewQualityAlert, now: string): number | null {
    const info = this.db
      .prepare(
        `INSERT OR IGNORE INTO quality_alerts (run_id, set_id, mode, base_run_id, base_ndcg_10,
         head_ndcg_10, fall, threshold, lost_count, lost_queries, created_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      )
      .run(
        a.run_id,
        a.set_id,
        a.mode,
        a.base_run_id,
        a.base_ndcg_10,
        a.head_ndcg_10,
        a.fall,
        a.threshold,
        a.lost_count,
        JSON.stringify(a.lost_queries),
        now,
      );
    return info.changes > 0 ? Number(info.lastInsertRowid) : null;
  }

  findById(id: number): QualityAlertRow | undefined {
    return this.db.prepare(`${SELECT} WHERE a.id = ?`).get(id) as QualityAlertRow | undefined;
  }

  /** Newest first; the open ones only unless `all`. */
  list(all: boolean): QualityAlertRow[] {
    return this.db
      .prepare(
        `${SELECT} ${all ? '' : 'WHERE a.dismissed_at IS NULL'} ORDER BY a.id DESC LIMIT ${LIST_LIMIT}`,
      )
      .all() as QualityAlertRow[];
  }

  /** Dismisses an open alert; false when it was dismissed already. */
  dismiss(id: number, by: string, now: string): boolean {
    return (
      this.db
        .prepare(
          'UPDATE quality_alerts SET dismissed_at = ?, dismissed_by = ? WHERE id = ? AND dismissed_at IS NULL',
        )
        .run(now, by, id).changes > 0
    );
  }
}
