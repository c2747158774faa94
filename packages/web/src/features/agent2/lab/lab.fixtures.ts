/**
 * A ready-made laboratory for the Agent 2 screens' tests: the real simulation run with a fixed
 * seed, so the state is what the screens meet in use (several generations, archived babies,
 * testing ones, capitalised memories, some drawn from real snippets).
 */
import { createLab, GENERATION_TICKS, tick } from './simulation';
import type { LabState, SnippetSource } from './types';

const LAB_SEED = 12;

export const LAB_SOURCES: SnippetSource[] = [
  {
    id: 101,
    text: 'Honey bees dance to tell their sisters where the flowers are.',
    theme: 'science',
  },
  { id: 102, text: 'A compiler turns source code into machine instructions.', theme: 'technology' },
  { id: 103, text: 'The unexamined life is not worth living.', theme: 'philosophy' },
  { id: 104, text: 'The library opens at nine on weekdays.', theme: 'general' },
];

/** The state after `generations` ended generations plus `ticks` more ticks (default: 3 and 2). */
export function evolvedLab({
  generations = 3,
  ticks = 2,
  seed = LAB_SEED,
  sources = LAB_SOURCES,
}: {
  generations?: number;
  ticks?: number;
  seed?: number;
  sources?: SnippetSource[];
} = {}): LabState {
  let state = createLab(seed, { sources });
  for (let i = 0; i < generations * GENERATION_TICKS + ticks; i += 1) {
    state = tick(state, { sources });
  }
  return state;
}

/** Generation 4, 20 living and 15 archived babies, mid-generation (2 ticks in). */
export const LAB_FIXTURE: LabState = evolvedLab();
