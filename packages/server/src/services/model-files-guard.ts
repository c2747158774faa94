import { createHash } from 'node:crypto';
import fs from 'node:fs/promises';
import path from 'node:path';

/**
 * What a cleanup request may name: a regular file inside the models directory, given relative to
 * it with forward slashes. The path comes from a client, so it is checked as written and once
 * percent-decoded (`%2e%2e%2f` is `../` to anything that decodes it on the way), and then on
 * disk without following links: a link, or a folder on the way that is one, could point
 * anywhere.
 */

/** Decodes %XX escapes until nothing changes (a double-encoded `%252e` too); never throws. */
function percentDecoded(s: string): string {
  let current = s;
  for (let i = 0; i < 5; i++) {
    const next = current.replace(/%([0-9a-fA-F]{2})/g, (_, hex: string) =>
      String.fromCharCode(parseInt(hex, 16)),
    );
    if (next === current) break;
    current = next;
  }
  return current;
}

function formProblem(p: string): string | null {
  if (p.includes('\0')) return 'contains a NUL character';
  if (p.includes('\\')) return 'contains a backslash (paths use forward slashes)';
  if (p.startsWith('/') || /^[A-Za-z]:/.test(p)) return 'is absolute';
  if (p.split('/').includes('..')) return 'goes up a folder (..)';
  return null;
}

/**
 * Why `requested` cannot name a file of the models directory, judged on the string alone (as
 * written and decoded), or null.
 */
export function pathProblem(requested: string): string | null {
  if (!requested.trim()) return 'is empty';
  const raw = formProblem(requested);
  if (raw) return raw;
  const decoded = percentDecoded(requested);
  if (decoded !== requested) {
    const hidden = formProblem(decoded);
    if (hidden) return `${hidden} once percent-decoded`;
  }
  const rel = normalisedPath(requested);
  if (rel === '' || rel === '.') return 'names the models directory itself';
  return null;
}

/** The path as stored in the listing: normalised, no leading `./`, no trailing slash. */
export function normalisedPath(requested: string): string {
  return path.posix
    .normalize(requested)
    .replace(/^(\.\/)+/, '')
    .replace(/\/+$/, '');
}

export interface ModelFile {
  /** Relative to the models directory, normalised. */
  rel: string;
  abs: string;
  size: number;
}

/**
 * Checks on disk that `rel` (already through pathProblem) is a regular file reached without any
 * link: answers it with its size, or why not.
 */
export async function inspectModelFile(
  root: string,
  rel: string,
): Promise<ModelFile | { problem: string }> {
  const abs = path.join(root, rel);
  let realRoot: string;
  try {
    realRoot = await fs.realpath(root);
  } catch {
    return { problem: 'does not exist' };
  }
  // Every folder on the way must be itself, not a link to elsewhere.
  const parent = path.dirname(rel);
  try {
    const realParent = await fs.realpath(path.join(root, parent));
    if (realParent !== path.join(realRoot, parent)) {
      return { problem: 'is reached through a symbolic link' };
    }
  } catch {
    return { problem: 'does not exist' };
  }
  let stat;
  try {
    stat = await fs.lstat(abs);
  } catch {
    return { problem: 'does not exist' };
  }
  if (stat.isSymbolicLink()) return { problem: 'is a symbolic link' };
  if (stat.isDirectory()) return { problem: 'is a directory (name its files)' };
  if (!stat.isFile()) return { problem: 'is not a regular file' };
  return { rel, abs, size: stat.size };
}

/**
 * The first folder on the way from `root` to `rel` (`rel` itself excluded: removing a link
 * removes the link only) that is a symbolic link, relative to `root`; null when none is. A
 * recursive delete through such a folder would delete wherever it points.
 */
export async function linkOnTheWay(root: string, rel: string): Promise<string | null> {
  const parts = rel.split('/');
  for (let i = 1; i < parts.length; i++) {
    const sub = parts.slice(0, i).join('/');
    const st = await fs.lstat(path.join(root, sub)).catch(() => null);
    if (!st) return null; // nothing below it exists either
    if (st.isSymbolicLink()) return sub;
  }
  return null;
}

/** Room left in a 255-byte file name for the hash, the separators and an install's temp prefix. */
const READABLE_NAME_MAX = 160;

/**
 * The folder a hub model is installed into, relative to the models directory: one flat folder
 * per repository and revision, `<owner>--<name>--<revision>--<hash>`, so no model's folder holds
 * another's (with `<repo>/<revision>`, repository `x` at `main` held `x/main` at `r1`). The hash
 * of the exact pair tells apart what the readable part cannot: names that differ in case only
 * (one folder on a case-insensitive disk), `a--b` against `a/b`, names the shortening cut.
 */
export function installDirName(repo: string, revision: string): string {
  const hash = createHash('sha256').update(`${repo}\n${revision}`).digest('hex').slice(0, 12);
  const readable = `${repo.replace('/', '--')}--${revision}`.slice(0, READABLE_NAME_MAX);
  return `${readable}--${hash}`;
}

/** Whether `rel` is `dir` or inside it (both relative, forward slashes). */
export function isWithin(rel: string, dir: string): boolean {
  return rel === dir || rel.startsWith(`${dir}/`);
}

/** Removes the empty folders from `dir` up to (not including) `root`. */
export async function pruneEmptyDirs(root: string, dir: string): Promise<void> {
  let current = dir;
  while (current.startsWith(`${root}${path.sep}`)) {
    try {
      await fs.rmdir(current);
    } catch {
      return; // not empty (or gone): stop here
    }
    current = path.dirname(current);
  }
}

/** Bytes of the regular files under `dir` (links not followed); 0 when it does not exist. */
export async function dirSize(dir: string): Promise<number> {
  let total = 0;
  let entries;
  try {
    entries = await fs.readdir(dir, { withFileTypes: true });
  } catch {
    return 0;
  }
  for (const e of entries) {
    const full = path.join(dir, e.name);
    if (e.isDirectory()) total += await dirSize(full);
    else if (e.isFile()) total += (await fs.lstat(full).catch(() => ({ size: 0 }))).size;
  }
  return total;
}

/** Every regular file under `dir`, relative to `root`, without entering links. */
export async function listFiles(
  root: string,
  dir = root,
): Promise<{ rel: string; size: number }[]> {
  const out: { rel: string; size: number }[] = [];
  let entries;
  try {
    entries = await fs.readdir(dir, { withFileTypes: true });
  } catch {
    return out;
  }
  for (const e of entries) {
    const full = path.join(dir, e.name);
    if (e.isDirectory()) out.push(...(await listFiles(root, full)));
    else if (e.isFile()) {
      const size = (await fs.lstat(full).catch(() => ({ size: 0 }))).size;
      out.push({ rel: path.relative(root, full).split(path.sep).join('/'), size });
    }
  }
  return out;
}
