import { memo, useMemo } from 'react';
import { RadarChart } from '@mantine/charts';
import {
  Badge,
  Blockquote,
  CloseButton,
  ColorSwatch,
  Divider,
  Group,
  Paper,
  Progress,
  SimpleGrid,
  Stack,
  Text,
  Title,
} from '@mantine/core';
import { RatioBar } from '../../../components/RatioBar';
import { MUTATION_RATE_MAX, MUTATION_RATE_MIN } from '../lab/simulation';
import { DNA_TRAITS, type DigitalBaby, type Dna, type Experience } from '../lab/types';
import { experienceAnalysis, formatDecimal, formatShare, formatSimTime } from './babiesView';
import { STATUS_COLORS } from './GridView';
import {
  BABIES_MESSAGES as M,
  RADAR_LABELS,
  STATUS_LABELS,
  TEST_TYPE_LABELS,
  TRAIT_LABELS,
  themeLabel,
} from './messages';

/** Characters of a snippet shown under an experience. */
const EXCERPT_CHARS = 180;

function excerpt(text: string): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > EXCERPT_CHARS ? `${flat.slice(0, EXCERPT_CHARS).trimEnd()}…` : flat;
}

/** The bar of a trait: 0–1, except the mutation rate, drawn over its own range. */
function traitPercent(trait: keyof Dna, value: number): number {
  if (trait !== 'mutationRate') return value * 100;
  const share = (value - MUTATION_RATE_MIN) / (MUTATION_RATE_MAX - MUTATION_RATE_MIN);
  return Math.min(100, Math.max(0, share * 100));
}

/** The DNA radar: the baby against the living population's mean. */
const DnaRadar = memo(function DnaRadar({
  dna,
  mean,
  color,
}: {
  dna: Dna;
  mean: Dna | null;
  color: string;
}) {
  // The mutation rate lives in 0.10–0.20: on a 0–1 radar it would be a dot, so it has its bar only.
  const data = useMemo(
    () =>
      DNA_TRAITS.filter((t) => t !== 'mutationRate').map((t) => ({
        trait: RADAR_LABELS[t],
        baby: dna[t],
        mean: mean?.[t] ?? 0,
      })),
    [dna, mean],
  );
  return (
    <>
      <RadarChart
        h={250}
        data={data}
        dataKey="trait"
        aria-label={M.dnaRadar}
        series={[
          { name: 'mean', label: M.populationMean, color: MEAN_COLOR, opacity: 0.15 },
          { name: 'baby', label: M.thisBaby, color, opacity: 0.45 },
        ]}
        polarRadiusAxisProps={{ domain: [0, 1], tick: false, axisLine: false }}
        withPolarRadiusAxis
        radarProps={{ isAnimationActive: false }}
        // Room for the axis labels on the sides of a narrow panel.
        radarChartProps={{ outerRadius: '68%' }}
      />
      {/* A legend of our own: the chart's sits on its bottom axis labels in a narrow panel. */}
      <Group gap="md" justify="center">
        <LegendSwatch color={color} label={M.thisBaby} />
        <LegendSwatch color={MEAN_COLOR} label={M.populationMean} />
      </Group>
    </>
  );
});

const MEAN_COLOR = 'gray.5';

function LegendSwatch({ color, label }: { color: string; label: string }) {
  return (
    <Group gap={6} wrap="nowrap">
      <ColorSwatch
        color={color.includes('.') ? `var(--mantine-color-${color.replace('.', '-')})` : color}
        size={10}
        withShadow={false}
      />
      <Text size="xs" c="dimmed">
        {label}
      </Text>
    </Group>
  );
}

function ExperienceItem({ experience: e }: { experience: Experience }) {
  return (
    <Paper component="li" withBorder radius="sm" p="xs">
      <Group justify="space-between" gap="xs" wrap="nowrap">
        <Text size="sm" fw={600} truncate>
          {TEST_TYPE_LABELS[e.testType] ?? e.testType}
        </Text>
        <Text size="xs" c="dimmed" className="tabular-nums">
          {M.at(formatSimTime(e.at))}
        </Text>
      </Group>
      <Group gap={6} mt={4}>
        <Badge size="xs" variant="outline" color="gray">
          {themeLabel(e.theme)}
        </Badge>
        <Badge size="xs" variant="light" color={e.result.success ? 'teal' : 'red'}>
          {e.result.success ? M.success : M.failure}
        </Badge>
        {e.capitalized ? (
          <Badge size="xs" variant="light" color="grape">
            {M.capitalizedBadge}
          </Badge>
        ) : null}
      </Group>
      <Text size="xs" c="dimmed" mt={4} className="tabular-nums">
        {M.score} {formatDecimal(e.result.score)} · {M.difficulty} {formatDecimal(e.difficulty)} ·{' '}
        {M.originality} {formatDecimal(e.result.originality)}
      </Text>
      {e.source ? (
        <Blockquote p="xs" mt={6} color="gray" fz="xs" cite={M.fromSnippet(e.source.id)}>
          {excerpt(e.source.text)}
        </Blockquote>
      ) : null}
    </Paper>
  );
}

/** The selected baby: DNA radar and trait bars, then the analysis of its experiences. */
export function BabyPanel({
  baby,
  mean,
  onClose,
}: {
  baby: DigitalBaby;
  mean: Dna | null;
  onClose: () => void;
}) {
  const analysis = useMemo(() => experienceAnalysis(baby), [baby]);
  return (
    <Paper
      component="aside"
      aria-label={M.baby(baby.id)}
      withBorder
      radius="md"
      p="md"
      style={{ borderTop: `4px solid ${baby.color}` }}
    >
      <Group justify="space-between" wrap="nowrap" mb={4}>
        <Group gap="xs" wrap="nowrap" style={{ minWidth: 0 }}>
          <Title order={4} style={{ overflowWrap: 'anywhere' }}>
            {M.baby(baby.id)}
          </Title>
          <Badge variant="light" color={STATUS_COLORS[baby.status]}>
            {STATUS_LABELS[baby.status]}
          </Badge>
        </Group>
        <CloseButton aria-label={M.close} onClick={onClose} />
      </Group>
      <Text size="sm" c="dimmed">
        {M.generationOption(baby.generation)} · {M.fitness}{' '}
        <Text span fw={700} c="var(--mantine-color-text)" className="tabular-nums">
          {formatShare(baby.fitness)}
        </Text>{' '}
        · {M.born} {formatSimTime(baby.birthTime)}
      </Text>
      <Text size="xs" c="dimmed" mb="sm">
        {M.parents} : {baby.parentIds.length > 0 ? baby.parentIds.join(', ') : M.noParents}
      </Text>

      <Divider label={M.dna} labelPosition="left" mb="xs" />
      <DnaRadar dna={baby.dna} mean={mean} color={baby.color} />
      <Stack gap={6} mt="sm" role="list" aria-label={M.traitBars}>
        {DNA_TRAITS.map((trait) => (
          <div role="listitem" key={trait}>
            <Group justify="space-between" gap="xs">
              <Text size="xs" c="dimmed">
                {TRAIT_LABELS[trait]}
                {trait === 'mutationRate' ? ` (${M.mutationRange})` : ''}
              </Text>
              <Text size="xs" fw={600} className="tabular-nums">
                {formatDecimal(baby.dna[trait])}
              </Text>
            </Group>
            <Progress
              value={traitPercent(trait, baby.dna[trait])}
              color={trait === 'mutationRate' ? 'orange' : 'violet'}
              size="sm"
              radius="xl"
              aria-label={TRAIT_LABELS[trait]}
            />
          </div>
        ))}
      </Stack>

      <Divider label={M.experienceAnalysis} labelPosition="left" mt="md" mb="xs" />
      <SimpleGrid cols={2} mb="sm">
        <Paper withBorder radius="sm" p="xs" role="group" aria-label={M.successes}>
          <Text size="xs" c="dimmed">
            {M.successes}
          </Text>
          <Text fw={700} className="tabular-nums">
            {analysis.successes} / {analysis.total}
          </Text>
        </Paper>
        <Paper withBorder radius="sm" p="xs" role="group" aria-label={M.capitalized}>
          <Text size="xs" c="dimmed">
            {M.capitalized}
          </Text>
          <Text fw={700} className="tabular-nums">
            {analysis.capitalized}
          </Text>
        </Paper>
      </SimpleGrid>
      <Text size="sm" fw={600} mb={4}>
        {M.themes}
      </Text>
      <Stack gap={6} mb="sm" role="list" aria-label={M.themes}>
        {analysis.themes.map(({ theme, count }) => (
          <div role="listitem" key={theme}>
            <RatioBar
              label={themeLabel(theme)}
              value={count}
              total={analysis.total}
              caption={String(count)}
              color="cyan"
              size="xs"
            />
          </div>
        ))}
      </Stack>
      <Text size="sm" fw={600} mb={4}>
        {M.lastExperiences}
      </Text>
      {analysis.lastFive.length === 0 ? (
        <Text size="sm" c="dimmed">
          {M.noExperiences}
        </Text>
      ) : (
        <Stack
          component="ol"
          gap={6}
          aria-label={M.lastExperiences}
          style={{ listStyle: 'none', padding: 0, margin: 0 }}
        >
          {analysis.lastFive.map((e) => (
            <ExperienceItem key={e.id} experience={e} />
          ))}
        </Stack>
      )}
    </Paper>
  );
}
