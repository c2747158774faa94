/**
 * What the Evolution Monitor, Enriched Snippets and Analytics screens show of the laboratory
 * (issue 12): pure derivations of a LabState, memoised by the screens (one pass per 3 s tick).
 *
 * Two sources, on purpose:
 * - Per-generation figures come from the generation records (`history` plus the live
 *   `currentRecord`): they outlive the babies the simulation prunes and the experiences a baby
 *   forgets, so the curves go back to generation 1.
 * - Per-experience figures (score histogram, themes, memories) come from the experiences the
 *   babies hold, archived babies included, since records keep only counts.
 */
import { CAPITALIZE_SCORE, SUCCESS_SCORE, currentRecord } from '../lab/simulation';
import {
  EXPERIENCE_THEMES,
  type BabyStatus,
  type CapitalizedMemory,
  type DigitalBaby,
  type Dna,
  type GenerationRecord,
  type LabState,
  type SnippetSource,
} from '../lab/types';

const ratio = (part: number, whole: number): number | null => (whole > 0 ? part / whole : null);

// ---------------------------------------------------------------------------------------------
// Per generation

/** One generation's point on the charts; the last one is the generation in progress. */
export interface GenerationRow extends Dna {
  generation: number;
  /** The x-axis label: `G4`. */
  label: string;
  /** The generation in progress (its figures still move). */
  live: boolean;
  bestFitness: number;
  meanFitness: number;
  experiences: number;
  successes: number;
  capitalized: number;
  /** successes / experiences; null when the generation ran no experience (a gap, not a 0). */
  successRate: number | null;
  /** null when the generation ran no experience. */
  meanOriginality: number | null;
}

/** The ended generations' records, then the current generation's live one. */
function generationRecords(state: LabState): GenerationRecord[] {
  return [...state.history, currentRecord(state)];
}

export function generationRows(state: LabState): GenerationRow[] {
  const records = generationRecords(state);
  return records.map((r, i) => ({
    ...r.meanDna,
    generation: r.generation,
    label: `G${r.generation}`,
    live: i === records.length - 1,
    bestFitness: r.bestFitness,
    meanFitness: r.meanFitness,
    experiences: r.experiences,
    successes: r.successes,
    capitalized: r.capitalized,
    successRate: ratio(r.successes, r.experiences),
    meanOriginality: r.experiences > 0 ? r.meanOriginality : null,
  }));
}

export interface FitnessGain {
  /** The first and the last ended generation compared. */
  from: GenerationRow;
  to: GenerationRow;
  meanGain: number;
  bestGain: number;
  /** Relative mean gain (0.25 = +25%); null when the first mean was 0. */
  meanGainShare: number | null;
}

/**
 * Fitness gained between the first and the latest ended generation; null before a generation
 * has ended. The generation in progress is left out: its newborns start at fitness 0, so its
 * mean dips at every generation's start and would understate the gain.
 */
export function fitnessGain(rows: GenerationRow[]): FitnessGain | null {
  const ended = rows.filter((r) => !r.live);
  const from = ended[0];
  const to = ended[ended.length - 1];
  if (!from || !to) return null;
  return {
    from,
    to,
    meanGain: to.meanFitness - from.meanFitness,
    bestGain: to.bestFitness - from.bestFitness,
    meanGainShare:
      from.meanFitness > 0 ? (to.meanFitness - from.meanFitness) / from.meanFitness : null,
  };
}

/** The babies born in one generation, by their status now. */
export interface CohortRow extends Record<BabyStatus, number> {
  generation: number;
  label: string;
  born: number;
}

/**
 * Babies by birth generation and current status: how long each generation's babies survive
 * selection. (The records' own byStatus is flat by construction, 20 living and 5 more archived
 * per generation, so it would show nothing.) Babies the simulation pruned are not counted.
 */
export function cohortRows(state: LabState): CohortRow[] {
  const byGeneration = new Map<number, CohortRow>();
  for (const baby of state.babies) {
    let row = byGeneration.get(baby.generation);
    if (!row) {
      row = {
        generation: baby.generation,
        label: `G${baby.generation}`,
        born: 0,
        active: 0,
        testing: 0,
        archived: 0,
      };
      byGeneration.set(baby.generation, row);
    }
    row.born += 1;
    row[baby.status] += 1;
  }
  return [...byGeneration.values()].sort((a, b) => a.generation - b.generation);
}

// ---------------------------------------------------------------------------------------------
// Experiences

/** Histogram bucket width: 0.05, so both thresholds (0.6, 0.75) fall on bucket edges. */
export const SCORE_BUCKET = 0.05;
export const SCORE_BUCKETS = Math.round(1 / SCORE_BUCKET);

/** Below or at 0.6: failure; above 0.6: success; above 0.75: may be capitalised (70%). */
export type ScoreZone = 'failure' | 'success' | 'capitalizable';

export interface ScoreBucket {
  /** Exclusive lower edge (the first bucket includes 0). */
  from: number;
  /** Inclusive upper edge: a score of exactly 0.6 is not a success and lands below the line. */
  to: number;
  mid: number;
  count: number;
  zone: ScoreZone;
}

/** The bucket of a score: (from, to], the first one [0, 0.05]. */
export function scoreBucketIndex(score: number): number {
  // The epsilon keeps a score on an edge (0.6 × 20 = 12.000000000000002) in the lower bucket.
  const index = Math.ceil(score * SCORE_BUCKETS - 1e-9) - 1;
  return Math.min(SCORE_BUCKETS - 1, Math.max(0, index));
}

function scoreZone(upperEdge: number): ScoreZone {
  if (upperEdge <= SUCCESS_SCORE + 1e-9) return 'failure';
  if (upperEdge <= CAPITALIZE_SCORE + 1e-9) return 'success';
  return 'capitalizable';
}

function emptyBuckets(): ScoreBucket[] {
  return Array.from({ length: SCORE_BUCKETS }, (_, i) => {
    const from = i / SCORE_BUCKETS;
    const to = (i + 1) / SCORE_BUCKETS;
    return { from, to, mid: (from + to) / 2, count: 0, zone: scoreZone(to) };
  });
}

export interface ThemeStat {
  theme: string;
  experiences: number;
  successes: number;
  successRate: number | null;
  capitalized: number;
  /** Experiences that drew this theme from a real snippet. */
  fromSnippets: number;
}

export interface ExperienceStats {
  total: number;
  successes: number;
  capitalized: number;
  successRate: number | null;
  meanScore: number | null;
  meanOriginality: number | null;
  /** Experiences whose theme came from a real snippet. */
  fromSnippets: number;
  histogram: ScoreBucket[];
  /** The four snippet themes first (even when unused), then any other, most used first. */
  themes: ThemeStat[];
}

/** Every experience the babies hold, archived babies included, in one pass. */
export function experienceStats(babies: DigitalBaby[]): ExperienceStats {
  const histogram = emptyBuckets();
  const themes = new Map<string, ThemeStat>(
    EXPERIENCE_THEMES.map((theme) => [
      theme,
      { theme, experiences: 0, successes: 0, successRate: null, capitalized: 0, fromSnippets: 0 },
    ]),
  );
  let total = 0;
  let successes = 0;
  let capitalized = 0;
  let scores = 0;
  let originality = 0;
  let fromSnippets = 0;
  for (const baby of babies) {
    for (const e of baby.experiences) {
      total += 1;
      scores += e.result.score;
      originality += e.result.originality;
      histogram[scoreBucketIndex(e.result.score)]!.count += 1;
      let theme = themes.get(e.theme);
      if (!theme) {
        theme = {
          theme: e.theme,
          experiences: 0,
          successes: 0,
          successRate: null,
          capitalized: 0,
          fromSnippets: 0,
        };
        themes.set(e.theme, theme);
      }
      theme.experiences += 1;
      if (e.result.success) {
        successes += 1;
        theme.successes += 1;
      }
      if (e.capitalized) {
        capitalized += 1;
        theme.capitalized += 1;
      }
      if (e.source) {
        fromSnippets += 1;
        theme.fromSnippets += 1;
      }
    }
  }
  const known = new Set<string>(EXPERIENCE_THEMES);
  const themeList = [...themes.values()].map((t) => ({
    ...t,
    successRate: ratio(t.successes, t.experiences),
  }));
  return {
    total,
    successes,
    capitalized,
    successRate: ratio(successes, total),
    meanScore: ratio(scores, total),
    meanOriginality: ratio(originality, total),
    fromSnippets,
    histogram,
    themes: [
      ...themeList.filter((t) => known.has(t.theme)),
      ...themeList.filter((t) => !known.has(t.theme)).sort((a, b) => b.experiences - a.experiences),
    ],
  };
}

// ---------------------------------------------------------------------------------------------
// Capitalised memories

export interface MemoryRow extends CapitalizedMemory {
  babyId: string;
  babyGeneration: number;
  babyColor: string;
  babyStatus: BabyStatus;
}

/**
 * Every baby's capitalised memories, newest first; memories of the same tick list the younger
 * baby first (the babies are in birth order).
 */
export function memoryRows(babies: DigitalBaby[]): MemoryRow[] {
  const rows: { row: MemoryRow; order: number }[] = [];
  babies.forEach((baby, babyIndex) => {
    baby.capitalizedMemories.forEach((memory, i) => {
      rows.push({
        row: {
          ...memory,
          babyId: baby.id,
          babyGeneration: baby.generation,
          babyColor: baby.color,
          babyStatus: baby.status,
        },
        order: babyIndex * 1e6 + i,
      });
    });
  });
  rows.sort((a, b) => b.row.at - a.row.at || b.order - a.order);
  return rows.map((r) => r.row);
}

/** The memories of one theme; null keeps them all. */
export function filterMemories(rows: MemoryRow[], theme: string | null): MemoryRow[] {
  return theme === null ? rows : rows.filter((r) => r.theme === theme);
}

/** The themes the memories carry, with their counts, most frequent first (ties by name). */
export function memoryThemes(rows: MemoryRow[]): { theme: string; count: number }[] {
  const counts = new Map<string, number>();
  for (const r of rows) counts.set(r.theme, (counts.get(r.theme) ?? 0) + 1);
  return [...counts]
    .map(([theme, count]) => ({ theme, count }))
    .sort((a, b) => b.count - a.count || a.theme.localeCompare(b.theme));
}

export interface SourceGroup {
  source: SnippetSource;
  memories: number;
  /** The newest memory's simulation time. */
  lastAt: number;
}

/** The real snippets the memories drew their themes from, most drawn on first. */
export function memorySources(rows: MemoryRow[]): SourceGroup[] {
  const groups = new Map<number, SourceGroup>();
  for (const r of rows) {
    if (!r.source) continue;
    const group = groups.get(r.source.id);
    if (group) {
      group.memories += 1;
      group.lastAt = Math.max(group.lastAt, r.at);
    } else {
      groups.set(r.source.id, { source: r.source, memories: 1, lastAt: r.at });
    }
  }
  return [...groups.values()].sort(
    (a, b) => b.memories - a.memories || b.lastAt - a.lastAt || a.source.id - b.source.id,
  );
}
