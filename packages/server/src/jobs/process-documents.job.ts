/**
 * process_documents: each uploaded file becomes a source of kind 'file'. A server job (runsOn
 * 'server'): the files wait in the server's data directory, which an `adam worker` on another
 * machine does not have, so in the Redis mode too they are parsed and analysed on the server's
 * engine threads (carrying up to 512 MiB of files through Redis would cost more than it saves).
 * Each file's failure is one error of the job, named by its file; a restart resumes after the
 * files already done; a cancel stops the file in progress at once. The upload's folder is
 * removed when the job ends, unless the server's stop puts it back in the queue.
 */
import { DOCUMENT_TYPES, UPLOAD_SETTINGS_BOUNDS } from '@adam/contracts';
import { z } from 'zod';
import type { DocumentProcessor } from '../services/document-processor.js';
import { defineJob, stoppedOutcome, type JobOutcome } from './define-job.js';
import { statsWith } from './ingest-stats.js';

const ProcessDocumentsInput = z.object({
  folder: z.string(),
  language: z.string().default('auto'),
  min_quality: z.number().min(0).max(1).nullish(),
  files: z
    .array(
      z.object({
        name: z.string(),
        type: z.enum(DOCUMENT_TYPES),
        size: z.number().int(),
        sha256: z.string(),
        file: z.string(),
        source_url: z.string(),
      }),
    )
    // The most files the uploads setting may allow in one upload.
    .max(UPLOAD_SETTINGS_BOUNDS.max_files.max),
});
export type ProcessDocumentsInput = z.output<typeof ProcessDocumentsInput>;

/** How often the job looks at its cancel flag while a file is on an engine thread. */
const STOP_POLL_MS = 200;

export const processDocumentsJob = defineJob<ProcessDocumentsInput>({
  type: 'process_documents',
  runsOn: 'server',
  input: ProcessDocumentsInput,

  async run(input, ctx, deps) {
    const documents: DocumentProcessor | undefined = deps.documents;
    if (!documents) return { status: 'failed', error: 'Documents cannot be processed here' };
    const total = input.files.length;
    const controller = new AbortController();
    const poll = setInterval(() => {
      if (ctx.shouldStop()) controller.abort();
    }, STOP_POLL_MS);
    let outcome: JobOutcome | null = null;
    try {
      ctx.progress({ stage: `Processing ${total} files`, stats: { urls_total: total } });
      for (const file of input.files) {
        if (ctx.shouldStop()) break;
        if (ctx.doneUrls.has(file.source_url)) continue;
        ctx.progress({ stage: `Processing ${file.name}` });
        let r;
        try {
          r = await documents.process(input.folder, file, {
            language: input.language,
            minQuality: input.min_quality ?? null,
            jobId: ctx.job.id,
            signal: controller.signal,
          });
        } catch (e) {
          if (ctx.shouldStop()) break;
          throw e;
        }
        if (ctx.shouldStop()) break;
        if (r.ok) {
          for (const ingested of r.ingested) {
            const warning =
              ingested.segments_created === 0 && ingested.duplicates === 0
                ? `No segment of ${file.name} passed the filters`
                : null;
            ctx.progress({ stats: statsWith(ctx, ingested, warning) });
          }
          const warning = r.skipped ?? r.warnings[0] ?? null;
          ctx.progress({
            stats: {
              ...(warning && { last_warning: warning }),
              urls_done: (ctx.stats.urls_done ?? 0) + 1,
            },
          });
        } else {
          ctx.addError(r.error);
          ctx.progress({ stats: { urls_failed: (ctx.stats.urls_failed ?? 0) + 1 } });
        }
        ctx.urlDone(file.source_url);
        const done = ctx.doneUrls.size;
        ctx.progress({
          progress: total ? done / total : 1,
          stage: `Processed ${done} of ${total} files`,
          segments: { processed: done, total },
        });
      }
      await deps.index.flush();
      if (ctx.shouldStop()) {
        outcome = stoppedOutcome(ctx);
      } else if ((ctx.stats.urls_done ?? 0) === 0 && (ctx.stats.urls_failed ?? 0) > 0) {
        outcome = { status: 'failed', error: `None of the ${total} files could be processed` };
      } else {
        outcome = { status: 'completed', segments_created: ctx.stats.segments_created ?? 0 };
      }
      return outcome;
    } finally {
      clearInterval(poll);
      // Kept for the run that resumes the job after a restart; gone once it ended.
      if (outcome?.status !== 'interrupted') await documents.removeFolder(input.folder);
    }
  },
});
