/** Hand-made babies, experiences and states for the laboratory screen's tests. */
import { DEFAULT_PARAMS } from '../lab/simulation';
import type {
  DigitalBaby,
  Dna,
  Experience,
  GenerationRecord,
  LabState,
  SnippetSource,
  TestType,
} from '../lab/types';

const DNA: Dna = {
  creativity: 0.9,
  analytical: 0.3,
  empathy: 0.55,
  curiosity: 0.7,
  persistence: 0.45,
  emotionalDepth: 0.6,
  innovationTendency: 0.8,
  mutationRate: 0.15,
};

export function experience(
  id: string,
  {
    at = 0,
    score = 0.5,
    capitalized = false,
    theme = 'science',
    testType = 'exploration',
    source = null,
  }: {
    at?: number;
    score?: number;
    capitalized?: boolean;
    theme?: string;
    testType?: TestType;
    source?: SnippetSource | null;
  } = {},
): Experience {
  return {
    id,
    testType,
    difficulty: 0.5,
    theme,
    result: { success: score > 0.6, score, emotionalCoherence: 0.5, originality: 0.4 },
    capitalized,
    at,
    source,
  };
}

export function baby(id: string, fields: Partial<Omit<DigitalBaby, 'id'>> = {}): DigitalBaby {
  const experiences = fields.experiences ?? [];
  return {
    id,
    generation: 1,
    dna: DNA,
    fitness: 0.5,
    parentIds: [],
    birthTime: 0,
    color: 'hsl(200, 70%, 55%)',
    status: 'active',
    capitalizedMemories: experiences
      .filter((e) => e.capitalized)
      .map((e) => ({
        experienceId: e.id,
        theme: e.theme,
        testType: e.testType,
        score: e.result.score,
        originality: e.result.originality,
        at: e.at,
        source: e.source,
      })),
    ...fields,
    experiences,
  };
}

export function record(fields: Partial<GenerationRecord> = {}): GenerationRecord {
  return {
    generation: 1,
    bestFitness: 0,
    meanFitness: 0,
    byStatus: { active: 0, testing: 0, archived: 0 },
    meanDna: DNA,
    experiences: 0,
    successes: 0,
    capitalized: 0,
    meanOriginality: 0,
    at: 0,
    ...fields,
  };
}

export function labState(fields: Partial<LabState> = {}): LabState {
  return {
    seed: 1,
    rngState: 1,
    generation: 1,
    tick: 0,
    babies: [],
    pruned: 0,
    history: [],
    params: DEFAULT_PARAMS,
    ...fields,
  };
}
