import { useState } from 'react';
import { CompositeChart } from '@mantine/charts';
import { Box, Group, Paper, SegmentedControl, Skeleton, Stack, Text, Title } from '@mantine/core';
import {
  ACTIVITY_TIMELINE_BUCKETS,
  DEFAULT_ANALYTICS_PERIOD,
  type AnalyticsPeriod,
} from '@adam/contracts';
import { ErrorState } from '../../components/QueryState';
import { formatNumber } from '../../lib/format';
import { bucketLabel } from './bucketLabel';
import { OVERVIEW_MESSAGES as M } from './messages';
import { ChartOverlay } from './ChartOverlay';
import { useActivityTimeline } from './overview.api';

/** The periods the overview offers (spec 000 §9: default day); `all` is left to the emotions. */
const TIMELINE_PERIODS = [
  'hour',
  'day',
  'week',
  'month',
] as const satisfies readonly AnalyticsPeriod[];

const PERIOD_LABELS: Record<(typeof TIMELINE_PERIODS)[number], string> = {
  hour: 'Hour',
  day: 'Day',
  week: 'Week',
  month: 'Month',
};

const BUCKET_CAPTION = { minute: 'per minute', hour: 'per hour', day: 'per day' } as const;

const CHART_HEIGHT = 260;

/** Snippets stored and jobs created / completed / failed over the last 12 buckets. */
export function ActivityTimelinePanel() {
  const [period, setPeriod] = useState<AnalyticsPeriod>(DEFAULT_ANALYTICS_PERIOD);
  const timeline = useActivityTimeline(period);
  const data = (timeline.data?.buckets ?? []).map((b) => ({
    ...b,
    label: bucketLabel(b.start, timeline.data?.bucket ?? 'hour'),
  }));
  const empty =
    data.length > 0 &&
    data.every((b) => !b.snippets && !b.jobs_created && !b.jobs_completed && !b.jobs_failed);

  return (
    <Paper withBorder radius="md" p="md" h="100%">
      <Group justify="space-between" align="flex-start" mb="md" gap="sm">
        <Stack gap={2}>
          <Title order={4}>{M.timelineTitle}</Title>
          <Text size="xs" c="dimmed">
            Last {ACTIVITY_TIMELINE_BUCKETS} buckets,{' '}
            {timeline.data ? BUCKET_CAPTION[timeline.data.bucket] : '…'}; the last one is in
            progress.
          </Text>
        </Stack>
        <SegmentedControl
          size="xs"
          aria-label="Timeline period"
          value={period}
          onChange={(value) => setPeriod(value as AnalyticsPeriod)}
          data={TIMELINE_PERIODS.map((p) => ({ value: p, label: PERIOD_LABELS[p] }))}
        />
      </Group>
      {timeline.isError ? (
        <ErrorState message={timeline.error.message} onRetry={() => void timeline.refetch()} />
      ) : timeline.isPending ? (
        <Skeleton height={CHART_HEIGHT} radius="sm" />
      ) : (
        <Box pos="relative">
          <CompositeChart
            h={CHART_HEIGHT}
            data={data}
            dataKey="label"
            withLegend
            withRightYAxis
            withDots={false}
            maxBarWidth={18}
            yAxisLabel="Jobs"
            rightYAxisLabel="Snippets"
            valueFormatter={(v) => formatNumber(v)}
            yAxisProps={{ allowDecimals: false }}
            rightYAxisProps={{ allowDecimals: false }}
            series={[
              { name: 'jobs_created', label: 'Jobs created', color: 'blue.5', type: 'bar' },
              { name: 'jobs_completed', label: 'Jobs completed', color: 'teal.5', type: 'bar' },
              { name: 'jobs_failed', label: 'Jobs failed', color: 'red.6', type: 'bar' },
              {
                name: 'snippets',
                label: 'Snippets stored',
                color: 'violet.4',
                type: 'line',
                yAxisId: 'right',
              },
            ]}
          />
          {empty ? <ChartOverlay>{M.timelineEmpty}</ChartOverlay> : null}
        </Box>
      )}
    </Paper>
  );
}
