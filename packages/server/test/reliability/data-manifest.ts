import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';

export interface ManifestOptions {
  /** Leaves out a path (relative, '/'-separated) and, for a directory, all below it. */
  ignore?: (rel: string) => boolean;
}

/**
 * What a directory tree holds: relative path → `sha256:<hex>` for a file, `symlink:<target>` for a
 * link (never followed, so a link pointing outside is recorded, not read), `dir` for a directory
 * (so an emptied or added folder shows too). Comparing two manifests proves which bytes changed.
 */
export function manifest(dir: string, opts: ManifestOptions = {}): Map<string, string> {
  const out = new Map<string, string>();
  const walk = (abs: string, rel: string) => {
    for (const name of fs.readdirSync(abs).sort()) {
      const childRel = rel ? `${rel}/${name}` : name;
      if (opts.ignore?.(childRel)) continue;
      const childAbs = path.join(abs, name);
      const st = fs.lstatSync(childAbs);
      if (st.isSymbolicLink()) {
        out.set(childRel, `symlink:${fs.readlinkSync(childAbs)}`);
      } else if (st.isDirectory()) {
        out.set(childRel, 'dir');
        walk(childAbs, childRel);
      } else if (st.isFile()) {
        const hash = crypto.createHash('sha256').update(fs.readFileSync(childAbs)).digest('hex');
        out.set(childRel, `sha256:${hash}`);
      } else {
        out.set(childRel, `other:${st.mode.toString(8)}`);
      }
    }
  };
  walk(dir, '');
  return out;
}

/** The differences, one readable line each ("changed x", "added y", "removed z"); empty when equal. */
export function diffManifests(a: Map<string, string>, b: Map<string, string>): string[] {
  const lines: string[] = [];
  for (const [rel, v] of a) {
    const w = b.get(rel);
    if (w === undefined) lines.push(`removed ${rel}`);
    else if (w !== v) lines.push(`changed ${rel} (${v} → ${w})`);
  }
  for (const rel of b.keys()) if (!a.has(rel)) lines.push(`added ${rel}`);
  return lines;
}
