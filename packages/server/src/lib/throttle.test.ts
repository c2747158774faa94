import { describe, expect, it } from 'vitest';
import { FailureThrottle } from './throttle.js';

describe('FailureThrottle', () => {
  it('blocks a key at its limit until the oldest failure leaves the window', () => {
    let now = 0;
    const t = new FailureThrottle(60_000, () => now);
    for (let i = 0; i < 3; i++) {
      expect(t.retryAfter('k', 3)).toBe(0);
      t.record('k');
      now += 10_000;
    }
    // failures at 0, 10 s, 20 s; now 30 s: the first leaves the window at 60 s.
    expect(t.retryAfter('k', 3)).toBe(30);
    expect(t.retryAfter('other', 3)).toBe(0);
    now = 60_001;
    expect(t.retryAfter('k', 3)).toBe(0);
  });

  it('forgets a key when cleared', () => {
    const t = new FailureThrottle(60_000, () => 0);
    t.record('k');
    t.record('k');
    t.clear('k');
    expect(t.retryAfter('k', 2)).toBe(0);
  });
});
