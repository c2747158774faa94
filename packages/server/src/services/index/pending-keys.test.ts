import { describe, expect, it } from 'vitest';
import { rng } from '../../../test/fixtures/seeded-random.js';
import { PendingKeys } from './pending-keys.js';

describe('PendingKeys', () => {
  it('keeps the count of unsaved vectors equal to a recount through adds, removes, saves and reloads', () => {
    for (let seed = 1; seed <= 40; seed++) {
      const rnd = rng(seed);
      const int = (n: number) => Math.floor(rnd() * n);
      // The index's keys, as IndexClient mirrors them; replaced by a reload.
      let index = new Set<number>();
      const pending = new PendingKeys((k) => index.has(k));
      // Keys mostly small and dense, a few far out (the map side), some repeated.
      const key = () => (rnd() < 0.05 ? 2 ** 30 + int(20) : int(60));
      let saving: { keys: number[]; upTo: number } | null = null;
      for (let step = 0; step < 400; step++) {
        const op = int(10);
        if (op <= 2) {
          const keys = Array.from({ length: 1 + int(6) }, key);
          const fresh = pending.notHeld(keys);
          for (const k of keys) index.add(k);
          pending.added(keys, fresh);
        } else if (op === 3) {
          const removed = Array.from({ length: 1 + int(4) }, key).filter((k) => index.delete(k));
          pending.removed(removed);
        } else if (op === 4 && !saving) {
          saving = { keys: pending.startSave(), upTo: 0 };
        } else if (op === 5 && saving) {
          // A batch of the save's keys marked indexed.
          saving.upTo += 1 + int(5);
          pending.markedTo(saving.upTo);
        } else if (op === 6 && saving) {
          if (rnd() < 0.3) pending.saveFailed();
          else pending.endSave();
          saving = null;
        } else if (op === 7 && rnd() < 0.2) {
          index.clear();
          pending.emptied();
          pending.dropUnmarked();
        } else if (op === 8 && rnd() < 0.2 && !saving) {
          // A reload: another index, its own keys.
          pending.dropUnmarked();
          index = new Set(Array.from({ length: int(30) }, key));
          pending.recount();
        }
        expect(pending.unsaved, `seed ${seed}, step ${step}`).toBe(pending.counted());
      }
    }
  });

  it('counts a key added twice before its save twice, and once the save holds it, not at all', () => {
    const index = new Set<number>();
    const pending = new PendingKeys((k) => index.has(k));
    for (let i = 0; i < 2; i++) {
      const fresh = pending.notHeld([7]);
      index.add(7);
      pending.added([7], fresh);
    }
    expect(pending.unsaved).toBe(2);
    pending.startSave();
    expect(pending.unsaved).toBe(2);
    pending.markedTo(1);
    expect(pending.unsaved).toBe(1);
    pending.endSave();
    expect(pending.unsaved).toBe(0);
  });
});
