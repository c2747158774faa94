import fs from 'node:fs';
import path from 'node:path';
import { Readable } from 'node:stream';
import { PayloadTooLarge, Unprocessable } from '../lib/errors.js';

/**
 * A backup as one uncompressed POSIX (ustar) tar archive: `<id>/manifest.json`, then the files
 * its manifest lists under `<id>/`. Written and read as streams, a block at a time: a backup of
 * gigabytes never sits in memory. Compression is left out on purpose: the store and the index
 * hardly compress, and a plain tar is read by any `tar -xf`.
 */

const BLOCK = 512;
/** The largest size the header's 11 octal digits hold; above it the size is base-256 (GNU). */
const MAX_OCTAL_SIZE = 8 ** 11 - 1;
/** Chunk size of the file reads of a download. */
const READ_CHUNK = 1 << 20;

/** The header of a regular file or a directory named `name` (`<id>/...`). */
function header(name: string, size: number, mtimeSeconds: number, dir: boolean): Buffer {
  const h = Buffer.alloc(BLOCK);
  let base = name;
  let prefix = '';
  if (Buffer.byteLength(name) > 100) {
    const cut = name.lastIndexOf('/', 155);
    prefix = name.slice(0, cut);
    base = name.slice(cut + 1);
    if (cut <= 0 || Buffer.byteLength(base) > 100 || Buffer.byteLength(prefix) > 155)
      throw new Error(`${name} is too long a name for a tar header`);
  }
  h.write(base, 0, 100, 'utf8');
  h.write(dir ? '0000755\0' : '0000644\0', 100, 8, 'ascii');
  h.write('0000000\0', 108, 8, 'ascii');
  h.write('0000000\0', 116, 8, 'ascii');
  if (size <= MAX_OCTAL_SIZE) {
    h.write(`${size.toString(8).padStart(11, '0')}\0`, 124, 12, 'ascii');
  } else {
    h[124] = 0x80;
    let rest = BigInt(size);
    for (let i = 135; i > 124; i--) {
      h[i] = Number(rest & 0xffn);
      rest >>= 8n;
    }
  }
  h.write(`${Math.floor(mtimeSeconds).toString(8).padStart(11, '0')}\0`, 136, 12, 'ascii');
  h.write(dir ? '5' : '0', 156, 1, 'ascii');
  h.write('ustar\0', 257, 6, 'ascii');
  h.write('00', 263, 2, 'ascii');
  h.write('adam', 265, 32, 'ascii');
  h.write('adam', 297, 32, 'ascii');
  h.write(prefix, 345, 155, 'utf8');
  h.fill(0x20, 148, 156);
  const sum = checksum(h);
  h.write(`${sum.toString(8).padStart(6, '0')}\0 `, 148, 8, 'ascii');
  return h;
}

function checksum(h: Buffer): number {
  let sum = 0;
  for (let i = 0; i < BLOCK; i++) sum += i >= 148 && i < 156 ? 0x20 : h[i]!;
  return sum;
}

const padding = (size: number) => Buffer.alloc((BLOCK - (size % BLOCK)) % BLOCK);

/**
 * The archive of the backup in `dir`: `files` (relative paths, the manifest first) under
 * `<id>/`. Each file's size is taken when its header is written and exactly that many bytes are
 * sent: a file that changed meanwhile fails the stream rather than corrupt the archive.
 */
export function backupArchive(dir: string, id: string, files: readonly string[]): Readable {
  async function* blocks(): AsyncGenerator<Buffer> {
    const dirs = new Set<string>();
    const mtime = Date.now() / 1000;
    yield header(`${id}/`, 0, mtime, true);
    for (const rel of files) {
      const parent = path.posix.dirname(rel);
      if (parent !== '.' && !dirs.has(parent)) {
        dirs.add(parent);
        yield header(`${id}/${parent}/`, 0, mtime, true);
      }
      const file = path.join(dir, rel);
      const handle = await fs.promises.open(file, 'r');
      try {
        const { size, mtimeMs } = await handle.stat();
        yield header(`${id}/${rel}`, size, mtimeMs / 1000, false);
        let sent = 0;
        while (sent < size) {
          const want = Math.min(READ_CHUNK, size - sent);
          const buf = Buffer.allocUnsafe(want);
          const { bytesRead } = await handle.read(buf, 0, want, sent);
          if (bytesRead === 0) throw new Error(`${rel} became shorter while it was read`);
          sent += bytesRead;
          yield bytesRead === want ? buf : buf.subarray(0, bytesRead);
        }
        yield padding(size);
      } finally {
        await handle.close();
      }
    }
    // The end of an archive: two zero blocks.
    yield Buffer.alloc(BLOCK * 2);
  }
  return Readable.from(blocks(), { objectMode: false });
}

/** What an archive may hold, besides its folders: decided by the caller (the backup's layout). */
export interface ExtractRules {
  /** The top folder every entry is under (a backup id): answers the problem, or null. */
  topProblem(name: string): string | null;
  /** A file path under the top folder: answers the problem, or null. */
  fileProblem(rel: string): string | null;
  /** Folders under the top folder an archive may name (created before their files). */
  dirs: readonly string[];
  /** Free room on the disk: past `bytes` the archive is refused with `refuse(bytes)`'s error. */
  room?: { bytes: number; refuse: (bytes: number) => Error };
}

interface OpenFile {
  rel: string;
  handle: fs.promises.FileHandle;
  /** Bytes of its data still to come, then of its padding to the next block. */
  left: number;
  pad: number;
}

export interface Extracted {
  top: string;
  files: string[];
  bytes: number;
}

/**
 * Reads a tar stream into `dest` (an empty folder), `maxBytes` at most of it (413 past it, as
 * it arrives). Only regular files and folders, under one top folder, by the names `rules`
 * allow: a link, a device, an absolute path or a `..` is refused (422) before anything of it is
 * written, and so is an archive that ends before its end blocks (truncated). Answers the top
 * folder's name and the files written (relative to it).
 */
export async function extractBackupArchive(
  source: AsyncIterable<Buffer | string>,
  dest: string,
  maxBytes: number,
  rules: ExtractRules,
): Promise<Extracted> {
  const bad = (problem: string) => new Unprocessable(`The archive is not a backup: ${problem}`);
  let pending: Buffer = Buffer.alloc(0);
  let total = 0;
  let top: string | null = null;
  const files: string[] = [];
  const seen = new Set<string>();
  /** The file being written: its handle and the bytes left of its data and padding. */
  let current: OpenFile | null = null;
  let zeroBlocks = 0;
  let ended = false;

  const takeHeader = async (h: Buffer): Promise<void> => {
    if (h.every((b) => b === 0)) {
      zeroBlocks++;
      if (zeroBlocks === 2) ended = true;
      return;
    }
    if (zeroBlocks) throw bad('a zero block in the middle of it');
    const stored = parseOctal(h.subarray(148, 156));
    if (stored === null || stored !== checksum(h))
      throw bad('a header fails its checksum (not a tar archive, or damaged)');
    const name = joinName(h);
    const type = String.fromCharCode(h[156]!);
    const shown = JSON.stringify(name.slice(0, 120));
    if (type !== '0' && type !== '\0' && type !== '5')
      throw bad(`entry ${shown} is not a regular file or a folder (type ${JSON.stringify(type)})`);
    const isDir = type === '5';
    const size = isDir ? 0 : parseSize(h.subarray(124, 136));
    if (size === null) throw bad(`entry ${shown} has an unreadable size`);
    const trimmed = isDir && name.endsWith('/') ? name.slice(0, -1) : name;
    const slash = trimmed.indexOf('/');
    const first = slash < 0 ? trimmed : trimmed.slice(0, slash);
    const rel = slash < 0 ? '' : trimmed.slice(slash + 1);
    const topProblem = rules.topProblem(first);
    if (topProblem) throw bad(`entry ${shown}: ${topProblem}`);
    if (top === null) top = first;
    else if (first !== top) throw bad(`entry ${shown} is outside the folder ${top}`);
    if (isDir) {
      if (rel !== '' && !rules.dirs.includes(rel))
        throw bad(`entry ${shown} is a folder a backup does not have`);
      return;
    }
    if (rel === '') throw bad(`entry ${shown} is a file where the backup's folder should be`);
    const fileProblem = rules.fileProblem(rel);
    if (fileProblem) throw bad(`entry ${shown}: ${fileProblem}`);
    if (seen.has(rel)) throw bad(`entry ${shown} appears twice`);
    seen.add(rel);
    const target = path.join(dest, rel);
    await fs.promises.mkdir(path.dirname(target), { recursive: true });
    // 'wx': never through something already there (a link planted meanwhile included).
    const handle = await fs.promises.open(target, 'wx');
    files.push(rel);
    current = { rel, handle, left: size, pad: (BLOCK - (size % BLOCK)) % BLOCK };
    if (size === 0) await closeCurrent();
  };

  const closeCurrent = async () => {
    if (!current) return;
    const c = current;
    if (c.left === 0 && c.pad === 0) {
      current = null;
      await c.handle.close();
    }
  };

  try {
    for await (const raw of source) {
      const chunk = typeof raw === 'string' ? Buffer.from(raw) : raw;
      total += chunk.length;
      if (total > maxBytes)
        throw new PayloadTooLarge(`The backup archive is larger than ${maxBytes} bytes`);
      if (rules.room && total > rules.room.bytes) throw rules.room.refuse(rules.room.bytes);
      if (ended) continue; // the records' padding after the end blocks
      pending = pending.length ? Buffer.concat([pending, chunk]) : chunk;
      while (pending.length && !ended) {
        if (current) {
          const c: OpenFile = current;
          if (c.left > 0) {
            const n = Math.min(c.left, pending.length);
            await c.handle.write(pending.subarray(0, n));
            c.left -= n;
            pending = pending.subarray(n);
          } else {
            const n = Math.min(c.pad, pending.length);
            c.pad -= n;
            pending = pending.subarray(n);
          }
          await closeCurrent();
          continue;
        }
        if (pending.length < BLOCK) break;
        const h = pending.subarray(0, BLOCK);
        pending = pending.subarray(BLOCK);
        await takeHeader(h);
      }
      // A small rest is kept as its own copy, not a view holding the whole chunk.
      if (pending.length && pending.length < BLOCK) pending = Buffer.from(pending);
    }
  } finally {
    const open = current as OpenFile | null;
    if (open) await open.handle.close().catch(() => undefined);
  }
  if (!ended) {
    const open = current as OpenFile | null;
    throw bad(
      open
        ? `it is truncated (it ends inside ${open.rel}, ${open.left} bytes short)`
        : 'it is truncated (no end-of-archive blocks)',
    );
  }
  if (top === null) throw bad('it is empty');
  return { top, files, bytes: total };
}

function joinName(h: Buffer): string {
  const name = cString(h.subarray(0, 100));
  const magic = h.subarray(257, 262).toString('latin1');
  const prefix = magic === 'ustar' ? cString(h.subarray(345, 500)) : '';
  return prefix ? `${prefix}/${name}` : name;
}

function cString(b: Buffer): string {
  const end = b.indexOf(0);
  return b.subarray(0, end < 0 ? b.length : end).toString('utf8');
}

function parseOctal(b: Buffer): number | null {
  const text = b
    .toString('latin1')
    .replace(/[\0 ]+$/, '')
    .trim();
  if (!/^[0-7]{1,12}$/.test(text)) return null;
  return parseInt(text, 8);
}

function parseSize(b: Buffer): number | null {
  if (b[0] === 0x80) {
    let n = 0n;
    for (let i = 1; i < 12; i++) n = (n << 8n) | BigInt(b[i]!);
    return n > BigInt(Number.MAX_SAFE_INTEGER) ? null : Number(n);
  }
  return parseOctal(b);
}
