import { Group, List, Paper, Text, ThemeIcon, Title } from '@mantine/core';
import { IconSparkles } from '@tabler/icons-react';
import {
  BREEDING_SHARE,
  CAPITALIZE_CHANCE,
  CAPITALIZE_SCORE,
  CHILDREN_PER_GENERATION,
  EXPERIENCE_CHANCE,
  GENERATION_TICKS,
  INITIAL_EXPERIENCES,
  INITIAL_POPULATION,
  MUTATION_RATE_MAX,
  MUTATION_RATE_MIN,
  NETWORK_VIEW_MAX,
  SUCCESS_SCORE,
  SURVIVORS,
  TICK_MS,
} from '../lab/simulation';
import { BABIES_MESSAGES as M, explainRules } from './messages';

// Built from the simulation's constants: the panel cannot say one rule while the lab runs another.
const RULES = explainRules({
  initialPopulation: INITIAL_POPULATION,
  initialExperiences: INITIAL_EXPERIENCES,
  tickSeconds: TICK_MS / 1000,
  experienceChance: EXPERIENCE_CHANCE,
  successScore: SUCCESS_SCORE,
  capitalizeScore: CAPITALIZE_SCORE,
  capitalizeChance: CAPITALIZE_CHANCE,
  breedingShare: BREEDING_SHARE,
  children: CHILDREN_PER_GENERATION,
  survivors: SURVIVORS,
  mutationMin: MUTATION_RATE_MIN,
  mutationMax: MUTATION_RATE_MAX,
  generationSeconds: (GENERATION_TICKS * TICK_MS) / 1000,
  networkMax: NETWORK_VIEW_MAX,
});

/** The explanatory panel (spec 001 §2.4): what the laboratory simulates and by which rules. */
export function ExplanationPanel() {
  return (
    <Paper withBorder radius="md" p="lg" component="section" aria-label={M.explainTitle}>
      <Group gap="sm" mb="sm" wrap="nowrap">
        <ThemeIcon variant="light" color="violet" size={34} radius="md">
          <IconSparkles size={18} />
        </ThemeIcon>
        <Title order={4}>{M.explainTitle}</Title>
      </Group>
      <Text size="sm" mb="sm">
        {M.explainIntro}
      </Text>
      <List size="sm" spacing={6}>
        {RULES.map((rule) => (
          <List.Item key={rule}>{rule}</List.Item>
        ))}
      </List>
    </Paper>
  );
}
