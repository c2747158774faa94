import { describe, expect, it } from 'vitest';
import { evolvedLab, LAB_FIXTURE } from '../lab/lab.fixtures';
import { livingBabies, networkBabies, tick, TICK_MS } from '../lab/simulation';
import { baby, experience, labState, record } from './babies.testkit';
import {
  DEFAULT_FILTERS,
  experienceAnalysis,
  filterBabies,
  formatShare,
  formatSimTime,
  generationsPresent,
  labKpis,
  meanDna,
  networkLayout,
  timelineLayout,
} from './babiesView';

describe('the KPI figures', () => {
  const state = labState({
    generation: 2,
    tick: 2,
    pruned: 4,
    history: [record({ generation: 1, experiences: 10, capitalized: 2, at: 3000 })],
    babies: [
      baby('G1-01', {
        fitness: 0.5,
        experiences: [experience('a1', { score: 0.7 }), experience('a2', { score: 0.4 })],
      }),
      baby('G1-02', {
        status: 'archived',
        fitness: 0.3,
        experiences: [experience('c1', { score: 0.2 })],
      }),
      baby('G2-01', {
        generation: 2,
        status: 'testing',
        fitness: 0.8,
        birthTime: 3000,
        experiences: [
          experience('b1', { at: 3000, score: 0.8, capitalized: true }),
          experience('b2', { at: 6000, score: 0.9, capitalized: true }),
          experience('b3', { at: 6000, score: 0.5 }),
        ],
      }),
    ],
  });

  it('count the living population by status and the archived ones, dropped ones included', () => {
    const kpis = labKpis(state);
    expect(kpis).toMatchObject({
      population: 2,
      active: 1,
      testing: 1,
      archived: 5,
      born: 7,
      generation: 2,
    });
  });

  it('count down to the next generation, five ticks after the last one ended', () => {
    // Generation 2 started at 3 s (tick 1); tick 2: one tick in, four to go.
    expect(labKpis(state).nextGenerationIn).toBe(12_000);
    expect(labKpis(labState({ tick: 0 })).nextGenerationIn).toBe(15_000);
    expect(labKpis(labState({ tick: 4 })).nextGenerationIn).toBe(3_000);
    expect(labKpis(LAB_FIXTURE).nextGenerationIn).toBe(9_000);
  });

  it('take the best and mean fitness and the success rate from the living babies only', () => {
    const kpis = labKpis(state);
    expect(kpis.best?.id).toBe('G2-01');
    expect(kpis.meanFitness).toBeCloseTo(0.65);
    expect(kpis.livingExperiences).toBe(5);
    expect(kpis.livingSuccesses).toBe(3);
  });

  it("add up the ended generations' records and the current generation's experiences", () => {
    // History: 10 run, 2 capitalised; since its end (3 s): b2 (capitalised) and b3.
    const kpis = labKpis(state);
    expect(kpis.experiences).toBe(12);
    expect(kpis.capitalized).toBe(3);
  });

  it('count every experience and memory of a run in which nothing was dropped yet', () => {
    const kpis = labKpis(LAB_FIXTURE);
    const all = LAB_FIXTURE.babies.flatMap((b) => b.experiences);
    expect(kpis.experiences).toBe(all.length);
    expect(kpis.capitalized).toBe(all.filter((e) => e.capitalized).length);
    expect(kpis.population).toBe(20);
    expect(kpis.archived).toBe(15);
  });

  it('have no best or mean fitness without a living baby', () => {
    const kpis = labKpis(labState({ babies: [baby('G1-01', { status: 'archived' })] }));
    expect(kpis.best).toBeNull();
    expect(kpis.meanFitness).toBeNull();
    expect(formatShare(kpis.meanFitness)).toBe('-');
  });
});

describe('the filters', () => {
  const babies = [
    baby('G1-01', { generation: 1, fitness: 0.72 }),
    baby('G1-02', { generation: 1, fitness: 0.4, status: 'archived' }),
    baby('G2-01', { generation: 2, fitness: 0.55, birthTime: 15000 }),
    baby('G2-02', { generation: 2, fitness: 0.7, birthTime: 15000, status: 'testing' }),
    baby('G3-01', { generation: 3, fitness: 0.1, birthTime: 30000 }),
  ];
  const ids = (list: { id: string }[]) => list.map((b) => b.id);

  it('show the living babies, newest generation first, until archived ones are asked for', () => {
    expect(ids(filterBabies(babies, DEFAULT_FILTERS))).toEqual([
      'G3-01',
      'G2-01',
      'G2-02',
      'G1-01',
    ]);
    expect(ids(filterBabies(babies, { ...DEFAULT_FILTERS, showArchived: true }))).toEqual([
      'G3-01',
      'G2-01',
      'G2-02',
      'G1-01',
      'G1-02',
    ]);
  });

  it('keep one generation', () => {
    expect(ids(filterBabies(babies, { ...DEFAULT_FILTERS, generation: 2 }))).toEqual([
      'G2-01',
      'G2-02',
    ]);
  });

  it('keep the babies at or above the minimum fitness', () => {
    expect(ids(filterBabies(babies, { ...DEFAULT_FILTERS, minFitness: 70 }))).toEqual([
      'G2-02',
      'G1-01',
    ]);
    // 0.7 computed as 0.69999… still reads 70 %.
    const almost = [baby('x', { fitness: 0.1 + 0.6 - 1e-12 })];
    expect(filterBabies(almost, { ...DEFAULT_FILTERS, minFitness: 70 })).toHaveLength(1);
    expect(filterBabies(babies, { ...DEFAULT_FILTERS, minFitness: 100 })).toEqual([]);
  });

  it('combine', () => {
    expect(
      ids(filterBabies(babies, { generation: 1, minFitness: 30, showArchived: true })),
    ).toEqual(['G1-01', 'G1-02']);
  });

  it('offer the generations present, newest first', () => {
    expect(generationsPresent(babies)).toEqual([3, 2, 1]);
    expect(generationsPresent([])).toEqual([]);
  });

  it('keep the same order from one tick to the next whatever the fitness does', () => {
    const before = ids(filterBabies(LAB_FIXTURE.babies, DEFAULT_FILTERS));
    const after = ids(filterBabies(tick(LAB_FIXTURE).babies, DEFAULT_FILTERS));
    expect(after).toEqual(before);
  });
});

describe("a baby's experience analysis", () => {
  const source = { id: 7, text: 'Bees dance.', theme: 'science' };
  const subject = baby('G2-03', {
    experiences: [
      experience('e1', { at: 0, score: 0.9, capitalized: true, theme: 'philosophy' }),
      experience('e2', { at: 3000, score: 0.3, theme: 'science' }),
      experience('e3', { at: 6000, score: 0.65, theme: 'science', source }),
      experience('e4', { at: 6000, score: 0.8, capitalized: true, theme: 'technology' }),
      experience('e5', { at: 9000, score: 0.61, theme: 'science' }),
      experience('e6', { at: 12000, score: 0.2, theme: 'philosophy' }),
    ],
  });

  it('counts the successes (above 0.6) and the capitalised ones', () => {
    const analysis = experienceAnalysis(subject);
    expect(analysis).toMatchObject({ total: 6, successes: 4, capitalized: 2 });
  });

  it('counts the themes, the most frequent first', () => {
    expect(experienceAnalysis(subject).themes).toEqual([
      { theme: 'science', count: 3 },
      { theme: 'philosophy', count: 2 },
      { theme: 'technology', count: 1 },
    ]);
  });

  it('keeps the five most recent experiences, newest first', () => {
    expect(experienceAnalysis(subject).lastFive.map((e) => e.id)).toEqual([
      'e6',
      'e5',
      'e4',
      'e3',
      'e2',
    ]);
  });

  it('is empty for a newborn', () => {
    expect(experienceAnalysis(baby('G5-01'))).toEqual({
      total: 0,
      successes: 0,
      capitalized: 0,
      themes: [],
      lastFive: [],
    });
  });
});

describe('the mean DNA', () => {
  it('averages every trait, and is null for nobody', () => {
    const a = baby('a', { dna: { ...baby('x').dna, creativity: 0.2, mutationRate: 0.1 } });
    const b = baby('b', { dna: { ...baby('x').dna, creativity: 0.6, mutationRate: 0.2 } });
    const mean = meanDna([a, b])!;
    expect(mean.creativity).toBeCloseTo(0.4);
    expect(mean.mutationRate).toBeCloseTo(0.15);
    expect(meanDna([])).toBeNull();
  });
});

describe('the network layout', () => {
  const W = 960;
  const H = 460;

  it('places every baby inside the drawing, a column per generation, parents left of children', () => {
    const shown = networkBabies(livingBabies(LAB_FIXTURE));
    const layout = networkLayout(shown, W, H);
    expect(layout.positions.size).toBe(shown.length);
    for (const p of layout.positions.values()) {
      expect(p.x).toBeGreaterThanOrEqual(0);
      expect(p.x).toBeLessThanOrEqual(W);
      expect(p.y).toBeGreaterThanOrEqual(0);
      expect(p.y).toBeLessThanOrEqual(H);
    }
    expect(layout.layers.map((l) => l.generation)).toEqual(generationsPresent(shown).reverse());
    expect(layout.edges.length).toBeGreaterThan(0);
    for (const e of layout.edges) {
      expect(layout.positions.get(e.from)!.x).toBeLessThan(layout.positions.get(e.to)!.x);
    }
  });

  it('links only babies that are shown', () => {
    const shown = livingBabies(LAB_FIXTURE).filter((b) => b.generation === 4);
    const layout = networkLayout(shown, W, H);
    // Generation 4's parents are of earlier generations: not shown, so no link.
    expect(layout.edges).toEqual([]);
  });

  it('holds still while the lab ticks within a generation', () => {
    const before = networkLayout(livingBabies(LAB_FIXTURE), W, H).positions;
    const next = tick(LAB_FIXTURE);
    expect(next.generation).toBe(LAB_FIXTURE.generation);
    expect(next.babies.some((b, i) => b.fitness !== LAB_FIXTURE.babies[i]!.fitness)).toBe(true);
    expect(networkLayout(livingBabies(next), W, H).positions).toEqual(before);
  });

  it('does not overlap two babies', () => {
    const many = evolvedLab({ generations: 8 }).babies.slice(0, 50);
    const points = [...networkLayout(many, W, H).positions.values()];
    const keys = new Set(points.map((p) => `${Math.round(p.x)},${Math.round(p.y)}`));
    expect(keys.size).toBe(points.length);
  });
});

describe('the timeline layout', () => {
  it('draws a lane per generation, newest first, at most the lanes asked for', () => {
    const lab = evolvedLab({ generations: 6 });
    const now = lab.tick * TICK_MS;
    const layout = timelineLayout(lab.babies, now, 4);
    expect(layout.lanes.map((l) => l.generation)).toEqual([7, 6, 5, 4]);
    expect(layout.hiddenGenerations).toBe(3);
    expect(layout.to).toBe(now);
    expect(layout.from).toBe(Math.min(...layout.lanes.flatMap((l) => l.rows.map((r) => r.start))));
  });

  it('runs a living baby to now and an archived one to its last experience', () => {
    const living = baby('G2-01', { generation: 2, birthTime: 15000 });
    const archived = baby('G2-02', {
      generation: 2,
      birthTime: 15000,
      status: 'archived',
      experiences: [experience('a', { at: 18000 }), experience('b', { at: 24000 })],
    });
    const layout = timelineLayout([living, archived], 45000, 8);
    expect(layout.lanes[0]!.rows.map((r) => [r.baby.id, r.start, r.end])).toEqual([
      ['G2-01', 15000, 45000],
      ['G2-02', 15000, 24000],
    ]);
  });

  it('is one tick wide at time 0', () => {
    const layout = timelineLayout([baby('G1-01')], 0, 8);
    expect([layout.from, layout.to]).toEqual([0, TICK_MS]);
  });
});

describe('French formats', () => {
  it('write shares and simulation times', () => {
    expect(formatShare(0.725)).toBe('72,5\u00a0%');
    expect(formatShare(Number.NaN)).toBe('-');
    expect(formatSimTime(45_000)).toBe('45 s');
    expect(formatSimTime(125_000)).toBe('2 min 05 s');
    expect(formatSimTime(3_720_000)).toBe('1 h 02 min');
  });
});
