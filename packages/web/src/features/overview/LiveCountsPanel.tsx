import type { ReactNode } from 'react';
import { Badge, Group, Paper, SimpleGrid, Stack, Text, Title } from '@mantine/core';
import type { LiveStats } from '@adam/contracts';
import { useRealtime } from '../../lib/realtime/RealtimeProvider';
import { formatDate, formatNumber } from '../../lib/format';
import type { OverviewCounts } from './liveCounts';
import { OVERVIEW_MESSAGES as M } from './messages';

const JOB_STATUS_COLORS: Record<keyof LiveStats['jobs'], string> = {
  pending: 'gray',
  processing: 'blue',
  completed: 'teal',
  failed: 'red',
  cancelled: 'orange',
};

/** What the channel says about workers, read defensively: the contract types it loosely. */
function describeWorkers(workers: Record<string, unknown> | null): string {
  if (!workers) return '-';
  const running = typeof workers.running === 'number' ? workers.running : null;
  const mode = typeof workers.mode === 'string' ? workers.mode : null;
  if (running === null) return mode ?? '-';
  return `${formatNumber(running)} running${mode ? ` (${mode})` : ''}`;
}

function describeEngine(workers: Record<string, unknown> | null): string | null {
  const engine = workers?.engine;
  if (!engine || typeof engine !== 'object') return null;
  const { threads, busy } = engine as { threads?: unknown; busy?: unknown };
  if (typeof threads !== 'number') return null;
  return `${typeof busy === 'number' ? busy : 0} / ${threads} threads busy`;
}

function Row({ label, children }: { label: string; children: ReactNode }) {
  return (
    <Group justify="space-between" wrap="nowrap" gap="sm">
      <Text size="sm" c="dimmed">
        {label}
      </Text>
      <Text size="sm" fw={600} className="tabular-nums" ta="right">
        {children}
      </Text>
    </Group>
  );
}

/** Jobs by status, pending indexing and workers as the realtime channel last pushed them. */
export function LiveCountsPanel({ counts }: { counts: OverviewCounts }) {
  const { connected } = useRealtime();
  const engine = describeEngine(counts.workers);
  return (
    <Paper withBorder radius="md" p="md" h="100%" aria-label={M.liveTitle} role="region">
      <Group justify="space-between" mb="sm" align="flex-start">
        <Stack gap={2}>
          <Title order={4}>{M.liveTitle}</Title>
          <Text size="xs" c="dimmed">
            {counts.liveAt ? `Pushed ${formatDate(counts.liveAt)}` : 'Not pushed yet'}
          </Text>
        </Stack>
        <Badge variant="dot" color={connected ? 'teal' : 'gray'}>
          {connected ? 'Live' : 'Offline'}
        </Badge>
      </Group>
      {counts.jobs ? (
        <Stack gap="sm">
          <SimpleGrid cols={{ base: 3, sm: 5 }} spacing="xs">
            {(Object.keys(JOB_STATUS_COLORS) as (keyof LiveStats['jobs'])[]).map((status) => (
              <Stack key={status} gap={0} align="center" role="group" aria-label={`Jobs ${status}`}>
                <Text
                  fz="lg"
                  fw={700}
                  className="tabular-nums"
                  c={`${JOB_STATUS_COLORS[status]}.4`}
                >
                  {formatNumber(counts.jobs?.[status])}
                </Text>
                <Text size="xs" c="dimmed">
                  {status}
                </Text>
              </Stack>
            ))}
          </SimpleGrid>
          <Stack gap={6}>
            <Row label="Pending indexing">{formatNumber(counts.pendingIndex)}</Row>
            <Row label="Workers">{describeWorkers(counts.workers)}</Row>
            {engine ? <Row label="Engine">{engine}</Row> : null}
          </Stack>
        </Stack>
      ) : (
        <Text size="sm" c="dimmed">
          {M.liveWaiting}
        </Text>
      )}
    </Paper>
  );
}
