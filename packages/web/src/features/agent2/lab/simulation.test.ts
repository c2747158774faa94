import { describe, expect, it } from 'vitest';
import {
  applyParams,
  ARCHIVED_KEPT,
  BREEDING_SHARE,
  byFitness,
  CAPITALIZE_CHANCE,
  CHILDREN_PER_GENERATION,
  classify,
  createLab,
  currentRecord,
  DEFAULT_PARAMS,
  EXPERIENCE_CHANCE,
  fitnessOf,
  GENERATION_TICKS,
  INITIAL_EXPERIENCES,
  INITIAL_POPULATION,
  livingBabies,
  MUTATION_RATE_MAX,
  MUTATION_RATE_MIN,
  NETWORK_VIEW_MAX,
  networkBabies,
  nextSeed,
  startNewGeneration,
  SURVIVORS,
  tick,
  TICK_MS,
} from './simulation';
import {
  DNA_TRAITS,
  EXPERIENCE_THEMES,
  type DigitalBaby,
  type Experience,
  type LabState,
  type SnippetSource,
} from './types';
import { evolvedLab, LAB_FIXTURE, LAB_SOURCES } from './lab.fixtures';

function run(state: LabState, ticks: number, sources?: SnippetSource[]): LabState {
  let s = state;
  for (let i = 0; i < ticks; i += 1) s = tick(s, { sources });
  return s;
}

/** Every state from `state` on, one per tick. */
function* ticks(state: LabState, count: number): Generator<[LabState, LabState]> {
  let s = state;
  for (let i = 0; i < count; i += 1) {
    const next = tick(s);
    yield [s, next];
    s = next;
  }
}

function experience(score: number, capitalized: boolean): Experience {
  return {
    id: `e${score}`,
    testType: 'exploration',
    difficulty: 0.5,
    theme: 'science',
    result: { success: score > 0.6, score, emotionalCoherence: 0.5, originality: 0.5 },
    capitalized,
    at: 0,
    source: null,
  };
}

const byId = (babies: DigitalBaby[]) => new Map(babies.map((b) => [b.id, b]));

describe('the initial population', () => {
  it('has 20 active babies of generation 1 with 5 experiences each and their fitness', () => {
    const lab = createLab(1);
    expect(lab.babies).toHaveLength(INITIAL_POPULATION);
    expect(INITIAL_POPULATION).toBe(20);
    expect(INITIAL_EXPERIENCES).toBe(5);
    for (const baby of lab.babies) {
      expect(baby.generation).toBe(1);
      expect(baby.status).toBe('active');
      expect(baby.experiences).toHaveLength(5);
      expect(baby.fitness).toBe(fitnessOf(baby.experiences));
      expect(baby.parentIds).toEqual([]);
    }
    expect(new Set(lab.babies.map((b) => b.id)).size).toBe(20);
    expect(new Set(lab.babies.map((b) => b.color)).size).toBeGreaterThan(10);
    expect(lab).toMatchObject({ generation: 1, tick: 0, history: [], params: DEFAULT_PARAMS });
  });
});

describe('determinism', () => {
  it('gives the same states for the same seed, and other ones for another seed', () => {
    expect(run(createLab(7), 40)).toEqual(run(createLab(7), 40));
    expect(run(createLab(7), 40).babies).not.toEqual(run(createLab(8), 40).babies);
  });

  it('leaves the state it is given untouched', () => {
    const lab = run(createLab(3), 4);
    const before = JSON.stringify(lab);
    tick(lab);
    startNewGeneration(lab);
    applyParams(lab, { ...DEFAULT_PARAMS, emotionalDepth: 0.1 });
    expect(JSON.stringify(lab)).toBe(before);
  });
});

describe('a tick', () => {
  it('is 3 s and ends a generation every 5 ticks, counted from the generation start', () => {
    expect(TICK_MS).toBe(3000);
    let lab = createLab(1);
    for (let t = 1; t <= 12; t += 1) {
      lab = tick(lab);
      expect(lab.tick).toBe(t);
      expect(lab.history).toHaveLength(Math.floor(t / GENERATION_TICKS));
      expect(lab.generation).toBe(1 + Math.floor(t / GENERATION_TICKS));
    }
    // A generation started by hand at tick 12 also lasts 5 ticks.
    lab = startNewGeneration(lab);
    expect(lab.generation).toBe(4);
    lab = run(lab, 4);
    expect(lab.generation).toBe(4);
    lab = tick(lab);
    expect(lab.generation).toBe(5);
    expect(lab.history.map((r) => r.at / TICK_MS)).toEqual([5, 10, 12, 17]);
  });

  it('runs an experience for exactly the active babies that drew one (seed 1)', () => {
    const lab = createLab(1);
    const next = tick(lab);
    const testing = next.babies.filter((b) => b.status === 'testing');
    // This seed's draws: 9 of the 20 babies run an experience on the first tick.
    expect(testing.map((b) => b.id)).toEqual([
      'G1-02',
      'G1-03',
      'G1-05',
      'G1-06',
      'G1-08',
      'G1-12',
      'G1-13',
      'G1-16',
      'G1-19',
    ]);
    const before = byId(lab.babies);
    for (const baby of next.babies) {
      const added = baby.experiences.length - before.get(baby.id)!.experiences.length;
      expect(added).toBe(baby.status === 'testing' ? 1 : 0);
      if (added) expect(baby.experiences.at(-1)).toMatchObject({ id: `${baby.id}-t1`, at: 3000 });
    }
  });

  it('sends an active baby testing with a 50% chance', () => {
    expect(EXPERIENCE_CHANCE).toBe(0.5);
    let tried = 0;
    let tested = 0;
    for (const [before, after] of ticks(createLab(5), 400)) {
      const next = byId(after.babies);
      for (const baby of before.babies) {
        const later = next.get(baby.id);
        if (baby.status !== 'active' || !later || later.status === 'archived') continue;
        tried += 1;
        if (later.status === 'testing') tested += 1;
      }
    }
    expect(tried).toBeGreaterThan(4000);
    expect(tested / tried).toBeGreaterThan(0.47);
    expect(tested / tried).toBeLessThan(0.53);
  });

  it("returns testing babies to 'active' without an experience", () => {
    let seen = 0;
    for (const [before, after] of ticks(createLab(2), 60)) {
      const next = byId(after.babies);
      for (const baby of before.babies.filter((b) => b.status === 'testing')) {
        const later = next.get(baby.id)!;
        seen += 1;
        expect(['active', 'archived']).toContain(later.status);
        expect(later.experiences).toHaveLength(baby.experiences.length);
      }
    }
    expect(seen).toBeGreaterThan(100);
  });

  it('leaves archived babies alone', () => {
    for (const [before, after] of ticks(run(createLab(4), 10), 20)) {
      const next = byId(after.babies);
      for (const baby of before.babies.filter((b) => b.status === 'archived')) {
        expect(next.get(baby.id)).toBe(baby);
      }
    }
  });
});

describe('an experience', () => {
  it('succeeds above 0.6, not at 0.6', () => {
    expect(classify(0.6, 0).success).toBe(false);
    expect(classify(0.6000001, 0.99).success).toBe(true);
    expect(classify(0.2, 0).success).toBe(false);
  });

  it('is capitalised above 0.75 when the draw falls in the 70%', () => {
    expect(classify(0.75, 0).capitalized).toBe(false);
    expect(classify(0.7500001, 0).capitalized).toBe(true);
    expect(classify(0.99, CAPITALIZE_CHANCE - 0.0001).capitalized).toBe(true);
    expect(classify(0.99, CAPITALIZE_CHANCE).capitalized).toBe(false);
  });

  it('follows the thresholds in a run, capitalising 70% of the scores above 0.75', () => {
    const lab = run(createLab(9), 600);
    const all = lab.babies.flatMap((b) => b.experiences);
    let high = 0;
    let capitalized = 0;
    for (const e of all) {
      expect(e.result.success).toBe(e.result.score > 0.6);
      if (e.capitalized) expect(e.result.score).toBeGreaterThan(0.75);
      if (e.result.score > 0.75) high += 1;
      if (e.capitalized) capitalized += 1;
      for (const v of [e.result.score, e.result.originality, e.result.emotionalCoherence]) {
        expect(v).toBeGreaterThanOrEqual(0);
        expect(v).toBeLessThanOrEqual(1);
      }
    }
    expect(high).toBeGreaterThan(2000);
    expect(capitalized / high).toBeGreaterThan(0.67);
    expect(capitalized / high).toBeLessThan(0.73);
  });

  it('leaves a capitalised memory for each capitalised experience', () => {
    const lab = run(createLab(9), 100);
    for (const baby of lab.babies) {
      const capitalized = baby.experiences.filter((e) => e.capitalized);
      expect(baby.capitalizedMemories.map((m) => m.experienceId)).toEqual(
        capitalized.map((e) => e.id),
      );
      baby.capitalizedMemories.forEach((m, i) =>
        expect(m).toMatchObject({
          theme: capitalized[i]!.theme,
          testType: capitalized[i]!.testType,
          score: capitalized[i]!.result.score,
          at: capitalized[i]!.at,
        }),
      );
    }
  });

  it('draws its theme from the real snippets when given, else from the plain themes', () => {
    const sources: SnippetSource[] = [
      { id: 1, text: 'Bees dance.', theme: 'science' },
      { id: 2, text: 'Know thyself.', theme: 'philosophy' },
    ];
    const withSources = run(createLab(3, { sources }), 20, sources);
    for (const e of withSources.babies.flatMap((b) => b.experiences)) {
      expect(sources).toContain(e.source);
      expect(e.theme).toBe(e.source!.theme);
    }
    const plain = run(createLab(3), 20).babies.flatMap((b) => b.experiences);
    expect(new Set(plain.map((e) => e.theme))).toEqual(new Set(EXPERIENCE_THEMES));
    expect(plain.every((e) => e.source === null)).toBe(true);
  });
});

describe('fitness', () => {
  it('is 40% success rate + 40% mean score + 20% capitalised share', () => {
    const experiences = [
      experience(0.9, true),
      experience(0.8, false),
      experience(0.5, false),
      experience(0.3, false),
    ];
    // 0.4 × 2/4 + 0.4 × 2.5/4 + 0.2 × 1/4
    expect(fitnessOf(experiences)).toBeCloseTo(0.5, 10);
    expect(fitnessOf([experience(1, true)])).toBeCloseTo(1, 10);
    expect(fitnessOf([experience(0.7, false)])).toBeCloseTo(0.4 + 0.28, 10);
    expect(fitnessOf([])).toBe(0);
  });

  it('is kept up to date on every baby', () => {
    for (const baby of run(createLab(6), 30).babies) {
      expect(baby.fitness).toBe(fitnessOf(baby.experiences));
    }
  });

  it('rises over generations: generation 10 fitter than generation 1, whatever the seed', () => {
    for (const seed of [1, 2, 3, 4, 5, 6]) {
      const lab = run(createLab(seed), 10 * GENERATION_TICKS);
      expect(lab.history).toHaveLength(10);
      const [first, tenth] = [lab.history[0]!, lab.history[9]!];
      expect(tenth.generation).toBe(10);
      expect(tenth.meanFitness).toBeGreaterThan(first.meanFitness + 0.1);
    }
  });
});

describe("a generation's end", () => {
  const before = run(createLab(11), 13);
  const after = startNewGeneration(before);
  const ranked = byFitness(livingBabies(before));
  const newborns = after.babies.filter((b) => b.generation === before.generation + 1);

  it('breeds 5 children of the top 30% into the next generation', () => {
    expect([BREEDING_SHARE, CHILDREN_PER_GENERATION]).toEqual([0.3, 5]);
    const breeders = new Set(ranked.slice(0, 6).map((b) => b.id));
    expect(after.generation).toBe(before.generation + 1);
    expect(newborns).toHaveLength(5);
    for (const baby of newborns) {
      expect(baby).toMatchObject({ status: 'active', experiences: [], fitness: 0 });
      expect(baby.birthTime).toBe(before.tick * TICK_MS);
      expect(baby.parentIds).toHaveLength(2);
      expect(baby.parentIds[0]).not.toBe(baby.parentIds[1]);
      for (const id of baby.parentIds) expect(breeders).toContain(id);
    }
    // Over many generations every breeder's rank is within the top 30%.
    let lab = createLab(12);
    for (let g = 0; g < 30; g += 1) {
      const top = new Set(
        byFitness(livingBabies(lab))
          .slice(0, 6)
          .map((b) => b.id),
      );
      const next = startNewGeneration(lab);
      const born = next.babies.filter((b) => b.generation === next.generation);
      expect(born.flatMap((b) => b.parentIds).every((id) => top.has(id))).toBe(true);
      lab = run(next, 3);
    }
  });

  it("blends each trait of a child's parents, mutated by at most 1.5 × its mutation rate", () => {
    const parents = byId(before.babies);
    for (const baby of newborns) {
      const [a, b] = baby.parentIds.map((id) => parents.get(id)!.dna);
      const reach = 1.5 * baby.dna.mutationRate + 1e-9;
      for (const trait of DNA_TRAITS.filter((t) => t !== 'mutationRate')) {
        expect(baby.dna[trait]).toBeGreaterThanOrEqual(Math.min(a![trait], b![trait]) - reach);
        expect(baby.dna[trait]).toBeLessThanOrEqual(Math.max(a![trait], b![trait]) + reach);
      }
    }
  });

  it('keeps the top 15 and the 5 newborns, and archives the rest', () => {
    expect(SURVIVORS).toBe(15);
    const living = livingBabies(after);
    expect(living).toHaveLength(20);
    expect(new Set(living.map((b) => b.id))).toEqual(
      new Set([...ranked.slice(0, 15), ...newborns].map((b) => b.id)),
    );
    const status = byId(after.babies);
    for (const baby of ranked.slice(15)) expect(status.get(baby.id)!.status).toBe('archived');
    expect(after.babies.filter((b) => b.status === 'archived')).toHaveLength(
      before.babies.filter((b) => b.status === 'archived').length + 5,
    );
  });

  it("records the generation's figures as they were at its end", () => {
    expect(after.history.at(-1)).toEqual(currentRecord(before));
    const record = currentRecord(before);
    expect(record.byStatus.active + record.byStatus.testing).toBe(20);
    expect(record.bestFitness).toBe(ranked[0]!.fitness);
    // Only the experiences run since the generation started (tick 10).
    const since = before.babies.flatMap((b) => b.experiences).filter((e) => e.at > 10 * TICK_MS);
    expect(record.experiences).toBe(since.length);
    expect(record.successes).toBe(since.filter((e) => e.result.success).length);
    expect(currentRecord(after).experiences).toBe(0);
  });

  it('keeps every mutation rate within 0.1–0.2 and the other traits within 0–1', () => {
    expect([MUTATION_RATE_MIN, MUTATION_RATE_MAX]).toEqual([0.1, 0.2]);
    let lab = createLab(13);
    for (let g = 0; g < 60; g += 1) {
      // The params swing past both bounds; the DNA must not follow.
      lab = applyParams(lab, { ...lab.params, mutationRate: g % 2 ? 5 : -5 });
      lab = startNewGeneration(run(lab, 2));
    }
    expect(lab.params.mutationRate).toBe(MUTATION_RATE_MAX);
    const rates = lab.babies.map((b) => b.dna.mutationRate);
    expect(Math.min(...rates)).toBeGreaterThanOrEqual(0.1);
    expect(Math.max(...rates)).toBeLessThanOrEqual(0.2);
    for (const baby of lab.babies) {
      for (const trait of DNA_TRAITS) {
        expect(baby.dna[trait]).toBeGreaterThanOrEqual(0);
        expect(baby.dna[trait]).toBeLessThanOrEqual(1);
      }
    }
  });

  it('keeps at most 1,000 archived babies and counts the dropped ones', () => {
    let lab = createLab(14);
    for (let g = 0; g < 210; g += 1) lab = startNewGeneration(tick(lab));
    const archived = lab.babies.filter((b) => b.status === 'archived');
    expect(archived).toHaveLength(ARCHIVED_KEPT);
    expect(lab.pruned).toBe(210 * 5 - ARCHIVED_KEPT);
    expect(currentRecord(lab).byStatus.archived).toBe(210 * 5);
    // The oldest went first.
    expect(archived[0]!.generation).toBeGreaterThan(1);
  });
});

describe('params', () => {
  it('clamp the mutation rate into 0.1–0.2 and the others into 0–1', () => {
    const lab = applyParams(createLab(1), {
      creativityThreshold: 1.5,
      mutationRate: 0.5,
      emotionalDepth: -1,
      innovationTendency: 0.3,
    });
    expect(lab.params).toEqual({
      creativityThreshold: 1,
      mutationRate: 0.2,
      emotionalDepth: 0,
      innovationTendency: 0.3,
    });
  });

  it('shape the scores: a low creativity threshold rewards more experiences', () => {
    const mean = (threshold: number) => {
      const lab = run(
        applyParams(createLab(15), { ...DEFAULT_PARAMS, creativityThreshold: threshold }),
        50,
      );
      const scores = lab.babies.flatMap((b) => b.experiences.filter((e) => e.at > 0));
      return scores.reduce((sum, e) => sum + e.result.score, 0) / scores.length;
    };
    expect(mean(0)).toBeGreaterThan(mean(1) + 0.02);
  });
});

describe('the network view', () => {
  it('shows at most 50 babies, the fittest', () => {
    const lab = run(createLab(16), 80);
    expect(lab.babies.length).toBeGreaterThan(NETWORK_VIEW_MAX);
    const shown = networkBabies(lab.babies);
    expect(shown).toHaveLength(50);
    const left = lab.babies.filter((b) => !shown.includes(b));
    expect(Math.min(...shown.map((b) => b.fitness))).toBeGreaterThanOrEqual(
      Math.max(...left.map((b) => b.fitness)),
    );
    expect(networkBabies(lab.babies.slice(0, 12))).toHaveLength(12);
  });
});

describe('a reset', () => {
  it('draws a new seed from the current state', () => {
    const lab = run(createLab(1), 3);
    expect(nextSeed(lab)).toBe(nextSeed(lab));
    expect(nextSeed(lab)).not.toBe(lab.seed);
    expect(createLab(nextSeed(lab)).babies).not.toEqual(createLab(1).babies);
  });
});

describe("the screens' fixture", () => {
  it('is an evolved laboratory: generation 4, 20 living, 15 archived, memories from snippets', () => {
    expect(LAB_FIXTURE).toEqual(evolvedLab());
    expect(LAB_FIXTURE).toMatchObject({ generation: 4, tick: 17 });
    expect(LAB_FIXTURE.history).toHaveLength(3);
    expect(livingBabies(LAB_FIXTURE)).toHaveLength(20);
    expect(LAB_FIXTURE.babies.filter((b) => b.status === 'archived')).toHaveLength(15);
    expect(LAB_FIXTURE.babies.some((b) => b.status === 'testing')).toBe(true);
    const memories = LAB_FIXTURE.babies.flatMap((b) => b.capitalizedMemories);
    expect(memories.length).toBeGreaterThan(0);
    expect(memories.every((m) => LAB_SOURCES.includes(m.source!))).toBe(true);
  });
});
