import { memo, useState } from 'react';
import {
  Badge,
  Button,
  Group,
  Paper,
  Progress,
  SimpleGrid,
  Stack,
  Text,
  UnstyledButton,
  type MantineColor,
} from '@mantine/core';
import type { BabyStatus, DigitalBaby, DnaTrait } from '../lab/types';
import { formatDecimal, formatShare } from './babiesView';
import { BABIES_MESSAGES as M, STATUS_LABELS, TRAIT_LABELS } from './messages';

/** Cards drawn at first, and added per "show more": a long session archives many babies. */
const GRID_PAGE = 40;

export const STATUS_COLORS: Record<BabyStatus, MantineColor> = {
  active: 'teal',
  testing: 'yellow',
  archived: 'gray',
};

/** A baby's three strongest traits (the mutation rate aside: it is on another scale). */
function strongestTraits(baby: DigitalBaby): [DnaTrait, number][] {
  return (Object.entries(baby.dna) as [DnaTrait, number][])
    .filter(([trait]) => trait !== 'mutationRate')
    .sort((a, b) => b[1] - a[1])
    .slice(0, 3);
}

const BabyCard = memo(function BabyCard({
  baby,
  selected,
  onSelect,
}: {
  baby: DigitalBaby;
  selected: boolean;
  onSelect: (id: string) => void;
}) {
  return (
    <UnstyledButton
      onClick={() => onSelect(baby.id)}
      aria-label={M.baby(baby.id)}
      aria-pressed={selected}
      data-baby-card={baby.id}
      w="100%"
      h="100%"
    >
      <Paper
        withBorder
        radius="md"
        p="sm"
        h="100%"
        opacity={baby.status === 'archived' ? 0.6 : 1}
        style={{
          borderLeft: `4px solid ${baby.color}`,
          boxShadow: selected ? '0 0 0 2px var(--mantine-color-yellow-5)' : undefined,
        }}
      >
        <Group justify="space-between" wrap="nowrap" gap="xs" mb={4}>
          <Text fw={600} size="sm" truncate>
            {M.baby(baby.id)}
          </Text>
          <Badge size="xs" variant="light" color={STATUS_COLORS[baby.status]}>
            {STATUS_LABELS[baby.status]}
          </Badge>
        </Group>
        <Text size="xs" c="dimmed" mb={6}>
          {M.generationOption(baby.generation)} · {M.experiencesCount(baby.experiences.length)}
        </Text>
        <Group justify="space-between" gap="xs" mb={2}>
          <Text size="xs">{M.fitness}</Text>
          <Text size="xs" fw={600} className="tabular-nums">
            {formatShare(baby.fitness)}
          </Text>
        </Group>
        <Progress value={baby.fitness * 100} color="violet" size="sm" radius="xl" mb={8} />
        <Stack gap={2}>
          {strongestTraits(baby).map(([trait, value]) => (
            <Group key={trait} justify="space-between" gap="xs" wrap="nowrap">
              <Text size="xs" c="dimmed" truncate>
                {TRAIT_LABELS[trait]}
              </Text>
              <Text size="xs" className="tabular-nums">
                {formatDecimal(value)}
              </Text>
            </Group>
          ))}
        </Stack>
      </Paper>
    </UnstyledButton>
  );
});

/** The grid view: a card per baby, in the filters' stable order. */
export const GridView = memo(function GridView({
  babies,
  selectedId,
  onSelect,
}: {
  babies: DigitalBaby[];
  selectedId: string | null;
  onSelect: (id: string) => void;
}) {
  const [limit, setLimit] = useState(GRID_PAGE);
  const shown = babies.slice(0, limit);
  const more = Math.min(GRID_PAGE, babies.length - shown.length);
  return (
    <Stack gap="sm">
      {/* Columns by the grid's own width, not the window's: the baby panel beside it takes a
          third of the row, and window breakpoints squeezed four cards into two thirds. */}
      <SimpleGrid
        type="container"
        cols={{ base: 1, '440px': 2, '680px': 3, '920px': 4 }}
        role="list"
        aria-label={M.viewGrid}
      >
        {shown.map((baby) => (
          <div role="listitem" key={baby.id}>
            <BabyCard baby={baby} selected={baby.id === selectedId} onSelect={onSelect} />
          </div>
        ))}
      </SimpleGrid>
      {more > 0 ? (
        <Group justify="center">
          <Button variant="default" size="xs" onClick={() => setLimit((l) => l + GRID_PAGE)}>
            {M.showMore(more)}
          </Button>
        </Group>
      ) : null}
    </Stack>
  );
});
