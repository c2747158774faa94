import type { RealtimeMetrics } from '@adam/contracts';
import type { Db } from '../store/db.js';

const JOB_STATUSES = ['pending', 'processing', 'completed', 'failed', 'cancelled'] as const;
type JobCounts = Record<(typeof JOB_STATUSES)[number], number>;

export interface LiveStats {
  [key: string]: unknown;
  total_snippets: number;
  total_vectors: number;
  pending_index: number;
  jobs: JobCounts;
  workers: Record<string, unknown>;
  metrics: RealtimeMetrics;
  uptime_s: number;
}

/**
 * The counts the realtime channel sends in initial_state and stats_update. Each call is a few
 * indexed COUNTs, cheap enough to run on every request_update.
 */
export function liveStats(deps: {
  db: Db;
  vectors: () => number;
  workers: () => Record<string, unknown> | Promise<Record<string, unknown>>;
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

  const jobCounts = (): JobCounts => {
    const counts = Object.fromEntries(JOB_STATUSES.map((k) => [k, 0])) as JobCounts;
    // The jobs table arrives with a later migration: zeros until it exists.
    if (!jobsByStatus && hasJobs.get()) {
      jobsByStatus = deps.db.prepare('SELECT status, COUNT(*) AS n FROM jobs GROUP BY status');
    }
    if (!jobsByStatus) return counts;
    for (const row of jobsByStatus.all() as { status: string; n: number }[]) {
      if (row.status in counts) counts[row.status as keyof JobCounts] = row.n;
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
