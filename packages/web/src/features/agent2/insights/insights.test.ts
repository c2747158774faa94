import { describe, expect, it } from 'vitest';
import { LAB_FIXTURE } from '../lab/lab.fixtures';
import { DEFAULT_PARAMS, livingBabies } from '../lab/simulation';
import {
  DNA_TRAITS,
  type BabyStatus,
  type CapitalizedMemory,
  type DigitalBaby,
  type Dna,
  type Experience,
  type GenerationRecord,
  type LabState,
  type SnippetSource,
} from '../lab/types';
import {
  SCORE_BUCKETS,
  cohortRows,
  experienceStats,
  filterMemories,
  fitnessGain,
  generationRows,
  memoryRows,
  memorySources,
  memoryThemes,
  scoreBucketIndex,
} from './insights';

const DNA: Dna = {
  creativity: 0.5,
  analytical: 0.5,
  empathy: 0.5,
  curiosity: 0.5,
  persistence: 0.5,
  emotionalDepth: 0.5,
  innovationTendency: 0.5,
  mutationRate: 0.15,
};

const SOURCE_A: SnippetSource = { id: 9, text: 'Bees dance.', theme: 'science' };
const SOURCE_B: SnippetSource = { id: 7, text: 'Compilers compile.', theme: 'technology' };

let nextId = 0;
function experience(
  score: number,
  opts: Partial<Pick<Experience, 'theme' | 'capitalized' | 'at' | 'source'>> & {
    originality?: number;
  } = {},
): Experience {
  nextId += 1;
  return {
    id: `e${nextId}`,
    testType: 'exploration',
    difficulty: 0.5,
    theme: opts.theme ?? 'science',
    result: {
      success: score > 0.6,
      score,
      emotionalCoherence: 0.5,
      originality: opts.originality ?? 0.5,
    },
    capitalized: opts.capitalized ?? false,
    at: opts.at ?? 0,
    source: opts.source ?? null,
  };
}

function memory(
  experienceId: string,
  at: number,
  theme = 'science',
  source: SnippetSource | null = null,
): CapitalizedMemory {
  return { experienceId, theme, testType: 'exploration', score: 0.8, originality: 0.6, at, source };
}

function baby(
  id: string,
  generation: number,
  opts: {
    status?: BabyStatus;
    experiences?: Experience[];
    memories?: CapitalizedMemory[];
    fitness?: number;
    dna?: Partial<Dna>;
  } = {},
): DigitalBaby {
  return {
    id,
    generation,
    dna: { ...DNA, ...opts.dna },
    fitness: opts.fitness ?? 0.5,
    experiences: opts.experiences ?? [],
    parentIds: [],
    birthTime: 0,
    color: 'hsl(200, 70%, 55%)',
    status: opts.status ?? 'active',
    capitalizedMemories: opts.memories ?? [],
  };
}

function record(generation: number, at: number, fields: Partial<GenerationRecord> = {}) {
  return {
    generation,
    bestFitness: 0.5,
    meanFitness: 0.4,
    byStatus: { active: 20, testing: 0, archived: 0 },
    meanDna: DNA,
    experiences: 0,
    successes: 0,
    capitalized: 0,
    meanOriginality: 0,
    at,
    ...fields,
  } satisfies GenerationRecord;
}

function lab(babies: DigitalBaby[], history: GenerationRecord[] = []): LabState {
  return {
    seed: 1,
    rngState: 1,
    generation: history.length + 1,
    tick: history.length * 5 + 2,
    babies,
    pruned: 0,
    history,
    params: DEFAULT_PARAMS,
  };
}

describe('generationRows', () => {
  it('gives each ended generation its success rate, then the live one from the experiences since it began', () => {
    const state = lab(
      [
        baby('G1-01', 1, {
          experiences: [
            experience(0.9, { at: 30000 }), // generation 2's: not counted in generation 3
            experience(0.8, { at: 33000, originality: 0.9 }),
            experience(0.5, { at: 36000, originality: 0.3 }),
          ],
        }),
        baby('G1-02', 1, { status: 'archived', experiences: [experience(0.9, { at: 33000 })] }),
      ],
      [
        record(1, 15000, { experiences: 10, successes: 4, meanOriginality: 0.45 }),
        record(2, 30000, { experiences: 0, successes: 0 }),
      ],
    );
    const rows = generationRows(state);
    expect(rows.map((r) => [r.label, r.live])).toEqual([
      ['G1', false],
      ['G2', false],
      ['G3', true],
    ]);
    expect(rows.map((r) => r.successRate)).toEqual([0.4, null, 0.5]);
    // No experience: a gap in the curve, not an originality of 0.
    expect(rows.map((r) => r.meanOriginality)).toEqual([0.45, null, expect.closeTo(0.6, 9)]);
    expect(rows[2]!.experiences).toBe(2);
  });

  it('gives the DNA drift: the records’ mean DNA, then the living population’s mean', () => {
    const state = LAB_FIXTURE;
    const rows = generationRows(state);
    expect(rows).toHaveLength(state.history.length + 1);
    state.history.forEach((r, i) => {
      for (const trait of DNA_TRAITS) expect(rows[i]![trait]).toBe(r.meanDna[trait]);
    });
    const living = livingBabies(state);
    const live = rows[rows.length - 1]!;
    for (const trait of DNA_TRAITS) {
      const mean = living.reduce((sum, b) => sum + b.dna[trait], 0) / living.length;
      expect(live[trait]).toBeCloseTo(mean, 12);
    }
    // The population did drift: some trait moved between generation 1 and now.
    expect(DNA_TRAITS.some((t) => Math.abs(live[t] - rows[0]![t]) > 0.001)).toBe(true);
  });
});

describe('fitnessGain', () => {
  it('compares the first and the last ended generation, leaving out the one in progress', () => {
    const state = lab(
      [baby('G3-01', 3, { fitness: 0.99 })],
      [
        record(1, 15000, { meanFitness: 0.4, bestFitness: 0.6 }),
        record(2, 30000, { meanFitness: 0.5, bestFitness: 0.75 }),
      ],
    );
    const gain = fitnessGain(generationRows(state))!;
    expect(gain.from.generation).toBe(1);
    expect(gain.to.generation).toBe(2);
    expect(gain.meanGain).toBeCloseTo(0.1, 12);
    expect(gain.bestGain).toBeCloseTo(0.15, 12);
    expect(gain.meanGainShare).toBeCloseTo(0.25, 12);
  });

  it('is null while the first generation runs', () => {
    expect(fitnessGain(generationRows(lab([baby('G1-01', 1)])))).toBeNull();
  });
});

describe('cohortRows', () => {
  it('counts the babies of each birth generation by their status now', () => {
    const rows = cohortRows(
      lab([
        baby('G2-01', 2, { status: 'testing' }),
        baby('G1-01', 1),
        baby('G1-02', 1, { status: 'archived' }),
        baby('G1-03', 1, { status: 'archived' }),
        baby('G2-02', 2),
      ]),
    );
    expect(rows).toEqual([
      { generation: 1, label: 'G1', born: 3, active: 1, testing: 0, archived: 2 },
      { generation: 2, label: 'G2', born: 2, active: 1, testing: 1, archived: 0 },
    ]);
  });
});

describe('experienceStats', () => {
  it('puts scores in 0.05 bands with the thresholds on band edges', () => {
    expect(SCORE_BUCKETS).toBe(20);
    // (from, to]: a score of exactly 0.6 is no success and stays below the line.
    expect([0, 0.05, 0.0500001, 0.6, 0.6000001, 0.75, 0.7500001, 1].map(scoreBucketIndex)).toEqual([
      0, 0, 1, 11, 12, 14, 15, 19,
    ]);
    const stats = experienceStats([
      baby('A', 1, { experiences: [0.6, 0.61, 0.74, 0.75].map((s) => experience(s)) }),
      baby('B', 1, {
        status: 'archived',
        experiences: [0.76, 0.99, 1, 0.1].map((s) => experience(s)),
      }),
    ]);
    const counts = stats.histogram.map((b) => b.count);
    expect(counts.reduce((a, b) => a + b, 0)).toBe(8);
    expect(counts[1]).toBe(1); // 0.1, on the edge of (0.05, 0.1]
    expect(counts[11]).toBe(1); // 0.6
    expect(counts[12]).toBe(1); // 0.61
    expect(counts[14]).toBe(2); // 0.74, 0.75
    expect(counts[15]).toBe(1); // 0.76
    expect(counts[19]).toBe(2); // 0.99, 1
    const zones = stats.histogram.map((b) => b.zone);
    expect(zones.slice(0, 12).every((z) => z === 'failure')).toBe(true);
    expect(zones.slice(12, 15)).toEqual(['success', 'success', 'success']);
    expect(zones.slice(15).every((z) => z === 'capitalizable')).toBe(true);
    expect(stats.histogram[11]).toMatchObject({ to: 0.6, zone: 'failure' });
    expect(stats.histogram[15]).toMatchObject({ from: 0.75, zone: 'capitalizable' });
  });

  it('gives the success rate overall and per theme, archived babies included', () => {
    const stats = experienceStats([
      baby('A', 1, {
        experiences: [
          experience(0.8, { theme: 'science', capitalized: true, source: SOURCE_A }),
          experience(0.5, { theme: 'science' }),
          experience(0.7, { theme: 'philosophy' }),
        ],
      }),
      baby('B', 1, {
        status: 'archived',
        experiences: [
          experience(0.9, { theme: 'science', source: SOURCE_A }),
          experience(0.2, { theme: 'art' }),
          experience(0.65, { theme: 'art' }),
          experience(0.3, { theme: 'poetry' }),
        ],
      }),
    ]);
    expect(stats.total).toBe(7);
    expect(stats.successes).toBe(4);
    expect(stats.successRate).toBeCloseTo(4 / 7, 12);
    expect(stats.capitalized).toBe(1);
    expect(stats.fromSnippets).toBe(2);
    expect(
      stats.themes.map((t) => [t.theme, t.experiences, t.successes, t.successRate, t.fromSnippets]),
    ).toEqual([
      ['science', 3, 2, 2 / 3, 2],
      ['technology', 0, 0, null, 0],
      ['philosophy', 1, 1, 1, 0],
      ['general', 0, 0, null, 0],
      // Themes beyond the four: most used first.
      ['art', 2, 1, 0.5, 0],
      ['poetry', 1, 0, 0, 0],
    ]);
  });

  it('has no rate before any experience', () => {
    const stats = experienceStats([baby('A', 1)]);
    expect(stats.successRate).toBeNull();
    expect(stats.meanOriginality).toBeNull();
    expect(stats.histogram.every((b) => b.count === 0)).toBe(true);
  });
});

describe('memories', () => {
  const babies = [
    baby('G1-01', 1, {
      status: 'archived',
      memories: [memory('m1', 0), memory('m2', 9000, 'philosophy')],
    }),
    baby('G1-02', 1, {
      memories: [memory('m3', 0, 'science', SOURCE_A), memory('m4', 12000, 'technology', SOURCE_B)],
    }),
    baby('G2-01', 2, { memories: [memory('m5', 9000, 'science', SOURCE_A)] }),
  ];

  it('lists every baby’s memories newest first, the younger baby first within a tick', () => {
    const rows = memoryRows(babies);
    expect(rows.map((r) => r.experienceId)).toEqual(['m4', 'm5', 'm2', 'm3', 'm1']);
    expect(rows[0]).toMatchObject({ babyId: 'G1-02', babyGeneration: 1, babyStatus: 'active' });
    expect(rows[2]).toMatchObject({ babyId: 'G1-01', babyStatus: 'archived' });
  });

  it('filters by theme and counts the themes', () => {
    const rows = memoryRows(babies);
    expect(filterMemories(rows, 'science').map((r) => r.experienceId)).toEqual(['m5', 'm3', 'm1']);
    expect(filterMemories(rows, 'general')).toEqual([]);
    expect(filterMemories(rows, null)).toHaveLength(5);
    expect(memoryThemes(rows)).toEqual([
      { theme: 'science', count: 3 },
      { theme: 'philosophy', count: 1 },
      { theme: 'technology', count: 1 },
    ]);
  });

  it('groups the memories by the real snippet they drew on', () => {
    expect(memorySources(memoryRows(babies))).toEqual([
      { source: SOURCE_A, memories: 2, lastAt: 9000 },
      { source: SOURCE_B, memories: 1, lastAt: 12000 },
    ]);
  });
});
