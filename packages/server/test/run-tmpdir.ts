import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

const RUN_PREFIX = 'adam-test-run-';

/** The machine's temporary folder, for what outlives a run (the converted model's cache). */
export const SHARED_TMPDIR_ENV = 'ADAM_TEST_SHARED_TMPDIR';

/** Whether a process of this pid runs (a run's folder or compiled copy is still in use). */
export function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/**
 * One temporary folder per test run, removed when the run ends. The tests make hundreds of data
 * directories, stores and indexes through os.tmpdir() and most left them behind (a whole run
 * left about 700 folders, 1 GB). Set as TMPDIR in vitest's process when its config loads, before
 * it starts the workers, which inherit it, as do the processes the tests start. A run that was
 * killed leaves its folder: the next run removes it.
 */
export function useRunTmpdir(): void {
  if (process.env[SHARED_TMPDIR_ENV]) return; // a config loaded twice in one process
  const shared = os.tmpdir();
  for (const name of fs.readdirSync(shared)) {
    const pid = Number(name.slice(RUN_PREFIX.length).split('-')[0]);
    if (name.startsWith(RUN_PREFIX) && pid && !alive(pid)) {
      fs.rmSync(path.join(shared, name), { recursive: true, force: true });
    }
  }
  const dir = fs.mkdtempSync(path.join(shared, `${RUN_PREFIX}${process.pid}-`));
  process.env[SHARED_TMPDIR_ENV] = shared;
  process.env.TMPDIR = dir;
  process.once('exit', () => {
    try {
      fs.rmSync(dir, { recursive: true, force: true });
    } catch {
      // Something still held a file open: the next run removes the folder.
    }
  });
}
