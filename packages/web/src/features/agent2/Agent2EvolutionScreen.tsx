import { useMemo } from 'react';
import { BarChart, LineChart } from '@mantine/charts';
import { Grid, SimpleGrid, Stack } from '@mantine/core';
import { useLab } from './lab/LabProvider';
import { MUTATION_RATE_MAX, MUTATION_RATE_MIN } from './lab/simulation';
import { BABY_STATUSES, DNA_TRAITS } from './lab/types';
import { FigureTile, InsightPanel } from './insights/InsightPanel';
import { LabInsightsHeader } from './insights/LabInsightsHeader';
import { STATUS_COLORS, TRAIT_COLORS } from './insights/colors';
import { axisDecimal, decimal, signed } from './insights/format';
import { cohortRows, fitnessGain, generationRows } from './insights/insights';
import { INSIGHTS_MESSAGES, STATUS_LABELS, TRAIT_LABELS } from './insights/messages';

const M = INSIGHTS_MESSAGES.evolution;
const CHART_HEIGHT = 260;
// Beyond ~40 generations dots would hide the lines.
const DOTS_UP_TO = 40;

/** Evolution Monitor (issue 12): fitness, survival and DNA drift across generations. */
export function Agent2EvolutionScreen() {
  const lab = useLab();
  const { state } = lab;
  const rows = useMemo(() => generationRows(state), [state]);
  const cohorts = useMemo(() => cohortRows(state), [state]);
  const gain = useMemo(() => fitnessGain(rows), [rows]);
  const withDots = rows.length <= DOTS_UP_TO;

  return (
    <Stack gap="lg">
      <LabInsightsHeader title={M.title} description={M.description} lab={lab} />

      <SimpleGrid cols={{ base: 1, sm: 3 }} spacing="md">
        <FigureTile
          title={M.bestFitness}
          value={decimal(gain?.to.bestFitness, 3)}
          caption={gain ? M.ofGeneration(gain.to.generation) : M.noEndedGeneration}
        />
        <FigureTile
          title={M.meanFitness}
          value={decimal(gain?.to.meanFitness, 3)}
          caption={gain ? M.ofGeneration(gain.to.generation) : M.noEndedGeneration}
        />
        <FigureTile
          title={M.gain(gain?.from.generation ?? 1)}
          value={
            gain
              ? `${signed(gain.meanGain, 3)}${gain.meanGainShare === null ? '' : ` (${signed(gain.meanGainShare * 100, 1)}%)`}`
              : '-'
          }
          color={gain ? (gain.meanGain >= 0 ? 'teal' : 'red') : undefined}
          caption={
            gain
              ? M.gainCaption(gain.from.generation, gain.to.generation, signed(gain.bestGain, 3))
              : M.gainPending
          }
        />
      </SimpleGrid>

      <Grid gap="md" align="stretch">
        <Grid.Col span={{ base: 12, lg: 7 }}>
          <InsightPanel
            title={M.fitnessTitle}
            subtitle={`${M.fitnessSubtitle}. ${INSIGHTS_MESSAGES.liveNote}`}
          >
            <LineChart
              h={CHART_HEIGHT}
              data={rows}
              dataKey="label"
              withLegend
              withDots={withDots}
              curveType="monotone"
              yAxisProps={{ domain: [0, 1], width: 40, tickFormatter: axisDecimal }}
              xAxisProps={{ minTickGap: 16 }}
              valueFormatter={(v) => decimal(v, 3)}
              series={[
                { name: 'bestFitness', label: M.bestFitness, color: 'teal.5' },
                { name: 'meanFitness', label: M.meanFitness, color: 'violet.5' },
              ]}
            />
          </InsightPanel>
        </Grid.Col>
        <Grid.Col span={{ base: 12, lg: 5 }}>
          <InsightPanel title={M.cohortTitle} subtitle={M.cohortSubtitle}>
            <BarChart
              h={CHART_HEIGHT}
              data={cohorts}
              dataKey="label"
              type="stacked"
              withLegend
              yAxisProps={{ width: 40, allowDecimals: false }}
              xAxisProps={{ minTickGap: 16 }}
              valueFormatter={(v) => decimal(v, 0)}
              series={BABY_STATUSES.map((status) => ({
                name: status,
                label: STATUS_LABELS[status],
                color: STATUS_COLORS[status],
              }))}
            />
          </InsightPanel>
        </Grid.Col>
      </Grid>

      <InsightPanel title={M.dnaTitle} subtitle={M.dnaSubtitle}>
        <LineChart
          h={CHART_HEIGHT + 40}
          data={rows}
          dataKey="label"
          withLegend
          withDots={withDots}
          curveType="monotone"
          withRightYAxis
          rightYAxisLabel={M.dnaRightAxis}
          // The left axis' quarters (0, 0.25, … 1) mapped onto 0.10–0.20, so both share the grid.
          rightYAxisProps={{
            domain: [MUTATION_RATE_MIN, MUTATION_RATE_MAX],
            ticks: [0, 0.25, 0.5, 0.75, 1].map(
              (q) => MUTATION_RATE_MIN + q * (MUTATION_RATE_MAX - MUTATION_RATE_MIN),
            ),
            width: 60,
            tickFormatter: (v: number) => decimal(v, 3),
          }}
          yAxisProps={{
            domain: [0, 1],
            ticks: [0, 0.25, 0.5, 0.75, 1],
            width: 40,
            tickFormatter: axisDecimal,
          }}
          xAxisProps={{ minTickGap: 16 }}
          valueFormatter={(v) => decimal(v, 3)}
          series={DNA_TRAITS.map((trait) =>
            trait === 'mutationRate'
              ? {
                  name: trait,
                  label: TRAIT_LABELS[trait],
                  color: TRAIT_COLORS[trait],
                  yAxisId: 'right',
                  strokeDasharray: '5 4',
                }
              : { name: trait, label: TRAIT_LABELS[trait], color: TRAIT_COLORS[trait] },
          )}
        />
      </InsightPanel>
    </Stack>
  );
}
