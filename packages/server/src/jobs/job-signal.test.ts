import { describe, expect, it } from 'vitest';
import { jobAbortController } from './job-signal.js';

/** Warnings Node emits while `fn` runs (they are emitted on a later tick). */
async function warningsDuring(fn: () => void): Promise<string[]> {
  const seen: string[] = [];
  const onWarning = (w: Error) => seen.push(w.name);
  process.on('warning', onWarning);
  try {
    fn();
    await new Promise((r) => setImmediate(r));
    await new Promise((r) => setImmediate(r));
  } finally {
    process.off('warning', onWarning);
  }
  return seen;
}

describe('a job signal', () => {
  it('takes a listener from each of many lanes without a leak warning, and still aborts them all', async () => {
    const controller = jobAbortController();
    let aborted = 0;
    const warnings = await warningsDuring(() => {
      for (let i = 0; i < 40; i++)
        controller.signal.addEventListener('abort', () => aborted++, { once: true });
    });
    expect(warnings).not.toContain('MaxListenersExceededWarning');
    controller.abort();
    expect(aborted).toBe(40);
  });

  it('is what a plain controller would warn about (the check can fail)', async () => {
    const plain = new AbortController();
    const warnings = await warningsDuring(() => {
      for (let i = 0; i < 40; i++) plain.signal.addEventListener('abort', () => undefined);
    });
    expect(warnings).toContain('MaxListenersExceededWarning');
  });
});
