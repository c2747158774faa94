import type { SystemMetrics } from '@adam/contracts';
import { prepared, type Db } from './db.js';

/** raw: the 5 s samples; minute and ten_minutes: the means of their buckets. */
export type MetricsTier = 'raw' | 'minute' | 'ten_minutes';

/** A point of the history: `ts` (epoch ms) is the sample's time or its bucket's start. */
export interface MetricsPoint {
  ts: number;
  metrics: SystemMetrics;
}

export class MetricsHistoryRepository {
  constructor(private readonly db: Db) {}

  /** A point already stored at that tier and time is replaced. */
  insertMany(tier: MetricsTier, points: readonly MetricsPoint[]): void {
    const stmt = prepared(
      this.db,
      'INSERT OR REPLACE INTO metrics_history (tier, ts, data) VALUES (?, ?, ?)',
    );
    this.db.transaction(() => {
      for (const p of points) stmt.run(tier, p.ts, JSON.stringify(p.metrics));
    })();
  }

  /** Oldest first. */
  listSince(tier: MetricsTier, sinceTs: number): MetricsPoint[] {
    const rows = prepared(
      this.db,
      'SELECT ts, data FROM metrics_history WHERE tier = ? AND ts >= ? ORDER BY ts',
    ).all(tier, sinceTs) as { ts: number; data: string }[];
    return rows.map((r) => ({ ts: r.ts, metrics: JSON.parse(r.data) as SystemMetrics }));
  }

  latestTs(tier: MetricsTier): number | null {
    const row = prepared(this.db, 'SELECT MAX(ts) AS ts FROM metrics_history WHERE tier = ?').get(
      tier,
    ) as { ts: number | null };
    return row.ts;
  }

  deleteOlderThan(tier: MetricsTier, ts: number): number {
    return prepared(this.db, 'DELETE FROM metrics_history WHERE tier = ? AND ts < ?').run(tier, ts)
      .changes;
  }
}
