/** Job records as the server answers them, for the component tests. */
import type { Job, JobList, JobStatus } from '@adam/contracts';

export function makeJob(overrides: Partial<Job> = {}): Job {
  const id = overrides.id ?? 1;
  return {
    id,
    type: 'process_urls',
    status: 'pending',
    priority: 'normal',
    urls: [`https://example.org/articles/${id}`],
    progress: 0,
    stage: null,
    stats: {},
    errors: [],
    filters: {},
    metadata: {},
    worker_id: null,
    attempts: 0,
    created_at: '2026-03-01T10:00:00.000Z',
    started_at: null,
    completed_at: null,
    failed_at: null,
    cancelled_at: null,
    heartbeat_at: null,
    updated_at: '2026-03-01T10:00:00.000Z',
    ...overrides,
  };
}

export function jobList(jobs: Job[], total = jobs.length): JobList {
  const count = (status: JobStatus) => jobs.filter((j) => j.status === status).length;
  return {
    jobs,
    total,
    by_status: {
      pending: count('pending'),
      processing: count('processing'),
      completed: count('completed'),
      failed: count('failed'),
      cancelled: count('cancelled'),
    },
  };
}

export const jobError = (url: string, message: string) => ({
  type: 'fetch',
  error: message,
  message,
  url,
  at: '2026-03-01T10:01:00.000Z',
  diagnostic_summary: { snippet: 'Not Found', score: 0.12 },
});
