import { useMemo, useState } from 'react';
import {
  Badge,
  Drawer,
  Group,
  ScrollArea,
  SegmentedControl,
  Stack,
  Table,
  Text,
  UnstyledButton,
} from '@mantine/core';
import { IconArrowDown, IconArrowUp } from '@tabler/icons-react';
import type { EvaluationRun, EvaluationMode } from '@adam/contracts';
import { EmptyState, ErrorState, LoadingState } from '../../components/QueryState';
import { useEvaluationRun, useRunResults } from './quality-runs.api';
import { RunStatusBadge, SummaryTable } from './RunsTable';
import { describeState, formatMetric, formatMs, modeLabel } from './runRules';
import { DateTime } from '../../components/DateTime';

type Sort = 'asc' | 'desc';

function ResultsTable({ run }: { run: EvaluationRun }) {
  const [mode, setMode] = useState<EvaluationMode | 'all'>('all');
  // Worst first: the queries to look at.
  const [sort, setSort] = useState<Sort>('asc');
  const results = useRunResults(run.id, mode === 'all' ? null : mode, run.status === 'completed');
  const rows = useMemo(
    () =>
      (results.data ?? [])
        .slice()
        .sort((a, b) => (sort === 'asc' ? a.ndcg_10 - b.ndcg_10 : b.ndcg_10 - a.ndcg_10)),
    [results.data, sort],
  );

  if (run.status !== 'completed') {
    return (
      <Text size="sm" c="dimmed">
        Per-query results show once the run has completed.
      </Text>
    );
  }
  return (
    <Stack gap="xs">
      <Group justify="space-between">
        <Text fw={700}>Per query</Text>
        <SegmentedControl
          size="xs"
          aria-label="Results mode"
          value={mode}
          onChange={(v) => setMode(v as EvaluationMode | 'all')}
          data={[
            { value: 'all', label: 'All modes' },
            ...run.modes.map((m) => ({ value: m, label: modeLabel(m) })),
          ]}
        />
      </Group>
      {results.isError ? (
        <ErrorState
          title="Could not load the results"
          message={results.error.message}
          onRetry={() => void results.refetch()}
        />
      ) : results.isPending ? (
        <LoadingState rows={6} label="Loading the results" />
      ) : rows.length === 0 ? (
        <EmptyState title="No results" description="This run scored no query in this mode." />
      ) : (
        <ScrollArea.Autosize mah="60vh">
          <Table striped highlightOnHover stickyHeader aria-label={`Results of run ${run.id}`}>
            <Table.Thead>
              <Table.Tr>
                <Table.Th>Query</Table.Th>
                <Table.Th>Mode</Table.Th>
                <Table.Th ta="right" aria-sort={sort === 'asc' ? 'ascending' : 'descending'}>
                  <UnstyledButton
                    onClick={() => setSort(sort === 'asc' ? 'desc' : 'asc')}
                    aria-label={`Sort by nDCG@10 ${sort === 'asc' ? 'descending' : 'ascending'}`}
                  >
                    <Group gap={2} justify="flex-end" wrap="nowrap">
                      <Text size="sm" fw={700}>
                        nDCG@10
                      </Text>
                      {sort === 'asc' ? <IconArrowUp size={14} /> : <IconArrowDown size={14} />}
                    </Group>
                  </UnstyledButton>
                </Table.Th>
                <Table.Th ta="right">R@10</Table.Th>
                <Table.Th ta="right">R@100</Table.Th>
                <Table.Th ta="right">MRR</Table.Th>
                <Table.Th ta="right">Latency</Table.Th>
              </Table.Tr>
            </Table.Thead>
            <Table.Tbody>
              {rows.map((r) => (
                <Table.Tr key={`${r.key}-${r.mode}`} data-testid="run-result">
                  <Table.Td maw={320}>
                    <Text size="sm" lineClamp={2} title={r.text}>
                      {r.text}
                    </Text>
                  </Table.Td>
                  <Table.Td>
                    <Text size="sm">{modeLabel(r.mode)}</Text>
                  </Table.Td>
                  <Table.Td ta="right" className="tabular-nums">
                    {formatMetric(r.ndcg_10)}
                  </Table.Td>
                  <Table.Td ta="right" className="tabular-nums">
                    {formatMetric(r.recall_10)}
                  </Table.Td>
                  <Table.Td ta="right" className="tabular-nums">
                    {formatMetric(r.recall_100)}
                  </Table.Td>
                  <Table.Td ta="right" className="tabular-nums">
                    {formatMetric(r.mrr)}
                  </Table.Td>
                  <Table.Td ta="right" className="tabular-nums">
                    {formatMs(r.latency_ms)}
                  </Table.Td>
                </Table.Tr>
              ))}
            </Table.Tbody>
          </Table>
        </ScrollArea.Autosize>
      )}
    </Stack>
  );
}

/** One run: its state and summary, then every query's figures (opened by ?run=N). */
export function RunDetailDrawer({ runId, onClose }: { runId: number | null; onClose: () => void }) {
  const run = useEvaluationRun(runId);
  return (
    <Drawer
      opened={runId !== null}
      onClose={onClose}
      position="right"
      size="xl"
      title={<Text fw={700}>Run #{runId}</Text>}
    >
      {run.isError ? (
        <ErrorState
          title="Could not load the run"
          message={run.error.message}
          onRetry={() => void run.refetch()}
        />
      ) : run.isPending ? (
        <LoadingState rows={6} label="Loading the run" />
      ) : (
        <Stack gap="md">
          <Group gap="xs">
            <RunStatusBadge status={run.data.status} />
            <Badge variant="outline" color="gray">
              {run.data.trigger}
            </Badge>
            <Text size="sm">
              {run.data.set_name} · version {run.data.version}
            </Text>
            <Text size="sm" c="dimmed">
              <DateTime value={run.data.ended_at ?? run.data.created_at} />
            </Text>
          </Group>
          {run.data.state ? (
            <Text size="sm" c="dimmed">
              Ran on {describeState(run.data.state)}
            </Text>
          ) : null}
          {run.data.error ? (
            <Text size="sm" c="red">
              {run.data.error}
            </Text>
          ) : null}
          {run.data.summary.length > 0 ? <SummaryTable summary={run.data.summary} /> : null}
          <ResultsTable run={run.data} />
        </Stack>
      )}
    </Drawer>
  );
}
