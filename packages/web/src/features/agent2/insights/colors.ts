/** Chart colours of the Agent 2 insight screens (Mantine palette names). */
import type { BabyStatus, DnaTrait } from '../lab/types';
import type { ScoreZone } from './insights';

export const STATUS_COLORS: Record<BabyStatus, string> = {
  active: 'teal.6',
  testing: 'yellow.5',
  archived: 'gray.6',
};

export const TRAIT_COLORS: Record<DnaTrait, string> = {
  creativity: 'violet.5',
  analytical: 'indigo.4',
  empathy: 'pink.5',
  curiosity: 'cyan.5',
  persistence: 'orange.5',
  emotionalDepth: 'grape.4',
  innovationTendency: 'lime.5',
  mutationRate: 'gray.5',
};

export const ZONE_COLORS: Record<ScoreZone, string> = {
  failure: 'red.5',
  success: 'blue.5',
  capitalizable: 'teal.5',
};

/** The CSS variable of a palette name, for non-chart elements (`violet.5` → its var). */
export const cssColor = (color: string) => `var(--mantine-color-${color.replace('.', '-')})`;
