import fs from 'node:fs';
import path from 'node:path';

/** Who holds a data directory: written into its lock file as JSON. */
interface LockHolder {
  pid: number;
  started_at: string;
  /** 'server', or the maintenance command that holds it ('restore', 'backup', 'reindex'). */
  role: string;
}

export const LOCK_FILE = 'server.lock';

/** The data directory is held by another live process. */
export class DataDirBusy extends Error {
  constructor(
    readonly dir: string,
    readonly holder: LockHolder,
  ) {
    const who =
      holder.role === 'server'
        ? `A server (pid ${holder.pid})`
        : `adam ${holder.role} (pid ${holder.pid})`;
    const hint =
      holder.role === 'server'
        ? "stop it first, or use the console's Maintenance screen."
        : 'wait for it to finish.';
    super(`${who} is using ${dir}: ${hint}`);
  }
}

/** Errors a directory that cannot be written gives. */
const NOT_WRITABLE = new Set(['EACCES', 'EPERM', 'EROFS']);

/** Whether `e` says a directory cannot be written (read-only mount, lost permissions). */
export function isNotWritable(e: unknown): e is NodeJS.ErrnoException {
  return NOT_WRITABLE.has((e as NodeJS.ErrnoException)?.code ?? '');
}

/** "data directory /x/data is not writable: EROFS (read-only file system)" */
export function notWritableMessage(dir: string, e: NodeJS.ErrnoException): string {
  const why = e.code ?? e.message;
  const detail = e.code ? e.message.replace(/^[A-Z]+: /, '').replace(/, \w+ '[^']*'$/, '') : '';
  return `data directory ${dir} is not writable: ${why}${detail && detail !== why ? ` (${detail})` : ''}`;
}

/** The data directory cannot be written: said in one line at start and at stop, no stack. */
export class DataDirNotWritable extends Error {
  constructor(
    readonly dir: string,
    cause: NodeJS.ErrnoException,
  ) {
    const detail = cause.message.replace(/^[A-Z]+: /, '').replace(/, \w+ '[^']*'$/, '');
    super(
      `Cannot write to the data directory ${dir} (${cause.code}): ${detail}. ` +
        'Make it writable (a read-only mount or its permissions), or set ADAM_DATA_DIR to another directory.',
      { cause },
    );
  }
}

/** Whether a process with this pid exists (EPERM: it does, under another user). */
function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}

function readHolder(file: string): LockHolder | null {
  try {
    const h = JSON.parse(fs.readFileSync(file, 'utf8')) as Partial<LockHolder>;
    if (typeof h.pid !== 'number' || !Number.isInteger(h.pid) || h.pid <= 0) return null;
    return { pid: h.pid, started_at: String(h.started_at ?? ''), role: String(h.role ?? 'server') };
  } catch {
    return null;
  }
}

/** The live process holding `dir`, or null when nobody does (a stale lock counts as nobody). */
export function dataDirHolder(dir: string): LockHolder | null {
  const holder = readHolder(path.join(dir, LOCK_FILE));
  return holder && holder.pid !== process.pid && alive(holder.pid) ? holder : null;
}

/**
 * Takes `dir` for this process, or throws DataDirBusy naming the live holder. A lock left by a
 * dead process (a crash, a kill -9) is taken over. The lock is advisory: it keeps a second server
 * and the CLI's maintenance commands off a directory a server is writing.
 */
export function lockDataDir(dir: string, role = 'server'): { release: () => void } {
  try {
    return takeLock(dir, role);
  } catch (e) {
    if (isNotWritable(e)) throw new DataDirNotWritable(dir, e);
    throw e;
  }
}

function takeLock(dir: string, role: string): { release: () => void } {
  fs.mkdirSync(dir, { recursive: true });
  const file = path.join(dir, LOCK_FILE);
  const mine: LockHolder = { pid: process.pid, started_at: new Date().toISOString(), role };
  for (let attempt = 0; ; attempt++) {
    try {
      fs.writeFileSync(file, `${JSON.stringify(mine)}\n`, { flag: 'wx' });
      break;
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST' || attempt > 2) throw e;
      const holder = readHolder(file);
      if (holder && holder.pid !== process.pid && alive(holder.pid))
        throw new DataDirBusy(dir, holder);
      // Stale (dead pid, unreadable, or ours from before): remove it and try again; 'wx' keeps
      // two processes that both saw it stale from both taking it.
      fs.rmSync(file, { force: true });
    }
  }
  let released = false;
  return {
    release: () => {
      if (released) return;
      released = true;
      // Only our own lock: never remove one another process took over. A directory turned
      // read-only meanwhile keeps it; the next start takes a lock whose pid is dead over.
      try {
        if (readHolder(file)?.pid === process.pid) fs.rmSync(file, { force: true });
      } catch (e) {
        if (!isNotWritable(e)) throw e;
      }
    },
  };
}
