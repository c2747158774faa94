import { describe, expect, it } from 'vitest';
import { RateWindow } from './rate-window.js';

describe('RateWindow', () => {
  it('averages what was added over the window, the current second included', () => {
    let t = 1_000_000;
    const r = new RateWindow(60, () => t);
    expect(r.perSecond()).toBe(0);
    r.add(30);
    t += 1500;
    r.add(90);
    expect(r.total()).toBe(120);
    expect(r.perSecond()).toBe(2);
  });

  it('forgets a second once it is a full window old, even when its slot is not reused', () => {
    let t = 0;
    const r = new RateWindow(10, () => t);
    r.add(5); // second 0
    t = 3000;
    r.add(7); // second 3
    t = 9999;
    expect(r.total()).toBe(12);
    t = 10_000; // second 10: second 0 is out
    expect(r.total()).toBe(7);
    r.add(1); // reuses second 0's slot
    expect(r.total()).toBe(8);
    t = 60_000;
    expect(r.total()).toBe(0);
  });
});
