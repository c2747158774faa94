import fs from 'node:fs';
import path from 'node:path';

/** fsyncs a directory so a rename inside it survives a power cut. */
export function fsyncDir(dir: string): void {
  let fd: number | undefined;
  try {
    fd = fs.openSync(dir, 'r');
    fs.fsyncSync(fd);
  } catch {
    // Some filesystems refuse fsync on directories; the rename is still atomic.
  } finally {
    if (fd !== undefined) fs.closeSync(fd);
  }
}

export function fsyncFile(file: string): void {
  const fd = fs.openSync(file, 'r+');
  try {
    fs.fsyncSync(fd);
  } finally {
    fs.closeSync(fd);
  }
}

/** Writes a file so that readers see the old content or the new, never a half-written one. */
export function writeFileAtomic(file: string, data: string | Uint8Array): void {
  const tmp = `${file}.tmp-${process.pid}-${Date.now()}`;
  try {
    fs.writeFileSync(tmp, data);
    fsyncFile(tmp);
    fs.renameSync(tmp, file);
  } catch (e) {
    // A full disk: the partial temp file would hold the space the next try needs.
    fs.rmSync(tmp, { force: true });
    throw e;
  }
  fsyncDir(path.dirname(file));
}
