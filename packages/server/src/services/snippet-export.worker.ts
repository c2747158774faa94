/**
 * One export, on a thread of its own. better-sqlite3 is synchronous and a file of a million rows
 * is hundreds of MB of JSON or CSV: read and written on the server's thread, every page held the
 * event loop. Here the thread has its own read-only connection to the store, reads the pages and
 * writes the file's bytes (export-file.ts, the same writer as before, so the same bytes), and
 * hands them over a chunk at a time when the server asks for one: the server only passes them to
 * the client. A client that stops reading stops the asking, hence the reading.
 */
import Database from 'better-sqlite3';
import { move, transferableSymbol, valueSymbol } from 'piscina';
import type { ExportFormat } from '@adam/contracts';
import { exportFile } from './export-file.js';
import { lowerThisThreadPriority } from '../lib/thread-priority.js';
import { SnippetRepository } from '../store/snippet.repository.js';
import { missingIds, snippetPages } from './snippet-pages.js';

/**
 * Bytes handed over at a time: large enough that a million rows take a few thousand hand-overs,
 * small enough that the chunks in flight (one sent, one being written) stay a fraction of a MB.
 */
export const EXPORT_CHUNK_BYTES = 256 * 1024;
export type ExportTask =
  | {
      op: 'open';
      dbFile: string;
      /** The ids asked for, in order; none: every row. */
      ids?: number[];
      embeddings: boolean;
      format: ExportFormat;
      /** The export's time (ISO), printed in a JSON file and named in its file name. */
      exportedAt: string;
    }
  | { op: 'next' };

/** Answer to `open`: the ids asked for that have no row (the export is then not opened). */
export interface ExportOpened {
  missing: number[];
}

/** Answer to `next`: the file's next bytes (never empty unless done), and the rows they hold. */
export interface ExportChunk {
  bytes: Uint8Array;
  rows: number;
  done: boolean;
}

// The thread's one export (a thread serves one export and ends with it).
let db: Database.Database | null = null;
let parts: AsyncIterator<Buffer> | null = null;
let rowsRead = 0;

function open(task: Extract<ExportTask, { op: 'open' }>): ExportOpened {
  finish();
  // Background work: on a loaded machine the server's thread (and the engine's) win the CPU.
  lowerThisThreadPriority();
  db = new Database(task.dbFile, { readonly: true, fileMustExist: true });
  db.pragma('busy_timeout = 5000');
  const repo = new SnippetRepository(db);
  if (task.ids?.length) {
    const missing = missingIds(repo, task.ids);
    if (missing.length) {
      finish();
      return { missing };
    }
  }
  const pages = snippetPages(repo, task.ids, { embeddings: task.embeddings });
  const file = exportFile(
    {
      nextPage: () => {
        const page = pages.nextPage();
        rowsRead += page?.length ?? 0;
        return page;
      },
      close: pages.close,
    },
    task.format,
    new Date(task.exportedAt),
  );
  parts = file.stream[Symbol.asyncIterator]() as AsyncIterator<Buffer>;
  return { missing: [] };
}

async function next(): Promise<ExportChunk> {
  if (!parts) return { bytes: new Uint8Array(0), rows: 0, done: true };
  const taken: Buffer[] = [];
  let size = 0;
  let done = false;
  while (size < EXPORT_CHUNK_BYTES) {
    const part = await parts.next();
    if (part.done) {
      done = true;
      break;
    }
    taken.push(part.value);
    size += part.value.length;
  }
  // A buffer of its own (a small Buffer may share Node's pool), moved to the server's thread
  // rather than copied.
  const bytes = new Uint8Array(size);
  let at = 0;
  for (const b of taken) {
    bytes.set(b, at);
    at += b.length;
  }
  const rows = rowsRead;
  rowsRead = 0;
  if (done) finish();
  return { bytes, rows, done };
}

function finish(): void {
  parts = null;
  rowsRead = 0;
  db?.close();
  db = null;
}

/** piscina's entry (a module needs a default export to be taken as a task module). */
export default async function run(task: ExportTask): Promise<ExportOpened | ExportChunk> {
  if (task.op === 'open') return open(task);
  const chunk = await next();
  return move({
    [transferableSymbol]: chunk.bytes.buffer,
    [valueSymbol]: chunk,
  }) as unknown as ExportChunk;
}
