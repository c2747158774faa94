import { describe, expect, it } from 'vitest';
import { PICK_SLICE, pickKeys } from './mark-indexed.js';

describe('picking a flush batch’s keys', () => {
  it('checks PICK_SLICE keys per turn of the event loop and keeps the accepted ones in order', async () => {
    const all = Array.from({ length: 2 * PICK_SLICE + 500 }, (_, i) => i * 3);
    // Counts turns of the loop while the keys are picked.
    let turns = 0;
    let ticking = true;
    const tick = () => {
      turns++;
      if (ticking) setImmediate(tick);
    };
    setImmediate(tick);
    const turnAt: number[] = [];
    const keys = await pickKeys(all, 0, all.length, (k) => {
      turnAt.push(turns);
      return k % 2 === 0;
    });
    ticking = false;

    expect([...keys]).toEqual(all.filter((k) => k % 2 === 0));
    // Within a slice no turn passes; between two slices at least one does.
    expect(turnAt[PICK_SLICE - 1]).toBe(turnAt[0]);
    expect(turnAt[PICK_SLICE]!).toBeGreaterThan(turnAt[PICK_SLICE - 1]!);
    expect(turnAt[2 * PICK_SLICE]!).toBeGreaterThan(turnAt[2 * PICK_SLICE - 1]!);
  });

  it('picks within the bounds given, past the end of the list included', async () => {
    const all = [5, 6, 7, 8, 9];
    expect([...(await pickKeys(all, 1, 4, () => true))]).toEqual([6, 7, 8]);
    expect([...(await pickKeys(all, 3, 20_000, (k) => k !== 9))]).toEqual([8]);
    expect([...(await pickKeys(all, 5, 10, () => true))]).toEqual([]);
  });
});
