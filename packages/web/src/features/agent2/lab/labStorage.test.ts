import { afterEach, describe, expect, it } from 'vitest';
import { LAB_STORAGE_KEY, loadLab, parseLab, saveLab, serializeLab } from './labStorage';
import { createLab, startNewGeneration, tick } from './simulation';
import type { LabState } from './types';

function grown(generations: number): LabState {
  let state = createLab(7);
  for (let g = 0; g < generations; g += 1) {
    state = tick(state);
    state = startNewGeneration(state);
  }
  return state;
}

afterEach(() => window.localStorage.clear());

describe('the laboratory in local storage', () => {
  it('gives back the state it saved, with the pause', () => {
    const state = grown(3);
    saveLab(state, false);
    const back = loadLab();
    expect(back?.running).toBe(false);
    expect(back?.state.generation).toBe(state.generation);
    expect(back?.state.babies.map((b) => b.id)).toEqual(state.babies.map((b) => b.id));
    expect(back?.state.rngState).toBe(state.rngState);
    // The restored state goes on exactly as the saved one would have.
    expect(tick(back!.state)).toEqual(tick(JSON.parse(JSON.stringify(state)) as LabState));
  });

  it('refuses what it cannot trust: nothing, bad JSON, another format, broken fields', () => {
    const good = JSON.parse(serializeLab(grown(1), true)) as { state: Record<string, unknown> };
    const variants: (string | null)[] = [
      null,
      '',
      '{',
      JSON.stringify({ ...good, format: 99 }),
      JSON.stringify({ ...good, state: { ...good.state, generation: 0 } }),
      JSON.stringify({ ...good, state: { ...good.state, seed: 'x' } }),
      JSON.stringify({ ...good, state: { ...good.state, babies: [{ id: 1 }] } }),
      JSON.stringify({ ...good, state: { ...good.state, params: { mutationRate: 'a' } } }),
    ];
    for (const text of variants) expect(parseLab(text)).toBeNull();
    expect(parseLab(JSON.stringify(good))).not.toBeNull();
  });

  it('holds the params to their bounds when read back', () => {
    const good = JSON.parse(serializeLab(grown(1), true)) as {
      state: { params: Record<string, number> };
    };
    good.state.params.mutationRate = 50;
    expect(parseLab(JSON.stringify(good))?.state.params.mutationRate).toBeLessThanOrEqual(1);
  });

  it('stays under its size bound: archived babies lose their experiences first', () => {
    const state = grown(2);
    const long = 'x'.repeat(5000);
    const heavy: LabState = {
      ...state,
      babies: Array.from({ length: 600 }, (_, n) => ({
        ...state.babies[n % state.babies.length]!,
        id: `b${n}`,
        status: n < 580 ? ('archived' as const) : ('active' as const),
        experiences: Array.from({ length: 20 }, (_, e) => ({
          ...state.babies[0]!.experiences[0]!,
          id: `e${n}-${e}`,
          source: { id: 1, text: long, theme: 'science' },
        })),
      })),
    };
    const text = serializeLab(heavy, true);
    expect(text.length).toBeLessThanOrEqual(2_000_000);
    const back = parseLab(text)!;
    const active = back.state.babies.filter((b) => b.status === 'active');
    expect(active).toHaveLength(20);
    expect(active.every((b) => b.experiences.length === 20)).toBe(true);
    expect(active[0]!.experiences[0]!.source!.text.length).toBe(280);
    expect(
      back.state.babies
        .filter((b) => b.status === 'archived')
        .every((b) => b.experiences.length === 0),
    ).toBe(true);
  });

  it('a full or disabled storage loses nothing but the saving', () => {
    const original = Storage.prototype.setItem;
    Storage.prototype.setItem = () => {
      throw new DOMException('full', 'QuotaExceededError');
    };
    try {
      expect(() => saveLab(grown(1), true)).not.toThrow();
    } finally {
      Storage.prototype.setItem = original;
    }
    expect(window.localStorage.getItem(LAB_STORAGE_KEY)).toBeNull();
  });
});
