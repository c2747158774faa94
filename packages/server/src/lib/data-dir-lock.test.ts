import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { DataDirBusy, dataDirHolder, LOCK_FILE, lockDataDir } from './data-dir-lock.js';

const tempDir = () => fs.mkdtempSync(path.join(os.tmpdir(), 'adam-lock-'));

/** A pid that surely names no process: one that just exited. */
function deadPid(): number {
  return spawnSync(process.execPath, ['-e', '0']).pid!;
}

describe('the data directory lock', () => {
  it('writes pid and start time, and removes the file on release', () => {
    const dir = tempDir();
    const lock = lockDataDir(dir);
    const held = JSON.parse(fs.readFileSync(path.join(dir, LOCK_FILE), 'utf8'));
    expect(held).toMatchObject({ pid: process.pid, role: 'server' });
    expect(Date.parse(held.started_at)).not.toBeNaN();
    lock.release();
    expect(fs.existsSync(path.join(dir, LOCK_FILE))).toBe(false);
  });

  it('refuses while a live process holds it, naming the pid and the directory', () => {
    const dir = tempDir();
    // The test runner's parent is alive and is not this process.
    const holder = { pid: process.ppid, started_at: new Date().toISOString(), role: 'server' };
    fs.writeFileSync(path.join(dir, LOCK_FILE), JSON.stringify(holder));
    expect(dataDirHolder(dir)).toEqual(holder);
    expect(() => lockDataDir(dir, 'restore')).toThrow(DataDirBusy);
    expect(() => lockDataDir(dir, 'restore')).toThrow(
      `A server (pid ${process.ppid}) is using ${dir}: stop it first, or use the console's Maintenance screen.`,
    );
  });

  it('takes over a lock whose process is dead, or that cannot be read', () => {
    for (const content of [JSON.stringify({ pid: deadPid(), started_at: 'x' }), 'garbage']) {
      const dir = tempDir();
      fs.writeFileSync(path.join(dir, LOCK_FILE), content);
      expect(dataDirHolder(dir)).toBeNull();
      const lock = lockDataDir(dir);
      expect(JSON.parse(fs.readFileSync(path.join(dir, LOCK_FILE), 'utf8')).pid).toBe(process.pid);
      lock.release();
    }
  });
});
