/**
 * Texts of Agent 2's Evolution Monitor, Enriched Snippets and Analytics screens. The spec names
 * the screens (the menu's English labels) and issue 12 what they show, not their words: these
 * are ours, in English like the menu and the Agent 2 Overview and Control screens.
 */
import type { BabyStatus, DnaTrait, TestType } from '../lab/types';

export const INSIGHTS_MESSAGES = {
  generation: 'Generation',
  population: 'Population',
  populationHint: (living: number, archived: number) =>
    `${living} living babies · ${archived} archived`,
  evolutionActive: 'Evolution Active',
  evolutionPaused: 'Evolution Paused',
  evolutionToggle: 'Evolution',
  liveNote: 'The last point is the generation in progress: its figures move with every tick.',

  evolution: {
    title: 'Evolution Monitor',
    description:
      'How the digital babies evolve: fitness, survival and DNA, generation after generation.',
    bestFitness: 'Best fitness',
    meanFitness: 'Mean fitness',
    ofGeneration: (n: number) => `At the end of generation ${n}`,
    noEndedGeneration: 'Shown once the first generation has ended',
    gain: (from: number) => `Mean fitness gain since generation ${from}`,
    gainCaption: (from: number, to: number, best: string) =>
      `Generation ${from} → ${to}; best fitness ${best}`,
    gainPending: 'Compared once a generation has ended',
    fitnessTitle: 'Fitness per generation',
    fitnessSubtitle: 'Best and mean fitness of the living population (0–1)',
    cohortTitle: 'Population by status',
    cohortSubtitle:
      'Babies born in each generation, by their status now: older generations survive only through their fittest.',
    dnaTitle: 'DNA drift',
    dnaSubtitle:
      'Mean of each trait over the living population (left axis, 0–1); the mutation rate, kept within 0.10–0.20, on the right axis (dashed).',
    dnaRightAxis: 'Mutation rate',
  },

  snippets: {
    title: 'Enriched Snippets',
    description:
      'The memories the babies capitalised from their best experiences, and the real snippets those experiences drew their themes from.',
    memories: 'Capitalised memories',
    memoriesCaption: (babies: number) => `Kept by ${babies} babies, archived ones included`,
    fromSnippets: 'From real snippets',
    fromSnippetsCaption: (snippets: number) =>
      snippets === 1 ? 'Drawn from 1 snippet' : `Drawn from ${snippets} snippets`,
    meanScore: 'Mean score',
    meanScoreCaption: (threshold: string) => `Every memory scored above ${threshold}`,
    newest: 'Newest memory',
    newestCaption: (id: string) => `Baby ${id}`,
    listTitle: 'Memories',
    listSubtitle:
      'Newest first. Sim. time counts from the population’s creation; a snippet number marks a memory whose theme came from that real snippet.',
    themeFilter: 'Theme',
    allThemes: 'All themes',
    colBaby: 'Baby',
    colExperience: 'Theme and test',
    colScore: 'Score',
    colOriginality: 'Originality',
    colTime: 'Sim. time',
    colSource: 'Source',
    generationShort: (n: number) => `Gen. ${n}`,
    simulatedTheme: 'Simulated theme',
    openSnippet: (id: number) => `Open snippet ${id}`,
    snippetNumber: (id: number) => `Snippet #${id}`,
    shown: (shown: number, total: number) => `${shown} of ${total} memories`,
    sourcesTitle: 'Source snippets',
    sourcesSubtitle: 'The real snippets behind the memories, most drawn on first.',
    sourcesEmpty:
      'No memory drew on a real snippet yet: without snippets on the server, experiences get a simulated theme.',
    sourceMemories: (n: number) => (n === 1 ? '1 memory' : `${n} memories`),
    emptyTitle: 'No capitalised memory yet',
    emptyDescription: (threshold: string, chance: string) =>
      `A memory is kept when an experience scores above ${threshold} (${chance} of such experiences are capitalised). They appear here as the babies evolve.`,
    noMatch: 'No memory of this theme.',
  },

  analytics: {
    title: 'Agent 2 Analytics',
    description: 'What the babies’ experiences achieve: success, scores, themes and originality.',
    successRate: 'Success rate',
    successRateCaption: (successes: number, total: number) =>
      `${successes} of ${total} experiences scored above the success line`,
    experiences: 'Experiences',
    experiencesCaption: 'Held by every baby, archived ones included',
    capitalized: 'Capitalised',
    capitalizedCaption: (share: string, threshold: string, chance: string) =>
      `${share} of the experiences (${chance} of those above ${threshold})`,
    meanOriginality: 'Mean originality',
    meanOriginalityCaption: 'Over every experience (0–1)',
    successTitle: 'Success rate per generation',
    successSubtitle: 'Share of the experiences run during each generation that succeeded (%)',
    histogramTitle: 'Score distribution',
    histogramSubtitle: (band: string, n: number) =>
      `Experiences per score band of ${band} (${n} experiences held)`,
    histogramBand: 'Score',
    zoneFailure: (t: string) => `Failure (≤ ${t})`,
    zoneSuccess: (from: string, to: string) => `Success (${from}–${to})`,
    zoneCapitalizable: (t: string) => `Capitalisable (> ${t})`,
    successLine: (t: string) => `Success ${t}`,
    capitalizeLine: (t: string) => `Memory ${t}`,
    themesTitle: 'Themes',
    themesSubtitle: 'Experiences per theme, with their success rate',
    succeeded: 'Succeeded',
    failed: 'Failed',
    colTheme: 'Theme',
    colExperiences: 'Experiences',
    colSuccessRate: 'Success rate',
    colCapitalized: 'Capitalised',
    colFromSnippets: 'From snippets',
    originalityTitle: 'Originality over time',
    originalitySubtitle: 'Mean originality of the experiences run during each generation (0–1)',
    noExperiences: 'No experience yet.',
  },
} as const;

export const TRAIT_LABELS: Record<DnaTrait, string> = {
  creativity: 'Creativity',
  analytical: 'Analytical',
  empathy: 'Empathy',
  curiosity: 'Curiosity',
  persistence: 'Persistence',
  emotionalDepth: 'Emotional depth',
  innovationTendency: 'Innovation tendency',
  mutationRate: 'Mutation rate',
};

export const STATUS_LABELS: Record<BabyStatus, string> = {
  active: 'Active',
  testing: 'Testing',
  archived: 'Archived',
};

export const TEST_TYPE_LABELS: Record<TestType, string> = {
  creative_writing: 'Creative writing',
  logical_reasoning: 'Logical reasoning',
  emotional_understanding: 'Emotional understanding',
  exploration: 'Exploration',
  problem_solving: 'Problem solving',
};

const THEME_LABELS: Record<string, string> = {
  science: 'Science',
  technology: 'Technology',
  philosophy: 'Philosophy',
  general: 'General',
};

/** A theme the server adds later shows under its own name. */
export const themeLabel = (theme: string) => THEME_LABELS[theme] ?? theme;
