import '@testing-library/jest-dom/vitest';
import { afterEach, beforeEach, inject, vi } from 'vitest';
import { cleanup, configure } from '@testing-library/react';
import { notifications } from '@mantine/notifications';
import { FakeWebSocket } from './fakeSocket';

// Whole-app renders with lazy screens can take over a second on a quiet machine, and many times
// that on a loaded one: waits are on conditions, so a long bound only slows a test that fails. The
// factor grows with the machine's load (vitest.config.ts); it stays under the test timeout, so a
// missing element fails with testing-library's message rather than a bare timeout.
declare module 'vitest' {
  export interface ProvidedContext {
    timeScale: number;
  }
}
configure({ asyncUtilTimeout: 20_000 * (inject('timeScale') ?? 1) });

// jsdom lacks the layout APIs Mantine reads.
Object.defineProperty(window, 'matchMedia', {
  writable: true,
  value: vi.fn().mockImplementation((query: string) => ({
    matches: false,
    media: query,
    onchange: null,
    addListener: vi.fn(),
    removeListener: vi.fn(),
    addEventListener: vi.fn(),
    removeEventListener: vi.fn(),
    dispatchEvent: vi.fn(),
  })),
});

class ResizeObserverStub {
  observe() {}
  unobserve() {}
  disconnect() {}
}
window.ResizeObserver = ResizeObserverStub as unknown as typeof ResizeObserver;
window.HTMLElement.prototype.scrollIntoView = () => {};
Object.defineProperty(window, 'scrollTo', { writable: true, value: () => {} });

// jsdom lays nothing out, so Recharts' ResponsiveContainer measures 0 × 0 and warns at every
// render; in a browser it has its size. Only that warning is dropped: any other one still shows.
// Wrapped once per worker: files sharing it run this file again.
const quietWarn = console.warn as typeof console.warn & { quietsChartSize?: true };
if (!quietWarn.quietsChartSize) {
  const consoleWarn = console.warn.bind(console);
  console.warn = Object.assign(
    (...args: unknown[]) => {
      if (
        typeof args[0] === 'string' &&
        /^The width\(\S*\) and height\(\S*\) of chart/.test(args[0])
      )
        return;
      consoleWarn(...args);
    },
    { quietsChartSize: true as const },
  );
}

// jsdom runs every animation frame on one interval, started when the first frame is asked for and
// kept while any is pending; started under a fake clock, it dies with that clock and no frame runs
// again in this window (Mantine's Collapse then never opens). Files share a worker's jsdom, so frames
// run on the timer of whichever clock is current when each is asked for.
window.requestAnimationFrame = (callback) =>
  setTimeout(() => callback(performance.now()), 16) as unknown as number;
window.cancelAnimationFrame = (handle) => clearTimeout(handle);

// No real socket in jsdom: the realtime channel talks to a fake tests can drive.
window.WebSocket = FakeWebSocket as unknown as typeof WebSocket;

// Files share a worker's jsdom (isolate: false): each test starts from empty storage at /, even if
// an effect of the file before wrote after that file's cleanup.
beforeEach(() => {
  window.sessionStorage.clear();
  window.localStorage.clear();
  window.history.replaceState(null, '', '/');
});

afterEach(() => {
  FakeWebSocket.reset();
  cleanup();
  notifications.clean();
  window.sessionStorage.clear();
  window.localStorage.clear();
  vi.unstubAllGlobals();
  // A file that faked the clock must not hand it to the next one sharing the worker (Mantine's
  // Collapse opens on requestAnimationFrame, which fake timers hold).
  vi.useRealTimers();
});
