import { Group, Paper, Switch, Text, Tooltip } from '@mantine/core';
import { PageHeader } from '../../../components/PageHeader';
import { formatNumber } from '../../../lib/format';

/** The header's words: French on the laboratory screen, English on the insight screens. */
export interface LabHeaderLabels {
  generation: string;
  population: string;
  populationHint: (population: number, archived: number) => string;
  evolutionActive: string;
  evolutionPaused: string;
  evolutionToggle: string;
}

function HeaderFigure({ label, value, hint }: { label: string; value: number; hint?: string }) {
  const figure = (
    <Paper withBorder radius="md" px="md" py={6} role="group" aria-label={label}>
      <Text size="xs" c="dimmed" tt="uppercase" fw={700} lh={1.2}>
        {label}
      </Text>
      <Text fz="xl" fw={700} className="tabular-nums" lh={1.2} data-figure>
        {formatNumber(value)}
      </Text>
    </Paper>
  );
  return hint ? <Tooltip label={hint}>{figure}</Tooltip> : figure;
}

/**
 * The laboratory's header on every Agent 2 screen that shows it (spec 001 §2.4): generation,
 * total population and the Evolution Active/Paused toggle.
 */
export function LabHeader({
  title,
  description,
  labels,
  generation,
  population,
  archived,
  running,
  onRunningChange,
}: {
  title: string;
  description: string;
  labels: LabHeaderLabels;
  generation: number;
  population: number;
  archived: number;
  running: boolean;
  onRunningChange: (running: boolean) => void;
}) {
  return (
    <PageHeader
      title={title}
      description={description}
      actions={
        <Group gap="sm" wrap="nowrap">
          <HeaderFigure label={labels.generation} value={generation} />
          <HeaderFigure
            label={labels.population}
            value={population}
            hint={labels.populationHint(population, archived)}
          />
          <Paper withBorder radius="md" px="md" py="sm">
            <Switch
              size="md"
              color="teal"
              checked={running}
              onChange={(e) => onRunningChange(e.currentTarget.checked)}
              label={running ? labels.evolutionActive : labels.evolutionPaused}
              aria-label={labels.evolutionToggle}
              styles={{ label: { minWidth: 136, whiteSpace: 'nowrap' } }}
            />
          </Paper>
        </Group>
      }
    />
  );
}
