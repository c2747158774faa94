import { describe, expect, it } from 'vitest';
import { bucketKey, fillBuckets, floorTo, lastBuckets } from './time-buckets.js';

const at = (iso: string) => Date.parse(iso);

describe('time buckets', () => {
  it('floors to the start of the minute, hour or day in UTC', () => {
    const t = at('2026-11-22T12:34:56.789Z');
    expect(new Date(floorTo('minute', t)).toISOString()).toBe('2026-11-22T12:34:00.000Z');
    expect(new Date(floorTo('hour', t)).toISOString()).toBe('2026-11-22T12:00:00.000Z');
    expect(new Date(floorTo('day', t)).toISOString()).toBe('2026-11-22T00:00:00.000Z');
  });

  it('keys a bucket with the prefix of created_at that SQL takes with substr', () => {
    const t = at('2026-11-22T12:34:56.789Z');
    expect(bucketKey('minute', t)).toBe('2026-11-22T12:34');
    expect(bucketKey('hour', t)).toBe('2026-11-22T12');
    expect(bucketKey('day', t)).toBe('2026-11-22');
  });

  it('answers the last buckets oldest first, the current one last, across a day boundary', () => {
    const b = lastBuckets('hour', 3, at('2026-11-23T01:10:00.000Z'));
    expect(b.map((x) => x.key)).toEqual(['2026-11-22T23', '2026-11-23T00', '2026-11-23T01']);
    expect(b[0]!.iso).toBe('2026-11-22T23:00:00.000Z');
    expect(lastBuckets('day', 12, Date.now())).toHaveLength(12);
  });

  it('fills empty buckets with 0, adds finer keys to their bucket and drops rows outside', () => {
    const days = lastBuckets('day', 3, at('2026-11-22T08:00:00.000Z'));
    const rows = [
      { key: '2026-11-20T03', n: 2 },
      { key: '2026-11-20T23', n: 3 },
      { key: '2026-11-22T07', n: 1 },
      { key: '2026-11-19T23', n: 100 },
      { key: '2026-11-23T00', n: 100 },
    ];
    expect(fillBuckets(days, rows)).toEqual([5, 0, 1]);
    expect(fillBuckets([], rows)).toEqual([]);
  });
});
