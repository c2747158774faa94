import { describe, expect, it } from 'vitest';
import { ARTICLE_MAX_BYTES } from '@adam/contracts';
import { job, saved } from './playground.fixtures';
import {
  initialSaveFlow,
  saveFailureText,
  saveFlowReducer,
  saveProgress,
  validateArticle,
  type SaveFlowAction,
  type SaveFlowState,
} from './saveFlow';

const run = (...actions: SaveFlowAction[]): SaveFlowState =>
  actions.reduce(saveFlowReducer, initialSaveFlow);

const statuses = (state: SaveFlowState) =>
  Object.fromEntries(Object.entries(state.steps).map(([id, s]) => [id, s.status]));

const TEXT = 'Honey bees make honey.';
const tracking = () =>
  run(
    { type: 'start', text: TEXT },
    { type: 'save_succeeded', response: saved },
    { type: 'worker_checked', running: 1, job: job({ status: 'processing', progress: 0.2 }) },
  );

describe('the encyclopedia save flow', () => {
  it('refuses empty (or blank) text at the validate step and skips the rest', () => {
    const state = run({ type: 'start', text: '  \n\t ' });
    expect(statuses(state)).toEqual({
      validate: 'error',
      size: 'skipped',
      save: 'skipped',
      worker: 'skipped',
      job: 'skipped',
    });
    expect(state.steps.validate.detail).toBe('Article text is empty');
    expect(state.phase).toBe('stopped');
    expect(validateArticle('')).toEqual({ step: 'validate', message: 'Article text is empty' });
  });

  it('counts the 100 kB limit in UTF-8 bytes: 102400 passes, 102401 does not', () => {
    expect(ARTICLE_MAX_BYTES).toBe(102400);
    expect(validateArticle('a'.repeat(102400))).toBeNull();
    expect(validateArticle('a'.repeat(102401))).toEqual({
      step: 'size',
      message: 'Article text exceeds 100 kB',
    });
    // 'é' is two bytes: 51200 of them are exactly the limit, one more byte is over.
    expect(validateArticle('é'.repeat(51200))).toBeNull();
    expect(validateArticle(`${'é'.repeat(51200)}a`)?.message).toBe('Article text exceeds 100 kB');
    // 'ü' in 51,201 characters would pass a character count but not the byte count.
    expect(validateArticle('ü'.repeat(51201))?.step).toBe('size');
    // A four-byte emoji: 25600 of them are 102400 bytes.
    expect(validateArticle('🐝'.repeat(25600))).toBeNull();
    expect(validateArticle('🐝'.repeat(25601))?.step).toBe('size');

    const state = run({ type: 'start', text: 'a'.repeat(102401) });
    expect(statuses(state)).toEqual({
      validate: 'success',
      size: 'error',
      save: 'skipped',
      worker: 'skipped',
      job: 'skipped',
    });
    expect(state.steps.size.detail).toContain('Article text exceeds 100 kB');
  });

  it('runs the save call after validate and check size', () => {
    const state = run({ type: 'start', text: TEXT });
    expect(statuses(state)).toMatchObject({
      validate: 'success',
      size: 'success',
      save: 'running',
    });
    expect(state.phase).toBe('running');
    expect(saveProgress(state)).toBe(50);
  });

  it('stops on a failed save call, keeping the failure for the raw details and Retry', () => {
    const failure = {
      message: 'Database is locked',
      status: 503,
      details: { detail: 'Database is locked' },
    };
    const state = run({ type: 'start', text: TEXT }, { type: 'save_failed', failure });
    expect(statuses(state)).toEqual({
      validate: 'success',
      size: 'success',
      save: 'error',
      worker: 'skipped',
      job: 'skipped',
    });
    expect(state.saveFailure).toEqual(failure);
    expect(state.phase).toBe('stopped');
    // Retry starts over from a clean slate.
    const again = saveFlowReducer(state, { type: 'start', text: TEXT });
    expect(again.saveFailure).toBeNull();
    expect(again.steps.save.status).toBe('running');
  });

  it('with no worker running: the worker step is an error and the job step skipped', () => {
    const state = run(
      { type: 'start', text: TEXT },
      { type: 'save_succeeded', response: saved },
      { type: 'worker_checked', running: 0, job: null },
    );
    expect(statuses(state)).toEqual({
      validate: 'success',
      size: 'success',
      save: 'success',
      worker: 'error',
      job: 'skipped',
    });
    expect(state.steps.worker.detail).toBe('No worker running – job will not be processed.');
    expect(state.jobId).toBe(7);
    expect(state.phase).toBe('stopped');
  });

  it('with workers listed but the job absent: no worker available, segments not saved', () => {
    const state = run(
      { type: 'start', text: TEXT },
      { type: 'save_succeeded', response: saved },
      { type: 'worker_checked', running: 2, job: null },
    );
    expect(statuses(state)).toMatchObject({ worker: 'error', job: 'skipped' });
    expect(state.steps.worker.detail).toBe('No worker available – segments were not saved.');
  });

  it('tracks the job when a worker exists, with its progress from the job record', () => {
    const state = tracking();
    expect(statuses(state)).toMatchObject({ worker: 'success', job: 'running' });
    expect(state.phase).toBe('tracking');
    expect(state.jobProgress).toBe(20);
    expect(saveProgress(state)).toBe(100);
    const later = saveFlowReducer(state, {
      type: 'job_seen',
      job: job({ status: 'processing', progress: 0.65, stage: 'embedding' }),
    });
    expect(later.jobProgress).toBe(65);
    expect(later.steps.job.detail).toBe('embedding');
  });

  it('job_completed: progress goes to 100% and the job step succeeds', () => {
    const state = saveFlowReducer(tracking(), {
      type: 'job_completed',
      jobId: 7,
      segmentsCreated: 4,
    });
    expect(state.phase).toBe('saved');
    expect(state.jobProgress).toBe(100);
    expect(state.steps.job).toEqual({ status: 'success', detail: '4 segments created' });
    // Events about other jobs change nothing.
    expect(saveFlowReducer(tracking(), { type: 'job_completed', jobId: 8 })).toEqual(tracking());
  });

  it('a completion event that beats the worker check still ends in success', () => {
    const state = run(
      { type: 'start', text: TEXT },
      { type: 'save_succeeded', response: saved },
      { type: 'job_completed', jobId: 7, segmentsCreated: 3 },
      { type: 'worker_checked', running: 1, job: job({ status: 'completed', progress: 1 }) },
    );
    expect(statuses(state)).toMatchObject({ worker: 'success', job: 'success' });
    expect(state.phase).toBe('saved');
    expect(state.jobProgress).toBe(100);
  });

  it('a job already completed when checked is a success without any event', () => {
    const state = run(
      { type: 'start', text: TEXT },
      { type: 'save_succeeded', response: saved },
      {
        type: 'worker_checked',
        running: 1,
        job: job({ status: 'completed', progress: 1, stats: { segments_created: 5 } }),
      },
    );
    expect(state.phase).toBe('saved');
    expect(state.steps.job.detail).toBe('5 segments created');
  });

  it('job_failed: the French failure text, then its errors, and Retry Job tracks the new job', () => {
    const failed = saveFlowReducer(tracking(), {
      type: 'job_failed',
      jobId: 7,
      error: 'segmenter crashed',
    });
    expect(failed.phase).toBe('failed');
    expect(failed.steps.job).toEqual({
      status: 'error',
      detail: 'Le traitement des segments a échoué',
    });
    expect(failed.jobFailure).toBe('segmenter crashed');
    expect(failed.jobErrors).toBeNull();

    const errors = [
      {
        type: 'segmentation',
        error: 'SegmenterError',
        message: 'segmenter crashed',
        url: null,
        at: '2026-01-01T00:00:01Z',
      },
    ];
    const withErrors = saveFlowReducer(failed, { type: 'job_errors', jobId: 7, errors });
    expect(withErrors.jobErrors).toEqual(errors);

    const refused = saveFlowReducer(withErrors, { type: 'retry_job_failed', message: 'busy' });
    expect(refused.steps.job.status).toBe('error');
    expect(refused.steps.job.detail).toBe('Job retry failed: busy');
    expect(refused.phase).toBe('failed');

    const relaunched = saveFlowReducer(withErrors, {
      type: 'job_relaunched',
      jobId: 9,
      job: job({ id: 9 }),
    });
    expect(relaunched.phase).toBe('tracking');
    expect(relaunched.jobId).toBe(9);
    expect(relaunched.jobProgress).toBe(0);
    expect(relaunched.jobErrors).toBeNull();
    expect(relaunched.steps.job.status).toBe('running');
    // The old job's events no longer count; the new one's do.
    expect(saveFlowReducer(relaunched, { type: 'job_completed', jobId: 7 }).phase).toBe('tracking');
    expect(saveFlowReducer(relaunched, { type: 'job_completed', jobId: 9 }).phase).toBe('saved');
  });

  it('a read finding the job failed while the channel is down stands for the event', () => {
    const state = saveFlowReducer(tracking(), {
      type: 'job_seen',
      job: job({
        status: 'failed',
        errors: [{ type: 'x', error: 'E', message: 'boom', url: null, at: 'now' }],
      }),
    });
    expect(state.phase).toBe('failed');
    expect(state.jobFailure).toBe('boom');
  });

  it('reset clears everything', () => {
    expect(saveFlowReducer(tracking(), { type: 'reset' })).toEqual(initialSaveFlow);
  });
});

describe('the save failure toast', () => {
  it("is the answer's detail or message, plus the reason when present", () => {
    expect(
      saveFailureText({ message: 'Bad Request', details: { detail: 'Article text is empty' } }),
    ).toBe('Article text is empty');
    expect(
      saveFailureText({ message: 'x', details: { message: 'Store failed', reason: 'disk full' } }),
    ).toBe('Store failed: disk full');
    expect(
      saveFailureText({
        message: 'x',
        details: { detail: 'Invalid body', errors: [{ field: 'title', message: 'too long' }] },
      }),
    ).toBe('Invalid body: title too long');
  });

  it("falls back to 'Erreur pendant la sauvegarde des segments.'", () => {
    expect(saveFailureText({ message: '', details: null })).toBe(
      'Erreur pendant la sauvegarde des segments.',
    );
    expect(saveFailureText({ message: null, details: {} })).toBe(
      'Erreur pendant la sauvegarde des segments.',
    );
  });
});
