/**
 * The digital-babies laboratory's data (spec 001 §3, §4, §9): a simulation that lives in the
 * browser only. simulation.ts holds the rules; these are the shapes the screens read.
 */

export const DNA_TRAITS = [
  'creativity',
  'analytical',
  'empathy',
  'curiosity',
  'persistence',
  'emotionalDepth',
  'innovationTendency',
  'mutationRate',
] as const;
export type DnaTrait = (typeof DNA_TRAITS)[number];
/** Every trait in 0–1, except mutationRate, kept in MUTATION_RATE_MIN–MAX. */
export type Dna = Record<DnaTrait, number>;

export const BABY_STATUSES = ['active', 'testing', 'archived'] as const;
export type BabyStatus = (typeof BABY_STATUSES)[number];

/** The kinds of test an experience puts a baby through. */
export const TEST_TYPES = [
  'creative_writing',
  'logical_reasoning',
  'emotional_understanding',
  'exploration',
  'problem_solving',
] as const;
export type TestType = (typeof TEST_TYPES)[number];

/** The snippets' themes on the server (science, technology, philosophy, general). */
export const EXPERIENCE_THEMES = ['science', 'technology', 'philosophy', 'general'] as const;

export interface ExperienceResult {
  /** score > SUCCESS_SCORE */
  success: boolean;
  /** 0–1 */
  score: number;
  /** 0–1 */
  emotionalCoherence: number;
  /** 0–1 */
  originality: number;
}

/** A real snippet an experience drew its theme from (when the server had one). */
export interface SnippetSource {
  id: number;
  text: string;
  theme: string;
}

export interface Experience {
  id: string;
  testType: TestType;
  /** 0–1 */
  difficulty: number;
  theme: string;
  result: ExperienceResult;
  /** score > CAPITALIZE_SCORE, with CAPITALIZE_CHANCE */
  capitalized: boolean;
  /** Simulation time (ms since the population was created). */
  at: number;
  source: SnippetSource | null;
}

/** What a baby keeps of a capitalised experience. */
export interface CapitalizedMemory {
  experienceId: string;
  theme: string;
  testType: TestType;
  score: number;
  originality: number;
  at: number;
  source: SnippetSource | null;
}

export interface DigitalBaby {
  id: string;
  generation: number;
  dna: Dna;
  /** 0–1: 40% success rate + 40% mean score + 20% capitalised share. */
  fitness: number;
  experiences: Experience[];
  parentIds: string[];
  /** Simulation time of birth (ms). */
  birthTime: number;
  /** A CSS colour, stable for the baby. */
  color: string;
  status: BabyStatus;
  capitalizedMemories: CapitalizedMemory[];
}

/** The control screen's sliders (spec 000 §2 defaults). */
export interface EvolutionParams {
  creativityThreshold: number;
  mutationRate: number;
  emotionalDepth: number;
  innovationTendency: number;
}

/** One generation's figures, recorded when it ends (and for the current one, live). */
export interface GenerationRecord {
  generation: number;
  bestFitness: number;
  meanFitness: number;
  /** Babies of the living population (not archived) by status, and archived in total. */
  byStatus: Record<BabyStatus, number>;
  /** Mean DNA of the living population. */
  meanDna: Dna;
  experiences: number;
  successes: number;
  capitalized: number;
  meanOriginality: number;
  at: number;
}

export interface LabState {
  seed: number;
  /** The random generator's state: tick is a pure function of the LabState. */
  rngState: number;
  /** The newest generation number. */
  generation: number;
  /** Ticks run so far; simulation time = tick × TICK_MS. */
  tick: number;
  /**
   * Every baby born, archived ones included, in birth order; the oldest archived ones are
   * dropped beyond ARCHIVED_KEPT (counted in `pruned`) so a long session stays light.
   */
  babies: DigitalBaby[];
  /** Archived babies dropped from `babies` (byStatus.archived counts them). */
  pruned: number;
  history: GenerationRecord[];
  params: EvolutionParams;
}
