import { describe, expect, it } from 'vitest';
import { QueryClient } from '@tanstack/react-query';
import type { InstallProgress } from '@adam/contracts';
import {
  appendModelLog,
  applyModelProgress,
  modelKeys,
  storeStartAnswer,
  type ModelLog,
} from './models.api';
import { actionResult } from './models.fixtures';

describe('model cache updates', () => {
  it('keeps a failure pushed while the install call was in flight instead of the later start answer', () => {
    const qc = new QueryClient();
    const before = qc.getQueryData<InstallProgress>(modelKeys.progress(2));
    applyModelProgress(qc, { model_id: 2, status: 'error', progress: 0, message: 'no such host' });
    storeStartAnswer(qc, actionResult(2, { message: 'Install queued', job_id: 7 }), before);
    expect(qc.getQueryData<InstallProgress>(modelKeys.progress(2))).toMatchObject({
      status: 'error',
      message: 'no such host',
    });
    // Its job is kept for the installation logs all the same.
    expect(qc.getQueryData<ModelLog>(modelKeys.log(2))?.jobId).toBe(7);

    // Nothing moved meanwhile: the answer is what the card shows.
    const now = qc.getQueryData<InstallProgress>(modelKeys.progress(3));
    storeStartAnswer(qc, actionResult(3, { message: 'Install queued', job_id: 8 }), now);
    expect(qc.getQueryData<InstallProgress>(modelKeys.progress(3))).toMatchObject({
      status: 'downloading',
      message: 'Install queued',
      job_id: 8,
    });
    expect(qc.getQueryData<ModelLog>(modelKeys.log(3))?.jobId).toBe(8);
  });

  it('logs a message once however often a poll repeats it', () => {
    const qc = new QueryClient();
    for (let i = 0; i < 3; i++) {
      appendModelLog(qc, 2, { status: 'downloading', progress: i * 10, message: 'Downloading' });
    }
    appendModelLog(qc, 2, { status: 'installed', progress: 100, message: 'Installed' });
    expect(qc.getQueryData<ModelLog>(modelKeys.log(2))?.entries.map((e) => e.message)).toEqual([
      'Downloading',
      'Installed',
    ]);
  });
});
