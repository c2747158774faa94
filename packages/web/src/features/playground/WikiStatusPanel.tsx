import type { ReactNode } from 'react';
import { Badge, Button, Group, Paper, SimpleGrid, Stack, Text, Tooltip } from '@mantine/core';
import { IconRefresh } from '@tabler/icons-react';
import type { HealthResponse, WorkersStatus } from '@adam/contracts';
import { useRealtime } from '../../lib/realtime/RealtimeProvider';
import { useWorkersStatus } from '../maintenance/maintenance.api';
import { useHealth } from '../monitoring/monitoring.api';

interface Figure {
  value: string;
  color: string;
  hint?: string;
}

/** Redis from GET /health: healthy is connected; disabled means the embedded queue is in use. */
function redisFigure(health: HealthResponse | undefined, failed: boolean): Figure {
  if (failed) return { value: 'unknown', color: 'gray', hint: 'GET /health failed' };
  const redis = health?.components.redis;
  if (!health) return { value: 'checking…', color: 'gray' };
  if (!redis) return { value: 'not reported', color: 'gray' };
  if (redis.status === 'healthy') return { value: 'connected', color: 'teal' };
  if (redis.status === 'disabled') {
    const reason = redis.details?.reason;
    return {
      value: 'embedded queue',
      color: 'blue',
      hint: typeof reason === 'string' ? reason : 'Redis is not configured: jobs run in-process',
    };
  }
  return { value: 'disconnected', color: 'red', hint: redis.error ?? redis.status };
}

/** Workers from GET /admin/maintenance/workers/status: running when at least one runs. */
function workerFigure(workers: WorkersStatus | undefined, failed: boolean): Figure {
  if (failed) return { value: 'unknown', color: 'gray', hint: 'Workers status failed' };
  if (!workers) return { value: 'checking…', color: 'gray' };
  const queue = `${workers.queue.pending} pending · ${workers.queue.processing} processing (${workers.mode} mode)`;
  if (workers.running > 0) {
    return {
      value: `running (${workers.running})`,
      color: 'teal',
      hint: queue,
    };
  }
  return { value: 'not running', color: 'red', hint: queue };
}

function StatusItem({ label, figure }: { label: string; figure: Figure }) {
  const badge = (
    <Badge variant="light" color={figure.color} size="lg" radius="sm">
      {figure.value}
    </Badge>
  );
  return (
    <Stack gap={4} data-status-item={label}>
      <Text size="xs" c="dimmed" tt="uppercase" fw={600}>
        {label}
      </Text>
      <Group gap="xs" wrap="nowrap">
        {figure.hint ? <Tooltip label={figure.hint}>{badge}</Tooltip> : badge}
      </Group>
      <Text size="xs" c="dimmed" lineClamp={1} mih={18}>
        {figure.hint ?? ''}
      </Text>
    </Stack>
  );
}

/** Spec 002 §2: Redis connected, worker running, websocket connected, with a refresh action. */
export function WikiStatusPanel({ extra }: { extra?: ReactNode }) {
  const health = useHealth();
  const workers = useWorkersStatus();
  const realtime = useRealtime();

  const refresh = () => {
    void health.refetch();
    void workers.refetch();
    if (realtime.connected) realtime.requestUpdate();
    else if (realtime.status === 'closed' || realtime.status === 'auth_failed') {
      realtime.reconnect();
    }
  };

  const socket: Figure = realtime.connected
    ? { value: 'connected', color: 'teal' }
    : {
        value:
          realtime.status === 'connecting' || realtime.status === 'reconnecting'
            ? realtime.status
            : 'disconnected',
        color: realtime.status === 'auth_failed' ? 'red' : 'orange',
        hint:
          realtime.status === 'auth_failed'
            ? 'The server refused the key'
            : 'Job progress falls back to polling',
      };

  return (
    <Paper component="section" withBorder radius="md" p="md" aria-label="Status">
      <Group justify="space-between" align="flex-start" wrap="nowrap">
        <SimpleGrid cols={{ base: 1, sm: 3 }} spacing="lg" style={{ flex: 1 }}>
          <StatusItem label="Redis" figure={redisFigure(health.data, health.isError)} />
          <StatusItem label="Worker" figure={workerFigure(workers.data, workers.isError)} />
          <StatusItem label="WebSocket" figure={socket} />
        </SimpleGrid>
        <Group gap="xs" wrap="nowrap">
          {extra}
          <Button
            variant="default"
            leftSection={<IconRefresh size={16} />}
            onClick={refresh}
            loading={health.isFetching || workers.isFetching}
          >
            Refresh
          </Button>
        </Group>
      </Group>
    </Paper>
  );
}
