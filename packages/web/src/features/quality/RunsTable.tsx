import { useEffect, useRef } from 'react';
import { Badge, Button, Group, Stack, Table, Text } from '@mantine/core';
import { IconListDetails } from '@tabler/icons-react';
import type { EvaluationRun, ModeSummary } from '@adam/contracts';
import { JobProgress } from '../jobs/JobBadges';
import { isFinalStatus, useJob } from '../jobs/jobs.api';
import { isRunActive, useRefreshRuns } from './quality-runs.api';
import { describeState, formatMetric, formatMs, modeLabel } from './runRules';
import { DateTime } from '../../components/DateTime';

const STATUS_COLORS: Record<EvaluationRun['status'], string> = {
  pending: 'gray',
  running: 'blue',
  completed: 'teal',
  failed: 'red',
  cancelled: 'orange',
};

export function RunStatusBadge({ status }: { status: EvaluationRun['status'] }) {
  return (
    <Badge size="sm" variant="light" color={STATUS_COLORS[status]} miw="max-content">
      {status}
    </Badge>
  );
}

/** A run's figures per mode, one line each. */
export function SummaryTable({ summary }: { summary: readonly ModeSummary[] }) {
  return (
    <Table withRowBorders={false} verticalSpacing={2} horizontalSpacing="xs" fz="xs">
      <Table.Thead>
        <Table.Tr>
          <Table.Th>Mode</Table.Th>
          <Table.Th ta="right">nDCG@10</Table.Th>
          <Table.Th ta="right">R@10</Table.Th>
          <Table.Th ta="right">R@100</Table.Th>
          <Table.Th ta="right">MRR</Table.Th>
          <Table.Th ta="right">p50 / p95</Table.Th>
        </Table.Tr>
      </Table.Thead>
      <Table.Tbody>
        {summary.map((m) => (
          <Table.Tr key={m.mode}>
            <Table.Td>{modeLabel(m.mode)}</Table.Td>
            <Table.Td ta="right" className="tabular-nums" fw={600}>
              {formatMetric(m.ndcg_10)}
            </Table.Td>
            <Table.Td ta="right" className="tabular-nums">
              {formatMetric(m.recall_10)}
            </Table.Td>
            <Table.Td ta="right" className="tabular-nums">
              {formatMetric(m.recall_100)}
            </Table.Td>
            <Table.Td ta="right" className="tabular-nums">
              {formatMetric(m.mrr)}
            </Table.Td>
            <Table.Td ta="right" className="tabular-nums" style={{ whiteSpace: 'nowrap' }}>
              {formatMs(m.latency_p50_ms)} / {formatMs(m.latency_p95_ms)}
            </Table.Td>
          </Table.Tr>
        ))}
      </Table.Tbody>
    </Table>
  );
}

/**
 * A going run's job, followed as the Jobs area follows one: job_progress patches the cached job
 * (the realtime table), a slow poll covers a closed socket; when it ends the runs are read again.
 */
function RunJobProgress({
  run,
  onOpenJob,
}: {
  run: EvaluationRun;
  onOpenJob: (id: number) => void;
}) {
  const job = useJob(run.job_id);
  const refreshRuns = useRefreshRuns();
  const ended = useRef(false);
  useEffect(() => {
    if (!job.data || ended.current || !isFinalStatus(job.data.status)) return;
    ended.current = true;
    refreshRuns();
  }, [job.data, refreshRuns]);
  if (run.job_id === null) return null;
  return (
    <Group gap="xs" wrap="nowrap" miw={220}>
      <div style={{ flex: 1 }}>
        {job.data ? <JobProgress job={job.data} /> : <Text size="xs">Queued</Text>}
      </div>
      <Button
        size="compact-xs"
        variant="subtle"
        leftSection={<IconListDetails size={12} />}
        onClick={(e) => {
          e.stopPropagation();
          onOpenJob(run.job_id!);
        }}
      >
        Job #{run.job_id}
      </Button>
    </Group>
  );
}

/** The set's runs, newest first; a row opens the run's per-query detail. */
export function RunsTable({
  runs,
  onOpenRun,
  onOpenJob,
}: {
  runs: readonly EvaluationRun[];
  onOpenRun: (id: number) => void;
  onOpenJob: (id: number) => void;
}) {
  return (
    <Table.ScrollContainer minWidth={900}>
      <Table highlightOnHover verticalSpacing="sm" aria-label="Runs">
        <Table.Thead>
          <Table.Tr>
            <Table.Th>Run</Table.Th>
            <Table.Th>Status</Table.Th>
            <Table.Th>Trigger</Table.Th>
            <Table.Th>Version</Table.Th>
            <Table.Th>Figures per mode</Table.Th>
            <Table.Th>Ran on</Table.Th>
          </Table.Tr>
        </Table.Thead>
        <Table.Tbody>
          {runs.map((run) => (
            <Table.Tr
              key={run.id}
              data-testid="run-row"
              style={{ cursor: 'pointer', verticalAlign: 'top' }}
              onClick={() => onOpenRun(run.id)}
            >
              <Table.Td>
                <Stack gap={0}>
                  <Text fw={700} className="tabular-nums">
                    #{run.id}
                  </Text>
                  <Text size="xs" c="dimmed" style={{ whiteSpace: 'nowrap' }}>
                    <DateTime value={run.ended_at ?? run.created_at} />
                  </Text>
                </Stack>
              </Table.Td>
              <Table.Td>
                <Stack gap={4}>
                  <RunStatusBadge status={run.status} />
                  {isRunActive(run) ? <RunJobProgress run={run} onOpenJob={onOpenJob} /> : null}
                </Stack>
              </Table.Td>
              <Table.Td>
                <Text size="sm">{run.trigger}</Text>
              </Table.Td>
              <Table.Td className="tabular-nums">v{run.version}</Table.Td>
              <Table.Td>
                {run.summary.length > 0 ? (
                  <SummaryTable summary={run.summary} />
                ) : run.error ? (
                  <Text size="sm" c="red" lineClamp={3}>
                    {run.error}
                  </Text>
                ) : (
                  <Text size="sm" c="dimmed">
                    {run.modes.map(modeLabel).join(', ')}
                  </Text>
                )}
              </Table.Td>
              <Table.Td maw={260}>
                {run.state ? (
                  <Text size="xs" c="dimmed">
                    {describeState(run.state)}
                  </Text>
                ) : (
                  <Text size="xs" c="dimmed">
                    -
                  </Text>
                )}
              </Table.Td>
            </Table.Tr>
          ))}
        </Table.Tbody>
      </Table>
    </Table.ScrollContainer>
  );
}
