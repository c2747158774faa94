import { useCallback, useEffect, useRef, useState } from 'react';

/**
 * Spec 002 §4, §9: the optimize modal's progress is simulated — it starts at 10% and rises by 10
 * every 500 ms up to 90; only the real result takes it to 100.
 */
export const OPTIMIZE_PROGRESS = { start: 10, step: 10, tickMs: 500, cap: 90, done: 100 } as const;

export function useFakeProgress() {
  const [value, setValue] = useState<number | null>(null);
  const timer = useRef<ReturnType<typeof setInterval> | null>(null);

  const stop = useCallback(() => {
    if (timer.current !== null) clearInterval(timer.current);
    timer.current = null;
  }, []);

  useEffect(() => stop, [stop]);

  // Nothing left to simulate once the cap is reached: the bar waits there for the real result.
  useEffect(() => {
    if (value !== null && value >= OPTIMIZE_PROGRESS.cap) stop();
  }, [value, stop]);

  const start = useCallback(() => {
    stop();
    setValue(OPTIMIZE_PROGRESS.start);
    timer.current = setInterval(() => {
      setValue((v) =>
        Math.min(OPTIMIZE_PROGRESS.cap, (v ?? OPTIMIZE_PROGRESS.start) + OPTIMIZE_PROGRESS.step),
      );
    }, OPTIMIZE_PROGRESS.tickMs);
  }, [stop]);

  /** The real result arrived. */
  const complete = useCallback(() => {
    stop();
    setValue(OPTIMIZE_PROGRESS.done);
  }, [stop]);

  /** The run failed: the bar stays where it was. */
  const halt = stop;

  const reset = useCallback(() => {
    stop();
    setValue(null);
  }, [stop]);

  return { value, start, complete, halt, reset };
}
