/**
 * install_model: downloads a model's files from the hub into the data directory and registers
 * them. A server job (runsOn 'server'): the files belong to the server's data directory, which
 * an `adam worker` on another machine does not have, so in the Redis mode too it runs on the
 * server, in the embedded queue's own lane for installs beside the job slots: a slow hub holds up
 * no other job. Progress is in bytes, on the job and on the model's row (model_progress events);
 * a cancel aborts the transfer at once and keeps the partial files, so installing again resumes
 * them with Range requests, as does a job the server's stop put back in the queue. A failed
 * install keeps nothing.
 */
import { z } from 'zod';
import { downloadRepo, HubError, type DownloadResult } from '../embedding/hub-download.js';
import { OPTIONAL_MODEL_FILES, REQUIRED_MODEL_FILES } from '../embedding/model-files.js';
import { defineJob, stoppedOutcome } from './define-job.js';

const InstallModelInput = z.object({ model_id: z.number().int().positive() });
export type InstallModelInput = z.output<typeof InstallModelInput>;

/** How often the job looks at its cancel flag while bytes flow (or do not). */
const STOP_POLL_MS = 200;
/** The job's progress while downloading stays under 1, which only an installed model reads. */
const MAX_DOWNLOAD_PROGRESS = 0.99;

export const installModelJob = defineJob<InstallModelInput>({
  type: 'install_model',
  runsOn: 'server',
  input: InstallModelInput,

  async run(input, ctx, deps) {
    const { models } = deps;
    const id = input.model_id;
    const jobId = ctx.job.id;
    ctx.progress({ progress: 0, stage: 'Waiting for the model' });
    const plan = await models.beginInstall(id, jobId);
    if (!plan) {
      ctx.setResult({ model_id: id, skipped: 'the model no longer waits for this job' });
      return { status: 'completed', segments_created: 0 };
    }
    const controller = new AbortController();
    const poll = setInterval(() => {
      if (ctx.shouldStop()) controller.abort();
    }, STOP_POLL_MS);
    try {
      let download: DownloadResult | null = null;
      if (!plan.present) {
        ctx.progress({ stage: `Downloading ${plan.repo}@${plan.revision}` });
        download = await downloadRepo({
          fetcher: models.hub.fetcher,
          hubUrl: models.hub.url,
          repo: plan.repo,
          revision: plan.revision,
          required: REQUIRED_MODEL_FILES,
          optional: OPTIONAL_MODEL_FILES,
          destDir: plan.destDir,
          stagingDir: plan.stagingDir,
          signal: controller.signal,
          idleTimeoutMs: models.hub.idleTimeoutMs,
          onProgress: (p) => {
            models.installProgress(id, jobId, p);
            ctx.progress({
              // 1 only once installed: the last file may still fail its checksum.
              progress: p.totalBytes
                ? Math.min(MAX_DOWNLOAD_PROGRESS, p.downloadedBytes / p.totalBytes)
                : 0,
              stage: `Downloading ${p.file}`,
            });
          },
        });
      }
      if (ctx.shouldStop()) throw new HubError('cancelled', 'Installation cancelled');
      await models.completeInstall(id, jobId, download);
      ctx.setResult({
        model_id: id,
        repo: plan.repo,
        revision: plan.revision,
        files: download?.files.length ?? null,
        bytes: download?.totalBytes ?? null,
      });
      return { status: 'completed', segments_created: 0 };
    } catch (e) {
      if (ctx.shouldStop()) {
        if (ctx.cancelled()) models.cancelInstall(id, jobId);
        else models.pauseInstall(id, jobId);
        return stoppedOutcome(ctx);
      }
      const message = (e as Error).message || String(e);
      await models.failInstall(id, jobId, message);
      ctx.addError({
        type: e instanceof HubError ? `hub_${e.code}` : 'install',
        error: (e as Error).name,
        message,
        url: null,
      });
      return { status: 'failed', error: message };
    } finally {
      clearInterval(poll);
      plan.release();
    }
  },
});
