/** Fetchers, query keys and hooks of the job calls (spec 002 §7: /sources/jobs/...). */
import type { Job, JobList } from '@adam/contracts';

export const JOB_TABS = ['active', 'queue', 'history', 'stuck'] as const;
export type JobTab = (typeof JOB_TABS)[number];

export const jobKeys = {
  all: ['jobs'] as const,
  /** Every cached job list holds a JobList (tabs, status filters, find results). */
  lists: ['jobs', 'list'] as const,
  list: (tab: JobTab) => ['jobs', 'list', tab] as const,
  detail: (id: number) => ['jobs', 'detail', id] as const,
  errors: (id: number) => ['jobs', 'errors', id] as const,
  throughput: ['jobs', 'throughput'] as const,
  find: (q: string) => ['jobs', 'find', q] as const,
};

/** The fields job_progress carries, applied to a cached job. */
export interface JobProgressPatch {
  job_id: number;
  progress: number;
  stage: string | null;
  stats: Record<string, unknown>;
}

export function patchJob(job: Job, patch: JobProgressPatch): Job {
  if (job.id !== patch.job_id) return job;
  return {
    ...job,
    // A pending job that reports progress has been claimed.
    status: job.status === 'pending' ? 'processing' : job.status,
    progress: patch.progress,
    stage: patch.stage,
    stats: { ...job.stats, ...patch.stats },
  };
}

export function patchJobList(
  list: JobList | undefined,
  patch: JobProgressPatch,
): JobList | undefined {
  if (!list || !list.jobs.some((job) => job.id === patch.job_id)) return list;
  return { ...list, jobs: list.jobs.map((job) => patchJob(job, patch)) };
}
