import { JOB_STATUSES, type ByStatus, type LiveStats, type RealtimeMetrics } from '@adam/contracts';
import type { Db } from '../store/db.js';

/**
 * The counts the realtime channel sends in initial_state and stats_update. Each call is a few
 * indexed COUNTs, cheap enough to run on every request_update.
 */
export function liveStats(deps: {
  db: Db;
  vectors: () => number;
  workers: () => LiveStats['workers'] | Promise<LiveStats['workers']>;
  metrics: () => RealtimeMetrics;
}): () => Promise<LiveStats> {
  const startedAt = Date.now();
  const totalSnippets = deps.db.prepare('SELECT COUNT(*) FROM snippets').pluck();
  // Counts only the rows the partial index snippets_pending covers.
  const pending = deps.db.prepare('SELECT COUNT(*) FROM snippets WHERE index_pending = 1').pluck();
  const hasJobs = deps.db
    .prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'jobs'")
    .pluck();
  let jobsByStatus: { all: () => unknown[] } | null = null;

  const jobCounts = (): ByStatus => {
    const counts = Object.fromEntries(JOB_STATUSES.map((k) => [k, 0])) as ByStatus;
    // The jobs table arrives with a later migration: zeros until it exists.
    if (!jobsByStatus && hasJobs.get()) {
      jobsByStatus = deps.db.prepare('SELECT status, COUNT(*) AS n FROM jobs GROUP BY status');
    }
    if (!jobsByStatus) return counts;
    for (const row of jobsByStatus.all() as { status: string; n: number }[]) {
      if (row.status in counts) counts[row.status as keyof ByStatus] = row.n;
    }
    return counts;
  };

  return async () => ({
    total_snippets: totalSnippets.get() as number,
    total_vectors: deps.vectors(),
    pending_index: pending.get() as number,
    jobs: jobCounts(),
    workers: await deps.workers(),
    metrics: deps.metrics(),
    uptime_s: Math.round((Date.now() - startedAt) / 1000),
  });
}
