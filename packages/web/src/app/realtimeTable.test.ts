import { describe, expect, it, vi } from 'vitest';
import { QueryClient } from '@tanstack/react-query';
import type { InstallProgress, Job, JobList, LiveStats, ModelList } from '@adam/contracts';
import { jobKeys } from '../features/jobs/jobs.api';
import { modelKeys, type ModelLog } from '../features/models/models.api';
import { model, modelList } from '../features/models/models.fixtures';
import { overviewKeys } from '../features/overview/overview.api';
import { settingsKeys } from '../features/settings/settings.api';
import { applyRealtimeMessage, REALTIME_TABLE } from './realtimeTable';

const at = '2026-11-23T10:00:00.000Z';

function job(id: number, overrides: Partial<Job> = {}): Job {
  return {
    id,
    type: 'process_urls',
    status: 'processing',
    priority: 'normal',
    urls: [],
    progress: 0.1,
    stage: 'fetching',
    stats: { segments_created: 1 },
    errors: [],
    filters: {},
    metadata: {},
    worker_id: null,
    attempts: 1,
    created_at: at,
    started_at: at,
    completed_at: null,
    failed_at: null,
    cancelled_at: null,
    heartbeat_at: null,
    updated_at: at,
    ...overrides,
  };
}

const byStatus = { pending: 0, processing: 2, completed: 0, failed: 0, cancelled: 0 };
const list = (...jobs: Job[]): JobList => ({ jobs, total: jobs.length, by_status: byStatus });

describe('realtime event → query-key table', () => {
  it('job_progress updates the job in place in every cached list and its record, without refetching', () => {
    const qc = new QueryClient();
    qc.setQueryData(jobKeys.list('active'), list(job(1), job(2)));
    qc.setQueryData(jobKeys.detail(2), job(2));
    const invalidate = vi.spyOn(qc, 'invalidateQueries');
    applyRealtimeMessage(qc, {
      type: 'job_progress',
      job_id: 2,
      progress: 0.6,
      stage: 'embedding',
      stats: { segments_created: 7 },
      segmentation_method: 'semantic',
      last_fallback_reason: null,
      timestamp: at,
    });
    const jobs = qc.getQueryData<JobList>(jobKeys.list('active'))!.jobs;
    expect(jobs[0]).toEqual(job(1));
    expect(jobs[1]).toMatchObject({
      progress: 0.6,
      stage: 'embedding',
      stats: { segments_created: 7 },
    });
    expect(qc.getQueryData<Job>(jobKeys.detail(2))).toMatchObject({ progress: 0.6 });
    expect(invalidate).not.toHaveBeenCalled();
  });

  it.each(['job_created', 'job_completed', 'job_failed'] as const)(
    '%s invalidates the job lists',
    (type) => {
      const qc = new QueryClient();
      const invalidate = vi.spyOn(qc, 'invalidateQueries');
      const base = { job_id: 4, timestamp: at };
      const message =
        type === 'job_created'
          ? { type, ...base, job_type: 'process_urls', status: 'pending', priority: 'normal' }
          : type === 'job_completed'
            ? { type, ...base, segments_created: 3 }
            : { type, ...base, error: 'boom' };
      applyRealtimeMessage(qc, message);
      expect(invalidate).toHaveBeenCalledWith({ queryKey: jobKeys.lists });
    },
  );

  it('settings.updated refreshes that section only; stats_update feeds the overview counts', () => {
    const qc = new QueryClient();
    const invalidate = vi.spyOn(qc, 'invalidateQueries');
    applyRealtimeMessage(qc, { type: 'settings.updated', section: 'processing', timestamp: at });
    expect(invalidate).toHaveBeenCalledTimes(1);
    expect(invalidate).toHaveBeenCalledWith({ queryKey: settingsKeys.section('processing') });

    const stats = { total_snippets: 12 } as unknown as LiveStats;
    applyRealtimeMessage(qc, { type: 'stats_update', stats, timestamp: at });
    expect(qc.getQueryData(overviewKeys.live)).toBe(stats);
  });

  it('model_progress moves the model in place while it downloads, and refetches its list once it settles', () => {
    const qc = new QueryClient();
    qc.setQueryData(modelKeys.list, modelList([model(1), model(2)]));
    const invalidate = vi.spyOn(qc, 'invalidateQueries');
    const push = (status: string, progress: number, message: string) =>
      applyRealtimeMessage(qc, {
        type: 'model_progress',
        model_id: 2,
        status,
        progress,
        message,
        timestamp: at,
      });

    push('downloading', 42.5, 'Downloading model.onnx');
    expect(qc.getQueryData<InstallProgress>(modelKeys.progress(2))).toMatchObject({
      model_id: 2,
      progress: 42.5,
      status: 'downloading',
      message: 'Downloading model.onnx',
    });
    const models = qc.getQueryData<ModelList>(modelKeys.list)!.models;
    expect(models[1]?.status).toBe('downloading');
    expect(models[0]).toEqual(model(1));
    expect(invalidate).not.toHaveBeenCalled();

    push('installed', 100, 'Installed');
    expect(qc.getQueryData<ModelList>(modelKeys.list)!.models[1]?.status).toBe('installed');
    expect(invalidate).toHaveBeenCalledWith({ queryKey: modelKeys.list });
    expect(invalidate).toHaveBeenCalledWith({ queryKey: modelKeys.languagePacks });
    expect(invalidate).toHaveBeenCalledWith({ queryKey: modelKeys.cleanupFiles });
    // Both messages are kept for the installation logs.
    expect(qc.getQueryData<ModelLog>(modelKeys.log(2))?.entries.map((e) => e.message)).toEqual([
      'Downloading model.onnx',
      'Installed',
    ]);
  });

  it("segment_progress keeps the job's processed/total and stage in the cache, refetching nothing", () => {
    const qc = new QueryClient();
    const invalidate = vi.spyOn(qc, 'invalidateQueries');
    const push = (job_id: number | null, processed: number) =>
      applyRealtimeMessage(qc, {
        type: 'segment_progress',
        job_id,
        processed,
        total: 300,
        stage: `Re-indexed ${processed} of 300 snippets`,
        timestamp: at,
      });
    push(5, 120);
    push(5, 180);
    push(null, 7);
    expect(qc.getQueryData(jobKeys.segments(5))).toEqual({
      processed: 180,
      total: 300,
      stage: 'Re-indexed 180 of 300 snippets',
    });
    expect(qc.getQueryData(jobKeys.segments(6))).toBeUndefined();
    expect(invalidate).not.toHaveBeenCalled();
    // A deleted job takes its figures with it.
    applyRealtimeMessage(qc, { type: 'job_deleted', job_id: 5, timestamp: at });
    expect(qc.getQueryData(jobKeys.segments(5))).toBeUndefined();
  });

  it('ignores types it does not know', () => {
    const qc = new QueryClient();
    const invalidate = vi.spyOn(qc, 'invalidateQueries');
    applyRealtimeMessage(qc, { type: 'brand_new_event' });
    expect(invalidate).not.toHaveBeenCalled();
    expect(Object.keys(REALTIME_TABLE)).toContain('job_progress');
  });
});
