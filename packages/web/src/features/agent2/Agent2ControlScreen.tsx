import { useState } from 'react';
import {
  Badge,
  Button,
  Grid,
  Group,
  Paper,
  Progress,
  Slider,
  Stack,
  Text,
  Title,
} from '@mantine/core';
import { IconPlayerPause, IconPlayerPlay, IconRefresh, IconSeedling } from '@tabler/icons-react';
import { confirmAction } from '../../components/ConfirmDialog';
import { PageHeader } from '../../components/PageHeader';
import { useLab } from './lab/LabProvider';
import { bestBaby, livingBabies, MUTATION_RATE_MAX, MUTATION_RATE_MIN } from './lab/simulation';
import type { EvolutionParams } from './lab/types';

/** Spec 000 §2 Agent 2 Control: the sliders, in order, with their labels. */
export const PARAMETER_SLIDERS: {
  key: keyof EvolutionParams;
  label: string;
  min: number;
  max: number;
}[] = [
  { key: 'creativityThreshold', label: 'Creativity Threshold', min: 0, max: 1 },
  // A baby's mutation rate stays within 0.1–0.2 (spec 001 §9): the slider offers only that range.
  { key: 'mutationRate', label: 'Mutation Rate', min: MUTATION_RATE_MIN, max: MUTATION_RATE_MAX },
  { key: 'emotionalDepth', label: 'Emotional Depth', min: 0, max: 1 },
  { key: 'innovationTendency', label: 'Innovation Tendency', min: 0, max: 1 },
];

/** Spec 000 §2: the Current Best DNA list. */
export const BEST_DNA_LABELS = {
  creativity: 'Creativity',
  analytical: 'Analytical',
  empathy: 'Empathy',
  curiosity: 'Curiosity',
  fitness: 'Fitness Score',
} as const;

const BEST_DNA_COLORS: Record<keyof typeof BEST_DNA_LABELS, string> = {
  creativity: 'violet',
  analytical: 'indigo',
  empathy: 'pink',
  curiosity: 'cyan',
  fitness: 'teal',
};

const RESET_CONFIRM = {
  title: 'Reset Population',
  message:
    'A new population of 20 babies replaces the current one; its generations and history are lost.',
  confirmLabel: 'Reset Population',
};

const sameParams = (a: EvolutionParams, b: EvolutionParams) =>
  PARAMETER_SLIDERS.every(({ key }) => a[key] === b[key]);

/** Agent 2 Control: drives the laboratory's simulation (spec 000 §2, issue 12). */
export function Agent2ControlScreen() {
  const lab = useLab();
  const { state, running } = lab;
  const [draft, setDraft] = useState<EvolutionParams>(state.params);
  const best = bestBaby(state);
  const bestValues: Record<keyof typeof BEST_DNA_LABELS, number> = {
    creativity: best?.dna.creativity ?? 0,
    analytical: best?.dna.analytical ?? 0,
    empathy: best?.dna.empathy ?? 0,
    curiosity: best?.dna.curiosity ?? 0,
    fitness: best?.fitness ?? 0,
  };

  return (
    <Stack gap="lg">
      <PageHeader
        title="Agent 2 Control"
        description="Evolution parameters and generation controls of the digital-babies laboratory, simulated in this browser."
      />
      <Grid gap="lg">
        <Grid.Col span={{ base: 12, md: 7 }}>
          <Paper withBorder radius="md" p="lg" h="100%">
            <Title order={4} mb="md">
              Evolution Parameters
            </Title>
            <Stack gap="lg">
              {PARAMETER_SLIDERS.map((p) => (
                <div key={p.key}>
                  <Group justify="space-between" mb={6}>
                    <Text size="sm" fw={500}>
                      {p.label}
                    </Text>
                    <Text size="sm" fw={600} className="tabular-nums">
                      {draft[p.key].toFixed(2)}
                    </Text>
                  </Group>
                  <Slider
                    min={p.min}
                    max={p.max}
                    step={0.01}
                    value={draft[p.key]}
                    onChange={(v) => setDraft((current) => ({ ...current, [p.key]: v }))}
                    label={(v) => v.toFixed(2)}
                    thumbLabel={p.label}
                    color="violet"
                  />
                </div>
              ))}
              <Group>
                <Button
                  color="violet"
                  disabled={sameParams(draft, state.params)}
                  onClick={() => lab.applyParams(draft)}
                >
                  Apply Evolution Parameters
                </Button>
              </Group>
            </Stack>
          </Paper>
        </Grid.Col>
        <Grid.Col span={{ base: 12, md: 5 }}>
          <Stack gap="lg">
            <Paper withBorder radius="md" p="lg">
              <Group justify="space-between" mb="md">
                <Title order={4}>Generation {state.generation}</Title>
                <Badge color={running ? 'teal' : 'gray'} variant="light">
                  {running ? 'Evolution Active' : 'Evolution Paused'}
                </Badge>
              </Group>
              <Text size="sm" c="dimmed" mb="md">
                {livingBabies(state).length} living babies · a new generation every 15 s while
                active
              </Text>
              <Stack gap="sm">
                <Button
                  leftSection={<IconSeedling size={16} />}
                  color="teal"
                  onClick={lab.startNewGeneration}
                >
                  Start New Generation
                </Button>
                <Button
                  leftSection={
                    running ? <IconPlayerPause size={16} /> : <IconPlayerPlay size={16} />
                  }
                  variant="default"
                  onClick={() => lab.setRunning(!running)}
                >
                  {running ? 'Pause Evolution' : 'Resume Evolution'}
                </Button>
                <Button
                  leftSection={<IconRefresh size={16} />}
                  color="red"
                  variant="light"
                  onClick={() =>
                    confirmAction({ ...RESET_CONFIRM, danger: true, onConfirm: lab.reset })
                  }
                >
                  Reset Population
                </Button>
              </Stack>
            </Paper>
            <Paper withBorder radius="md" p="lg">
              <Group justify="space-between" mb="md">
                <Title order={4}>Current Best DNA</Title>
                {best ? (
                  <Text size="sm" c="dimmed" className="tabular-nums">
                    {best.id}
                  </Text>
                ) : null}
              </Group>
              <Stack gap="sm" component="ul" style={{ listStyle: 'none', padding: 0, margin: 0 }}>
                {(Object.keys(BEST_DNA_LABELS) as (keyof typeof BEST_DNA_LABELS)[]).map((key) => (
                  <li key={key}>
                    <Group justify="space-between" mb={4}>
                      <Text size="sm">{BEST_DNA_LABELS[key]}</Text>
                      <Text size="sm" fw={600} className="tabular-nums">
                        {bestValues[key].toFixed(2)}
                      </Text>
                    </Group>
                    <Progress
                      value={bestValues[key] * 100}
                      color={BEST_DNA_COLORS[key]}
                      size="sm"
                      radius="xl"
                      aria-label={BEST_DNA_LABELS[key]}
                    />
                  </li>
                ))}
              </Stack>
            </Paper>
          </Stack>
        </Grid.Col>
      </Grid>
    </Stack>
  );
}
