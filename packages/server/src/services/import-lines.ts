import fs from 'node:fs';
import {
  ImportRecord,
  MAX_IMPORT_DEPTH,
  MAX_IMPORT_LINE_BYTES,
  type ImportRecord as ImportRecordT,
} from '@adam/contracts';
import { describeFieldErrors, fieldErrorsFromIssues } from '../lib/errors.js';
import { findUnfaithfulText } from '../lib/faithful-text.js';

/** One non-blank line of an import file: its record, or why it was refused. */
export type ImportLine =
  { line: number; ok: true; record: ImportRecordT } | { line: number; ok: false; reason: string };

const strictUtf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });
const NEWLINE = 0x0a;

/**
 * The raw lines of a file, numbered from 1, read a chunk at a time. A line longer than
 * `maxBytes` is never held: its bytes are skipped up to the next newline and it comes out as
 * `null` (too long). Only line ends are looked for: no pattern runs over the bytes.
 */
async function* rawLines(
  file: string,
  maxBytes = MAX_IMPORT_LINE_BYTES,
): AsyncGenerator<{ line: number; bytes: Buffer | null }> {
  let parts: Buffer[] = [];
  let held = 0;
  let tooLong = false;
  let line = 0;
  const end = () => {
    line++;
    const bytes = tooLong ? null : Buffer.concat(parts, held);
    parts = [];
    held = 0;
    tooLong = false;
    return { line, bytes };
  };
  for await (const chunk of fs.createReadStream(file, {
    highWaterMark: 64 * 1024,
  }) as AsyncIterable<Buffer>) {
    let start = 0;
    for (;;) {
      const nl = chunk.indexOf(NEWLINE, start);
      const piece = chunk.subarray(start, nl === -1 ? chunk.length : nl);
      if (!tooLong) {
        if (held + piece.length > maxBytes) {
          tooLong = true;
          parts = [];
          held = 0;
        } else if (piece.length) {
          parts.push(Buffer.from(piece));
          held += piece.length;
        }
      }
      if (nl === -1) break;
      yield end();
      start = nl + 1;
    }
  }
  if (held > 0 || tooLong) yield end();
}

/** Whether a parsed value nests objects and arrays deeper than `max` (its own stack, no recursion). */
function deeperThan(value: unknown, max: number): boolean {
  const stack: [unknown, number][] = [[value, 1]];
  while (stack.length) {
    const [v, depth] = stack.pop()!;
    if (v === null || typeof v !== 'object') continue;
    if (depth > max) return true;
    for (const child of Array.isArray(v) ? v : Object.values(v as object))
      if (child !== null && typeof child === 'object') stack.push([child, depth + 1]);
  }
  return false;
}

/** One line's text to a record or a reason, each check bounded by the line's length. */
function parseImportLine(line: number, bytes: Buffer | null): ImportLine | null {
  if (bytes === null)
    return { line, ok: false, reason: `longer than ${MAX_IMPORT_LINE_BYTES} bytes` };
  let text: string;
  try {
    text = strictUtf8.decode(bytes);
  } catch {
    return { line, ok: false, reason: 'not valid UTF-8' };
  }
  if (text.trim() === '') return null; // blank lines are allowed and skipped
  let value: unknown;
  try {
    // JSON.parse makes `__proto__` an own property (no pollution); findUnfaithfulText refuses it.
    value = JSON.parse(text);
  } catch (e) {
    return { line, ok: false, reason: `not valid JSON (${(e as Error).message.slice(0, 120)})` };
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value))
    return { line, ok: false, reason: 'not a JSON object' };
  if (deeperThan(value, MAX_IMPORT_DEPTH))
    return { line, ok: false, reason: `nested deeper than ${MAX_IMPORT_DEPTH} levels` };
  const bad = findUnfaithfulText(value);
  if (bad) return { line, ok: false, reason: `${bad.field}: ${bad.message}` };
  const parsed = ImportRecord.safeParse(value);
  if (!parsed.success)
    return {
      line,
      ok: false,
      reason: describeFieldErrors(fieldErrorsFromIssues(parsed.error.issues).slice(0, 3)),
    };
  return { line, ok: true, record: parsed.data };
}

/**
 * Every non-blank line of an import file, parsed and validated, a chunk at a time: each line's
 * work is bounded by MAX_IMPORT_LINE_BYTES and the reads between chunks let other requests in.
 */
export async function* importLines(file: string): AsyncGenerator<ImportLine> {
  let sinceYield = 0;
  for await (const { line, bytes } of rawLines(file)) {
    const parsed = parseImportLine(line, bytes);
    if (parsed) yield parsed;
    // A file of many small lines is read in few chunks: give the event loop a turn now and then.
    sinceYield += bytes?.length ?? MAX_IMPORT_LINE_BYTES;
    if (sinceYield > 256 * 1024) {
      sinceYield = 0;
      await new Promise((resolve) => setImmediate(resolve));
    }
  }
}
