import type { JobStats } from '@adam/contracts';
import type { IngestResult } from '../services/ingestion.service.js';
import type { JobContext } from './define-job.js';

const summary = (r: IngestResult) => {
  const accepted = r.diagnostics.find((d) => d.status === 'accepted');
  const rejected = [...r.diagnostics].reverse().find((d) => d.status === 'rejected');
  return {
    segmentation_method: r.method,
    last_fallback_reason: r.fallback_reason,
    last_rejection_reason: rejected?.reason ?? null,
    diagnostic_summary: accepted ? { snippet: accepted.snippet, score: accepted.score } : null,
  };
};

/** One ingestion's figures added to the job's running stats. */
export function statsWith(
  ctx: JobContext,
  r: IngestResult,
  warning: string | null,
): Partial<JobStats> {
  const s = ctx.stats;
  const counts = s.segmentation_stats?.counts ?? { before: 0, after: 0 };
  return {
    segments_created: (s.segments_created ?? 0) + r.segments_created,
    snippets_added: (s.snippets_added ?? 0) + r.segments_created,
    duplicates: (s.duplicates ?? 0) + r.duplicates,
    ...summary(r),
    last_warning: warning ?? s.last_warning ?? null,
    segmentation_stats: {
      method: r.method,
      counts: { before: counts.before + r.counts.before, after: counts.after + r.counts.after },
    },
  };
}
