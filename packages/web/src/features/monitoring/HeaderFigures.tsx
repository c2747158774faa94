import type { ReactNode } from 'react';
import { Group, Text, ThemeIcon, Tooltip } from '@mantine/core';
import { IconBolt, IconGauge } from '@tabler/icons-react';
import { formatNumber } from '../../lib/format';
import { useSystemMetrics } from './useSystemMetrics';

function Figure({ icon, label, value }: { icon: ReactNode; label: string; value: string }) {
  return (
    <Tooltip label={label} withArrow>
      <Group gap={6} wrap="nowrap" aria-label={label}>
        <ThemeIcon size="sm" variant="light" color="gray" radius="xl">
          {icon}
        </ThemeIcon>
        <Text size="sm" fw={600} className="tabular-nums" style={{ whiteSpace: 'nowrap' }}>
          {value}
        </Text>
      </Group>
    </Tooltip>
  );
}

/** Latency of the realtime metrics poll and the segment ingestion rate. */
export function HeaderFigures() {
  const { data, monitoring } = useSystemMetrics();
  const latency = monitoring && data ? `${formatNumber(Math.round(data.latencyMs))} ms` : '- ms';
  // Segments the server stored per second over the last minute.
  const rate = monitoring && data ? formatNumber(data.segmentsPerSecond, 1) : '-';
  return (
    <Group gap="md" wrap="nowrap" visibleFrom="sm">
      <Figure icon={<IconGauge size={14} />} label="Latency" value={latency} />
      <Figure icon={<IconBolt size={14} />} label="Segment rate" value={`${rate} seg/s`} />
    </Group>
  );
}
