import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { Transform, type Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { MAX_IMPORT_RECORDS, type ImportSummary } from '@adam/contracts';
import { AppError, PayloadTooLarge, Unprocessable } from '../lib/errors.js';
import type { Logger } from '../logging.js';
import type { JobRepository } from '../store/job.repository.js';
import type { JobService } from './job.service.js';
import { IMPORT_FILE_NAME, SnippetImporter } from './snippet-importer.js';

const mb = (n: number) => `${Math.round(n / (1024 * 1024))} MB`;

/**
 * POST /snippets/import: the body goes to a file in data/imports as it arrives (never held
 * whole, cut off past `maxBytes`), every line is checked, and only a file without a bad line
 * becomes an import_snippets job (or, for a dry run, just counts).
 */
export class ImportService {
  /** Files being received or checked now: the sweep leaves them alone. */
  private readonly busy = new Set<string>();

  constructor(
    private readonly deps: {
      importer: SnippetImporter;
      jobs: JobService;
      jobRows: JobRepository;
      /** The active embedder's id (what a reused vector must have been made by). */
      embedder: () => string;
      maxBytes: number;
      log: Logger;
    },
  ) {}

  async receive(
    body: Readable,
    opts: { dryRun: boolean; contentLength?: number },
  ): Promise<ImportSummary> {
    const { importer, maxBytes } = this.deps;
    const tooLarge = () =>
      new PayloadTooLarge(
        `The import is larger than ${mb(maxBytes)} (the limit): split it in parts`,
      );
    if (opts.contentLength !== undefined && opts.contentLength > maxBytes) {
      body.resume(); // the client is answered at once; what it still sends is thrown away
      throw tooLarge();
    }
    fs.mkdirSync(importer.dir, { recursive: true });
    this.sweep();
    const name = `${randomUUID()}.jsonl`;
    const file = importer.fileFor(name);
    this.busy.add(name);
    let keep = false;
    try {
      let received = 0;
      const limit = new Transform({
        transform(chunk: Buffer, _enc, done) {
          received += chunk.length;
          if (received > maxBytes) done(tooLarge());
          else done(null, chunk);
        },
      });
      try {
        await pipeline(body, limit, fs.createWriteStream(file, { flags: 'wx' }));
      } catch (e) {
        if (e instanceof AppError) throw e;
        throw new AppError(400, `The import was not received whole: ${(e as Error).message}`);
      }

      const plan = await importer.plan(file);
      if (plan.tooMany)
        throw new Unprocessable(
          `The file holds more than ${MAX_IMPORT_RECORDS} records (the limit): split it in parts`,
        );
      if (plan.badCount) {
        const shown = plan.bad.map((b) => `line ${b.line}: ${b.reason}`);
        const more =
          plan.badCount > plan.bad.length ? `; and ${plan.badCount - plan.bad.length} more` : '';
        throw new Unprocessable(
          `${plan.badCount} of ${plan.records} lines are not valid records, nothing was imported: ${shown.join('; ')}${more}`,
          plan.bad.map((b) => ({ field: `line ${b.line}`, message: b.reason })),
        );
      }
      if (plan.records === 0) throw new Unprocessable('The file holds no records');

      const summary: Omit<ImportSummary, 'job_id' | 'dry_run'> = {
        records: plan.records,
        restored: plan.restored,
        analysed: plan.analysed,
        duplicates: plan.duplicates,
        vectors_reused: plan.vectors_reused,
        to_embed: plan.to_embed,
        embedder: this.deps.embedder(),
      };
      if (opts.dryRun) return { dry_run: true, job_id: null, ...summary };
      const job = this.deps.jobs.create({
        type: 'import_snippets',
        input: { file: name, records: plan.records },
        metadata: { records: plan.records },
      });
      keep = true;
      this.deps.log.info(
        { component: 'import' },
        `Import of ${plan.records} records queued as job ${job.id}`,
      );
      return { dry_run: false, job_id: job.id, ...summary };
    } finally {
      this.busy.delete(name);
      if (!keep) SnippetImporter.removeFile(file);
    }
  }

  /**
   * Removes received files no waiting or running import job names (a job deleted before it
   * ran, or a crash): they would otherwise stay in the data directory for ever.
   */
  private sweep(): void {
    const wanted = new Set(this.busy);
    for (const j of this.deps.jobRows.listByStatusAndType(
      ['pending', 'processing'],
      ['import_snippets'],
    )) {
      try {
        const input = JSON.parse(j.input) as { file?: unknown };
        if (typeof input.file === 'string') wanted.add(input.file);
      } catch {
        // a job without a readable input names no file
      }
    }
    for (const name of fs.readdirSync(this.deps.importer.dir)) {
      if (IMPORT_FILE_NAME.test(name) && !wanted.has(name))
        fs.rmSync(path.join(this.deps.importer.dir, name), { force: true });
    }
  }
}
