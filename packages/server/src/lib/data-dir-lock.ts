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
      // Only our own lock: never remove one another process took over.
      if (readHolder(file)?.pid === process.pid) fs.rmSync(file, { force: true });
    },
  };
}
