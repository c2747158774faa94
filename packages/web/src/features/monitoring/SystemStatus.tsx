import { Badge, Group, Paper, Stack, Text } from '@mantine/core';
import { RatioBar } from '../../components/RatioBar';
import { useRealtime } from '../../lib/realtime/RealtimeProvider';
import type { RealtimeStatus } from '../../lib/realtime/realtimeClient';
import { useSystemMetrics } from './useSystemMetrics';

function loadColor(percent: number | undefined): string {
  if (percent === undefined) return 'indigo';
  if (percent >= 85) return 'red';
  if (percent >= 65) return 'yellow';
  return 'indigo';
}

const LIVE_LABEL: Record<RealtimeStatus, { text: string; color: string }> = {
  open: { text: 'connected', color: 'teal' },
  connecting: { text: 'connecting', color: 'yellow' },
  reconnecting: { text: 'reconnecting', color: 'yellow' },
  closed: { text: 'disconnected', color: 'red' },
  auth_failed: { text: 'refused', color: 'red' },
  idle: { text: 'off', color: 'gray' },
};

/** Sidebar footer: system status and the host's CPU and memory use from the realtime poll. */
export function SystemStatus() {
  const { data, isError, monitoring } = useSystemMetrics();
  const offline = monitoring && isError;
  const live = LIVE_LABEL[useRealtime().status];
  return (
    <Paper withBorder radius="md" p="sm" aria-label="System status">
      <Stack gap="xs">
        <Group justify="space-between" gap="xs">
          <Text size="xs" fw={700} tt="uppercase" c="dimmed">
            System Status
          </Text>
          <Badge variant="dot" color={offline ? 'red' : 'teal'} size="sm">
            {offline ? 'offline' : 'online'}
          </Badge>
        </Group>
        <Group justify="space-between" gap="xs">
          <Text size="xs" c="dimmed">
            Live updates
          </Text>
          <Badge variant="light" color={live.color} size="xs" aria-label="Live updates">
            {live.text}
          </Badge>
        </Group>
        <RatioBar
          label="CPU"
          value={data?.cpuUsage}
          total={100}
          color={loadColor(data?.cpuUsage)}
          dimmed={!monitoring}
        />
        <RatioBar
          label="Memory"
          value={data?.memoryUsage}
          total={100}
          color={loadColor(data?.memoryUsage)}
          dimmed={!monitoring}
        />
      </Stack>
    </Paper>
  );
}
