import { describe, expect, it } from 'vitest';
import { addressBucket, FailureThrottle } from './throttle.js';

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

describe('FailureThrottle.release and count', () => {
  it('takes back only the latest failure', () => {
    const t = new FailureThrottle(60_000, () => 0);
    t.record('k');
    t.record('k');
    t.release('k');
    expect(t.count('k')).toBe(1);
    t.release('k');
    t.release('k');
    expect(t.count('k')).toBe(0);
  });
});

describe('addressBucket', () => {
  it('keys IPv4 by address, IPv4-mapped IPv6 as IPv4, and IPv6 by its /64', () => {
    expect(addressBucket('203.0.113.5')).toBe('203.0.113.5');
    expect(addressBucket('::ffff:203.0.113.5')).toBe('203.0.113.5');
    expect(addressBucket('2001:db8:0:1::1')).toBe('2001:db8:0:1::/64');
    expect(addressBucket('2001:db8:0:1:aaaa:bbbb:cccc:dddd')).toBe('2001:db8:0:1::/64');
    expect(addressBucket('2001:0db8:0000:0001::ffff')).toBe('2001:db8:0:1::/64');
    expect(addressBucket('2001:db8::1')).toBe('2001:db8:0:0::/64');
    expect(addressBucket('::1')).toBe('0:0:0:0::/64');
  });
});
