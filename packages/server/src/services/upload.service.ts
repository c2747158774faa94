import { createHash, randomUUID } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { mkdir, readdir } from 'node:fs/promises';
import path from 'node:path';
import { Transform, type Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import {
  UPLOAD_LIMITS,
  UploadOptions,
  uploadLimitsOf,
  type UploadLimits,
  type UploadResponse,
  type UploadSettings,
} from '@adam/contracts';
import type { DocumentProcessor, StoredUpload } from './document-processor.js';
import { SNIFF_BYTES, sniffDocument } from '../documents/sniff.js';
import type { EventBus } from '../lib/event-bus.js';
import {
  AppError,
  PayloadTooLarge,
  Unprocessable,
  fieldErrorsFromIssues,
  describeFieldErrors,
} from '../lib/errors.js';
import type { Logger } from '../logging.js';
import type { JobRepository } from '../store/job.repository.js';
import type { JobService } from './job.service.js';

/** A part of a multipart body, as @fastify/multipart gives it (kept narrow for tests). */
export type UploadPart =
  | { type: 'file'; fieldname: string; filename: string; file: Readable }
  | { type: 'field'; fieldname: string; value: unknown };

class UnsupportedMediaType extends AppError {
  constructor(message: string) {
    super(415, message);
  }
}

const MIB = 1024 * 1024;
const mib = (n: number) => `${Math.round((n / MIB) * 10) / 10} MiB`;

/**
 * A name a client sent, made safe to show and store: its last path segment, without control
 * characters, at most `max` characters (the extension kept). Never used as a path.
 */
function sanitizeFileName(raw: string, max: number, fallback: string): string {
  const last = raw.slice(Math.max(raw.lastIndexOf('/'), raw.lastIndexOf('\\')) + 1);
  let clean = '';
  for (const ch of last) {
    const code = ch.codePointAt(0)!;
    if (code < 0x20 || code === 0x7f || (code >= 0x80 && code < 0xa0)) continue;
    clean += ch;
  }
  clean = clean.trim();
  if (clean === '' || clean === '.' || clean === '..') return fallback;
  if (clean.length <= max) return clean;
  const dot = clean.lastIndexOf('.');
  const ext = dot > 0 && clean.length - dot <= 10 ? clean.slice(dot) : '';
  return clean.slice(0, max - ext.length) + ext;
}

/** The bounds busboy enforces as a backstop to the counts of `receive` (one past each). */
export interface BusboyLimits {
  fileSize: number;
  files: number;
  fields: number;
  fieldSize: number;
  parts: number;
}

export function busboyLimitsOf(limits: UploadLimits): BusboyLimits {
  return {
    fileSize: limits.max_file_bytes + 1,
    files: limits.max_files + 1,
    fields: 20,
    fieldSize: 1000,
    parts: limits.max_files + 21,
  };
}

/**
 * POST /sources/upload: streams each file of a multipart body to a folder of the data
 * directory (never into memory), checking sizes as bytes arrive and each file's type by its
 * extension and first bytes; then queues one process_documents job over them. A refused
 * upload keeps nothing: its folder is removed before the answer.
 */
export class UploadService {
  constructor(
    private readonly deps: {
      documents: DocumentProcessor;
      jobs: JobService;
      jobRows: JobRepository;
      bus: EventBus;
      log: Logger;
      /** The operator's `uploads` settings, read at each upload. */
      settings: () => UploadSettings;
      /** Over UPLOAD_LIMITS and the settings; tests pin them. */
      limits?: Partial<UploadLimits>;
    },
  ) {}

  /** The limits of an upload starting now: a saved setting applies to the next upload. */
  limits(): UploadLimits {
    return { ...UPLOAD_LIMITS, ...uploadLimitsOf(this.deps.settings()), ...this.deps.limits };
  }

  /**
   * Removes the folders no waiting or running job needs (left by a crash, or by a job
   * cancelled after a restart put it back in the queue), and from now on the folder of a
   * job cancelled before it ever ran.
   */
  async start(): Promise<void> {
    this.deps.bus.on('job_cancelled', ({ job_id }) => {
      const row = this.deps.jobRows.findById(job_id);
      if (row?.type !== 'process_documents' || row.started_at) return;
      const folder = folderOf(row.input);
      if (folder) void this.deps.documents.removeFolder(folder).catch(() => undefined);
    });
    const live = new Set(
      this.deps.jobRows
        .listByStatusAndType(['pending', 'processing'], ['process_documents'])
        .map((r) => folderOf(r.input)),
    );
    let names: string[] = [];
    try {
      names = await readdir(this.deps.documents.root);
    } catch {
      return; // no upload yet
    }
    for (const name of names) {
      if (live.has(name)) continue;
      try {
        await this.deps.documents.removeFolder(name);
        this.deps.log.info({ component: 'uploads' }, `Removed the leftover upload folder ${name}`);
      } catch {
        // Not one of ours (not a UUID): left alone.
      }
    }
  }

  /**
   * `open` starts reading the body under the given busboy limits: they and the counts below
   * come from one reading of the settings, so a change mid-upload applies to the next one.
   */
  async receive(
    open: (limits: BusboyLimits) => AsyncIterable<UploadPart>,
  ): Promise<UploadResponse> {
    const limits = this.limits();
    const id = randomUUID();
    const dir = this.deps.documents.folder(id);
    await mkdir(dir, { recursive: true });
    try {
      return await this.receiveInto(id, dir, open(busboyLimitsOf(limits)), limits);
    } catch (e) {
      await this.deps.documents.removeFolder(id);
      throw e;
    }
  }

  private async receiveInto(
    id: string,
    dir: string,
    parts: AsyncIterable<UploadPart>,
    L: UploadLimits,
  ): Promise<UploadResponse> {
    const files: StoredUpload[] = [];
    const refused: string[] = [];
    const fields: Record<string, unknown> = {};
    let total = 0;
    let n = 0;
    for await (const part of parts) {
      if (part.type === 'field') {
        fields[part.fieldname] = part.value;
        continue;
      }
      n++;
      if (n > L.max_files) {
        part.file.resume();
        throw new PayloadTooLarge(`Too many files: at most ${L.max_files} in one upload`);
      }
      const name = sanitizeFileName(part.filename ?? '', L.max_name_chars, `file-${n}`);
      const hash = createHash('sha256');
      const head: Buffer[] = [];
      let headBytes = 0;
      let size = 0;
      const meter = new Transform({
        transform(chunk: Buffer, _enc, done) {
          size += chunk.length;
          total += chunk.length;
          if (size > L.max_file_bytes) {
            return done(
              new PayloadTooLarge(
                `${name} is larger than ${mib(L.max_file_bytes)}, the limit for one file`,
              ),
            );
          }
          if (total > L.max_total_bytes) {
            return done(
              new PayloadTooLarge(
                `The upload is larger than ${mib(L.max_total_bytes)}, the limit for all its files together`,
              ),
            );
          }
          if (headBytes < SNIFF_BYTES) {
            head.push(chunk.subarray(0, SNIFF_BYTES - headBytes));
            headBytes += Math.min(chunk.length, SNIFF_BYTES - headBytes);
          }
          hash.update(chunk);
          done(null, chunk);
        },
      });
      const file = String(n);
      await pipeline(part.file, meter, createWriteStream(path.join(dir, file)));
      // busboy cut the file at its own limit (one byte past ours): said above, but be sure.
      if ((part.file as Readable & { truncated?: boolean }).truncated) {
        throw new PayloadTooLarge(
          `${name} is larger than ${mib(L.max_file_bytes)}, the limit for one file`,
        );
      }
      const sniffed = sniffDocument(name, Buffer.concat(head));
      if (!sniffed.ok) {
        refused.push(sniffed.reason);
        continue;
      }
      const sha256 = hash.digest('hex');
      const source_url = `file:${sha256.slice(0, 16)}/${name}`;
      if (files.some((f) => f.source_url === source_url)) continue; // the same file twice
      files.push({ name, type: sniffed.type, size, sha256, file, source_url });
    }
    if (refused.length) {
      throw new UnsupportedMediaType(`Unsupported files: ${refused.join('; ')}`);
    }
    const parsed = UploadOptions.safeParse(fields);
    if (!parsed.success) {
      const errors = fieldErrorsFromIssues(parsed.error.issues);
      throw new Unprocessable(describeFieldErrors(errors), errors);
    }
    if (files.length === 0) {
      throw new Unprocessable('Please attach at least one file', [
        { field: 'files', message: 'Please attach at least one file' },
      ]);
    }
    const opts = parsed.data;
    const filters = { language: opts.language, min_quality: opts.min_quality ?? null };
    const job = this.deps.jobs.create({
      type: 'process_documents',
      priority: opts.priority,
      urls: files.map((f) => f.source_url),
      input: { ...filters, folder: id, files },
      filters,
    });
    this.deps.log.info(
      { component: 'uploads' },
      `Upload of ${files.length} file(s), ${mib(total)}: job ${job.id}`,
    );
    return {
      job_id: job.id,
      status: job.status,
      files: files.map((f) => ({
        name: f.name,
        type: f.type,
        size: f.size,
        source_url: f.source_url,
      })),
    };
  }
}

function folderOf(input: string): string | null {
  try {
    const v = (JSON.parse(input) as { folder?: unknown }).folder;
    return typeof v === 'string' ? v : null;
  } catch {
    return null;
  }
}
