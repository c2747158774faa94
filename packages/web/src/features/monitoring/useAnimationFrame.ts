import { useEffect, useRef } from 'react';

/**
 * Calls `draw(timeMs)` on every animation frame while the page is visible, and never while it is
 * hidden (no frame is even requested), so a decorative animation costs nothing in a background
 * tab. With reduced motion asked for, it draws one still frame.
 */
export function useAnimationFrame(draw: (timeMs: number) => void): void {
  const drawRef = useRef(draw);
  drawRef.current = draw;
  useEffect(() => {
    const still = window.matchMedia?.('(prefers-reduced-motion: reduce)').matches ?? false;
    if (typeof window.requestAnimationFrame !== 'function') return;
    let frame: number | null = null;
    const tick = (time: number) => {
      drawRef.current(time);
      frame = still ? null : window.requestAnimationFrame(tick);
    };
    const start = () => {
      if (frame === null && document.visibilityState !== 'hidden') {
        frame = window.requestAnimationFrame(tick);
      }
    };
    const stop = () => {
      if (frame !== null) window.cancelAnimationFrame(frame);
      frame = null;
    };
    const onVisibility = () => (document.visibilityState === 'hidden' ? stop() : start());
    document.addEventListener('visibilitychange', onVisibility);
    start();
    return () => {
      document.removeEventListener('visibilitychange', onVisibility);
      stop();
    };
  }, []);
}

/**
 * Keeps a canvas's backing store at its displayed size (× device pixel ratio) and returns the
 * 2D context scaled to CSS pixels, or null when the canvas has no size or no context (jsdom).
 */
export function fitCanvas(canvas: HTMLCanvasElement): CanvasRenderingContext2D | null {
  const ratio = window.devicePixelRatio || 1;
  const width = canvas.clientWidth;
  const height = canvas.clientHeight;
  if (width === 0 || height === 0) return null;
  if (canvas.width !== Math.round(width * ratio) || canvas.height !== Math.round(height * ratio)) {
    canvas.width = Math.round(width * ratio);
    canvas.height = Math.round(height * ratio);
  }
  let context: CanvasRenderingContext2D | null = null;
  try {
    context = canvas.getContext('2d');
  } catch {
    return null;
  }
  if (!context) return null;
  context.setTransform(ratio, 0, 0, ratio, 0, 0);
  return context;
}
