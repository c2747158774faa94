import { useMemo } from 'react';
import { BarChart, LineChart } from '@mantine/charts';
import { ColorSwatch, Grid, Group, SimpleGrid, Stack, Table, Text } from '@mantine/core';
import { useLab } from './lab/LabProvider';
import { CAPITALIZE_CHANCE, CAPITALIZE_SCORE, SUCCESS_SCORE } from './lab/simulation';
import { FigureTile, InsightPanel } from './insights/InsightPanel';
import { LabInsightsHeader } from './insights/LabInsightsHeader';
import { ZONE_COLORS, cssColor } from './insights/colors';
import { axisDecimal, axisPercent, decimal, niceAxis, share } from './insights/format';
import {
  SCORE_BUCKET,
  experienceStats,
  generationRows,
  type ScoreBucket,
  type ScoreZone,
  type ThemeStat,
} from './insights/insights';
import { INSIGHTS_MESSAGES, themeLabel } from './insights/messages';

const M = INSIGHTS_MESSAGES.analytics;
const CHART_HEIGHT = 240;
const DOTS_UP_TO = 40;

const t = (value: number) => decimal(value, 2);
const ZONE_LABELS: Record<ScoreZone, string> = {
  failure: M.zoneFailure(t(SUCCESS_SCORE)),
  success: M.zoneSuccess(t(SUCCESS_SCORE), t(CAPITALIZE_SCORE)),
  capitalizable: M.zoneCapitalizable(t(CAPITALIZE_SCORE)),
};

const bandLabel = (b: Pick<ScoreBucket, 'from' | 'to'>) => `${t(b.from)}–${t(b.to)}`;

/**
 * The histogram on a numeric 0–1 axis, so the threshold lines sit exactly at 0.6 and 0.75 (a
 * category axis would put them in the middle of a bar); each bar takes its zone's colour.
 */
function ScoreHistogram({ buckets, total }: { buckets: ScoreBucket[]; total: number }) {
  const data = buckets.map((b) => ({ ...b, color: ZONE_COLORS[b.zone] }));
  // Headroom above the tallest bar keeps the threshold labels clear of it.
  const axis = niceAxis(Math.max(0, ...buckets.map((b) => b.count)) * 1.2);
  return (
    <InsightPanel
      title={M.histogramTitle}
      subtitle={M.histogramSubtitle(t(SCORE_BUCKET), total)}
      empty={total === 0 ? M.noExperiences : undefined}
    >
      <BarChart
        h={CHART_HEIGHT}
        data={data}
        dataKey="mid"
        series={[{ name: 'count', label: M.experiences, color: 'blue.5' }]}
        barChartProps={{ barCategoryGap: 1 }}
        xAxisProps={{
          type: 'number',
          domain: [0, 1],
          ticks: [0, 0.2, 0.4, SUCCESS_SCORE, CAPITALIZE_SCORE, 1],
          tickFormatter: (v: number) => t(v),
          interval: 0,
        }}
        // Headroom above the tallest bar keeps the threshold labels clear of it.
        yAxisProps={{ width: 40, domain: [0, axis.max], ticks: axis.ticks }}
        tooltipProps={{
          labelFormatter: (_label: unknown, payload: readonly { payload?: ScoreBucket }[]) => {
            const bucket = payload[0]?.payload;
            return bucket ? `${M.histogramBand} ${bandLabel(bucket)}` : '';
          },
        }}
        valueFormatter={(v) => decimal(v, 0)}
        referenceLines={[
          {
            x: SUCCESS_SCORE,
            label: M.successLine(t(SUCCESS_SCORE)),
            color: ZONE_COLORS.success,
            // Left of its line, the other label right of its own: they never overlap.
            labelPosition: 'insideTopRight',
            strokeDasharray: '4 3',
          },
          {
            x: CAPITALIZE_SCORE,
            label: M.capitalizeLine(t(CAPITALIZE_SCORE)),
            color: ZONE_COLORS.capitalizable,
            labelPosition: 'insideTopLeft',
            strokeDasharray: '4 3',
          },
        ]}
      />
      <Group gap="md" mt="xs" justify="center">
        {(Object.keys(ZONE_LABELS) as ScoreZone[]).map((zone) => (
          <Group key={zone} gap={6} wrap="nowrap">
            <ColorSwatch color={cssColor(ZONE_COLORS[zone])} size={10} />
            <Text size="xs" c="dimmed">
              {ZONE_LABELS[zone]}
            </Text>
          </Group>
        ))}
      </Group>
    </InsightPanel>
  );
}

function ThemesPanel({ themes }: { themes: ThemeStat[] }) {
  const bars = themes.map((t) => ({
    theme: themeLabel(t.theme),
    succeeded: t.successes,
    failed: t.experiences - t.successes,
  }));
  return (
    <InsightPanel title={M.themesTitle} subtitle={M.themesSubtitle}>
      <BarChart
        h={40 + 32 * bars.length}
        data={bars}
        dataKey="theme"
        orientation="vertical"
        type="stacked"
        withLegend
        gridAxis="y"
        yAxisProps={{ width: 88, interval: 0 }}
        xAxisProps={{ allowDecimals: false }}
        valueFormatter={(v) => decimal(v, 0)}
        series={[
          { name: 'succeeded', label: M.succeeded, color: ZONE_COLORS.success },
          { name: 'failed', label: M.failed, color: 'gray.6' },
        ]}
      />
      <Table.ScrollContainer minWidth={400} type="native" mt="sm">
        <Table verticalSpacing={6} className="tabular-nums" highlightOnHover>
          <Table.Thead>
            <Table.Tr>
              <Table.Th>{M.colTheme}</Table.Th>
              <Table.Th ta="right">{M.colExperiences}</Table.Th>
              <Table.Th ta="right">{M.colSuccessRate}</Table.Th>
              <Table.Th ta="right">{M.colCapitalized}</Table.Th>
              <Table.Th ta="right">{M.colFromSnippets}</Table.Th>
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {themes.map((theme) => (
              <Table.Tr key={theme.theme} aria-label={themeLabel(theme.theme)}>
                <Table.Td>{themeLabel(theme.theme)}</Table.Td>
                <Table.Td ta="right">{decimal(theme.experiences, 0)}</Table.Td>
                <Table.Td ta="right">{share(theme.successRate)}</Table.Td>
                <Table.Td ta="right">{decimal(theme.capitalized, 0)}</Table.Td>
                <Table.Td ta="right">{decimal(theme.fromSnippets, 0)}</Table.Td>
              </Table.Tr>
            ))}
          </Table.Tbody>
        </Table>
      </Table.ScrollContainer>
    </InsightPanel>
  );
}

type GenerationRow = { label: string; successRate: number | null; meanOriginality: number | null };

/** One per-generation figure over time, in its panel, from 0 to `max`. */
function GenerationLine({
  title,
  subtitle,
  rows,
  withDots,
  max,
  tickFormatter,
  valueFormatter,
  series,
}: {
  title: string;
  subtitle: string;
  rows: GenerationRow[];
  withDots: boolean;
  max: number;
  tickFormatter: (v: number) => string;
  valueFormatter: (v: number) => string;
  series: { name: keyof GenerationRow; label: string; color: string };
}) {
  return (
    <InsightPanel title={title} subtitle={`${subtitle}. ${INSIGHTS_MESSAGES.liveNote}`}>
      <LineChart
        h={CHART_HEIGHT}
        data={rows}
        dataKey="label"
        withDots={withDots}
        connectNulls
        curveType="monotone"
        yAxisProps={{ domain: [0, max], width: 40, tickFormatter }}
        xAxisProps={{ minTickGap: 16 }}
        valueFormatter={valueFormatter}
        series={[series]}
      />
    </InsightPanel>
  );
}

/** Agent 2 Analytics (issue 12): success, score distribution, themes and originality. */
export function Agent2AnalyticsScreen() {
  const lab = useLab();
  const { state } = lab;
  const stats = useMemo(() => experienceStats(state.babies), [state.babies]);
  const rows = useMemo<GenerationRow[]>(
    () =>
      generationRows(state).map((r) => ({
        label: r.label,
        successRate: r.successRate === null ? null : r.successRate * 100,
        meanOriginality: r.meanOriginality,
      })),
    [state],
  );
  const withDots = rows.length <= DOTS_UP_TO;

  return (
    <Stack gap="lg">
      <LabInsightsHeader title={M.title} description={M.description} lab={lab} />

      <SimpleGrid cols={{ base: 1, xs: 2, md: 4 }} spacing="md">
        <FigureTile
          title={M.successRate}
          value={share(stats.successRate)}
          caption={M.successRateCaption(stats.successes, stats.total)}
        />
        <FigureTile
          title={M.experiences}
          value={decimal(stats.total, 0)}
          caption={M.experiencesCaption}
        />
        <FigureTile
          title={M.capitalized}
          value={decimal(stats.capitalized, 0)}
          caption={M.capitalizedCaption(
            share(stats.total ? stats.capitalized / stats.total : null),
            t(CAPITALIZE_SCORE),
            share(CAPITALIZE_CHANCE, 0),
          )}
        />
        <FigureTile
          title={M.meanOriginality}
          value={decimal(stats.meanOriginality, 3)}
          caption={M.meanOriginalityCaption}
        />
      </SimpleGrid>

      <Grid gap="md" align="stretch">
        <Grid.Col span={{ base: 12, lg: 6 }}>
          <GenerationLine
            title={M.successTitle}
            subtitle={M.successSubtitle}
            rows={rows}
            withDots={withDots}
            max={100}
            tickFormatter={axisPercent}
            valueFormatter={(v) => `${decimal(v, 1)}%`}
            series={{ name: 'successRate', label: M.successRate, color: 'blue.5' }}
          />
        </Grid.Col>
        <Grid.Col span={{ base: 12, lg: 6 }}>
          <ScoreHistogram buckets={stats.histogram} total={stats.total} />
        </Grid.Col>
        <Grid.Col span={{ base: 12, lg: 6 }}>
          <ThemesPanel themes={stats.themes} />
        </Grid.Col>
        <Grid.Col span={{ base: 12, lg: 6 }}>
          <GenerationLine
            title={M.originalityTitle}
            subtitle={M.originalitySubtitle}
            rows={rows}
            withDots={withDots}
            max={1}
            tickFormatter={axisDecimal}
            valueFormatter={(v) => decimal(v, 3)}
            series={{ name: 'meanOriginality', label: M.meanOriginality, color: 'grape.5' }}
          />
        </Grid.Col>
      </Grid>
    </Stack>
  );
}
