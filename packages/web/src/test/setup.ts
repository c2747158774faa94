import '@testing-library/jest-dom/vitest';
import { afterEach, vi } from 'vitest';
import { cleanup, configure } from '@testing-library/react';
import { notifications } from '@mantine/notifications';
import { FakeWebSocket } from './fakeSocket';

// Whole-app renders with lazy screens can take over a second on a quiet machine, and the first
// test of a file (cold imports) past 4 s on a CI machine running other work: waits are on
// conditions, so a long bound only slows a test that fails.
configure({ asyncUtilTimeout: 15_000 });

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
const consoleWarn = console.warn.bind(console);
console.warn = (...args: unknown[]) => {
  if (typeof args[0] === 'string' && /^The width\(\S*\) and height\(\S*\) of chart/.test(args[0]))
    return;
  consoleWarn(...args);
};

// No real socket in jsdom: the realtime channel talks to a fake tests can drive.
window.WebSocket = FakeWebSocket as unknown as typeof WebSocket;

afterEach(() => {
  FakeWebSocket.reset();
  cleanup();
  notifications.clean();
  window.sessionStorage.clear();
  window.localStorage.clear();
  vi.unstubAllGlobals();
});
