/**
 * What the Digital Babies Laboratory shows, derived from the lab's state: the KPI figures, the
 * filters, the per-baby experience analysis and the layouts of the network and timeline views.
 * Pure functions, so the screen memoises them and the tests check them on known states.
 */
import { currentRecord, GENERATION_TICKS, TICK_MS } from '../lab/simulation';
import {
  DNA_TRAITS,
  type DigitalBaby,
  type Dna,
  type Experience,
  type LabState,
} from '../lab/types';

export interface LabKpis {
  /** Living babies (not archived). */
  population: number;
  active: number;
  testing: number;
  /** Archived babies, those the lab has dropped included. */
  archived: number;
  /** Every baby ever born. */
  born: number;
  generation: number;
  /** Simulation time (ms) left before the current generation ends. */
  nextGenerationIn: number;
  /** The fittest living baby; null when none lives. */
  best: DigitalBaby | null;
  /** Mean fitness of the living population, 0–1; null when none lives. */
  meanFitness: number | null;
  /** Experiences and successes the living population holds (their success rate). */
  livingExperiences: number;
  livingSuccesses: number;
  /** Lab-wide since the start: experiences run and capitalised. */
  experiences: number;
  capitalized: number;
}

/**
 * The KPI tiles' figures. The lab-wide totals add up the generations' records (ended ones in
 * `history`, the current one live) rather than the babies' lists: those drop their oldest
 * experiences and the lab its oldest archived babies, the records keep counting.
 */
export function labKpis(state: LabState): LabKpis {
  let active = 0;
  let testing = 0;
  let archived = 0;
  let best: DigitalBaby | null = null;
  let fitnessSum = 0;
  let livingExperiences = 0;
  let livingSuccesses = 0;
  for (const baby of state.babies) {
    if (baby.status === 'archived') {
      archived += 1;
      continue;
    }
    if (baby.status === 'testing') testing += 1;
    else active += 1;
    fitnessSum += baby.fitness;
    if (!best || baby.fitness > best.fitness) best = baby;
    livingExperiences += baby.experiences.length;
    for (const e of baby.experiences) if (e.result.success) livingSuccesses += 1;
  }
  const current = currentRecord(state);
  let experiences = current.experiences;
  let capitalized = current.capitalized;
  for (const record of state.history) {
    experiences += record.experiences;
    capitalized += record.capitalized;
  }
  // As the simulation counts: a generation lasts GENERATION_TICKS ticks from the last one's end.
  const lastEnd = state.history[state.history.length - 1]?.at ?? 0;
  const ticksIn = state.tick - lastEnd / TICK_MS;
  const population = active + testing;
  return {
    population,
    active,
    testing,
    archived: archived + state.pruned,
    born: state.babies.length + state.pruned,
    generation: state.generation,
    nextGenerationIn: Math.max(0, GENERATION_TICKS - ticksIn) * TICK_MS,
    best,
    meanFitness: population > 0 ? fitnessSum / population : null,
    livingExperiences,
    livingSuccesses,
    experiences,
    capitalized,
  };
}

/** The mean DNA of some babies (the radar's comparison); null when there are none. */
export function meanDna(babies: DigitalBaby[]): Dna | null {
  if (babies.length === 0) return null;
  const mean = Object.fromEntries(DNA_TRAITS.map((t) => [t, 0])) as Dna;
  for (const b of babies) for (const t of DNA_TRAITS) mean[t] += b.dna[t] / babies.length;
  return mean;
}

export interface BabyFilters {
  /** One generation, or null for all. */
  generation: number | null;
  /** Minimum fitness in percent, 0–100. */
  minFitness: number;
  showArchived: boolean;
}

export const DEFAULT_FILTERS: BabyFilters = {
  generation: null,
  minFitness: 0,
  showArchived: false,
};

/** The babies the filters can choose from: the living ones, or every baby ever born. */
export function babyPool(babies: DigitalBaby[], showArchived: boolean): DigitalBaby[] {
  return showArchived ? babies : babies.filter((b) => b.status !== 'archived');
}

/** The generations present in the pool, newest first (the generation filter's choices). */
export function generationsPresent(pool: DigitalBaby[]): number[] {
  return [...new Set(pool.map((b) => b.generation))].sort((a, b) => b - a);
}

/**
 * The babies every view shows, in a stable order (newest generation first, then by birth and
 * id) so that cards do not reshuffle at each tick as fitness moves.
 */
export function filterBabies(babies: DigitalBaby[], filters: BabyFilters): DigitalBaby[] {
  // A hair under the threshold still passes: fitness 0.7 is "70 %" even as 0.69999999.
  const min = filters.minFitness / 100 - 1e-9;
  return babyPool(babies, filters.showArchived)
    .filter(
      (b) =>
        (filters.generation === null || b.generation === filters.generation) && b.fitness >= min,
    )
    .sort(byGenerationThenBirth);
}

function byGenerationThenBirth(a: DigitalBaby, b: DigitalBaby): number {
  return (
    b.generation - a.generation ||
    a.birthTime - b.birthTime ||
    (a.id < b.id ? -1 : a.id > b.id ? 1 : 0)
  );
}

export interface ExperienceAnalysis {
  total: number;
  successes: number;
  capitalized: number;
  /** Experiences per theme, most frequent first (ties by name). */
  themes: { theme: string; count: number }[];
  /** The five most recent, newest first. */
  lastFive: Experience[];
}

export function experienceAnalysis(baby: DigitalBaby): ExperienceAnalysis {
  const themes = new Map<string, number>();
  let successes = 0;
  let capitalized = 0;
  for (const e of baby.experiences) {
    if (e.result.success) successes += 1;
    if (e.capitalized) capitalized += 1;
    themes.set(e.theme, (themes.get(e.theme) ?? 0) + 1);
  }
  const lastFive = baby.experiences
    .map((e, index) => ({ e, index }))
    // Same time: the later one in the list is the newer.
    .sort((a, b) => b.e.at - a.e.at || b.index - a.index)
    .slice(0, 5)
    .map(({ e }) => e);
  return {
    total: baby.experiences.length,
    successes,
    capitalized,
    themes: [...themes]
      .map(([theme, count]) => ({ theme, count }))
      .sort((a, b) => b.count - a.count || a.theme.localeCompare(b.theme)),
    lastFive,
  };
}

export interface Point {
  x: number;
  y: number;
}

export interface NetworkLayout {
  width: number;
  height: number;
  positions: Map<string, Point>;
  /** Parent → child links among the babies laid out. */
  edges: { from: string; to: string }[];
  /** One column per generation: its number and x, for the labels. */
  layers: { generation: number; x: number }[];
}

/** Nodes per sub-column before a generation's layer spreads over a second one. */
const LAYER_ROWS = 10;
const NETWORK_PAD = 36;
const UNIT_MAX = 200;

/**
 * Layers like a neural network's: one per generation, left to right, parents before their
 * children. A node's place depends only on its generation, birth time and id and on which babies
 * are shown, never on fitness or status: the graph holds still while the simulation ticks and
 * moves only when babies enter or leave it.
 */
export function networkLayout(babies: DigitalBaby[], width: number, height: number): NetworkLayout {
  const byGeneration = new Map<number, DigitalBaby[]>();
  for (const b of babies) {
    const layer = byGeneration.get(b.generation);
    if (layer) layer.push(b);
    else byGeneration.set(b.generation, [b]);
  }
  // Column slots: a generation's sub-columns sit 0.6 unit apart, generations 1.6 units apart;
  // a unit is at most UNIT_MAX px, the whole centred (two generations do not span the screen).
  let cursor = -1.6;
  const layerSpecs = [...byGeneration.entries()]
    .sort((a, b) => a[0] - b[0])
    .map(([generation, members]) => {
      const columns = Math.ceil(members.length / LAYER_ROWS);
      const slot = cursor + 1.6;
      cursor = slot + 0.6 * (columns - 1);
      return { generation, members, columns, slot };
    });
  const span = Math.max(0, cursor);
  const usableH = height - 2 * NETWORK_PAD;
  const unit = span === 0 ? 0 : Math.min(UNIT_MAX, (width - 2 * NETWORK_PAD) / span);
  const left = (width - span * unit) / 2;
  const xOf = (slot: number) => left + slot * unit;

  const positions = new Map<string, Point>();
  const layers: NetworkLayout['layers'] = [];
  for (const { generation, members, columns, slot } of layerSpecs) {
    members.sort((a, b) => a.birthTime - b.birthTime || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
    const rows = Math.ceil(members.length / columns);
    // The zig-zag lowers the last sub-column by almost a row: the layer spans that much more.
    const zigzag = (columns - 1) / columns;
    const step = rows > 1 ? Math.min(56, usableH / (rows - 1 + zigzag)) : 0;
    const top = height / 2 - (step * (rows - 1 + zigzag)) / 2;
    members.forEach((baby, index) => {
      // Round-robin over the sub-columns, the later ones a fraction of a row lower: a zig-zag
      // that keeps neighbours apart.
      const column = index % columns;
      const row = Math.floor(index / columns);
      const offset = columns > 1 ? (column / columns) * step : 0;
      positions.set(baby.id, {
        x: xOf(slot + 0.6 * column),
        y: top + row * step + offset,
      });
    });
    layers.push({ generation, x: xOf(slot + (0.6 * (columns - 1)) / 2) });
  }

  const edges: NetworkLayout['edges'] = [];
  for (const b of babies) {
    for (const parent of b.parentIds)
      if (positions.has(parent)) edges.push({ from: parent, to: b.id });
  }
  return { width, height, positions, edges, layers };
}

export interface TimelineLane {
  generation: number;
  rows: { baby: DigitalBaby; start: number; end: number }[];
}

export interface TimelineLayout {
  /** Simulation time (ms) at the left and right edges. */
  from: number;
  to: number;
  lanes: TimelineLane[];
  /** Generations left out (older than the lanes shown). */
  hiddenGenerations: number;
}

/**
 * Babies by generation over simulation time: a lane per generation (newest on top, at most
 * `maxLanes`), a row per baby from its birth to now, or to its last experience when archived
 * (the state does not record when it was archived).
 */
export function timelineLayout(
  babies: DigitalBaby[],
  now: number,
  maxLanes: number,
): TimelineLayout {
  const generations = generationsPresent(babies);
  const shown = generations.slice(0, maxLanes);
  const lanes: TimelineLane[] = shown.map((generation) => ({
    generation,
    rows: babies
      .filter((b) => b.generation === generation)
      .sort((a, b) => a.birthTime - b.birthTime || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0))
      .map((baby) => ({
        baby,
        start: baby.birthTime,
        end:
          baby.status === 'archived'
            ? Math.max(baby.birthTime, ...baby.experiences.map((e) => e.at))
            : Math.max(now, baby.birthTime),
      })),
  }));
  const starts = lanes.flatMap((l) => l.rows.map((r) => r.start));
  const from = starts.length > 0 ? Math.min(...starts) : 0;
  // At least one tick wide, so a lab at time 0 still draws.
  const to = Math.max(now, from + TICK_MS);
  return { from, to, lanes, hiddenGenerations: generations.length - shown.length };
}

/** Simulation time as the French reads it: `45 s`, `2 min 05 s`, `1 h 02 min`. */
export function formatSimTime(ms: number): string {
  const total = Math.max(0, Math.round(ms / 1000));
  const h = Math.floor(total / 3600);
  const m = Math.floor((total % 3600) / 60);
  const s = total % 60;
  if (h > 0) return `${h} h ${String(m).padStart(2, '0')} min`;
  if (m > 0) return `${m} min ${String(s).padStart(2, '0')} s`;
  return `${s} s`;
}

/** A 0–1 share as a French percentage, e.g. `72,5 %` (non-finite or null: `-`). */
export function formatShare(value: number | null | undefined, digits = 1): string {
  if (typeof value !== 'number' || !Number.isFinite(value)) return '-';
  return `${(value * 100).toFixed(digits).replace('.', ',')}\u00a0%`;
}

/** A 0–1 figure with two decimals, French style: `0,72`. */
export function formatDecimal(value: number, digits = 2): string {
  return Number.isFinite(value) ? value.toFixed(digits).replace('.', ',') : '-';
}
