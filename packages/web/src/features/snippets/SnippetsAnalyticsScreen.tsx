/** Snippets analytics (snippets-analytics): themes, quality, growth, top sources and languages. */
import { useState, type ReactNode } from 'react';
import { AreaChart, BarChart, DonutChart } from '@mantine/charts';
import {
  Anchor,
  Grid,
  Group,
  Paper,
  SegmentedControl,
  SimpleGrid,
  Skeleton,
  Stack,
  Table,
  Text,
} from '@mantine/core';
import { IconChartBar, IconLanguage, IconNotes, IconStar } from '@tabler/icons-react';
import type { SnippetAnalytics } from '@adam/contracts';
import { PageHeader } from '../../components/PageHeader';
import { EmptyState, ErrorState } from '../../components/QueryState';
import { RatioBar } from '../../components/RatioBar';
import { StatCard } from '../../components/StatCard';
import { formatNumber } from '../../lib/format';
import { qualityColor } from '../../lib/quality';
import { useSnippetAnalytics } from './snippets.api';

export const ANALYTICS_DAY_OPTIONS = [7, 30, 90, 365] as const;
export const DEFAULT_ANALYTICS_DAYS = 30;

const THEME_COLORS: Record<string, string> = {
  science: 'blue.6',
  technology: 'cyan.6',
  philosophy: 'grape.6',
  general: 'gray.6',
};
const OTHER_COLORS = ['teal.6', 'orange.6', 'pink.6', 'lime.6'];
const QUALITY_BAR_COLORS = { green: 'green.6', yellow: 'yellow.6', red: 'red.6', gray: 'gray.6' };
const CHART_HEIGHT = 260;

function Panel({ title, children }: { title: string; children: ReactNode }) {
  return (
    <Paper withBorder radius="md" p="md">
      <Stack gap="sm">
        <Text fw={600}>{title}</Text>
        {children}
      </Stack>
    </Paper>
  );
}

/** Month-day label for a day key (YYYY-MM-DD), read as a calendar day. */
function dayLabel(day: string): string {
  const [, m, d] = day.slice(0, 10).split('-');
  const months = [
    'Jan',
    'Feb',
    'Mar',
    'Apr',
    'May',
    'Jun',
    'Jul',
    'Aug',
    'Sep',
    'Oct',
    'Nov',
    'Dec',
  ];
  return m && d ? `${months[Number(m) - 1] ?? m} ${d}` : day;
}

function ThemeChart({ themes, total }: { themes: SnippetAnalytics['themes']; total: number }) {
  const data = themes
    .filter((t) => t.count > 0)
    .map((t, i) => ({
      name: t.theme,
      value: t.count,
      color: THEME_COLORS[t.theme] ?? OTHER_COLORS[i % OTHER_COLORS.length]!,
    }));
  if (data.length === 0) return <NoData />;
  return (
    <Group align="center" justify="space-around" wrap="nowrap" mih={CHART_HEIGHT}>
      <DonutChart
        data={data}
        size={200}
        thickness={28}
        chartLabel={formatNumber(total)}
        valueFormatter={(v) => formatNumber(v)}
        tooltipDataSource="segment"
      />
      <Stack gap={6} miw={180} data-testid="theme-legend">
        {data.map((d) => (
          <RatioBar
            key={d.name}
            label={d.name}
            value={d.value}
            total={total}
            caption={formatNumber(d.value)}
            color={d.color.split('.')[0]}
          />
        ))}
      </Stack>
    </Group>
  );
}

function QualityChart({ buckets }: { buckets: SnippetAnalytics['quality'] }) {
  if (buckets.every((b) => b.count === 0)) return <NoData />;
  const data = buckets.map((b) => ({
    bucket: `${b.from.toFixed(1)}–${b.to.toFixed(1)}`,
    count: b.count,
    // Coloured by the quality thresholds of the bucket's lower bound.
    color: QUALITY_BAR_COLORS[qualityColor(b.from)],
  }));
  return (
    <BarChart
      h={CHART_HEIGHT}
      data={data}
      dataKey="bucket"
      series={[{ name: 'count', label: 'Snippets' }]}
      valueFormatter={(v) => formatNumber(v)}
      gridAxis="x"
      tickLine="none"
    />
  );
}

function GrowthChart({ growth }: { growth: SnippetAnalytics['growth'] }) {
  if (growth.length === 0) return <NoData />;
  const data = growth.map((g) => ({
    day: dayLabel(g.day),
    count: g.count,
    cumulative: g.cumulative,
  }));
  return (
    <AreaChart
      h={CHART_HEIGHT}
      data={data}
      dataKey="day"
      series={[
        { name: 'count', label: 'New per day', color: 'indigo.5' },
        { name: 'cumulative', label: 'Cumulative', color: 'teal.5', yAxisId: 'right' },
      ]}
      withRightYAxis
      withLegend
      curveType="monotone"
      valueFormatter={(v) => formatNumber(v)}
      gridAxis="x"
      tickLine="none"
      withDots={false}
    />
  );
}

function NoData() {
  return (
    <Text c="dimmed" size="sm" ta="center" py={CHART_HEIGHT / 2 - 10} mih={CHART_HEIGHT}>
      No snippets in this period.
    </Text>
  );
}

function TopSources({ sources }: { sources: SnippetAnalytics['top_sources'] }) {
  if (sources.length === 0)
    return (
      <Text c="dimmed" size="sm">
        No sources in this period.
      </Text>
    );
  return (
    <Table striped highlightOnHover verticalSpacing="xs" data-testid="top-sources">
      <Table.Thead>
        <Table.Tr>
          <Table.Th>Source</Table.Th>
          <Table.Th w={180}>Domain</Table.Th>
          <Table.Th w={100} ta="right">
            Segments
          </Table.Th>
        </Table.Tr>
      </Table.Thead>
      <Table.Tbody>
        {sources.map((s) => (
          <Table.Tr key={s.url}>
            <Table.Td maw={0}>
              <Anchor href={s.url} target="_blank" rel="noopener noreferrer" size="sm">
                <Text size="sm" truncate="end" span display="block">
                  {s.title || s.url}
                </Text>
              </Anchor>
              {s.title ? (
                <Text size="xs" c="dimmed" truncate="end">
                  {s.url}
                </Text>
              ) : null}
            </Table.Td>
            <Table.Td>
              <Text size="sm" truncate="end">
                {s.domain}
              </Text>
            </Table.Td>
            <Table.Td ta="right" className="tabular-nums">
              {formatNumber(s.segments_count)}
            </Table.Td>
          </Table.Tr>
        ))}
      </Table.Tbody>
    </Table>
  );
}

function Languages({ languages }: { languages: SnippetAnalytics['languages'] }) {
  const total = languages.reduce((sum, l) => sum + l.count, 0);
  if (languages.length === 0)
    return (
      <Text c="dimmed" size="sm">
        No languages in this period.
      </Text>
    );
  return (
    <Stack gap="sm" data-testid="languages">
      {languages.map((l) => (
        <RatioBar
          key={l.language}
          label={l.language}
          value={l.count}
          total={total}
          caption={`${formatNumber(l.count)} · ${formatNumber((l.count / (total || 1)) * 100, 1)}%`}
          color="teal"
        />
      ))}
    </Stack>
  );
}

function Loading() {
  return (
    <Stack gap="lg" aria-busy="true" aria-label="Loading analytics">
      <SimpleGrid cols={{ base: 2, md: 4 }}>
        {Array.from({ length: 4 }, (_, i) => (
          <Skeleton key={i} height={92} radius="md" />
        ))}
      </SimpleGrid>
      <SimpleGrid cols={{ base: 1, lg: 2 }}>
        <Skeleton height={CHART_HEIGHT + 60} radius="md" />
        <Skeleton height={CHART_HEIGHT + 60} radius="md" />
      </SimpleGrid>
      <Skeleton height={CHART_HEIGHT + 60} radius="md" />
    </Stack>
  );
}

export function SnippetsAnalyticsScreen() {
  const [days, setDays] = useState<number>(DEFAULT_ANALYTICS_DAYS);
  const analytics = useSnippetAnalytics(days);
  const data = analytics.data;

  return (
    <Stack gap="lg">
      <PageHeader
        title="Snippets Analytics"
        description="What the stored snippets are about, how good they are and how fast they arrive."
        actions={
          <SegmentedControl
            aria-label="Period"
            value={String(days)}
            onChange={(v) => setDays(Number(v))}
            data={ANALYTICS_DAY_OPTIONS.map((d) => ({ value: String(d), label: `${d} days` }))}
          />
        }
      />

      {analytics.isPending ? (
        <Loading />
      ) : analytics.isError && !data ? (
        <ErrorState
          title="Could not load the snippet analytics"
          message={analytics.error.message}
          onRetry={() => void analytics.refetch()}
        />
      ) : data ? (
        <Stack gap="lg" style={{ opacity: analytics.isPlaceholderData ? 0.6 : 1 }}>
          <SimpleGrid cols={{ base: 2, md: 4 }}>
            <StatCard
              title="Snippets"
              value={formatNumber(data.total)}
              icon={<IconNotes size={20} />}
            />
            <StatCard
              title="Average quality"
              value={formatNumber(data.average_quality, 2)}
              icon={<IconStar size={20} />}
              color={qualityColor(data.average_quality)}
            />
            <StatCard
              title="Themes"
              value={formatNumber(data.themes.filter((t) => t.count > 0).length)}
              icon={<IconChartBar size={20} />}
              color="grape"
            />
            <StatCard
              title="Languages"
              value={formatNumber(data.languages.length)}
              icon={<IconLanguage size={20} />}
              color="teal"
            />
          </SimpleGrid>

          {data.total === 0 ? (
            <EmptyState
              title={`No snippets in the last ${days} days`}
              description="Process some sources, or pick a longer period."
            />
          ) : null}

          <SimpleGrid cols={{ base: 1, lg: 2 }} spacing="lg">
            <Panel title="Themes">
              <ThemeChart
                themes={data.themes}
                total={data.themes.reduce((sum, t) => sum + t.count, 0)}
              />
            </Panel>
            <Panel title="Quality distribution">
              <QualityChart buckets={data.quality} />
            </Panel>
          </SimpleGrid>

          <Panel title={`Growth over the last ${days} days`}>
            <GrowthChart growth={data.growth} />
          </Panel>

          <Grid gap="lg">
            <Grid.Col span={{ base: 12, lg: 8 }}>
              <Panel title="Top sources">
                <TopSources sources={data.top_sources} />
              </Panel>
            </Grid.Col>
            <Grid.Col span={{ base: 12, lg: 4 }}>
              <Panel title="Languages">
                <Languages languages={data.languages} />
              </Panel>
            </Grid.Col>
          </Grid>
        </Stack>
      ) : null}
    </Stack>
  );
}
