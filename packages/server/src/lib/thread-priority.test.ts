import os from 'node:os';
import { Worker } from 'node:worker_threads';
import { describe, expect, it } from 'vitest';
import { threadId, withLowerPriority } from './thread-priority.js';

const linux = process.platform === 'linux';

describe.skipIf(!linux)('a lower priority for one thread', () => {
  it('lowers the calling thread only while fn runs, and puts it back', async () => {
    const tid = threadId()!;
    const before = os.getPriority(tid);
    // Another thread of this process, by its own kernel id.
    const worker = new Worker(
      `const { parentPort } = require('node:worker_threads');
       const fs = require('node:fs');
       parentPort.postMessage(Number(fs.readlinkSync('/proc/thread-self').split('/').pop()));
       parentPort.on('message', () => process.exit(0));`,
      { eval: true },
    );
    const other = await new Promise<number>((resolve) => worker.once('message', resolve));
    const otherBefore = os.getPriority(other);

    const seen = withLowerPriority(5, () => ({
      self: os.getPriority(tid),
      other: os.getPriority(other),
    }));

    expect(seen.self).toBe(Math.min(19, before + 5));
    // Lowering this thread changed no other.
    expect(seen.other).toBe(otherBefore);
    // Put back when allowed (root, or a nice limit that permits it).
    if (process.getuid?.() === 0) expect(os.getPriority(tid)).toBe(before);
    await worker.terminate();
  });

  it('answers fn’s value and puts the priority back when fn throws', () => {
    const tid = threadId()!;
    const before = os.getPriority(tid);
    expect(withLowerPriority(3, () => 42)).toBe(42);
    expect(() =>
      withLowerPriority(3, () => {
        throw new Error('save failed');
      }),
    ).toThrow('save failed');
    if (process.getuid?.() === 0) expect(os.getPriority(tid)).toBe(before);
  });
});
