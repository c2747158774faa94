/** Wire objects for the playground's tests. */
import type { Job, SaveSegmentsResponse } from '@adam/contracts';

export function job(over: Partial<Job> = {}): Job {
  return {
    id: 7,
    type: 'save_segments',
    status: 'pending',
    priority: 'normal',
    urls: [],
    progress: 0,
    stage: null,
    stats: {},
    errors: [],
    filters: {},
    metadata: {},
    worker_id: null,
    attempts: 0,
    created_at: '2026-01-01T00:00:00Z',
    started_at: null,
    completed_at: null,
    failed_at: null,
    cancelled_at: null,
    heartbeat_at: null,
    updated_at: '2026-01-01T00:00:00Z',
    ...over,
  };
}

export const saved: SaveSegmentsResponse = {
  job_id: 7,
  status: 'pending',
  segments_created: 0,
  duplicates: 0,
  snippet_ids: [],
  diagnostics: null,
};
