import { describe, expect, it } from 'vitest';
import { startPool } from '../src/vector/recall.js';

describe('one-thread pools at start-up (startPool)', () => {
  it('start no thread when made, one at their first task, which then stays', async () => {
    const pool = startPool('exact.worker');
    try {
      // Made while the server starts (index, checkpoints): nothing runs before it listens.
      expect(pool.threads.length).toBe(0);
      // A task the worker refuses (no such store) still needs the thread, which starts for it.
      await expect(
        pool.run({
          dbFile: '/nonexistent/adam.db',
          keys: new Float64Array(0),
          sample: new Float64Array(0),
          dimension: 4,
          k: 1,
          embedderId: 'none',
        }),
      ).rejects.toThrow();
      expect(pool.threads.length).toBe(1);
    } finally {
      await pool.close();
    }
  });
});
