import { useState } from 'react';
import { Link } from 'react-router';
import {
  Anchor,
  Badge,
  Button,
  Group,
  NumberInput,
  Paper,
  Stack,
  Table,
  Text,
  Title,
} from '@mantine/core';
import { IconPlayerPlay, IconPlayerStop } from '@tabler/icons-react';
import { MAX_WORKERS, type WorkersStatus } from '@adam/contracts';
import { tabHref } from '../../navigation/tabRegistry';
import { ErrorState, LoadingState } from '../../components/QueryState';
import { formatNumber } from '../../lib/format';
import { useStartWorkers, useStopWorkers, useWorkersStatus } from './maintenance.api';
import { DateTime } from '../../components/DateTime';

type WorkerState = WorkersStatus['workers'][number]['status'];
const WORKER_COLOR: Record<WorkerState, string> = {
  idle: 'gray',
  busy: 'blue',
  stopping: 'yellow',
};

function Figure({ label, value }: { label: string; value: string }) {
  return (
    <Stack gap={0}>
      <Text size="xs" c="dimmed" tt="uppercase" fw={700}>
        {label}
      </Text>
      <Text fw={600} className="tabular-nums">
        {value}
      </Text>
    </Stack>
  );
}

/** Worker status (GET /admin/maintenance/workers/status) with start (count, default 1) and stop. */
export function WorkersPanel() {
  const status = useWorkersStatus();
  const start = useStartWorkers();
  const stop = useStopWorkers();
  const [count, setCount] = useState<number | string>(1);
  const n = typeof count === 'number' ? count : Number(count);
  const validCount = Number.isInteger(n) && n >= 1 && n <= MAX_WORKERS;
  const data = status.data;

  return (
    <Paper withBorder radius="md" p="md" aria-label="Workers">
      <Group justify="space-between" align="flex-start" mb="md">
        <div>
          <Title order={4}>Workers</Title>
          <Text size="sm" c="dimmed">
            The processes that run queued jobs.
          </Text>
        </div>
        <Group gap="xs" align="flex-end">
          <NumberInput
            label="Count"
            value={count}
            onChange={setCount}
            min={1}
            max={MAX_WORKERS}
            allowDecimal={false}
            allowNegative={false}
            clampBehavior="strict"
            w={90}
            size="sm"
          />
          <Button
            leftSection={<IconPlayerPlay size={16} />}
            onClick={() => start.mutate(n)}
            disabled={!validCount}
            loading={start.isPending}
          >
            Start
          </Button>
          <Button
            variant="default"
            leftSection={<IconPlayerStop size={16} />}
            onClick={() => stop.mutate()}
            disabled={!data || data.running === 0}
            loading={stop.isPending}
          >
            Stop
          </Button>
        </Group>
      </Group>

      {status.isError && !data ? (
        <ErrorState message={status.error.message} onRetry={() => void status.refetch()} />
      ) : !data ? (
        <LoadingState rows={3} label="Loading workers" />
      ) : (
        <Stack gap="md">
          <Group gap="xl">
            <Figure label="Mode" value={data.mode} />
            <Figure label="Running" value={formatNumber(data.running)} />
            <Figure label="Pending jobs" value={formatNumber(data.queue.pending)} />
            <Figure label="Processing jobs" value={formatNumber(data.queue.processing)} />
          </Group>
          {data.workers.length === 0 ? (
            <Text size="sm" c="yellow">
              No worker running: queued jobs wait until one starts.
            </Text>
          ) : (
            <Table.ScrollContainer minWidth={640}>
              <Table
                striped
                highlightOnHover
                stickyHeader
                verticalSpacing="xs"
                aria-label="Worker list"
              >
                <Table.Thead>
                  <Table.Tr>
                    <Table.Th>Worker</Table.Th>
                    <Table.Th>Status</Table.Th>
                    <Table.Th>Current job</Table.Th>
                    <Table.Th ta="right">Processed</Table.Th>
                    <Table.Th ta="right">Failed</Table.Th>
                    <Table.Th>Started</Table.Th>
                  </Table.Tr>
                </Table.Thead>
                <Table.Tbody>
                  {data.workers.map((w) => (
                    <Table.Tr key={w.id}>
                      <Table.Td ff="monospace" fz="xs">
                        {w.id}
                      </Table.Td>
                      <Table.Td>
                        <Badge variant="light" color={WORKER_COLOR[w.status]} radius="sm">
                          {w.status}
                        </Badge>
                      </Table.Td>
                      <Table.Td className="tabular-nums">
                        {w.current_job !== null ? (
                          <Anchor
                            component={Link}
                            to={tabHref('sources-queue', { job_id: w.current_job })}
                            size="sm"
                          >
                            #{w.current_job}
                          </Anchor>
                        ) : (
                          '-'
                        )}
                      </Table.Td>
                      <Table.Td ta="right" className="tabular-nums">
                        {formatNumber(w.processed)}
                      </Table.Td>
                      <Table.Td ta="right" className="tabular-nums">
                        {formatNumber(w.failed)}
                      </Table.Td>
                      <Table.Td className="tabular-nums">
                        <DateTime value={w.started_at} />
                      </Table.Td>
                    </Table.Tr>
                  ))}
                </Table.Tbody>
              </Table>
            </Table.ScrollContainer>
          )}
        </Stack>
      )}
    </Paper>
  );
}
