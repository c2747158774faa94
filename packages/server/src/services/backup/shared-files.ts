import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { INDEX_MANIFEST, indexFileName, type IndexManifest } from '../../vector/index-files.js';

/**
 * What lets a backup cost what changed: the files it can share are hard links, not copies. A
 * saved index generation is written once and never changed in place (a save writes the next
 * generation and deletes the old names), so a backup links the live generation's files, and
 * two backups of an unchanged index hold the same file. The file system counts the links: deleting a backup removes its names only, and data another backup (or the live index)
 * still names stays. Every file keeps its plain path in the backup's folder, so listing, verify,
 * download and restore read a backup that shares files exactly as one that does not.
 */

/** The index's own small file beside the manifest (index-files' INDEX_STATE). */
const INDEX_STATE = 'state.json';

/** Bytes hashed between two yields to the event loop. */
const HASH_STEP_BYTES = 1 << 20;

export interface SharedWrite {
  /** Bytes the backup wrote (copies). */
  written: number;
  /** Bytes the backup holds as links to data already on disk. */
  shared: number;
}

/**
 * The saved index in `dir` (manifest, the generation it names, state.json) into `dest`: the
 * generation's files hard-linked (copied only across file systems), the two small files
 * copied. The manifest is read once and the files it names are linked in the same synchronous
 * step. Answers the vector count and the bytes copied and linked.
 */
export function linkIndexSnapshot(dir: string, dest: string): { vectors: number } & SharedWrite {
  // A save finishing on the index's thread between the manifest's read and the links removes
  // the generation named: read again, the manifest names the new one.
  for (let attempt = 1; ; attempt++) {
    const taken = tryLinkIndex(dir, dest);
    if (taken) return taken;
    if (attempt === 3) throw new Error(`The index in ${dir} kept changing while it was linked`);
  }
}

function tryLinkIndex(dir: string, dest: string): ({ vectors: number } & SharedWrite) | null {
  const manifestBytes = readIfExists(path.join(dir, INDEX_MANIFEST));
  const stateBytes = readIfExists(path.join(dir, INDEX_STATE));
  const out = { vectors: 0, written: 0, shared: 0 };
  if (manifestBytes) {
    const m = JSON.parse(manifestBytes.toString('utf8')) as IndexManifest;
    out.vectors = m.count;
    const linked: string[] = [];
    for (const kind of ['usearch', 'keys'] as const) {
      const name = indexFileName(m.generation, kind);
      const src = path.join(dir, name);
      const size = fs.statSync(src, { throwIfNoEntry: false })?.size;
      // An empty index is saved without a usearch file; any other file missing was just removed.
      if (size === undefined && kind === 'usearch' && m.count === 0) continue;
      try {
        if (size === undefined) throw Object.assign(new Error(src), { code: 'ENOENT' });
        if (linkOrCopy(src, path.join(dest, name))) out.shared += size;
        else out.written += size;
        linked.push(name);
      } catch (e) {
        if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw e;
        for (const n of linked) fs.rmSync(path.join(dest, n), { force: true });
        return null;
      }
    }
  }
  if (stateBytes) {
    fs.writeFileSync(path.join(dest, INDEX_STATE), stateBytes);
    out.written += stateBytes.length;
  }
  if (manifestBytes) {
    fs.writeFileSync(path.join(dest, INDEX_MANIFEST), manifestBytes);
    out.written += manifestBytes.length;
  }
  return out;
}

/** A hard link from `src` at `dest`; a copy where links are refused (another file system). Answers whether it linked. */
function linkOrCopy(src: string, dest: string): boolean {
  try {
    fs.linkSync(src, dest);
    return true;
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code !== 'EXDEV' && code !== 'EPERM' && code !== 'EMLINK' && code !== 'ENOTSUP') throw e;
    fs.copyFileSync(src, dest);
    return false;
  }
}

/** A file's identity on disk: two names with the same key are one file (hard links). */
export const inodeKey = (st: fs.Stats): string => `${st.dev}:${st.ino}`;

export interface KnownFile {
  /** A path to the file (in an earlier backup). */
  file: string;
  bytes: number;
  sha256: string;
}

/**
 * The files of earlier backups with the checksum their manifest records, by inode: a file
 * linked again is not hashed again (the same inode is the same bytes, a generation never being
 * changed in place). Only files whose size still matches the manifest count.
 */
export function knownFiles(
  backups: { dir: string; files: { path: string; bytes: number; sha256: string }[] }[],
): { byInode: Map<string, KnownFile> } {
  const byInode = new Map<string, KnownFile>();
  for (const b of backups) {
    for (const f of b.files) {
      const file = path.join(b.dir, f.path);
      const st = fs.lstatSync(file, { throwIfNoEntry: false });
      if (!st?.isFile() || st.size !== f.bytes) continue;
      const known = { file, bytes: f.bytes, sha256: f.sha256 };
      if (!byInode.has(inodeKey(st))) byInode.set(inodeKey(st), known);
    }
  }
  return { byInode };
}

/**
 * The sha256 of a file, read a step at a time with a yield to the event loop between steps:
 * hashing a store of gigabytes never holds requests for more than one step.
 */
export async function sha256File(file: string): Promise<string> {
  const h = createHash('sha256');
  const handle = await fs.promises.open(file, 'r');
  try {
    const chunk = Buffer.allocUnsafe(HASH_STEP_BYTES);
    for (;;) {
      const { bytesRead } = await handle.read(chunk, 0, chunk.length, null);
      if (bytesRead === 0) break;
      h.update(chunk.subarray(0, bytesRead));
      await new Promise<void>((resolve) => setImmediate(resolve));
    }
  } finally {
    await handle.close();
  }
  return h.digest('hex');
}

function readIfExists(file: string): Buffer | null {
  try {
    return fs.readFileSync(file);
  } catch {
    return null;
  }
}
