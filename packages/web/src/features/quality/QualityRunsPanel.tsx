import { useState } from 'react';
import { useSearchParams } from 'react-router';
import { Button, Checkbox, Group, Paper, Select, Stack, Text } from '@mantine/core';
import { IconPlayerPlay } from '@tabler/icons-react';
import { EVALUATION_MODES, type EvaluationMode } from '@adam/contracts';
import { EmptyState, ErrorState, LoadingState } from '../../components/QueryState';
import { toast } from '../../layout/toasts';
import { useCan } from '../../session/useCan';
import { JobDetailDrawer } from '../jobs/JobDetailDrawer';
import { useSetVersions } from './quality.api';
import {
  DEFAULT_RUN_MODES,
  startRunProblem,
  useEvaluationRuns,
  useStartRun,
} from './quality-runs.api';
import { RunCompare } from './RunCompare';
import { RunDetailDrawer } from './RunDetailDrawer';
import { RunHistoryChart } from './RunHistoryChart';
import { RunsTable } from './RunsTable';
import { modeLabel } from './runRules';

const WHAT_A_RUN_DOES =
  'A run searches every query of this set in each mode you pick and scores the results against the judgments: nDCG@10, recall@10 and @100, MRR and p50/p95 latency, per query and overall, stored with the state it ran on (embedder, index, fusion weight, snippet count). Two runs compare side by side.';

const LATEST = 'latest';

/** Modes and version of a new run; the run is a job whose progress shows in the list. */
function StartRunForm({ setId }: { setId: number }) {
  const [modes, setModes] = useState<string[]>([...DEFAULT_RUN_MODES]);
  const [version, setVersion] = useState<string>(LATEST);
  const versions = useSetVersions(setId);
  const start = useStartRun();
  const body = {
    set_id: setId,
    modes: modes as EvaluationMode[],
    ...(version === LATEST ? {} : { version: Number(version) }),
  };
  const problem = startRunProblem(body);
  const list = versions.data?.versions ?? [];
  const latest = list[0] ?? null;
  const versionOptions = [
    { value: LATEST, label: latest ? `Latest (v${latest.number})` : 'Latest' },
    ...list.map((v) => ({
      value: String(v.number),
      label: `v${v.number} · ${v.query_count} queries · ${v.change}`,
    })),
  ];

  return (
    <Paper withBorder radius="md" p="md" aria-label="Start a run">
      <Group align="flex-end" gap="lg" wrap="wrap">
        <Checkbox.Group
          label="Modes"
          value={modes}
          onChange={setModes}
          error={problem && modes.length > 0 ? problem : undefined}
        >
          <Group gap="md" mt={6}>
            {EVALUATION_MODES.map((m) => (
              <Checkbox key={m} value={m} label={modeLabel(m)} />
            ))}
          </Group>
        </Checkbox.Group>
        <Select
          label="Version"
          data={versionOptions}
          value={version}
          onChange={(v) => setVersion(v ?? LATEST)}
          allowDeselect={false}
          w={280}
          comboboxProps={{ withinPortal: true }}
        />
        <Button
          leftSection={<IconPlayerPlay size={16} />}
          disabled={problem !== null}
          loading={start.isPending}
          onClick={() =>
            start.mutate(body, {
              onSuccess: (run) =>
                toast.success(
                  `Run #${run.id} started${run.job_id === null ? '' : ` as job ${run.job_id}`}`,
                ),
            })
          }
        >
          Start run
        </Button>
      </Group>
      {modes.length === 0 ? (
        <Text size="xs" c="red" mt={4}>
          Pick at least one mode.
        </Text>
      ) : null}
      {start.isError ? (
        <Text size="sm" c="red" mt="xs" role="alert">
          Could not start the run: {start.error.message}
        </Text>
      ) : null}
    </Paper>
  );
}

/**
 * The runs of an evaluation set (issue 27): start one, follow it, the list with its figures and
 * the state it ran on, the figures over time, a run's per-query detail (?run=N) and two runs
 * compared.
 */
export function QualityRunsPanel({ setId }: { setId: number }) {
  const canRun = useCan('operator');
  const runs = useEvaluationRuns(setId);
  const start = useStartRun();
  const [params, setParams] = useSearchParams();
  const runParam = Number(params.get('run'));
  const openRunId = Number.isSafeInteger(runParam) && runParam > 0 ? runParam : null;
  const [jobId, setJobId] = useState<number | null>(null);
  const openRun = (id: number | null) =>
    setParams((p) => {
      const next = new URLSearchParams(p);
      if (id === null) next.delete('run');
      else next.set('run', String(id));
      return next;
    });

  let body;
  if (runs.isError) {
    body = (
      <ErrorState
        title="Could not load the runs"
        message={runs.error.message}
        onRetry={() => void runs.refetch()}
      />
    );
  } else if (runs.isPending) {
    body = <LoadingState rows={4} label="Loading the runs" />;
  } else if (runs.data.length === 0) {
    body = (
      <EmptyState
        title="No runs yet"
        description={WHAT_A_RUN_DOES}
        action={
          canRun ? (
            <Button
              mt="xs"
              leftSection={<IconPlayerPlay size={16} />}
              loading={start.isPending}
              onClick={() =>
                start.mutate(
                  { set_id: setId, modes: [...DEFAULT_RUN_MODES] },
                  { onSuccess: (run) => toast.success(`Run #${run.id} started`) },
                )
              }
            >
              Start a run ({DEFAULT_RUN_MODES.map(modeLabel).join(', ')})
            </Button>
          ) : null
        }
      />
    );
  } else {
    body = (
      <Stack gap="md">
        <RunsTable runs={runs.data} onOpenRun={openRun} onOpenJob={setJobId} />
        <RunHistoryChart runs={runs.data} />
        <RunCompare runs={runs.data} />
      </Stack>
    );
  }

  return (
    <Stack gap="md" aria-label="Runs">
      <Stack gap={0}>
        <Text fw={700} size="lg">
          Runs
        </Text>
        <Text size="sm" c="dimmed">
          Scores of this set against the live index, per search mode.
        </Text>
      </Stack>
      {canRun ? <StartRunForm setId={setId} /> : null}
      {start.isError && runs.data?.length === 0 ? (
        <Text size="sm" c="red" role="alert">
          Could not start the run: {start.error.message}
        </Text>
      ) : null}
      {body}
      <RunDetailDrawer runId={openRunId} onClose={() => openRun(null)} />
      <JobDetailDrawer jobId={jobId} onClose={() => setJobId(null)} />
    </Stack>
  );
}
