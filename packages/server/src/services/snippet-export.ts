/**
 * The server's side of an export: it starts the export's thread (snippet-export.worker.ts), asks
 * it for the file's bytes a chunk at a time as the client takes them, and passes them on. No row
 * is read or formatted on this thread, so an export never holds the event loop, whatever its
 * size and however loaded the machine.
 */
import { Readable } from 'node:stream';
import type { ExportFormat } from '@adam/contracts';
import { exportNaming, type ExportNaming } from './export-file.js';
import { NotFound } from '../lib/errors.js';
import { startPool } from '../vector/recall.js';
import type { ExportChunk, ExportOpened, ExportTask } from './snippet-export.worker.js';

export interface ExportFile extends ExportNaming {
  stream: Readable;
}

/** What the export threads have done (tests and the bench read it). */
export interface ExportThreadStats {
  /** Threads alive: one per export under way, gone once its export ended or was left. */
  threads: number;
  /** Rows the threads have read, all exports together. */
  rowsRead: number;
  /** Chunks asked of a thread and not answered yet. */
  chunksAsked: number;
}

export interface ExportThreadOptions {
  dbFile: string;
  ids?: number[];
  embeddings: boolean;
  format: ExportFormat;
  now: Date;
  stats: ExportThreadStats;
  /** Called once, as soon as the export ended: every row read, its client gone, or a failure. */
  onEnd: () => void;
}

/**
 * Opens the export on a new thread; the ids asked for are checked there first (404 naming the
 * missing ones, before anything is sent). The stream asks for one chunk ahead of the one being
 * written, so the thread reads while the socket sends; a client that stops reading leaves at
 * most that chunk read. Destroying the stream (the client went away) ends the thread.
 */
export async function exportOnThread(opts: ExportThreadOptions): Promise<ExportFile> {
  const { stats } = opts;
  const pool = startPool('../services/snippet-export.worker');
  stats.threads++;
  let ended = false;
  const end = () => {
    if (ended) return;
    ended = true;
    opts.onEnd();
    // A chunk being read is dropped with the thread.
    void pool
      .destroy()
      .catch(() => undefined)
      .finally(() => stats.threads--);
  };

  try {
    const task: ExportTask = {
      op: 'open',
      dbFile: opts.dbFile,
      ids: opts.ids,
      embeddings: opts.embeddings,
      format: opts.format,
      exportedAt: opts.now.toISOString(),
    };
    const { missing } = (await pool.run(task)) as ExportOpened;
    if (missing.length) throw new NotFound(`snippets ${missing.join(', ')}`);
  } catch (e) {
    end();
    throw e;
  }

  const ask = (): Promise<ExportChunk> => {
    stats.chunksAsked++;
    const chunk = (pool.run({ op: 'next' } satisfies ExportTask) as Promise<ExportChunk>).finally(
      () => stats.chunksAsked--,
    );
    chunk.catch(() => undefined); // seen by read(), or dropped with a destroyed stream
    return chunk;
  };
  let ahead: Promise<ExportChunk> | null = null;
  // read() comes again only once the previous chunk was pushed and the buffer is below its
  // high-water mark: a client that stops reading stops the asking.
  const stream = new Readable({
    read() {
      const asked = ahead ?? ask();
      ahead = null;
      asked.then(
        (chunk) => {
          if (stream.destroyed) return;
          stats.rowsRead += chunk.rows;
          if (chunk.done) end();
          else ahead = ask();
          if (chunk.bytes.byteLength) {
            const { buffer, byteOffset, byteLength } = chunk.bytes;
            stream.push(Buffer.from(buffer, byteOffset, byteLength));
          }
          if (chunk.done) stream.push(null);
        },
        (e: unknown) => stream.destroy(e as Error),
      );
    },
    destroy(err, callback) {
      end();
      callback(err);
    },
  });
  return { stream, ...exportNaming(opts.format, opts.now) };
}
