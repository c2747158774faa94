import { describe, expect, it } from 'vitest';
import { KeySet } from './key-set.js';

describe('KeySet', () => {
  it('adds, finds, deletes and lists keys in order, growing past its first block', () => {
    const s = KeySet.from([5, 1, 31, 32, 70_000]);
    expect(s.size).toBe(5);
    expect(s.add(5)).toBe(false);
    expect(s.add(4_000_000)).toBe(true);
    expect(s.has(31) && s.has(32) && s.has(4_000_000)).toBe(true);
    expect(s.has(33) || s.has(0) || s.has(-1) || s.has(1.5) || s.has(9_999_999)).toBe(false);
    expect(s.delete(32)).toBe(true);
    expect(s.delete(32)).toBe(false);
    expect(Array.from(s.toArray())).toEqual([1, 5, 31, 70_000, 4_000_000]);
    expect(s.size).toBe(5);
  });

  it('lists keys whose bit is the top one of a word', () => {
    const s = KeySet.from([31, 63, 1_048_575]);
    expect(Array.from(s.toArray())).toEqual([31, 63, 1_048_575]);
  });

  it('refuses keys it cannot hold', () => {
    expect(() => new KeySet().add(-3)).toThrow(RangeError);
    expect(() => new KeySet().add(2 ** 33)).toThrow(RangeError);
  });
});
