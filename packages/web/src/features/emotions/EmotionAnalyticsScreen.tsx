import { useState, type ReactNode } from 'react';
import { Link } from 'react-router';
import { DonutChart, LineChart } from '@mantine/charts';
import {
  Badge,
  Box,
  Button,
  Center,
  ColorSwatch,
  Grid,
  Group,
  Paper,
  Progress,
  SegmentedControl,
  SimpleGrid,
  Skeleton,
  Stack,
  Table,
  Text,
  Title,
} from '@mantine/core';
import {
  ANALYTICS_PERIODS,
  DEFAULT_ANALYTICS_PERIOD,
  EMOTION_PRESENT_THRESHOLD,
  EMOTION_TIMELINE_DEFAULT_HOURS,
  EMOTIONS,
  type AnalyticsPeriod,
  type EmotionAnalytics,
  type EmotionDistribution,
  type EmotionTimeline,
} from '@adam/contracts';
import { tabHref } from '../../navigation/tabRegistry';
import { PageHeader } from '../../components/PageHeader';
import { EmptyState, ErrorState, LoadingState } from '../../components/QueryState';
import { formatDate, formatNumber, formatPercent, ratioPercent } from '../../lib/format';
import { emotionColor, emotionLabel } from './emotionColors';
import { EMOTION_MESSAGES as M } from './messages';
import { useEmotionAnalytics, useEmotionDistribution, useEmotionTimeline } from './emotions.api';

const PERIOD_LABELS: Record<AnalyticsPeriod, string> = {
  hour: 'Hour',
  day: 'Day',
  week: 'Week',
  month: 'Month',
  all: 'All',
};

/** Timeline ranges offered (hours); spec 002 §9: 24 by default. */
export const TIMELINE_HOURS = [6, 12, 24, 48, 168] as const;
const hoursLabel = (h: number) => (h % 24 === 0 && h > 48 ? `${h / 24} d` : `${h} h`);

const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];
const pad2 = (n: number) => String(n).padStart(2, '0');
/** 14:00 within a day; Mar 04 14:00 over longer ranges. */
function hourLabel(iso: string, withDay: boolean): string {
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return iso;
  const time = `${pad2(d.getHours())}:00`;
  return withDay ? `${MONTHS[d.getMonth()]} ${pad2(d.getDate())} ${time}` : time;
}

const score = (v: number) => formatNumber(v, 3);
const NOWRAP = { whiteSpace: 'nowrap' } as const;

function SummaryCard({
  title,
  loading,
  children,
  caption,
}: {
  title: string;
  loading: boolean;
  children: ReactNode;
  caption?: ReactNode;
}) {
  return (
    <Paper withBorder radius="md" p="md" role="group" aria-label={title}>
      <Text size="xs" c="dimmed" tt="uppercase" fw={700}>
        {title}
      </Text>
      {loading ? (
        <Skeleton height={30} width={110} my={4} />
      ) : (
        <Text fz={26} fw={700} className="tabular-nums" lh={1.4} component="div">
          {children}
        </Text>
      )}
      <Text size="xs" c="dimmed" mih={18} className="tabular-nums" component="div">
        {loading ? null : caption}
      </Text>
    </Paper>
  );
}

function Summary({ data, loading }: { data: EmotionAnalytics | undefined; loading: boolean }) {
  return (
    <SimpleGrid cols={{ base: 1, xs: 2, md: 4 }} spacing="md">
      <SummaryCard
        title="Snippets in period"
        loading={loading}
        caption={data?.since ? `Since ${formatDate(data.since)}` : 'Since the start'}
      >
        {formatNumber(data?.total_snippets)}
      </SummaryCard>
      <SummaryCard
        title="With an emotion"
        loading={loading}
        caption={`${formatPercent(ratioPercent(data?.with_emotion, data?.total_snippets), 0)} of them, score ≥ ${EMOTION_PRESENT_THRESHOLD}`}
      >
        {formatNumber(data?.with_emotion)}
      </SummaryCard>
      <SummaryCard
        title="Dominant emotion"
        loading={loading}
        caption="Strongest in the most snippets"
      >
        {data?.dominant ? (
          <Badge size="xl" radius="sm" variant="light" color={emotionColor(data.dominant)}>
            {emotionLabel(data.dominant)}
          </Badge>
        ) : (
          '-'
        )}
      </SummaryCard>
      <SummaryCard
        title="Diversity"
        loading={loading}
        caption={
          <Stack gap={4}>
            <Progress value={(data?.diversity ?? 0) * 100} size={4} color="indigo" />
            <span>0: one emotion · 1: all equally dominant</span>
          </Stack>
        }
      >
        {formatNumber(data?.diversity, 2)}
      </SummaryCard>
    </SimpleGrid>
  );
}

function DistributionPanel({ data }: { data: EmotionDistribution }) {
  const rows = data.distribution.filter((d) => d.count > 0);
  return (
    <Paper withBorder radius="md" p="md" h="100%" role="region" aria-label={M.distributionTitle}>
      <Stack gap={2} mb="md">
        <Title order={4}>{M.distributionTitle}</Title>
        <Text size="xs" c="dimmed">
          Share of snippets per strongest emotion
        </Text>
      </Stack>
      <Group align="center" gap="lg" wrap="nowrap">
        <DonutChart
          size={170}
          thickness={26}
          paddingAngle={2}
          chartLabel={formatNumber(rows.reduce((n, r) => n + r.count, 0))}
          valueFormatter={(v) => formatNumber(v)}
          data={rows.map((r) => ({
            name: emotionLabel(r.emotion),
            value: r.count,
            color: emotionColor(r.emotion),
          }))}
        />
        <Stack gap={6} style={{ flex: 1 }} miw={0}>
          {rows.map((r) => (
            <Group
              key={r.emotion}
              justify="space-between"
              wrap="nowrap"
              gap="xs"
              role="group"
              aria-label={`Dominant ${r.emotion}`}
            >
              <Group gap={8} wrap="nowrap">
                <ColorSwatch
                  color={`var(--mantine-color-${emotionColor(r.emotion).replace('.', '-')})`}
                  size={12}
                />
                <Text size="sm">{emotionLabel(r.emotion)}</Text>
              </Group>
              <Text size="sm" className="tabular-nums">
                <Text span fw={600} inherit>
                  {formatPercent(r.percentage)}
                </Text>{' '}
                <Text span c="dimmed" inherit>
                  ({formatNumber(r.count)})
                </Text>
              </Text>
            </Group>
          ))}
        </Stack>
      </Group>
    </Paper>
  );
}

function FiguresPanel({ data }: { data: EmotionAnalytics }) {
  const rows = [...data.emotions].sort((a, b) => b.average - a.average);
  return (
    <Paper withBorder radius="md" p="md" h="100%" role="region" aria-label={M.figuresTitle}>
      <Stack gap={2} mb="sm">
        <Title order={4}>{M.figuresTitle}</Title>
        <Text size="xs" c="dimmed">
          Present: snippets scoring ≥ {EMOTION_PRESENT_THRESHOLD}. Average: over every snippet of
          the period, or only where present. Dominant: snippets whose strongest emotion it is.
        </Text>
      </Stack>
      <Table.ScrollContainer minWidth={460} type="native">
        <Table striped highlightOnHover verticalSpacing={6} className="tabular-nums">
          <Table.Thead>
            <Table.Tr>
              <Table.Th>Emotion</Table.Th>
              <Table.Th ta="right" style={NOWRAP}>
                Present
              </Table.Th>
              <Table.Th>Average</Table.Th>
              <Table.Th ta="right" style={NOWRAP}>
                When present
              </Table.Th>
              <Table.Th ta="right" style={NOWRAP}>
                Dominant
              </Table.Th>
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {rows.map((e) => (
              <Table.Tr key={e.emotion} aria-label={e.emotion}>
                <Table.Td>
                  <Group gap={8} wrap="nowrap">
                    <ColorSwatch
                      color={`var(--mantine-color-${emotionColor(e.emotion).replace('.', '-')})`}
                      size={12}
                    />
                    {emotionLabel(e.emotion)}
                  </Group>
                </Table.Td>
                <Table.Td ta="right">{formatNumber(e.count)}</Table.Td>
                <Table.Td>
                  <Group gap="xs" wrap="nowrap">
                    <Progress
                      value={e.average * 100}
                      color={emotionColor(e.emotion)}
                      size="sm"
                      style={{ flex: 1, minWidth: 40 }}
                      aria-label={`${e.emotion} average`}
                    />
                    <Text size="sm" w={40} ta="right">
                      {score(e.average)}
                    </Text>
                  </Group>
                </Table.Td>
                <Table.Td ta="right">{score(e.average_when_present)}</Table.Td>
                <Table.Td ta="right">{formatNumber(e.dominant_count)}</Table.Td>
              </Table.Tr>
            ))}
          </Table.Tbody>
        </Table>
      </Table.ScrollContainer>
    </Paper>
  );
}

const TIMELINE_HEIGHT = 300;

function TimelinePanel() {
  const [hours, setHours] = useState<number>(EMOTION_TIMELINE_DEFAULT_HOURS);
  const timeline = useEmotionTimeline(hours);
  const buckets: EmotionTimeline['buckets'] = timeline.data?.buckets ?? [];
  const withDay = (timeline.data?.hours ?? hours) > 24;
  // An hour without snippets has no average (the server's 0 is not a score): a gap, not a dip.
  const data = buckets.map((b) => ({
    label: hourLabel(b.hour, withDay),
    ...Object.fromEntries(EMOTIONS.map((e) => [e, b.total > 0 ? (b.averages[e] ?? 0) : null])),
  }));
  const empty = buckets.length > 0 && buckets.every((b) => b.total === 0);

  return (
    <Paper withBorder radius="md" p="md" role="region" aria-label={M.timelineTitle}>
      <Group justify="space-between" align="flex-start" mb="md" gap="sm">
        <Stack gap={2}>
          <Title order={4}>{M.timelineTitle}</Title>
          <Text size="xs" c="dimmed">
            Average score per emotion, hour by hour, over the last {hoursLabel(hours)}
          </Text>
        </Stack>
        <SegmentedControl
          size="xs"
          aria-label="Timeline range"
          value={String(hours)}
          onChange={(value) => setHours(Number(value))}
          data={TIMELINE_HOURS.map((h) => ({ value: String(h), label: hoursLabel(h) }))}
        />
      </Group>
      {timeline.isError ? (
        <ErrorState message={timeline.error.message} onRetry={() => void timeline.refetch()} />
      ) : timeline.isPending ? (
        <Skeleton height={TIMELINE_HEIGHT} radius="sm" />
      ) : (
        <Box pos="relative">
          <LineChart
            h={TIMELINE_HEIGHT}
            data={data}
            dataKey="label"
            withLegend
            connectNulls
            // A week of hourly dots would hide the lines.
            withDots={buckets.length <= 48}
            curveType="monotone"
            yAxisProps={{ domain: [0, 'auto'] }}
            xAxisProps={{ padding: { left: 12, right: 12 } }}
            valueFormatter={(v) => formatNumber(v, 3)}
            series={EMOTIONS.map((e) => ({
              name: e,
              label: emotionLabel(e),
              color: emotionColor(e),
            }))}
          />
          {empty ? (
            <Center pos="absolute" inset={0} style={{ pointerEvents: 'none' }}>
              <Text size="sm" c="dimmed">
                {M.timelineEmpty}
              </Text>
            </Center>
          ) : null}
        </Box>
      )}
    </Paper>
  );
}

/** Emotion analytics (spec 002 §7, §9): distribution, per-emotion figures and timeline. */
export function EmotionAnalyticsScreen() {
  const [period, setPeriod] = useState<AnalyticsPeriod>(DEFAULT_ANALYTICS_PERIOD);
  const summary = useEmotionAnalytics(period);
  const distribution = useEmotionDistribution(period);
  const noEmotions = summary.isSuccess && summary.data.with_emotion === 0;

  return (
    <Stack gap="lg">
      <PageHeader
        title={M.title}
        description={M.description}
        actions={
          <SegmentedControl
            aria-label="Period"
            value={period}
            onChange={(value) => setPeriod(value as AnalyticsPeriod)}
            data={ANALYTICS_PERIODS.map((p) => ({ value: p, label: PERIOD_LABELS[p] }))}
          />
        }
      />

      {summary.isError ? (
        <ErrorState
          title={M.loadFailed}
          message={summary.error.message}
          onRetry={() => void summary.refetch()}
        />
      ) : (
        <Summary data={summary.data} loading={summary.isPending} />
      )}

      {noEmotions ? (
        <EmptyState
          title={M.emptyTitle}
          description={M.emptyDescription}
          action={
            <Button component={Link} to={tabHref('sources-add')} variant="light" mt="xs">
              {M.emptyAddSources}
            </Button>
          }
        />
      ) : (
        <Grid gap="md" align="stretch">
          <Grid.Col span={{ base: 12, lg: 5 }}>
            {distribution.isError ? (
              <ErrorState
                title={M.loadFailed}
                message={distribution.error.message}
                onRetry={() => void distribution.refetch()}
              />
            ) : distribution.isPending ? (
              <Paper withBorder radius="md" p="md" h="100%">
                <LoadingState rows={7} label="Loading the distribution" />
              </Paper>
            ) : (
              <DistributionPanel data={distribution.data} />
            )}
          </Grid.Col>
          <Grid.Col span={{ base: 12, lg: 7 }}>
            {summary.isPending ? (
              <Paper withBorder radius="md" p="md" h="100%">
                <LoadingState rows={9} label="Loading emotion figures" />
              </Paper>
            ) : summary.isSuccess ? (
              <FiguresPanel data={summary.data} />
            ) : null}
          </Grid.Col>
        </Grid>
      )}

      <TimelinePanel />
    </Stack>
  );
}
