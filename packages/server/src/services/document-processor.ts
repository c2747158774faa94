import { rm } from 'node:fs/promises';
import path from 'node:path';
import {
  UPLOAD_LIMITS,
  type DocumentType,
  type JobError,
  type ProcessingSettings,
  type UploadLimits,
} from '@adam/contracts';
import type { Engine } from '../engine/engine.js';
import { isTaskTimeout } from '../engine/task-deadline.js';
import type { Logger } from '../logging.js';
import type { IngestionService, IngestResult } from './ingestion.service.js';
import type { SourceRepository } from '../store/source.repository.js';
import { isDocumentError, type ParseOptions } from '../documents/parsed-document.js';
import { chunkSections } from '../documents/section-places.js';

/** One uploaded file as its job holds it: where it waits on disk and the source it becomes. */
export interface StoredUpload {
  /** The sanitised name: shown and stored, never used as a path. */
  name: string;
  type: DocumentType;
  size: number;
  /** SHA-256 of the content, hex. */
  sha256: string;
  /** The file's name inside its upload folder (a number we chose). */
  file: string;
  source_url: string;
}

/** Upload folders are named by a UUID we made: nothing else is ever joined to the path. */
const FOLDER_ID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** What became of one file. */
export type FileOutcome =
  | { ok: true; title: string; ingested: IngestResult[]; warnings: string[]; skipped?: string }
  | { ok: false; error: Omit<JobError, 'at'> };

/**
 * The server side of uploads: where their files wait (`<data>/uploads/<uuid>/<n>`), and the
 * work on one file: parse it on an engine thread, analyse its sections there, store the
 * snippets with their page and heading, and record the file as a source of kind 'file'.
 */
export class DocumentProcessor {
  constructor(
    private readonly deps: {
      engine: Engine;
      ingestion: IngestionService;
      sources: SourceRepository;
      settings: () => ProcessingSettings;
      dataDir: string;
      log: Logger;
      /** UPLOAD_LIMITS; tests lower them. */
      limits?: Partial<UploadLimits>;
    },
  ) {}

  private parseLimits(): Omit<ParseOptions, 'fileName'> {
    const l = { ...UPLOAD_LIMITS, ...this.deps.limits };
    return {
      maxPages: l.max_pages,
      maxInflatedBytes: l.max_docx_inflated_bytes,
      maxEntries: l.max_docx_entries,
      maxTextChars: l.max_text_chars,
    };
  }

  get root(): string {
    return path.join(this.deps.dataDir, 'uploads');
  }

  folder(id: string): string {
    if (!FOLDER_ID.test(id)) throw new Error(`Not an upload folder id: ${id}`);
    return path.join(this.root, id);
  }

  async removeFolder(id: string): Promise<void> {
    await rm(this.folder(id), { recursive: true, force: true });
  }

  /** An earlier upload of the same bytes that was stored: the same document, not processed twice. */
  private storedBefore(sha256: string, jobId: number): string | null {
    const prefix = `file:${sha256.slice(0, 16)}/`;
    const { rows } = this.deps.sources.list({ search: prefix }, 5, 0);
    const hit = rows.find(
      (r) => r.url.startsWith(prefix) && r.last_status === 'ok' && r.last_job_id !== jobId,
    );
    return hit?.url ?? null;
  }

  async process(
    folderId: string,
    file: StoredUpload,
    opts: { language: string; minQuality: number | null; jobId: number; signal?: AbortSignal },
  ): Promise<FileOutcome> {
    const settings = this.deps.settings();
    const before = this.storedBefore(file.sha256, opts.jobId);
    if (before) {
      return {
        ok: true,
        title: file.name,
        ingested: [],
        warnings: [],
        skipped: `${file.name}: the same content was stored before (${before}); skipped`,
      };
    }
    try {
      const parsed = await this.deps.engine.parseDocument(
        {
          path: path.join(this.folder(folderId), file.file),
          type: file.type,
          options: {
            fileName: file.name,
            ...this.parseLimits(),
          },
        },
        { timeoutS: settings.task_timeout_seconds, signal: opts.signal },
      );
      if (parsed.sections.length === 0) {
        return this.failed(
          file,
          opts.jobId,
          'document_empty',
          'empty',
          `${file.name} holds no text`,
        );
      }
      const title = parsed.title || file.name;
      const ingested: IngestResult[] = [];
      for (const chunk of chunkSections(parsed.sections)) {
        if (opts.signal?.aborted) break;
        const { analysis, places } = await this.deps.engine.analyzeSections(
          chunk,
          opts.language,
          settings,
          { signal: opts.signal },
        );
        const placeOf = new Map(analysis.segments.map((s, i) => [s, places[i]]));
        // In slices with turns of the loop between: a report's hundreds of snippets in one
        // transaction held the event loop for 100–300 ms.
        ingested.push(
          await this.deps.ingestion.storeInSlices(analysis, {
            language: opts.language,
            onlyLanguage: opts.language,
            minQuality: opts.minQuality,
            source: { title, url: file.source_url },
            jobId: opts.jobId,
            segmentMetadata: (s) => ({
              file_name: file.name,
              page: placeOf.get(s)?.page ?? null,
              heading: placeOf.get(s)?.heading ?? null,
            }),
          }),
        );
      }
      const language = ingested.find((r) => r.language !== 'und')?.language ?? null;
      this.deps.sources.upsertResult({
        url: file.source_url,
        kind: 'file',
        domain: '',
        title,
        language,
        segments: ingested.reduce((n, r) => n + r.segments_created, 0),
        job_id: opts.jobId,
        status: 'ok',
        error: null,
      });
      return { ok: true, title, ingested, warnings: parsed.warnings };
    } catch (e) {
      if (isDocumentError(e))
        return this.failed(file, opts.jobId, `document_${e.code}`, e.code, e.message);
      if (isTaskTimeout(e)) {
        return this.failed(
          file,
          opts.jobId,
          'task_timeout',
          'timeout',
          `${file.name}: ${e.message}`,
        );
      }
      // A stopped task (cancel, shutdown) ends the job, not this file.
      if (opts.signal?.aborted) throw e;
      const err = e as Error;
      this.deps.log.warn(
        { component: 'documents' },
        `Processing ${file.name} failed: ${err.stack ?? err.message}`,
      );
      return this.failed(
        file,
        opts.jobId,
        'processing',
        err.name || 'Error',
        `${file.name}: ${err.message}`,
      );
    }
  }

  private failed(
    file: StoredUpload,
    jobId: number,
    type: string,
    error: string,
    message: string,
  ): FileOutcome {
    this.deps.sources.upsertResult({
      url: file.source_url,
      kind: 'file',
      domain: '',
      title: file.name,
      language: null,
      segments: 0,
      job_id: jobId,
      status: 'failed',
      error: message,
    });
    return {
      ok: false,
      error: { type, error, message, url: file.source_url, diagnostic_summary: null },
    };
  }
}
