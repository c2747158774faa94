import fs from 'node:fs';
import { z } from 'zod';
import { SnippetImporter } from '../services/snippet-importer.js';
import { defineJob } from './define-job.js';

const ImportSnippetsInput = z.object({
  /** The received file's name in data/imports (a UUID the server gave it). */
  file: z.string().min(1),
  /** Records counted when the file was checked (for the progress). */
  records: z.number().int().min(0),
});
export type ImportSnippetsInput = z.output<typeof ImportSnippetsInput>;

/**
 * Imports a checked JSON Lines file (POST /snippets/import). Runs on the server only: it reads
 * the file the server received into its data directory, and its all-or-nothing commit writes the
 * store in one transaction, which only the server (the single writer) can do. The analysis and
 * embedding it needs still run on the engine's threads. A cancel or a failure before the commit
 * leaves nothing; an interrupted job starts over when it runs again.
 */
export const importSnippetsJob = defineJob<ImportSnippetsInput>({
  type: 'import_snippets',
  runsOn: 'server',
  input: ImportSnippetsInput,

  async run(input, ctx, deps) {
    const imports = deps.imports;
    if (!imports) throw new Error('This process cannot run imports');
    const file = imports.fileFor(input.file);
    if (!fs.existsSync(file))
      return {
        status: 'failed',
        error: 'The import file is gone (an import runs once: send the file again)',
      };
    const outcome = await imports.run(ctx.job.id, file, input.records, ctx).catch((e: unknown) => {
      SnippetImporter.removeFile(file);
      throw e;
    });
    // Kept only for a job going back to the queue, which reads it again.
    if (outcome.status !== 'interrupted') SnippetImporter.removeFile(file);
    return outcome;
  },
});
