import path from 'node:path';
import { MAX_IMPORT_RECORDS, type ImportResult } from '@adam/contracts';
import type { Config } from '../config.js';
import type { Core } from '../core.js';
import { createJobContext, finishJob } from '../queue/job-context.js';
import { Unprocessable } from '../lib/errors.js';
import { ImportStagingRepository } from '../store/import-staging.repository.js';
import { SnippetImporter } from './snippet-importer.js';

/** The importer of a data directory's store and index (the server's, or the CLI's). */
export function importerFor(core: Core, dataDir: string): SnippetImporter {
  const { db, repos, bus, log } = core;
  const { index, engine, settings } = core.services;
  return new SnippetImporter({
    db,
    snippets: repos.snippets,
    sources: repos.sources,
    staging: new ImportStagingRepository(db),
    index,
    engine,
    settings: () => settings.get('processing'),
    bus,
    log,
    dir: path.join(dataDir, 'imports'),
  });
}

/**
 * `adam import FILE`: the import of POST /snippets/import run in this process on a data
 * directory no server uses (the caller holds its lock). The same checks (any bad line refuses
 * the file), the same all-or-nothing job, recorded as an import_snippets job.
 */
export async function importFileHere(
  core: Core,
  config: Config,
  file: string,
  onProgress: (stage: string) => void = () => {},
): Promise<ImportResult> {
  const { repos, bus, log } = core;
  await core.services.index.ready;
  const importer = importerFor(core, config.dataDir);
  await importer.undoAbandoned();
  const plan = await importer.plan(file);
  if (plan.tooMany)
    throw new Unprocessable(`The file holds more than ${MAX_IMPORT_RECORDS} records (the limit)`);
  if (plan.badCount) {
    const shown = plan.bad.map((b) => `line ${b.line}: ${b.reason}`).join('\n  ');
    throw new Unprocessable(
      `${plan.badCount} of ${plan.records} lines are not valid records, nothing was imported:\n  ${shown}`,
    );
  }
  if (plan.records === 0) throw new Unprocessable('The file holds no records');

  // The file is named by no job input: a relaunch from the console fails cleanly ("gone").
  const id = repos.jobs.insert({
    type: 'import_snippets',
    priority: 'normal',
    urls: [],
    input: { file: '(adam import)', records: plan.records },
    filters: {},
    metadata: { records: plan.records },
  });
  const now = new Date().toISOString();
  repos.jobs.update(id, { status: 'processing', started_at: now, worker_id: 'cli', attempts: 1 });
  const ctx = createJobContext({
    jobs: repos.jobs,
    bus,
    row: repos.jobs.findById(id)!,
    workerId: 'cli',
    stopping: () => false,
  });
  const unsubscribe = bus.on('job_progress', (e) => {
    if (e.job_id === id && e.stage) onProgress(e.stage);
  });
  try {
    const outcome = await importer.run(id, file, plan.records, ctx);
    finishJob(
      { jobs: repos.jobs, bus, log },
      { id, type: 'import_snippets', errors: ctx.errors },
      outcome,
    );
  } catch (e) {
    finishJob(
      { jobs: repos.jobs, bus, log },
      { id, type: 'import_snippets', errors: ctx.errors },
      { status: 'failed', error: (e as Error).message },
    );
    throw e;
  } finally {
    unsubscribe?.();
  }
  const row = repos.jobs.findById(id)!;
  return (JSON.parse(row.metadata) as { result: ImportResult }).result;
}
