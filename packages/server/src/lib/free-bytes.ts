import fs from 'node:fs';

/** Free bytes an unprivileged process may use on the file system of `dir`; null if unknown. */
export function freeBytes(dir: string): number | null {
  try {
    const s = fs.statfsSync(dir);
    return s.bavail * s.bsize;
  } catch {
    return null;
  }
}
