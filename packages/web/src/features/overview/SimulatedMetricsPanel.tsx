import { Badge, Group, Paper, Progress, SimpleGrid, Stack, Text, Title } from '@mantine/core';
import { IconFlask } from '@tabler/icons-react';
import { formatNumber } from '../../lib/format';
import { OVERVIEW_MESSAGES as M } from './messages';
import { SIMULATED_BOUNDS, useSimulatedMetrics, type SimulatedMetrics } from './simulatedMetrics';

interface Figure {
  key: keyof SimulatedMetrics;
  label: string;
  value: (m: SimulatedMetrics) => string;
  unit?: string;
  /** Share of the bar (0–100) for the figures that have a band. */
  bar?: (m: SimulatedMetrics) => number;
}

const FIGURES: Figure[] = [
  {
    key: 'cpuUsage',
    label: 'CPU usage',
    value: (m) => m.cpuUsage.toFixed(1),
    unit: '%',
    bar: (m) => m.cpuUsage,
  },
  {
    key: 'memoryUsage',
    label: 'Memory usage',
    value: (m) => m.memoryUsage.toFixed(1),
    unit: '%',
    bar: (m) => m.memoryUsage,
  },
  {
    key: 'resonanceLatency',
    label: 'Resonance latency',
    value: (m) => m.resonanceLatency.toFixed(1),
    unit: 'ms',
    bar: (m) => (m.resonanceLatency / SIMULATED_BOUNDS.resonanceLatency[1]) * 100,
  },
  {
    key: 'cacheHitRate',
    label: 'Cache hit rate',
    value: (m) => (m.cacheHitRate * 100).toFixed(1),
    unit: '%',
    bar: (m) => m.cacheHitRate * 100,
  },
  {
    key: 'emotionalDiversity',
    label: 'Emotional diversity',
    value: (m) => m.emotionalDiversity.toFixed(2),
    bar: (m) => m.emotionalDiversity * 100,
  },
  { key: 'activeJobs', label: 'Active jobs', value: (m) => formatNumber(m.activeJobs) },
  { key: 'segmentsPerSecond', label: 'Segments / s', value: (m) => m.segmentsPerSecond.toFixed(1) },
  { key: 'totalSnippets', label: 'Total snippets', value: (m) => formatNumber(m.totalSnippets) },
  { key: 'totalSegments', label: 'Total segments', value: (m) => formatNumber(m.totalSegments) },
  { key: 'indexSize', label: 'Index size', value: (m) => m.indexSize.toFixed(1), unit: 'MB' },
];

/**
 * Spec 000 §3/§9 "dashboard metrics held locally": demo values that tick every 5 s in the
 * browser. Kept apart from the real figures (dashed frame, badge, explanation) so nobody reads
 * them as measurements.
 */
export function SimulatedMetricsPanel() {
  const metrics = useSimulatedMetrics();
  return (
    <Paper
      withBorder
      radius="md"
      p="md"
      role="region"
      aria-label={M.simulatedTitle}
      style={{ borderStyle: 'dashed', background: 'var(--mantine-color-dark-8)' }}
    >
      <Group justify="space-between" align="flex-start" mb="md" wrap="nowrap">
        <Stack gap={4}>
          <Group gap="xs">
            <Title order={4} c="dimmed">
              {M.simulatedTitle}
            </Title>
            <Badge color="orange" variant="outline" leftSection={<IconFlask size={12} />}>
              {M.simulatedBadge}
            </Badge>
          </Group>
          <Text size="xs" c="dimmed">
            {M.simulatedExplanation}
          </Text>
        </Stack>
      </Group>
      <SimpleGrid cols={{ base: 2, sm: 3, md: 5 }} spacing="sm" verticalSpacing="sm">
        {FIGURES.map((f) => (
          <Stack key={f.key} gap={4} role="group" aria-label={`Simulated ${f.label}`}>
            <Text size="xs" c="dimmed">
              {f.label}
            </Text>
            <Group gap={4} align="baseline" wrap="nowrap">
              <Text fw={600} c="gray.5" className="tabular-nums" data-testid={`simulated-${f.key}`}>
                {f.value(metrics)}
              </Text>
              {f.unit ? (
                <Text size="xs" c="dimmed">
                  {f.unit}
                </Text>
              ) : null}
            </Group>
            {f.bar ? (
              <Progress
                value={Math.min(100, Math.max(0, f.bar(metrics)))}
                size={4}
                color="orange.8"
              />
            ) : (
              <div style={{ height: 4 }} />
            )}
          </Stack>
        ))}
      </SimpleGrid>
    </Paper>
  );
}
