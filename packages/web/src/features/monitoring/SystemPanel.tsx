import { Badge, Box, Group, SegmentedControl, Grid, Stack, Text, Tooltip } from '@mantine/core';
import {
  IconCpu,
  IconDeviceDesktopAnalytics,
  IconNetwork,
  IconServer2,
  IconStack2,
} from '@tabler/icons-react';
import type { SystemMetrics } from '@adam/contracts';
import { RatioBar } from '../../components/RatioBar';
import { LoadingPanel } from '../../components/QueryState';
import { formatNumber, formatPercent } from '../../lib/format';
import { ErrorLine, FigureList, MonitoringCard } from './MonitoringCard';
import { MONITORING_MESSAGES as M } from './messages';
import {
  badgeColor,
  coreBarColor,
  formatFrequency,
  formatGB,
  formatGBOf,
  formatNetworkRate,
  loadLevel,
  NETWORK_UNITS,
  withUnit,
  type NetworkUnit,
} from './monitoringRules';

const CORE_BAR_HEIGHT = 56;

/** One vertical bar per logical core: red above 80 %, yellow above 60 %. */
function CoreBars({ cores }: { cores: readonly number[] }) {
  if (cores.length === 0) {
    return (
      <Text size="xs" c="dimmed">
        Per-core usage: -
      </Text>
    );
  }
  return (
    <Stack gap={4}>
      <Text size="xs" c="dimmed">
        Per core ({cores.length})
      </Text>
      <Group gap={3} wrap="nowrap" align="flex-end" h={CORE_BAR_HEIGHT} aria-label="Per-core usage">
        {cores.map((usage, i) => {
          const value = Math.min(100, Math.max(0, Number.isFinite(usage) ? usage : 0));
          const color = coreBarColor(usage);
          return (
            <Tooltip key={i} label={`Core ${i + 1}: ${formatPercent(usage)}`} withArrow>
              <Box
                role="meter"
                aria-label={`Core ${i + 1}`}
                aria-valuemin={0}
                aria-valuemax={100}
                aria-valuenow={value}
                data-level={loadLevel(usage)}
                style={{
                  flex: '1 1 0',
                  minWidth: 3,
                  maxWidth: 28,
                  height: '100%',
                  display: 'flex',
                  alignItems: 'flex-end',
                  borderRadius: 3,
                  background: 'var(--mantine-color-default-border)',
                  overflow: 'hidden',
                }}
              >
                <Box
                  style={{
                    width: '100%',
                    height: `${value}%`,
                    background: `var(--mantine-color-${color}-6)`,
                  }}
                />
              </Box>
            </Tooltip>
          );
        })}
      </Group>
    </Stack>
  );
}

function UsageBadge({ value }: { value: number | null }) {
  return (
    <Badge variant="light" color={badgeColor(value)} size="lg" className="tabular-nums">
      {formatPercent(value)}
    </Badge>
  );
}

function CpuCard({ m }: { m: SystemMetrics }) {
  return (
    <MonitoringCard
      title="CPU"
      icon={<IconCpu size={18} />}
      actions={<UsageBadge value={m.cpu_usage} />}
    >
      <CoreBars cores={m.cpu_per_core} />
      <FigureList
        rows={[
          ['Frequency', formatFrequency(m.cpu_frequency)],
          ['Temperature', withUnit(m.cpu_temperature, '°C', 0)],
          ['Processes', formatNumber(m.cpu_processes)],
          ['Threads', formatNumber(m.cpu_threads)],
        ]}
      />
    </MonitoringCard>
  );
}

function MemoryCard({ m }: { m: SystemMetrics }) {
  return (
    <MonitoringCard
      title="Memory"
      icon={<IconStack2 size={18} />}
      actions={<UsageBadge value={m.memory_usage} />}
    >
      <RatioBar
        label="Used"
        value={m.memory_used}
        total={m.memory_total}
        caption={formatGBOf(m.memory_used, m.memory_total)}
        color={badgeColor(m.memory_usage)}
      />
      <FigureList
        rows={[
          ['Cached', formatGB(m.memory_cached)],
          ['Buffers', formatGB(m.memory_buffers)],
          ['Swap used', formatPercent(m.swap_usage)],
          ['Swap total', withUnit(m.swap_total_gb, 'GB', 1)],
        ]}
      />
    </MonitoringCard>
  );
}

function GpuCard({ m }: { m: SystemMetrics }) {
  const none = m.gpu_usage === null && m.gpu_memory_total === null && m.gpu_temperature === null;
  return (
    <MonitoringCard
      title="GPU"
      icon={<IconDeviceDesktopAnalytics size={18} />}
      subtitle={none ? M.noGpu : undefined}
      actions={<UsageBadge value={m.gpu_usage} />}
    >
      <RatioBar
        label="Memory"
        value={m.gpu_memory}
        total={m.gpu_memory_total}
        caption={`${formatNumber(m.gpu_memory)} / ${withUnit(m.gpu_memory_total, 'MB', 0)}`}
      />
      <FigureList
        rows={[
          ['Usage', formatPercent(m.gpu_usage)],
          ['Temperature', withUnit(m.gpu_temperature, '°C', 0)],
          ['Power', withUnit(m.gpu_power, 'W', 0)],
        ]}
      />
    </MonitoringCard>
  );
}

function StorageCard({ m }: { m: SystemMetrics }) {
  return (
    <MonitoringCard
      title="Storage"
      icon={<IconServer2 size={18} />}
      actions={<UsageBadge value={m.disk_usage} />}
    >
      <RatioBar
        label="Used"
        value={m.disk_used}
        total={m.disk_total}
        caption={formatGBOf(m.disk_used, m.disk_total)}
        color={badgeColor(m.disk_usage)}
      />
      <FigureList
        rows={[
          ['Read', withUnit(m.disk_read, 'MB/s', 2)],
          ['Write', withUnit(m.disk_write, 'MB/s', 2)],
          ['IOPS', formatNumber(m.disk_iops, 0)],
          ['Latency', withUnit(m.disk_latency, 'ms', 2)],
        ]}
      />
    </MonitoringCard>
  );
}

function NetworkCard({
  m,
  unit,
  onUnitChange,
}: {
  m: SystemMetrics;
  unit: NetworkUnit;
  onUnitChange: (unit: NetworkUnit) => void;
}) {
  return (
    <MonitoringCard
      title="Network"
      icon={<IconNetwork size={18} />}
      actions={
        <SegmentedControl
          size="xs"
          aria-label="Network unit"
          value={unit}
          onChange={(value) => onUnitChange(value as NetworkUnit)}
          data={[...NETWORK_UNITS]}
        />
      }
    >
      <RatioBar
        label="Bandwidth"
        value={m.network_bandwidth_used}
        total={m.network_bandwidth_total}
        caption={`${formatNumber(m.network_bandwidth_used, 1)} / ${withUnit(m.network_bandwidth_total, 'Mbps', 0)}`}
      />
      <FigureList
        rows={[
          ['In', formatNetworkRate(m.network_in, unit)],
          ['Out', formatNetworkRate(m.network_out, unit)],
          ['Connections', formatNumber(m.network_connections)],
          ['Packets in', withUnit(m.network_packets_in, '/s', 0)],
          ['Packets out', withUnit(m.network_packets_out, '/s', 0)],
          ['Packets lost', formatNumber(m.network_packets_lost)],
        ]}
      />
    </MonitoringCard>
  );
}

export interface SystemQuery {
  data: SystemMetrics | undefined;
  isError: boolean;
}

/**
 * CPU (per-core bars, frequency, temperature, processes), memory, GPU, storage and network, from
 * GET /admin/system/metrics; after a failed poll the last figures stay with 'Erreur système'.
 */
export function SystemPanel({
  system,
  unit,
  onUnitChange,
}: {
  system: SystemQuery;
  unit: NetworkUnit;
  onUnitChange: (unit: NetworkUnit) => void;
}) {
  const m = system.data;
  return (
    <Stack gap="sm" component="section" aria-label="System performance">
      <Group justify="space-between">
        <Text fw={700} size="lg">
          System performance
        </Text>
        {m ? (
          <Text size="xs" c="dimmed">
            Sampled {new Date(m.timestamp).toLocaleTimeString()}
          </Text>
        ) : null}
      </Group>
      {system.isError ? <ErrorLine>{M.systemError}</ErrorLine> : null}
      {m ? (
        // Three cards then two wider ones: five cards fill their rows with no hole.
        <Grid gap="md" align="stretch">
          <Grid.Col span={{ base: 12, sm: 6, lg: 4 }}>
            <CpuCard m={m} />
          </Grid.Col>
          <Grid.Col span={{ base: 12, sm: 6, lg: 4 }}>
            <MemoryCard m={m} />
          </Grid.Col>
          <Grid.Col span={{ base: 12, sm: 6, lg: 4 }}>
            <GpuCard m={m} />
          </Grid.Col>
          <Grid.Col span={{ base: 12, sm: 6, lg: 6 }}>
            <StorageCard m={m} />
          </Grid.Col>
          <Grid.Col span={{ base: 12, lg: 6 }}>
            <NetworkCard m={m} unit={unit} onUnitChange={onUnitChange} />
          </Grid.Col>
        </Grid>
      ) : system.isError ? null : (
        <LoadingPanel />
      )}
    </Stack>
  );
}
