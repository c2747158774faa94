import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { IndexStorage } from '@adam/contracts';
import { fsyncDir, fsyncFile, writeFileAtomic } from './atomic-file.js';
import { MAX_KEY } from './key-set.js';

/**
 * The files of a saved index, and the one rule that names them: `manifest.json` names the
 * generation in use, whose graph and vectors are `index-<gen>.usearch` (absent when empty) and
 * whose keys are `index-<gen>.keys`. usearch's native loader trusts its file — a damaged one
 * aborts the whole process — so no file reaches it before checkSaved passed: the manifest's
 * sizes and sha256, the keys, and the usearch file's own layout.
 */

export const INDEX_MANIFEST = 'manifest.json';
const INDEX_STATE = 'state.json';
/** Saved indexes found damaged are moved here, not deleted: the operator can look at them. */
const DAMAGED_PREFIX = 'damaged-';
/** Damaged copies kept (each a full index): the latest and the one before, to compare. */
const DAMAGED_KEPT = 2;

export type IndexFileKind = 'usearch' | 'keys';

export const indexFileName = (generation: number, kind: IndexFileKind): string =>
  `index-${generation}.${kind}`;

function parseIndexFileName(name: string): { generation: number; kind: IndexFileKind } | null {
  const m = /^index-(\d+)\.(usearch|keys)$/.exec(name);
  return m ? { generation: Number(m[1]), kind: m[2] as IndexFileKind } : null;
}

export interface FileFacts {
  bytes: number;
  sha256: string;
}

export interface IndexManifest {
  format: 1;
  generation: number;
  dimension: number;
  count: number;
  saved_at: string;
  /** Absent in indexes saved before storage was a setting: f32. */
  quantization?: IndexStorage;
  /** Absent in indexes saved before issue 9: their files are checked by layout only. */
  files?: { usearch?: FileFacts; keys: FileFacts };
}

/** A saved index that must not be loaded; the message names the file and the problem. */
export class DamagedIndex extends Error {}

/** The manifest, or null when none was saved. */
export function readIndexManifest(dir: string): IndexManifest | null {
  let text: string;
  try {
    text = fs.readFileSync(path.join(dir, INDEX_MANIFEST), 'utf8');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw e;
  }
  let m: Partial<IndexManifest>;
  try {
    m = JSON.parse(text) as Partial<IndexManifest>;
  } catch {
    throw new DamagedIndex(`${INDEX_MANIFEST} is not valid JSON`);
  }
  const whole = (n: unknown) => typeof n === 'number' && Number.isSafeInteger(n) && n >= 0;
  if (!whole(m.generation) || !whole(m.count) || !whole(m.dimension) || m.dimension === 0)
    throw new DamagedIndex(`${INDEX_MANIFEST} lacks its generation, count or dimension`);
  return m as IndexManifest;
}

/** The saved keys, checked against the manifest: the count, each a key, none twice. */
export function readKeys(dir: string, m: IndexManifest): Float64Array {
  const name = indexFileName(m.generation, 'keys');
  const buf = readFileOrDamaged(dir, name);
  if (buf.byteLength % 8 !== 0)
    throw new DamagedIndex(`${name} has ${buf.byteLength} bytes, not a whole number of keys`);
  const keys = new Float64Array(buf.buffer.slice(buf.byteOffset, buf.byteOffset + buf.byteLength));
  if (keys.length !== m.count)
    throw new DamagedIndex(`${name} holds ${keys.length} keys, the index manifest says ${m.count}`);
  let ascending = true;
  for (let i = 0; i < keys.length; i++) {
    const k = keys[i]!;
    if (!Number.isInteger(k) || k < 0 || k > MAX_KEY)
      throw new DamagedIndex(`${name} holds ${k}, which is not a key`);
    if (i > 0 && k <= keys[i - 1]!) ascending = false;
  }
  // Saved in ascending order since the keys live in a KeySet; older files are sorted to check.
  if (!ascending) {
    const sorted = keys.slice().sort();
    for (let i = 1; i < sorted.length; i++)
      if (sorted[i] === sorted[i - 1])
        throw new DamagedIndex(`${name} holds key ${sorted[i]} twice`);
  }
  return keys;
}

/**
 * Everything checkable without usearch: the sizes and checksums the manifest recorded, the
 * keys, and the usearch file's layout. Throws DamagedIndex; answers null without a manifest.
 * `checksums: false` (the load at start) leaves the sha256 out: reading the whole file took
 * 0.5 s at 200k, growing with it; a SavedIndexVerifier hashes the loaded files afterwards.
 */
export function checkSaved(
  dir: string,
  { checksums = true }: { checksums?: boolean } = {},
): { manifest: IndexManifest; keys: Float64Array } | null {
  const m = readIndexManifest(dir);
  if (!m) return null;
  const files = [{ name: indexFileName(m.generation, 'keys'), facts: m.files?.keys }];
  const usearchFile = indexFileName(m.generation, 'usearch');
  // An empty index is saved without a usearch file.
  if (m.count > 0) files.push({ name: usearchFile, facts: m.files?.usearch });
  for (const { name, facts } of files) {
    if (!facts) continue;
    const bytes = fs.statSync(path.join(dir, name), { throwIfNoEntry: false })?.size;
    if (bytes === undefined) throw new DamagedIndex(`${name} is missing`);
    if (bytes !== facts.bytes)
      throw new DamagedIndex(`${name} has ${bytes} bytes, the index manifest says ${facts.bytes}`);
  }
  const keys = readKeys(dir, m);
  if (m.count > 0) checkUsearchLayout(path.join(dir, usearchFile), usearchFile, m);
  // Last, being the slow part (~0.6 s a GB): bytes changed in the middle keep the size.
  if (!checksums) return { manifest: m, keys };
  for (const { name, facts } of files) {
    if (facts && sha256FileSync(path.join(dir, name)) !== facts.sha256)
      throw new DamagedIndex(`${name} does not match its sha256 checksum in the index manifest`);
  }
  return { manifest: m, keys };
}

/**
 * A cheap look at a saved index while it runs (a few stats, the small manifest read): answers
 * what is wrong — the folder or a file gone, a size other than the manifest's — or null. No
 * checksum: that is the load's check. `saved`: a save happened, so a manifest must be there.
 */
export function checkSavedFiles(dir: string, saved: boolean): string | null {
  const st = fs.statSync(dir, { throwIfNoEntry: false });
  if (!st) return `${dir} is missing`;
  if (!st.isDirectory()) return `${dir} is not a folder`;
  let m: IndexManifest | null;
  try {
    m = readIndexManifest(dir);
  } catch (e) {
    return (e as Error).message;
  }
  if (!m) return saved ? `${path.join(dir, INDEX_MANIFEST)} is missing` : null;
  const files = [{ name: indexFileName(m.generation, 'keys'), facts: m.files?.keys }];
  if (m.count > 0)
    files.push({ name: indexFileName(m.generation, 'usearch'), facts: m.files?.usearch });
  for (const { name, facts } of files) {
    const bytes = fs.statSync(path.join(dir, name), { throwIfNoEntry: false })?.size;
    if (bytes === undefined) return `${path.join(dir, name)} is missing`;
    if (facts && bytes !== facts.bytes)
      return `${path.join(dir, name)} has ${bytes} bytes, the index manifest says ${facts.bytes}`;
  }
  return null;
}

/** usearch's codes in its file header (index_plugins.hpp). */
const SCALAR_CODE = { f32: 11, f16: 12, bf16: 4, i8: 23 } as const;
export const SCALAR_BYTES = { f32: 4, f16: 2, bf16: 2, i8: 1 } as const;
const KEY_U64 = 14;
const SLOT_U32 = 15;
const METRIC_COS = 'c'.charCodeAt(0);
export const HEAD_BYTES = 64;
export const GRAPH_HEAD_BYTES = 40;

/**
 * Checks a usearch (2.x dense index) file against the manifest, reading only its headers and
 * its table of levels: `[rows u32][bytes a row u32][vectors][64-byte header][graph header:
 * size, connectivity, base connectivity, max level, entry, u64 each][level i16 a node][nodes]`.
 * Each node takes its key (8) and level (2), then for level 0 a count (4) and base-connectivity
 * slots (4 each), and for each level above a count and connectivity slots. The file must end
 * exactly where that says: the loader reads wherever the headers point, unchecked.
 */
function checkUsearchLayout(file: string, name: string, m: IndexManifest): void {
  const bad = (problem: string) => new DamagedIndex(`${name} ${problem}`);
  const fd = openOrDamaged(file, name);
  try {
    const size = fs.fstatSync(fd).size;
    const read = (at: number, length: number): Buffer => {
      if (at + length > size) throw bad(`ends at ${size} bytes, its layout needs more`);
      const b = Buffer.alloc(length);
      fs.readSync(fd, b, 0, length, at);
      return b;
    };
    const storage = m.quantization ?? 'f32';
    const dims = read(0, 8);
    const rows = dims.readUInt32LE(0);
    const rowBytes = dims.readUInt32LE(4);
    if (rowBytes !== m.dimension * SCALAR_BYTES[storage])
      throw bad(
        `has ${rowBytes} bytes a vector, ${m.dimension} × ${storage} take ${m.dimension * SCALAR_BYTES[storage]}`,
      );
    let at = 8 + rows * rowBytes;
    const head = read(at, HEAD_BYTES);
    if (head.toString('latin1', 0, 7) !== 'usearch') throw bad('has no usearch header');
    const present = Number(head.readBigUInt64LE(17));
    const deleted = Number(head.readBigUInt64LE(25));
    if (
      head[13] !== METRIC_COS ||
      head[14] !== SCALAR_CODE[storage] ||
      head[15] !== KEY_U64 ||
      head[16] !== SLOT_U32 ||
      Number(head.readBigUInt64LE(33)) !== m.dimension ||
      head[41] !== 0
    )
      throw bad(`is not a cosine ${storage} index of ${m.dimension} dimensions`);
    if (present !== m.count)
      throw bad(`holds ${present} vectors, the index manifest says ${m.count}`);
    if (present + deleted !== rows) throw bad(`holds ${rows} rows for ${present + deleted} nodes`);
    at += HEAD_BYTES;
    const graph = read(at, GRAPH_HEAD_BYTES);
    const [nodes, connectivity, base, maxLevel, entry] = [0, 8, 16, 24, 32].map((o) =>
      Number(graph.readBigUInt64LE(o)),
    ) as [number, number, number, number, number];
    if (nodes !== rows || connectivity < 2 || base < connectivity || base > 1 << 16)
      throw bad('has a damaged graph header');
    if (maxLevel > 64 || entry >= nodes) throw bad('has a damaged graph header');
    at += GRAPH_HEAD_BYTES;
    const levels = read(at, 2 * nodes);
    at += 2 * nodes;
    const levelBytes = 4 + 4 * connectivity;
    const baseBytes = 10 + 4 + 4 * base;
    for (let i = 0; i < nodes; i++) {
      const level = levels.readInt16LE(2 * i);
      if (level < 0 || level > maxLevel) throw bad(`gives node ${i} level ${level}`);
      at += baseBytes + level * levelBytes;
    }
    if (at !== size) throw bad(`has ${size} bytes, its layout says ${at}`);
  } finally {
    fs.closeSync(fd);
  }
}

/** Bytes hashed per step of a SavedIndexVerifier: a search waits at most one step (~10 ms). */
const VERIFY_STEP_BYTES = 4 << 20;

/**
 * Hashes a loaded generation's files against the manifest's sha256, a step at a time, so the
 * index's thread answers searches between steps. The files are opened at once (at load): a
 * save that replaces the generation meanwhile unlinks names, not the bytes being checked.
 */
export class SavedIndexVerifier {
  private readonly files: { name: string; fd: number; sha256: string }[] = [];
  private hash = createHash('sha256');
  private readonly chunk = Buffer.alloc(VERIFY_STEP_BYTES);

  constructor(dir: string, m: IndexManifest) {
    const wanted = [{ name: indexFileName(m.generation, 'keys'), facts: m.files?.keys }];
    if (m.count > 0)
      wanted.push({ name: indexFileName(m.generation, 'usearch'), facts: m.files?.usearch });
    try {
      for (const { name, facts } of wanted) {
        if (facts)
          this.files.push({
            name,
            fd: openOrDamaged(path.join(dir, name), name),
            sha256: facts.sha256,
          });
      }
    } catch (e) {
      this.close();
      throw e;
    }
  }

  /** Hashes the next step: false when more remain; throws DamagedIndex on a mismatch. */
  step(): boolean {
    const file = this.files[0];
    if (!file) return true;
    const n = fs.readSync(file.fd, this.chunk, 0, this.chunk.length, null);
    if (n > 0) {
      this.hash.update(this.chunk.subarray(0, n));
      return false;
    }
    fs.closeSync(file.fd);
    this.files.shift();
    const sum = this.hash.digest('hex');
    this.hash = createHash('sha256');
    if (sum !== file.sha256) {
      this.close();
      throw new DamagedIndex(
        `${file.name} does not match its sha256 checksum in the index manifest`,
      );
    }
    return this.files.length === 0;
  }

  close(): void {
    for (const f of this.files.splice(0)) fs.closeSync(f.fd);
  }
}

/** Size and checksum of a file just written, for the manifest. */
export function factsOf(file: string): FileFacts {
  return { bytes: fs.statSync(file).size, sha256: sha256FileSync(file) };
}

function sha256FileSync(file: string): string {
  const h = createHash('sha256');
  const fd = fs.openSync(file, 'r');
  try {
    const chunk = Buffer.alloc(4 << 20);
    for (let n; (n = fs.readSync(fd, chunk, 0, chunk.length, null)) > 0;)
      h.update(chunk.subarray(0, n));
  } finally {
    fs.closeSync(fd);
  }
  return h.digest('hex');
}

function readFileOrDamaged(dir: string, name: string): Buffer {
  try {
    return fs.readFileSync(path.join(dir, name));
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT')
      throw new DamagedIndex(`${name} is missing`);
    throw e;
  }
}

function openOrDamaged(file: string, name: string): number {
  try {
    return fs.openSync(file, 'r');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT')
      throw new DamagedIndex(`${name} is missing`);
    throw e;
  }
}

/** Removes the generations other than `keep` (and, with `below`, only the older ones). */
export function removeGenerations(dir: string, keep: number, below = false): void {
  for (const f of safeReaddir(dir)) {
    const g = parseIndexFileName(f);
    if (g && g.generation !== keep && (!below || g.generation < keep))
      fs.rmSync(path.join(dir, f), { force: true });
  }
}

/**
 * Removes the temp files of saves a crash cut (writeFileAtomic's `<name>.tmp-<pid>-<time>` of
 * the keys and the manifest): never read, they would stay forever. Only at open, when no save
 * runs; state.json's are left alone (the server's thread writes it).
 */
export function removeLeftovers(dir: string): void {
  for (const f of safeReaddir(dir))
    if (/^(index-\d+\.(usearch|keys)|manifest\.json)\.tmp-\d+-\d+$/.test(f))
      fs.rmSync(path.join(dir, f), { force: true });
}

/** Bytes on disk of one saved generation. */
export function savedBytes(dir: string, generation: number): number {
  let total = 0;
  for (const kind of ['usearch', 'keys'] as const) {
    total +=
      fs.statSync(path.join(dir, indexFileName(generation, kind)), { throwIfNoEntry: false })
        ?.size ?? 0;
  }
  return total;
}

// ---------------------------------------------------------------- damaged indexes

export interface DamagedCopy {
  /** The folder holding the damaged files, under the index directory. */
  dir: string;
  at: string;
  problem: string;
}

/**
 * Moves the saved index (manifest and every generation's files) into `damaged-<time>/` with a
 * note of the problem, so the next start does not meet it again; keeps the newest DAMAGED_KEPT.
 * Answers the folder, or null when nothing could be moved.
 */
export function moveAside(dir: string, problem: string, now = new Date()): DamagedCopy | null {
  const names = safeReaddir(dir).filter(
    (f) => f === INDEX_MANIFEST || parseIndexFileName(f) !== null,
  );
  if (names.length === 0) return null;
  const at = now.toISOString();
  const stamp = `${DAMAGED_PREFIX}${at.replace(/[-:]/g, '').replace('.', '-')}`;
  let name = stamp;
  for (let n = 2; fs.existsSync(path.join(dir, name)); n++) name = `${stamp}-${n}`;
  const dest = path.join(dir, name);
  fs.mkdirSync(dest);
  fs.writeFileSync(path.join(dest, 'problem.txt'), `${at}\n${problem}\n`);
  for (const f of names) fs.renameSync(path.join(dir, f), path.join(dest, f));
  fsyncDir(dest);
  fsyncDir(dir);
  for (const old of listDamaged(dir).slice(DAMAGED_KEPT))
    fs.rmSync(path.join(dir, old.dir), { recursive: true, force: true });
  return { dir: name, at, problem };
}

/** Damaged copies moved aside and not yet deleted by the operator, newest first. */
export function listDamaged(dir: string): DamagedCopy[] {
  const out: DamagedCopy[] = [];
  for (const name of safeReaddir(dir)) {
    if (!name.startsWith(DAMAGED_PREFIX)) continue;
    let note = '';
    try {
      note = fs.readFileSync(path.join(dir, name, 'problem.txt'), 'utf8');
    } catch {
      // the note is gone: the folder still says the index was damaged
    }
    const [at = '', problem = 'unknown problem'] = note.split('\n');
    out.push({ dir: name, at, problem });
  }
  return out.sort((a, b) => (a.dir < b.dir ? 1 : a.dir > b.dir ? -1 : 0));
}

// ---------------------------------------------------------------- backups

interface IndexInstall {
  /** Swaps the manifest (one rename): from here on the directory holds the new index. */
  commit(): void;
  /** Puts back the old manifest if committed, and removes the new files. */
  rollback(): void;
  /** After a commit that stays: removes the older generations. */
  cleanup(): void;
}

/**
 * Prepares replacing the index in `dir` with the one in `staged` (a checked backup copy): its
 * files go in now under a new generation — unused until a manifest names them — and its
 * manifest is written beside the live one. `commit` is renames only, so a caller can make it
 * the last step of another change and `rollback` it if that change fails. A `staged` without a
 * manifest (nothing was indexed) installs no index: the store's rows are indexed again.
 */
export function prepareInstall(staged: string, dir: string): IndexInstall {
  fs.mkdirSync(dir, { recursive: true });
  const m = readIndexManifest(staged);
  const gen = nextGeneration(dir);
  const added: string[] = [];
  if (m) {
    for (const kind of ['usearch', 'keys'] as const) {
      const src = path.join(staged, indexFileName(m.generation, kind));
      if (!fs.existsSync(src)) continue;
      const dest = path.join(dir, indexFileName(gen, kind));
      moveFile(src, dest);
      added.push(dest);
      fsyncFile(dest);
    }
  }
  // Each replaced file: its new content beside it, the old one kept until cleanup.
  const swaps = (
    [
      [INDEX_MANIFEST, m && JSON.stringify({ ...m, generation: gen }, null, 2)],
      [INDEX_STATE, readIfExists(path.join(staged, INDEX_STATE))],
    ] as const
  ).map(([name, content]) => {
    const live = path.join(dir, name);
    const next = content === null ? null : `${live}.next`;
    if (next) writeFileAtomic(next, content!);
    return { live, next, old: `${live}.replaced`, kept: false, placed: false };
  });
  return {
    commit() {
      for (const s of swaps) {
        if (fs.existsSync(s.live)) {
          fs.renameSync(s.live, s.old);
          s.kept = true;
        }
        if (s.next) {
          fs.renameSync(s.next, s.live);
          s.placed = true;
        }
      }
      fsyncDir(dir);
    },
    rollback() {
      for (const s of swaps) {
        if (s.placed) fs.rmSync(s.live, { force: true });
        if (s.kept) fs.renameSync(s.old, s.live);
        if (s.next) fs.rmSync(s.next, { force: true });
      }
      for (const f of added) fs.rmSync(f, { force: true });
      fsyncDir(dir);
    },
    cleanup() {
      for (const s of swaps) fs.rmSync(s.old, { force: true });
      removeGenerations(dir, gen, true);
    },
  };
}

/** A generation above the manifest's and every file's, so nothing in use is overwritten. */
function nextGeneration(dir: string): number {
  let max = 0;
  try {
    max = readIndexManifest(dir)?.generation ?? 0;
  } catch {
    // unreadable: the file names below still tell the generations in use
  }
  for (const f of safeReaddir(dir)) {
    const g = parseIndexFileName(f);
    if (g) max = Math.max(max, g.generation);
  }
  return max + 1;
}

function moveFile(src: string, dest: string): void {
  try {
    fs.renameSync(src, dest);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'EXDEV') throw e;
    // backups/ on another filesystem than the index
    fs.copyFileSync(src, dest);
    fs.rmSync(src, { force: true });
  }
}

function readIfExists(file: string): Buffer | null {
  try {
    return fs.readFileSync(file);
  } catch {
    return null;
  }
}

function safeReaddir(dir: string): string[] {
  try {
    return fs.readdirSync(dir);
  } catch {
    return [];
  }
}
