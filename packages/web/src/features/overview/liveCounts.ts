/**
 * The overview's counts from two real sources: GET /analytics/overview (refetched after job
 * events and every OVERVIEW_POLL_MS) and the channel's pushed LiveStats (initial_state /
 * stats_update). Where both carry a figure, the newer one wins, so a push shows at once and a
 * refetch after a job event is not hidden by an older push.
 */
import type { LiveStats, OverviewStats } from '@adam/contracts';

export interface OverviewCounts {
  totalSnippets: number | null;
  totalVectors: number | null;
  /** Only the channel reports it. */
  pendingIndex: number | null;
  activeJobs: number | null;
  pendingJobs: number | null;
  segmentsPerSecond: number | null;
  /** Jobs by status and worker state: only the channel reports them. */
  jobs: LiveStats['jobs'] | null;
  workers: LiveStats['workers'] | null;
  /** Where the shared figures come from. */
  source: 'live' | 'overview' | null;
  /** When the live figures were taken (ISO), null without a push yet. */
  liveAt: string | null;
}

const time = (iso: string | undefined) => (iso ? Date.parse(iso) : Number.NaN);

/** True when the push is at least as recent as the overview answer (or either has no valid time). */
function liveIsNewer(stats: OverviewStats, live: LiveStats): boolean {
  const liveAt = time(live.metrics.timestamp);
  const statsAt = time(stats.generated_at);
  if (Number.isNaN(liveAt) || Number.isNaN(statsAt)) return true;
  return liveAt >= statsAt;
}

export function overviewCounts(
  stats: OverviewStats | undefined,
  live: LiveStats | undefined,
): OverviewCounts {
  const liveOnly = {
    pendingIndex: live?.pending_index ?? null,
    jobs: live?.jobs ?? null,
    workers: live?.workers ?? null,
    liveAt: live?.metrics.timestamp ?? null,
  };
  if (live && (!stats || liveIsNewer(stats, live))) {
    return {
      ...liveOnly,
      totalSnippets: live.total_snippets,
      totalVectors: live.total_vectors,
      activeJobs: live.jobs.processing,
      pendingJobs: live.jobs.pending,
      segmentsPerSecond: live.metrics.segmentsPerSecond,
      source: 'live',
    };
  }
  return {
    ...liveOnly,
    totalSnippets: stats?.total_snippets ?? null,
    totalVectors: stats?.total_vectors ?? null,
    activeJobs: stats?.active_jobs ?? null,
    pendingJobs: stats?.pending_jobs ?? null,
    segmentsPerSecond: stats?.segments_per_second ?? null,
    source: stats ? 'overview' : null,
  };
}
