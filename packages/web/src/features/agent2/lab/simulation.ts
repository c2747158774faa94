/**
 * The digital-babies simulation (spec 001 §3, §4, §9): pure functions from one LabState to the
 * next, no React. The random generator (mulberry32) keeps its state in `LabState.rngState`, so a
 * seed fixes a whole run and every rule is tested deterministically.
 *
 * The spec's rules, as constants below: 20 babies with 5 experiences each; every 3 s tick each
 * active baby runs an experience with a 50% chance and becomes 'testing', every other living
 * baby (the testing ones included) returns to 'active'; success when score > 0.6; capitalised
 * when score > 0.75 with a 70% chance; fitness = 0.4 success rate + 0.4 mean score + 0.2
 * capitalised share; at a generation's end the top 30% breed 5 children, the top 15 and the 5
 * newborns live on, the others are archived; a mutation rate stays within 0.1–0.2.
 *
 * Where the spec is silent, chosen so that evolution shows (mean fitness rises over generations):
 * - A generation ends every GENERATION_TICKS ticks (15 s), counted from its start, so a generation
 *   started by hand also lasts 5 ticks. Its figures are recorded, before culling, in `history`.
 * - Score: each test type leans on its traits (TEST_TRAITS: creative_writing on creativity,
 *   logical_reasoning on analytical and persistence, ...); a harder test lowers the score, less so
 *   for a persistent baby. Originality comes from creativity and innovationTendency, emotional
 *   coherence from empathy and emotionalDepth; the params weigh them into the score
 *   (innovationTendency → originality's weight, emotionalDepth → coherence's weight, up to 30%
 *   each) and originality above creativityThreshold earns a bonus. Gaussian-ish noise on top.
 * - A child's DNA: per trait a random blend of its two parents (drawn from the breeders), plus
 *   gaussian-ish mutation of standard deviation mutationRate / 2, clamped to 0–1. Its own
 *   mutationRate is the parents' mean drawn halfway to params.mutationRate, plus a little noise,
 *   clamped to 0.1–0.2. Newborns start with no experience (fitness 0) and status 'active'.
 * - Initial DNA: traits uniform in 0.2–0.8 (room to evolve), mutationRate uniform in 0.1–0.2.
 * - Themes: a random one of EXPERIENCE_THEMES, or, when real snippets are given (`sources`), a
 *   random snippet's theme, the experience then carrying that snippet as `source`.
 * - Colour: a hue per baby, a child's near its parents' mean hue, so lineages look alike.
 * - Ids: `G{generation}-{nn}` for babies (a generation's births are numbered once),
 *   `{babyId}-x{n}` for the initial experiences and `{babyId}-t{tick}` for the others.
 * - Memory: a baby keeps its last EXPERIENCES_KEPT experiences (fitness is over those), archived
 *   babies keep theirs, and at most ARCHIVED_KEPT archived babies are kept (the oldest dropped and
 *   counted in `pruned`); history keeps the last HISTORY_KEPT generations. At 20 living babies and
 *   5 archived per 15 s, that is at most 1,020 babies whatever the session's length.
 */
import {
  DNA_TRAITS,
  EXPERIENCE_THEMES,
  TEST_TYPES,
  type BabyStatus,
  type CapitalizedMemory,
  type DigitalBaby,
  type Dna,
  type DnaTrait,
  type EvolutionParams,
  type Experience,
  type GenerationRecord,
  type LabState,
  type SnippetSource,
  type TestType,
} from './types';

// Spec 001 §4, §9.
export const TICK_MS = 3000;
export const INITIAL_POPULATION = 20;
export const INITIAL_EXPERIENCES = 5;
export const EXPERIENCE_CHANCE = 0.5;
export const SUCCESS_SCORE = 0.6;
export const CAPITALIZE_SCORE = 0.75;
export const CAPITALIZE_CHANCE = 0.7;
export const BREEDING_SHARE = 0.3;
export const CHILDREN_PER_GENERATION = 5;
export const SURVIVORS = 15;
export const MUTATION_RATE_MIN = 0.1;
export const MUTATION_RATE_MAX = 0.2;
export const NETWORK_VIEW_MAX = 50;

// Our choices (see the header).
/** A generation ends every 5 ticks (15 s) while evolution is active. */
export const GENERATION_TICKS = 5;
const EXPERIENCES_KEPT = 200;
export const ARCHIVED_KEPT = 1000;
const HISTORY_KEPT = 1000;

/** The control screen's defaults (spec 000 §2). */
export const DEFAULT_PARAMS: EvolutionParams = {
  creativityThreshold: 0.75,
  mutationRate: 0.12,
  emotionalDepth: 0.88,
  innovationTendency: 0.65,
};

/** The traits each test type leans on, weights summing to 1. */
const TEST_TRAITS: Record<TestType, Partial<Record<DnaTrait, number>>> = {
  creative_writing: { creativity: 0.6, innovationTendency: 0.2, emotionalDepth: 0.2 },
  logical_reasoning: { analytical: 0.7, persistence: 0.3 },
  emotional_understanding: { empathy: 0.6, emotionalDepth: 0.4 },
  exploration: { curiosity: 0.6, innovationTendency: 0.4 },
  problem_solving: { analytical: 0.4, persistence: 0.3, creativity: 0.3 },
};

export interface SimulationOptions {
  /** Real snippets experiences may draw their theme from; plain themes when absent or empty. */
  sources?: SnippetSource[];
}

// ---------------------------------------------------------------------------------------------
// Random source

interface Rng {
  /** Uniform in [0, 1). */
  next(): number;
  /** The generator's state after the draws so far. */
  state(): number;
}

/** mulberry32: small, fast and good enough for a simulation; its whole state is one uint32. */
function createRng(state: number): Rng {
  let s = state >>> 0;
  return {
    next() {
      s = (s + 0x6d2b79f5) >>> 0;
      let t = s;
      t = Math.imul(t ^ (t >>> 15), t | 1);
      t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
      return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
    },
    state: () => s,
  };
}

/** Mean 0, standard deviation 1, within ±3 (a sum of three uniforms). */
function gaussianish(rng: Rng): number {
  return (rng.next() + rng.next() + rng.next() - 1.5) * 2;
}

function pick<T>(rng: Rng, items: readonly T[]): T {
  return items[Math.floor(rng.next() * items.length)]!;
}

const clamp = (value: number, min: number, max: number) => Math.min(max, Math.max(min, value));
const clamp01 = (value: number) => clamp(value, 0, 1);

// ---------------------------------------------------------------------------------------------
// Rules

/** Success and capitalisation of a score; `chance` is a uniform draw in [0, 1). */
export function classify(
  score: number,
  chance: number,
): { success: boolean; capitalized: boolean } {
  return {
    success: score > SUCCESS_SCORE,
    capitalized: score > CAPITALIZE_SCORE && chance < CAPITALIZE_CHANCE,
  };
}

/** 0.4 × success rate + 0.4 × mean score + 0.2 × capitalised share; 0 without experience. */
export function fitnessOf(experiences: Experience[]): number {
  if (experiences.length === 0) return 0;
  let successes = 0;
  let scores = 0;
  let capitalized = 0;
  for (const e of experiences) {
    if (e.result.success) successes += 1;
    if (e.capitalized) capitalized += 1;
    scores += e.result.score;
  }
  const n = experiences.length;
  return 0.4 * (successes / n) + 0.4 * (scores / n) + 0.2 * (capitalized / n);
}

/** Params within their bounds: mutationRate into 0.1–0.2 (the DNA's bound), the others 0–1. */
export function clampParams(params: EvolutionParams): EvolutionParams {
  return {
    creativityThreshold: clamp01(params.creativityThreshold),
    mutationRate: clamp(params.mutationRate, MUTATION_RATE_MIN, MUTATION_RATE_MAX),
    emotionalDepth: clamp01(params.emotionalDepth),
    innovationTendency: clamp01(params.innovationTendency),
  };
}

function runExperience(
  rng: Rng,
  baby: DigitalBaby,
  params: EvolutionParams,
  sources: SnippetSource[] | undefined,
  id: string,
  at: number,
): Experience {
  const { dna } = baby;
  const testType = pick(rng, TEST_TYPES);
  const difficulty = 0.2 + 0.7 * rng.next();
  let source: SnippetSource | null = null;
  let theme: string;
  if (sources && sources.length > 0) {
    source = pick(rng, sources);
    theme = source.theme;
  } else {
    theme = pick(rng, EXPERIENCE_THEMES);
  }

  let aptitude = 0;
  for (const [trait, weight] of Object.entries(TEST_TRAITS[testType]) as [DnaTrait, number][]) {
    aptitude += weight * dna[trait];
  }
  // A persistent baby loses less on hard tests.
  const task = aptitude + (0.5 - difficulty) * (0.4 - 0.2 * dna.persistence);
  const originality = clamp01(
    0.6 * dna.creativity + 0.4 * dna.innovationTendency + 0.1 * gaussianish(rng),
  );
  const emotionalCoherence = clamp01(
    0.6 * dna.empathy + 0.4 * dna.emotionalDepth + 0.1 * gaussianish(rng),
  );
  const originalityWeight = 0.3 * params.innovationTendency;
  const coherenceWeight = 0.3 * params.emotionalDepth;
  const bonus = originality > params.creativityThreshold ? 0.05 : 0;
  const score = clamp01(
    (1 - originalityWeight - coherenceWeight) * task +
      originalityWeight * originality +
      coherenceWeight * emotionalCoherence +
      bonus +
      0.08 * gaussianish(rng),
  );
  const { success, capitalized } = classify(score, rng.next());
  return {
    id,
    testType,
    difficulty,
    theme,
    result: { success, score, emotionalCoherence, originality },
    capitalized,
    at,
    source,
  };
}

function withExperience(baby: DigitalBaby, experience: Experience): DigitalBaby {
  const experiences = [...baby.experiences, experience].slice(-EXPERIENCES_KEPT);
  let capitalizedMemories = baby.capitalizedMemories;
  if (experience.capitalized) {
    const memory: CapitalizedMemory = {
      experienceId: experience.id,
      theme: experience.theme,
      testType: experience.testType,
      score: experience.result.score,
      originality: experience.result.originality,
      at: experience.at,
      source: experience.source,
    };
    capitalizedMemories = [...capitalizedMemories, memory].slice(-EXPERIENCES_KEPT);
  }
  return { ...baby, experiences, capitalizedMemories, fitness: fitnessOf(experiences) };
}

const babyId = (generation: number, n: number) => `G${generation}-${String(n).padStart(2, '0')}`;

const hueColor = (hue: number) => `hsl(${Math.round(((hue % 360) + 360) % 360)}, 70%, 55%)`;

function hueOf(color: string): number {
  const match = /^hsl\((\d+)/.exec(color);
  return match ? Number(match[1]) : 0;
}

/** The mean of two hues on the colour wheel (350° and 10° meet at 0°, not 180°). */
function meanHue(a: number, b: number): number {
  const rad = Math.PI / 180;
  const x = Math.cos(a * rad) + Math.cos(b * rad);
  const y = Math.sin(a * rad) + Math.sin(b * rad);
  return x === 0 && y === 0 ? a : Math.atan2(y, x) / rad;
}

function firstBaby(rng: Rng, n: number, params: EvolutionParams, sources?: SnippetSource[]) {
  const dna = {} as Dna;
  for (const trait of DNA_TRAITS) {
    dna[trait] =
      trait === 'mutationRate'
        ? MUTATION_RATE_MIN + (MUTATION_RATE_MAX - MUTATION_RATE_MIN) * rng.next()
        : 0.2 + 0.6 * rng.next();
  }
  let baby: DigitalBaby = {
    id: babyId(1, n),
    generation: 1,
    dna,
    fitness: 0,
    experiences: [],
    parentIds: [],
    birthTime: 0,
    color: hueColor(rng.next() * 360),
    status: 'active',
    capitalizedMemories: [],
  };
  for (let i = 1; i <= INITIAL_EXPERIENCES; i += 1) {
    baby = withExperience(baby, runExperience(rng, baby, params, sources, `${baby.id}-x${i}`, 0));
  }
  return baby;
}

function child(
  rng: Rng,
  id: string,
  generation: number,
  parents: DigitalBaby[],
  params: EvolutionParams,
  at: number,
): DigitalBaby {
  const [a, b = a] = parents as [DigitalBaby, DigitalBaby?];
  const inherited = (a.dna.mutationRate + b.dna.mutationRate) / 2;
  const mutationRate = clamp(
    (inherited + params.mutationRate) / 2 + 0.01 * gaussianish(rng),
    MUTATION_RATE_MIN,
    MUTATION_RATE_MAX,
  );
  const dna = { mutationRate } as Dna;
  for (const trait of DNA_TRAITS) {
    if (trait === 'mutationRate') continue;
    const w = rng.next();
    const blend = w * a.dna[trait] + (1 - w) * b.dna[trait];
    dna[trait] = clamp01(blend + (mutationRate / 2) * gaussianish(rng));
  }
  return {
    id,
    generation,
    dna,
    fitness: 0,
    experiences: [],
    parentIds: parents.map((p) => p.id),
    birthTime: at,
    color: hueColor(meanHue(hueOf(a.color), hueOf(b.color)) + 15 * gaussianish(rng)),
    status: 'active',
    capitalizedMemories: [],
  };
}

// ---------------------------------------------------------------------------------------------
// Reading the state

export function livingBabies(state: LabState): DigitalBaby[] {
  return state.babies.filter((b) => b.status !== 'archived');
}

/** Fittest first; ties keep their order (birth order). */
export function byFitness(babies: DigitalBaby[]): DigitalBaby[] {
  return [...babies].sort((a, b) => b.fitness - a.fitness);
}

/** The network view's babies: at most NETWORK_VIEW_MAX, the fittest. */
export function networkBabies(babies: DigitalBaby[]): DigitalBaby[] {
  return byFitness(babies).slice(0, NETWORK_VIEW_MAX);
}

/** The fittest living baby (the control screen's Current Best DNA). */
export function bestBaby(state: LabState): DigitalBaby | undefined {
  return byFitness(livingBabies(state))[0];
}

/** Simulation time the current generation started at; -1 for the first (it includes time 0). */
function generationStart(state: LabState): number {
  const last = state.history[state.history.length - 1];
  return last ? last.at : -1;
}

/** The current generation's live figures (the ended ones are in `history`). */
export function currentRecord(state: LabState): GenerationRecord {
  const living = livingBabies(state);
  const since = generationStart(state);
  const byStatus: Record<BabyStatus, number> = { active: 0, testing: 0, archived: state.pruned };
  const meanDna = Object.fromEntries(DNA_TRAITS.map((t) => [t, 0])) as Dna;
  let best = 0;
  let fitnessSum = 0;
  let experiences = 0;
  let successes = 0;
  let capitalized = 0;
  let originality = 0;
  for (const baby of state.babies) {
    byStatus[baby.status] += 1;
  }
  for (const baby of living) {
    best = Math.max(best, baby.fitness);
    fitnessSum += baby.fitness;
    for (const trait of DNA_TRAITS) meanDna[trait] += baby.dna[trait] / living.length;
    for (const e of baby.experiences) {
      if (e.at <= since) continue;
      experiences += 1;
      if (e.result.success) successes += 1;
      if (e.capitalized) capitalized += 1;
      originality += e.result.originality;
    }
  }
  return {
    generation: state.generation,
    bestFitness: best,
    meanFitness: living.length ? fitnessSum / living.length : 0,
    byStatus,
    meanDna,
    experiences,
    successes,
    capitalized,
    meanOriginality: experiences ? originality / experiences : 0,
    at: state.tick * TICK_MS,
  };
}

// ---------------------------------------------------------------------------------------------
// Transitions

export function createLab(
  seed: number,
  opts: SimulationOptions & { params?: EvolutionParams } = {},
): LabState {
  const params = clampParams(opts.params ?? DEFAULT_PARAMS);
  const rng = createRng(seed);
  const babies: DigitalBaby[] = [];
  for (let n = 1; n <= INITIAL_POPULATION; n += 1) {
    babies.push(firstBaby(rng, n, params, opts.sources));
  }
  return {
    seed,
    rngState: rng.state(),
    generation: 1,
    tick: 0,
    babies,
    pruned: 0,
    history: [],
    params,
  };
}

/** One 3 s step; the generation ends when it has lasted GENERATION_TICKS ticks. */
export function tick(state: LabState, opts: SimulationOptions = {}): LabState {
  const rng = createRng(state.rngState);
  const now = state.tick + 1;
  const at = now * TICK_MS;
  const babies = state.babies.map((baby) => {
    if (baby.status === 'archived') return baby;
    if (baby.status === 'testing') return { ...baby, status: 'active' as const };
    if (rng.next() >= EXPERIENCE_CHANCE) return baby;
    const experience = runExperience(
      rng,
      baby,
      state.params,
      opts.sources,
      `${baby.id}-t${now}`,
      at,
    );
    return withExperience({ ...baby, status: 'testing' }, experience);
  });
  const next: LabState = { ...state, tick: now, babies, rngState: rng.state() };
  const ticksInGeneration = now - Math.max(0, generationStart(state)) / TICK_MS;
  return ticksInGeneration >= GENERATION_TICKS ? startNewGeneration(next, opts) : next;
}

/**
 * Ends the current generation now: records its figures, the top 30% of the living breed 5
 * children into the next generation, the top 15 live on and the others are archived.
 */
export function startNewGeneration(state: LabState, opts: SimulationOptions = {}): LabState {
  void opts; // Newborns run no experience at birth; the option keeps tick's signature.
  const rng = createRng(state.rngState);
  const record = currentRecord(state);
  const ranked = byFitness(livingBabies(state));
  const breeders = ranked.slice(0, Math.max(1, Math.round(ranked.length * BREEDING_SHARE)));
  const survivors = new Set(ranked.slice(0, SURVIVORS).map((b) => b.id));
  const generation = state.generation + 1;
  const at = state.tick * TICK_MS;

  const children: DigitalBaby[] = [];
  for (let n = 1; n <= CHILDREN_PER_GENERATION && breeders.length > 0; n += 1) {
    const first = Math.floor(rng.next() * breeders.length);
    const parents = [breeders[first]!];
    if (breeders.length > 1) {
      // The second parent: any other breeder.
      const offset = 1 + Math.floor(rng.next() * (breeders.length - 1));
      parents.push(breeders[(first + offset) % breeders.length]!);
    }
    children.push(child(rng, babyId(generation, n), generation, parents, state.params, at));
  }

  let babies = state.babies.map((baby) =>
    baby.status === 'archived' || survivors.has(baby.id)
      ? baby
      : { ...baby, status: 'archived' as const },
  );
  babies.push(...children);
  let pruned = state.pruned;
  const archived = babies.filter((b) => b.status === 'archived').length;
  if (archived > ARCHIVED_KEPT) {
    // Drop the oldest archived babies (the array is in birth order).
    let drop = archived - ARCHIVED_KEPT;
    pruned += drop;
    babies = babies.filter((b) => !(b.status === 'archived' && drop-- > 0));
  }

  return {
    ...state,
    rngState: rng.state(),
    generation,
    babies,
    pruned,
    history: [...state.history, record].slice(-HISTORY_KEPT),
  };
}

/** The control screen's Apply Evolution Parameters: used by the next experiences and births. */
export function applyParams(state: LabState, params: EvolutionParams): LabState {
  return { ...state, params: clampParams(params) };
}

/** A seed for a new population drawn from the current one's generator (Reset Population). */
export function nextSeed(state: LabState): number {
  return Math.floor(createRng(state.rngState ^ 0x9e3779b9).next() * 2 ** 32);
}
