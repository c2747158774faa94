import { useState } from 'react';
import { AreaChart, type AreaChartSeries } from '@mantine/charts';
import { Box, SegmentedControl, SimpleGrid, Skeleton } from '@mantine/core';
import {
  HISTORY_RANGES,
  type HistoryRange,
  type MetricsHistory,
  type SystemMetrics,
} from '@adam/contracts';
import { formatNumber } from '../../lib/format';
import { ChartOverlay } from '../overview/ChartOverlay';
import { MonitoringCard } from './MonitoringCard';
import { MONITORING_MESSAGES as M } from './messages';
import { useMetricsHistories, type MetricsPoll } from './monitoring.api';
import { networkRate, type NetworkUnit } from './monitoringRules';

/** Spec 000 §9: a history opens on its shortest range. */
const DEFAULT_HISTORY_RANGE: HistoryRange = '1h';

const CHART_HEIGHT = 200;

type ChartId = 'cpu' | 'ram' | 'network' | 'disk';
type Point = Record<string, number | string | null>;

interface ChartDefinition {
  title: string;
  error: string;
  unit: (networkUnit: NetworkUnit) => string;
  series: AreaChartSeries[];
  point: (m: SystemMetrics, networkUnit: NetworkUnit) => Point;
  /** Percentages keep a fixed 0–100 axis so a quiet machine does not look busy. */
  percent?: boolean;
}

const CHARTS: Record<ChartId, ChartDefinition> = {
  cpu: {
    title: 'CPU history',
    error: M.cpuError,
    unit: () => '%',
    series: [{ name: 'cpu', label: 'CPU', color: 'indigo.6' }],
    point: (m) => ({ cpu: m.cpu_usage }),
    percent: true,
  },
  ram: {
    title: 'RAM history',
    error: M.ramError,
    unit: () => '%',
    series: [{ name: 'ram', label: 'RAM', color: 'grape.6' }],
    point: (m) => ({ ram: m.memory_usage }),
    percent: true,
  },
  network: {
    title: 'Network history',
    error: M.networkError,
    unit: (unit) => unit,
    series: [
      { name: 'in', label: 'In', color: 'teal.6' },
      { name: 'out', label: 'Out', color: 'orange.6' },
    ],
    point: (m, unit) => ({
      in: networkRate(m.network_in, unit),
      out: networkRate(m.network_out, unit),
    }),
  },
  disk: {
    title: 'Disk history',
    error: M.diskError,
    unit: () => 'MB/s',
    series: [
      { name: 'read', label: 'Read', color: 'cyan.6' },
      { name: 'write', label: 'Write', color: 'pink.6' },
    ],
    point: (m) => ({ read: m.disk_read, write: m.disk_write }),
  },
};

const CHART_IDS = Object.keys(CHARTS) as ChartId[];

const pad2 = (n: number) => String(n).padStart(2, '0');
const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];

/** An axis tick: its unit is in the chart's subtitle, and small rates keep two significant digits. */
function tick(value: number): string {
  if (!Number.isFinite(value)) return '';
  if (value === 0 || Math.abs(value) >= 10) return formatNumber(Math.round(value));
  return String(Number(value.toPrecision(2)));
}

/** The x-axis label: the time of day, with the date over a week. */
function timeLabel(timestamp: string, range: HistoryRange): string {
  const d = new Date(timestamp);
  if (Number.isNaN(d.getTime())) return '-';
  const time = `${pad2(d.getHours())}:${pad2(d.getMinutes())}`;
  return range === '7d' ? `${MONTHS[d.getMonth()]} ${pad2(d.getDate())} ${time}` : time;
}

interface HistoryQuery {
  data: MetricsHistory | undefined;
  isError: boolean;
}

function HistoryChart({
  id,
  range,
  onRangeChange,
  query,
  networkUnit,
}: {
  id: ChartId;
  range: HistoryRange;
  onRangeChange: (range: HistoryRange) => void;
  query: HistoryQuery;
  networkUnit: NetworkUnit;
}) {
  const chart = CHARTS[id];
  const unit = chart.unit(networkUnit);
  const data = (query.data?.metrics ?? []).map((m) => ({
    time: timeLabel(m.timestamp, range),
    ...chart.point(m, networkUnit),
  }));
  return (
    <MonitoringCard
      title={chart.title}
      subtitle={unit}
      error={query.isError ? chart.error : undefined}
      actions={
        <SegmentedControl
          size="xs"
          aria-label={`${chart.title} range`}
          value={range}
          onChange={(value) => onRangeChange(value as HistoryRange)}
          data={[...HISTORY_RANGES]}
        />
      }
    >
      {query.data ? (
        <Box pos="relative">
          <AreaChart
            h={CHART_HEIGHT}
            data={data}
            dataKey="time"
            series={chart.series}
            curveType="monotone"
            withDots={false}
            withGradient
            fillOpacity={0.25}
            connectNulls={false}
            withLegend={chart.series.length > 1}
            valueFormatter={(v) => `${formatNumber(v, 1)} ${unit}`}
            xAxisProps={{ minTickGap: 32 }}
            yAxisProps={{
              tickFormatter: tick,
              width: 44,
              ...(chart.percent ? { domain: [0, 100] } : {}),
            }}
          />
          {data.length === 0 ? <ChartOverlay>{M.noHistory}</ChartOverlay> : null}
        </Box>
      ) : query.isError ? null : (
        <Skeleton height={CHART_HEIGHT} radius="sm" />
      )}
    </MonitoringCard>
  );
}

/**
 * The CPU, RAM, network and disk histories, each with its own range; charts on the same range
 * share one request.
 */
export function HistoryCharts({
  poll,
  networkUnit,
}: {
  poll: MetricsPoll;
  networkUnit: NetworkUnit;
}) {
  const [ranges, setRanges] = useState<Record<ChartId, HistoryRange>>({
    cpu: DEFAULT_HISTORY_RANGE,
    ram: DEFAULT_HISTORY_RANGE,
    network: DEFAULT_HISTORY_RANGE,
    disk: DEFAULT_HISTORY_RANGE,
  });
  const wanted = HISTORY_RANGES.filter((r) => CHART_IDS.some((id) => ranges[id] === r));
  const queries = useMetricsHistories(wanted, poll);
  // Every shown range is in `wanted`, so each chart finds its query.
  const byRange = (range: HistoryRange): HistoryQuery => queries[wanted.indexOf(range)]!;
  return (
    <SimpleGrid cols={{ base: 1, md: 2 }} spacing="md" component="section" aria-label="History">
      {CHART_IDS.map((id) => (
        <HistoryChart
          key={id}
          id={id}
          range={ranges[id]}
          onRangeChange={(range) => setRanges((current) => ({ ...current, [id]: range }))}
          query={byRange(ranges[id])}
          networkUnit={networkUnit}
        />
      ))}
    </SimpleGrid>
  );
}
