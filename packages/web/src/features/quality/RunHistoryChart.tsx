import { useState } from 'react';
import { LineChart } from '@mantine/charts';
import { Badge, Group, Paper, SegmentedControl, Stack, Text } from '@mantine/core';
import type { EvaluationRun } from '@adam/contracts';
import {
  CHART_METRICS,
  METRIC_LABELS,
  chartPoints,
  formatMetric,
  modeColor,
  modeLabel,
  modesOf,
  type ChartMetric,
  type ChartPoint,
} from './runRules';
import { DateTime } from '../../components/DateTime';

const CHART_HEIGHT = 220;

function PointTooltip({ point, metric }: { point: ChartPoint; metric: ChartMetric }) {
  return (
    <Paper withBorder p="xs" shadow="md" maw={320}>
      <Text size="sm" fw={700}>
        Run {point.label} · <DateTime value={point.when} />
      </Text>
      {Object.entries(point)
        .filter(([k, v]) => k !== 'runId' && typeof v === 'number')
        .map(([mode, v]) => (
          <Text key={mode} size="xs" className="tabular-nums">
            {modeLabel(mode)}: {METRIC_LABELS[metric]} {formatMetric(v as number)}
          </Text>
        ))}
      {point.changes.length > 0 ? (
        <Stack gap={0} mt={4}>
          <Text size="xs" fw={600} c="yellow">
            Changed since the run before:
          </Text>
          {point.changes.map((c) => (
            <Text key={c.what} size="xs">
              {c.what}: {c.from} → {c.to}
            </Text>
          ))}
        </Stack>
      ) : null}
    </Paper>
  );
}

/**
 * Per mode, a metric across the set's completed runs; a dashed marker where the model, index or
 * fusion changed between two points, and every change listed under the chart.
 */
export function RunHistoryChart({ runs }: { runs: readonly EvaluationRun[] }) {
  const [metric, setMetric] = useState<ChartMetric>('ndcg_10');
  const points = chartPoints(runs, metric);
  const modes = modesOf(runs.filter((r) => r.status === 'completed'));
  const changed = points.filter((p) => p.changes.length > 0);
  // From just under the lowest value to 1: a fall of a few points stays visible.
  const values = points
    .flatMap((p) => modes.map((m) => p[m]))
    .filter((v): v is number => typeof v === 'number');
  const floor = Math.max(0, Math.floor((Math.min(1, ...values) - 0.05) * 10) / 10);

  return (
    <Paper withBorder radius="md" p="md" aria-label="Quality over time">
      <Group justify="space-between" mb="sm">
        <Stack gap={0}>
          <Text fw={700}>Over time</Text>
          <Text size="xs" c="dimmed">
            {METRIC_LABELS[metric]} per mode across the {points.length} completed runs
          </Text>
        </Stack>
        <SegmentedControl
          size="xs"
          aria-label="Chart metric"
          value={metric}
          onChange={(v) => setMetric(v as ChartMetric)}
          data={CHART_METRICS.map((m) => ({ value: m, label: METRIC_LABELS[m] }))}
        />
      </Group>
      {points.length < 2 ? (
        <Text size="sm" c="dimmed">
          The chart needs two completed runs; it has {points.length}.
        </Text>
      ) : (
        <LineChart
          h={CHART_HEIGHT}
          data={points}
          dataKey="label"
          withLegend
          connectNulls
          curveType="linear"
          yAxisProps={{ domain: [floor, 1] }}
          xAxisProps={{ padding: { left: 16, right: 16 } }}
          valueFormatter={(v) => formatMetric(v)}
          series={modes.map((m) => ({ name: m, label: modeLabel(m), color: modeColor(m) }))}
          referenceLines={changed
            .filter((p) => p.changes.some((c) => c.major))
            .map((p) => ({
              x: p.label,
              color: 'yellow.5',
              strokeDasharray: '4 4',
              label: p.changes
                .filter((c) => c.major)
                .map((c) => `${c.what} changed`)
                .join(', '),
              labelPosition: 'insideTopRight' as const,
            }))}
          tooltipProps={{
            content: ({ payload }) => {
              const point = payload?.[0]?.payload as ChartPoint | undefined;
              return point ? <PointTooltip point={point} metric={metric} /> : null;
            },
          }}
        />
      )}
      {changed.length > 0 ? (
        <Stack gap={2} mt="sm" aria-label="State changes between runs">
          {changed.map((p) => (
            <Group key={p.runId} gap={6} wrap="wrap">
              <Badge size="xs" variant="light" color="yellow">
                before {p.label}
              </Badge>
              <Text size="xs">
                {p.changes.map((c) => `${c.what} ${c.from} → ${c.to}`).join(' · ')}
              </Text>
            </Group>
          ))}
        </Stack>
      ) : null}
    </Paper>
  );
}
