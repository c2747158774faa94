import { inflateRawSync } from 'node:zlib';
import { DocumentError } from './parsed-document.js';

/**
 * A zip's directory read and every entry inflated under a byte budget before any zip library
 * touches the file: a DOCX is a zip, and a zip bomb (a few KB that inflate to gigabytes, or
 * directory entries that understate their size) would otherwise fill the thread's memory
 * inside the parser. Sizes are checked as declared, then as actually inflated.
 */

export interface ZipEntry {
  name: string;
  method: number;
  compressedSize: number;
  size: number;
  /** Where the entry's local header starts. */
  offset: number;
}

const EOCD = 0x06054b50;
const CENTRAL = 0x02014b50;
const LOCAL = 0x04034b50;
/** The end record is 22 bytes plus a comment of up to 65,535. */
const EOCD_SEARCH = 22 + 0xffff;

function corrupt(fileName: string, why: string): DocumentError {
  return new DocumentError('corrupt', `${fileName} is not a readable DOCX: ${why}`);
}

/** The entries of the zip's central directory, bounded by `maxEntries`. */
function readZipDirectory(buf: Buffer, fileName: string, maxEntries: number): ZipEntry[] {
  let end = -1;
  for (let i = buf.length - 22; i >= Math.max(0, buf.length - EOCD_SEARCH); i--) {
    if (buf.readUInt32LE(i) === EOCD) {
      end = i;
      break;
    }
  }
  if (end < 0) throw corrupt(fileName, 'its zip directory is missing (a cut or damaged file)');
  const count = buf.readUInt16LE(end + 10);
  const dirSize = buf.readUInt32LE(end + 12);
  const dirOffset = buf.readUInt32LE(end + 16);
  if (count === 0xffff || dirOffset === 0xffffffff) {
    throw new DocumentError('unsupported', `${fileName} is a ZIP64 archive, which no DOCX needs`);
  }
  if (count > maxEntries) {
    throw new DocumentError(
      'too_large',
      `${fileName} holds ${count} zip entries; the limit is ${maxEntries}`,
    );
  }
  if (dirOffset + dirSize > end) throw corrupt(fileName, 'its zip directory lies outside the file');
  const entries: ZipEntry[] = [];
  let p = dirOffset;
  for (let n = 0; n < count; n++) {
    if (p + 46 > end || buf.readUInt32LE(p) !== CENTRAL) {
      throw corrupt(fileName, 'its zip directory is damaged');
    }
    const nameLen = buf.readUInt16LE(p + 28);
    const extraLen = buf.readUInt16LE(p + 30);
    const commentLen = buf.readUInt16LE(p + 32);
    entries.push({
      name: buf.toString('utf8', p + 46, Math.min(end, p + 46 + nameLen)),
      method: buf.readUInt16LE(p + 10),
      compressedSize: buf.readUInt32LE(p + 20),
      size: buf.readUInt32LE(p + 24),
      offset: buf.readUInt32LE(p + 42),
    });
    p += 46 + nameLen + extraLen + commentLen;
  }
  return entries;
}

/**
 * Checks that the zip's entries inflate to at most `maxBytes` together, first by their declared
 * sizes, then by inflating each with the output capped at what is left of the budget (and at
 * its declared size: an entry that inflates past what it declares is refused, since a reader
 * trusting the declaration could be fooled). Answers the entries whose names `keep` lists,
 * inflated.
 */
export function inflateZipBounded(
  body: Uint8Array,
  opts: { fileName: string; maxBytes: number; maxEntries: number; keep?: readonly string[] },
): { entries: ZipEntry[]; kept: Map<string, Buffer> } {
  const { fileName, maxBytes } = opts;
  const buf = Buffer.from(body.buffer, body.byteOffset, body.byteLength);
  const entries = readZipDirectory(buf, fileName, opts.maxEntries);
  const declared = entries.reduce((sum, e) => sum + e.size, 0);
  const mib = (n: number) => `${Math.round(n / (1024 * 1024))} MiB`;
  if (declared > maxBytes) {
    throw new DocumentError(
      'too_large',
      `${fileName} would inflate to ${mib(declared)}; the limit is ${mib(maxBytes)} (a zip bomb?)`,
    );
  }
  const kept = new Map<string, Buffer>();
  let left = maxBytes;
  for (const e of entries) {
    const at = e.offset;
    if (at + 30 > buf.length || buf.readUInt32LE(at) !== LOCAL) {
      throw corrupt(fileName, `the entry ${e.name} is damaged`);
    }
    const start = at + 30 + buf.readUInt16LE(at + 26) + buf.readUInt16LE(at + 28);
    if (start + e.compressedSize > buf.length) {
      throw corrupt(fileName, `the entry ${e.name} runs past the end of the file`);
    }
    const data = buf.subarray(start, start + e.compressedSize);
    let out: Buffer;
    if (e.method === 0) {
      out = data;
    } else if (e.method === 8) {
      const cap = Math.min(left, e.size);
      try {
        // One byte more than allowed: inflating that far proves the entry is larger.
        out = inflateRawSync(data, { maxOutputLength: Math.max(1, cap + 1) });
      } catch (err) {
        if ((err as { code?: string }).code !== 'ERR_BUFFER_TOO_LARGE') {
          throw corrupt(fileName, `the entry ${e.name} does not inflate`);
        }
        throw new DocumentError(
          'too_large',
          `${fileName}: the entry ${e.name} inflates past the size it declares or past the limit of ${mib(maxBytes)} (a zip bomb?)`,
        );
      }
    } else {
      throw new DocumentError(
        'unsupported',
        `${fileName}: the entry ${e.name} uses compression method ${e.method}, which DOCX does not use`,
      );
    }
    if (out.length > e.size) {
      throw new DocumentError(
        'too_large',
        `${fileName}: the entry ${e.name} inflates past the size it declares (a zip bomb?)`,
      );
    }
    left -= out.length;
    if (opts.keep?.includes(e.name)) kept.set(e.name, out);
  }
  return { entries, kept };
}
