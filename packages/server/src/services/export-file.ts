import { Readable } from 'node:stream';
import type { ExportFormat, Snippet } from '@adam/contracts';
import type { SnippetExport } from './snippet-pages.js';

/** The CSV's columns, each with how a row gives it (no copy of the row is made: rows/s). */
const CSV_COLUMNS: readonly (readonly [string, (r: Snippet) => unknown])[] = [
  ['id', (r) => r.id],
  ['text', (r) => r.text],
  ['theme', (r) => r.theme],
  ['quality_score', (r) => r.quality_score],
  ['language', (r) => r.language],
  ['word_count', (r) => r.word_count],
  ['created_at', (r) => r.created_at],
  ['indexed_at', (r) => r.indexed_at],
  ['source_title', (r) => r.source_info.title],
  ['source_url', (r) => r.source_info.url],
  ['section', (r) => r.section ?? null],
];

/** Quotes a CSV field; a leading = + - @ is escaped so spreadsheets do not run it as a formula. */
export function csvField(v: unknown): string {
  let s = v === null || v === undefined ? '' : String(v);
  if (/^[=+\-@\t\r]/.test(s)) s = `'${s}`;
  return /[",\r\n]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
}

function csvRow(r: Snippet): string {
  let line = '';
  for (let i = 0; i < CSV_COLUMNS.length; i++) {
    line += (i ? ',' : '') + csvField(CSV_COLUMNS[i]![1](r));
  }
  return line + '\r\n';
}

/**
 * How a format writes its file around the rows: the same bytes as the whole file made at once
 * (JSON pretty-printed with 2 spaces; JSON Lines one row a line; CSV with CRLF line ends).
 */
interface FileShape {
  head: string;
  row: (r: Snippet, index: number) => string;
  tail: (count: number) => string;
  contentType: string;
  extension: string;
}

function shapeOf(format: ExportFormat, exportedAt: string): FileShape {
  if (format === 'csv') {
    return {
      head: CSV_COLUMNS.map(([name]) => name).join(',') + '\r\n',
      row: csvRow,
      tail: () => '',
      contentType: 'text/csv; charset=utf-8',
      extension: 'csv',
    };
  }
  if (format === 'jsonl') {
    return {
      head: '',
      row: (r) => JSON.stringify(r) + '\n',
      tail: () => '',
      contentType: 'application/x-ndjson; charset=utf-8',
      extension: 'jsonl',
    };
  }
  // A row's own line breaks are JSON's indentation (those in its strings are escaped): nested
  // two levels deep in the file, each takes four more spaces.
  return {
    head: '{\n  "snippets": [',
    row: (r, i) => `${i ? ',' : ''}\n    ${JSON.stringify(r, null, 2).replace(/\n/g, '\n    ')}`,
    tail: (count) =>
      `${count ? '\n  ' : ''}],\n  "total": ${count},\n  "exported_at": ${JSON.stringify(exportedAt)}\n}`,
    contentType: 'application/json; charset=utf-8',
    extension: 'json',
  };
}

/**
 * The export as a stream: a page of rows is read and formatted only when the reader has taken
 * the previous one (the Readable's backpressure). It runs on an export's own thread
 * (snippet-export.worker.ts), whose reader is the server's thread asking for the next
 * chunk as its client takes them. Destroying the stream stops the reading.
 */
export function exportFile(
  source: SnippetExport,
  format: ExportFormat,
  now = new Date(),
): { stream: Readable } & ExportNaming {
  const shape = shapeOf(format, now.toISOString());
  let count = 0;
  let started = false;

  const step = () => {
    if (stream.destroyed) return;
    try {
      let out = started ? '' : shape.head;
      started = true;
      const page = source.nextPage();
      if (page === null) {
        stream.push(out + shape.tail(count));
        stream.push(null);
        return;
      }
      for (const r of page) out += shape.row(r, count++);
      // An empty page (its rows were deleted meanwhile) has nothing to push: read on.
      if (out) stream.push(out);
      else setImmediate(step);
    } catch (e) {
      stream.destroy(e as Error);
    }
  };
  // read() comes again only while the buffer is below its high-water mark: a client that stops
  // reading stops the pages.
  const stream = new Readable({
    read: () => void setImmediate(step),
    destroy(err, callback) {
      source.close();
      callback(err);
    },
  });
  return { stream, ...exportNaming(format, now) };
}

/** What an export's answer says of its file before the first byte. */
export interface ExportNaming {
  contentType: string;
  filename: string;
}

export function exportNaming(format: ExportFormat, now: Date): ExportNaming {
  const stamp = now.toISOString().slice(0, 19).replace(/[:T]/g, '-');
  const shape = shapeOf(format, now.toISOString());
  return { contentType: shape.contentType, filename: `snippets-${stamp}.${shape.extension}` };
}
