/**
 * Saves a keyword index to a directory and loads it back: one file, `keyword.idx`, written to a
 * temporary name, flushed, then renamed over the old one (a crash leaves the old file or the new
 * one, never half of one).
 *
 * Layout: 8-byte magic, a 4-byte header length, the SHA-256 of the header, the header (JSON:
 * format version, counts, and per section its offset, length and SHA-256), then the sections,
 * each 8-byte aligned so typed arrays view them without a copy.
 * Loading checks what is cheap and catches truncation, a foreign file, another version or a
 * damaged header: the magic, the header's hash, the version, and that every section lies where
 * the header says and the file ends there. The sections' hashes cost a read of the whole file
 * (about 1 s per GB): `verifyKeywordFile` checks them, for a background check or a load with
 * `{ verify: true }`.
 */
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { KeywordIndex, type StoredBaseSegment } from './keyword-index.js';

export const KEYWORD_FILE = 'keyword.idx';
/** 2: documents are the keyword text (migration 27's view), not the snippet's text alone. */
const KEYWORD_FORMAT = 2;
const MAGIC = Buffer.from('ADAMKWI\n', 'latin1');
const PREFIX = MAGIC.length + 4 + 32;

export class DamagedKeywordIndex extends Error {
  constructor(file: string, why: string) {
    super(`keyword index ${file} is damaged or not ours (${why}): rebuild it from the store`);
  }
}

type ArrayKind = 'u8' | 'u16' | 'u32';
const SECTIONS: [keyof StoredBaseSegment | 'terms' | 'termEnds', ArrayKind][] = [
  ['ids', 'u32'],
  ['lengths', 'u32'],
  ['postStart', 'u32'],
  ['postDocs', 'u32'],
  ['postTf', 'u16'],
  ['blockStart', 'u32'],
  ['blockLast', 'u32'],
  ['blockMaxTf', 'u16'],
  ['blockMinLen', 'u32'],
  ['terms', 'u8'],
  ['termEnds', 'u32'],
];

interface Header {
  format: number;
  docs: number;
  terms: number;
  sections: { name: string; offset: number; length: number; sha256: string }[];
}

const align8 = (n: number) => (n + 7) & ~7;
const sha256 = (b: Uint8Array) => createHash('sha256').update(b).digest('hex');

/** Writes `index` (its changes merged first) to `dir`/keyword.idx; answers the file's size. */
export function saveKeywordIndex(index: KeywordIndex, dir: string): number {
  const { base, terms } = index.compacted();
  const termBytes = Buffer.from(terms.join(''), 'latin1');
  const termEnds = new Uint32Array(terms.length);
  let end = 0;
  terms.forEach((t, i) => (termEnds[i] = end += t.length));
  const stored: StoredBaseSegment = base;
  const arrays: Record<string, ArrayBufferView> = { ...stored, terms: termBytes, termEnds };
  const parts = SECTIONS.map(([name]) => {
    const a = arrays[name]!;
    return { name, bytes: new Uint8Array(a.buffer, a.byteOffset, a.byteLength) };
  });
  // The header's size depends on the offsets it holds: lay out with room to spare, then pad.
  const draft = (start: number): Header => {
    let offset = start;
    return {
      format: KEYWORD_FORMAT,
      docs: base.ids.length,
      terms: terms.length,
      sections: parts.map((p) => {
        const s = { name: p.name, offset, length: p.bytes.length, sha256: sha256(p.bytes) };
        offset = align8(offset + p.bytes.length);
        return s;
      }),
    };
  };
  const roughLength = Buffer.byteLength(JSON.stringify(draft(0))) + 64 * parts.length;
  const dataStart = align8(PREFIX + roughLength);
  const header = Buffer.from(JSON.stringify(draft(dataStart)).padEnd(dataStart - PREFIX, ' '));
  if (PREFIX + header.length !== dataStart) throw new Error('keyword index header overflow');

  fs.mkdirSync(dir, { recursive: true });
  const file = path.join(dir, KEYWORD_FILE);
  const tmp = `${file}.tmp-${process.pid}`;
  const fd = fs.openSync(tmp, 'w');
  let size = 0;
  try {
    const lengthField = Buffer.alloc(4);
    lengthField.writeUInt32LE(header.length);
    const write = (b: Uint8Array) => {
      fs.writeSync(fd, b);
      size += b.length;
    };
    write(MAGIC);
    write(lengthField);
    write(createHash('sha256').update(header).digest());
    write(header);
    for (const p of parts) {
      write(p.bytes);
      const pad = align8(size) - size;
      if (pad) write(new Uint8Array(pad));
    }
    fs.fsyncSync(fd);
  } finally {
    fs.closeSync(fd);
  }
  fs.renameSync(tmp, file);
  syncDir(dir);
  return size;
}

/** Loads `dir`/keyword.idx; null when there is none, DamagedKeywordIndex when it is not sound. */
export function loadKeywordIndex(
  dir: string,
  opts: { verify?: boolean } = {},
): KeywordIndex | null {
  const file = path.join(dir, KEYWORD_FILE);
  let data: Buffer;
  try {
    data = fs.readFileSync(file);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw e;
  }
  const header = readHeader(file, data);
  if (opts.verify) verifySections(file, data, header);
  // Views need 4-byte alignment of the buffer itself (small files come from a shared pool).
  const buf = data.byteOffset % 8 === 0 ? data : Buffer.from(data);
  const view = (name: string, kind: ArrayKind) => {
    const s = header.sections.find((x) => x.name === name)!;
    const at = buf.byteOffset + s.offset;
    if (kind === 'u8') return new Uint8Array(buf.buffer, at, s.length);
    if (kind === 'u16') return new Uint16Array(buf.buffer, at, s.length / 2);
    return new Uint32Array(buf.buffer, at, s.length / 4);
  };
  const base = {} as Record<string, unknown>;
  for (const [name, kind] of SECTIONS) base[name] = view(name, kind);
  const termBytes = Buffer.from(
    (base.terms as Uint8Array).buffer,
    (base.terms as Uint8Array).byteOffset,
    (base.terms as Uint8Array).length,
  );
  const termEnds = base.termEnds as Uint32Array;
  const T = header.terms;
  const b = base as unknown as StoredBaseSegment;
  if (
    termEnds.length !== T ||
    b.postStart.length !== T + 1 ||
    b.blockStart.length !== T + 1 ||
    b.ids.length !== header.docs ||
    b.lengths.length !== header.docs ||
    b.postStart[T] !== b.postDocs.length ||
    b.postTf.length !== b.postDocs.length ||
    b.blockStart[T] !== b.blockLast.length
  )
    throw new DamagedKeywordIndex(file, 'section sizes disagree');
  const terms = new Array<string>(T);
  let start = 0;
  for (let t = 0; t < T; t++) {
    terms[t] = termBytes.toString('latin1', start, termEnds[t]);
    start = termEnds[t]!;
  }
  return KeywordIndex.fromBase(b, terms);
}

/** Reads every section of `dir`/keyword.idx against its hash; throws DamagedKeywordIndex. */
export function verifyKeywordFile(dir: string): void {
  const file = path.join(dir, KEYWORD_FILE);
  const data = fs.readFileSync(file);
  verifySections(file, data, readHeader(file, data));
}

function readHeader(file: string, data: Buffer): Header {
  if (data.length < PREFIX || !data.subarray(0, MAGIC.length).equals(MAGIC))
    throw new DamagedKeywordIndex(file, 'not a keyword index file');
  const length = data.readUInt32LE(MAGIC.length);
  if (PREFIX + length > data.length) throw new DamagedKeywordIndex(file, 'truncated header');
  const raw = data.subarray(PREFIX, PREFIX + length);
  const expected = data.subarray(MAGIC.length + 4, PREFIX);
  if (!createHash('sha256').update(raw).digest().equals(expected))
    throw new DamagedKeywordIndex(file, 'header checksum mismatch');
  const header = JSON.parse(raw.toString('utf8')) as Header;
  if (header.format !== KEYWORD_FORMAT)
    throw new DamagedKeywordIndex(file, `format ${header.format}, expected ${KEYWORD_FORMAT}`);
  let end = PREFIX + length;
  for (const [name] of SECTIONS) {
    const s = header.sections.find((x) => x.name === name);
    if (!s || s.offset !== align8(end) || s.offset % 8 !== 0)
      throw new DamagedKeywordIndex(file, `section ${name} missing or misplaced`);
    end = s.offset + s.length;
  }
  if (align8(end) !== data.length)
    throw new DamagedKeywordIndex(
      file,
      `${data.length} bytes where the header says ${align8(end)}`,
    );
  return header;
}

function verifySections(file: string, data: Buffer, header: Header): void {
  for (const s of header.sections)
    if (sha256(data.subarray(s.offset, s.offset + s.length)) !== s.sha256)
      throw new DamagedKeywordIndex(file, `section ${s.name} checksum mismatch`);
}

function syncDir(dir: string): void {
  try {
    const fd = fs.openSync(dir, 'r');
    try {
      fs.fsyncSync(fd);
    } finally {
      fs.closeSync(fd);
    }
  } catch {
    // Some file systems refuse fsync on a directory; the rename is still atomic.
  }
}
