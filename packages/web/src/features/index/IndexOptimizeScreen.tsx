import { useEffect, useRef, useState, type ReactNode } from 'react';
import { Link } from 'react-router';
import {
  Alert,
  Anchor,
  Badge,
  Button,
  Group,
  Modal,
  Paper,
  Progress,
  SimpleGrid,
  Skeleton,
  Stack,
  Text,
  ThemeIcon,
  Title,
} from '@mantine/core';
import { IconAlertTriangle, IconCheck, IconHammer, IconRocket } from '@tabler/icons-react';
import type { Job, MaintenanceResult } from '@adam/contracts';
import { confirmAction } from '../../components/ConfirmDialog';
import { PageHeader } from '../../components/PageHeader';
import { formatDate, formatNumber } from '../../lib/format';
import { tabHref } from '../../navigation/tabRegistry';
import { toast } from '../../layout/toasts';
import { jobCounts, useMaintenanceJob } from '../maintenance/maintenance.api';
import { JobSegmentProgress } from '../jobs/JobBadges';
import { useIndexStats, useStartIndexJob, type IndexJobAction } from './index.api';
import { INDEX_MESSAGES } from './messages';
import { useFakeProgress } from './useFakeProgress';
import { useCan } from '../../session/useCan';

type IndexAction = IndexJobAction;
type Phase = 'running' | 'done' | 'failed';

const ACTIONS: Record<
  IndexAction,
  { title: string; button: string; description: string; icon: ReactNode; color: string }
> = {
  optimize_index: {
    title: 'Optimize Index',
    button: 'Optimize',
    description:
      'Compacts the vector graph from the stored embeddings: removes the holes deletions left and restores search speed. Snippets are not re-embedded.',
    icon: <IconRocket size={20} />,
    color: 'indigo',
  },
  rebuild_index: {
    title: 'Rebuild Index',
    button: 'Rebuild',
    description:
      'Re-embeds every snippet with the active embedder and builds the index again from scratch. Searches return fewer results until it finishes.',
    icon: <IconHammer size={20} />,
    color: 'orange',
  },
};

interface Run {
  action: IndexAction;
  phase: Phase;
  result: MaintenanceResult | null;
  error: string | null;
}

function seconds(job: Job | undefined): string | null {
  if (!job?.started_at || !job.completed_at) return null;
  const ms = new Date(job.completed_at).getTime() - new Date(job.started_at).getTime();
  return Number.isFinite(ms) ? `${(ms / 1000).toFixed(1)} s` : null;
}

function Counts({ counts }: { counts: Record<string, number> }) {
  const entries = Object.entries(counts);
  if (!entries.length) return null;
  return (
    <Group gap="xs">
      {entries.map(([key, value]) => (
        <Badge key={key} variant="light" color="gray" radius="sm" className="tabular-nums">
          {key.replace(/_/g, ' ')}: {formatNumber(value)}
        </Badge>
      ))}
    </Group>
  );
}

function RunReport({ run, job, progress }: { run: Run; job: Job | undefined; progress: number }) {
  const jobId = run.result?.job_id ?? null;
  return (
    <Stack gap="md">
      <Stack gap={6}>
        <Group justify="space-between">
          <Text size="sm" fw={600}>
            {run.phase === 'done'
              ? 'Completed'
              : run.phase === 'failed'
                ? 'Failed'
                : job?.stage || 'Working…'}
          </Text>
          <Text
            size="sm"
            fw={700}
            className="tabular-nums"
            aria-live="polite"
            data-testid="optimize-progress"
          >
            {progress}%
          </Text>
        </Group>
        <Progress
          value={progress}
          size="lg"
          radius="xl"
          color={run.phase === 'failed' ? 'red' : run.phase === 'done' ? 'teal' : 'indigo'}
          animated={run.phase === 'running'}
          aria-label="Optimization progress"
        />
      </Stack>

      {jobId !== null ? (
        <JobSegmentProgress
          jobId={jobId}
          label="Snippets re-indexed"
          jobStage={job?.stage}
          showStage
        />
      ) : null}

      {run.result ? (
        <Text size="sm">
          {run.result.message}
          {jobId !== null ? (
            <>
              {' · '}
              <Anchor component={Link} to={tabHref('sources-queue', { job_id: jobId })} size="sm">
                job #{jobId}
              </Anchor>
            </>
          ) : null}
        </Text>
      ) : null}

      {run.phase === 'done' ? (
        <Alert color="teal" variant="light" icon={<IconCheck size={18} />} title="Index ready">
          <Stack gap="xs">
            <Counts
              counts={{ ...(jobId === null ? (run.result?.counts ?? {}) : jobCounts(job)) }}
            />
            {seconds(job) ? (
              <Text size="xs" c="dimmed">
                Took {seconds(job)}
              </Text>
            ) : null}
          </Stack>
        </Alert>
      ) : null}

      {run.phase === 'failed' ? (
        <Alert
          color="red"
          variant="light"
          icon={<IconAlertTriangle size={18} />}
          title={INDEX_MESSAGES.optimizeFailed}
        >
          {run.error}
        </Alert>
      ) : null}
    </Stack>
  );
}

/**
 * Optimize Index (spec 002 §2, §4): optimize or rebuild, both run as a job on the server. The
 * modal shows the spec's simulated progress (10% rising 10 every 500 ms up to 90) while the job
 * runs, then 100% and the real result.
 */
export function IndexOptimizeScreen() {
  const canWrite = useCan('operator');
  const stats = useIndexStats();
  const execute = useStartIndexJob();
  const progress = useFakeProgress();
  const [run, setRun] = useState<Run | null>(null);
  const [opened, setOpened] = useState(false);
  const jobId = run?.result?.job_id ?? null;
  const job = useMaintenanceJob(jobId);
  const jobStatus = job.data?.status;

  // The real end of the job decides, once per job: completed → 100%, failed or cancelled → the
  // error.
  const { complete, halt } = progress;
  const failure = job.data?.errors[0]?.message ?? null;
  const settled = useRef<number | null>(null);
  useEffect(() => {
    if (jobId === null || settled.current === jobId) return;
    if (jobStatus === 'completed') {
      settled.current = jobId;
      complete();
      setRun((r) => (r && r.phase === 'running' ? { ...r, phase: 'done' } : r));
    } else if (jobStatus === 'failed' || jobStatus === 'cancelled') {
      settled.current = jobId;
      halt();
      toast.error(INDEX_MESSAGES.optimizeFailed);
      const reason = failure ?? (jobStatus === 'cancelled' ? 'The job was cancelled.' : null);
      setRun((r) => (r && r.phase === 'running' ? { ...r, phase: 'failed', error: reason } : r));
    }
  }, [jobId, jobStatus, failure, complete, halt]);

  const start = (action: IndexAction) => {
    setRun({ action, phase: 'running', result: null, error: null });
    setOpened(true);
    progress.start();
    execute.mutate(action, {
      onSuccess: (result) => {
        setRun((r) => (r ? { ...r, result } : r));
        // An answer without a job is already the real result.
        if (result.job_id === null) {
          progress.complete();
          setRun((r) => (r ? { ...r, phase: 'done' } : r));
        }
      },
      onError: (error) => {
        progress.halt();
        setRun((r) => (r ? { ...r, phase: 'failed', error: error.message } : r));
      },
    });
  };

  const request = (action: IndexAction) => {
    if (action === 'rebuild_index') {
      confirmAction({
        title: 'Rebuild the index?',
        message:
          'Every snippet is re-embedded and the index is built again from scratch. Searches return fewer results until the job finishes.',
        confirmLabel: 'Rebuild',
        danger: true,
        onConfirm: () => start(action),
      });
    } else {
      start(action);
    }
  };

  const running = run?.phase === 'running';
  const s = stats.data;

  return (
    <Stack gap="lg">
      <PageHeader title="Optimize Index" description="Keep the vector index compact and fast." />

      <Paper withBorder radius="md" p="md" aria-label="Current index">
        <Title order={4} mb="sm">
          Current index
        </Title>
        <SimpleGrid cols={{ base: 2, md: 4 }}>
          {[
            ['Vectors', s ? formatNumber(s.total_vectors) : null],
            ['Size', s ? `${formatNumber(s.index_size_mb, 2)} MB` : null],
            [
              'Last optimized',
              s ? (s.last_optimized ? formatDate(s.last_optimized) : 'Never') : null,
            ],
            ['Embedder', s ? s.embedder : null],
          ].map(([label, value]) => (
            <Stack key={label} gap={2}>
              <Text size="xs" c="dimmed" tt="uppercase" fw={700}>
                {label}
              </Text>
              {value === null ? (
                <Skeleton height={24} width="70%" />
              ) : (
                <Text fz="lg" fw={600} className="tabular-nums">
                  {value}
                </Text>
              )}
            </Stack>
          ))}
        </SimpleGrid>
        {stats.isError ? (
          <Text size="xs" c="red" mt="xs">
            {INDEX_MESSAGES.statsFailed}
          </Text>
        ) : null}
      </Paper>

      <SimpleGrid cols={{ base: 1, md: 2 }}>
        {(Object.keys(ACTIONS) as IndexAction[]).map((action) => {
          const a = ACTIONS[action];
          return (
            <Paper key={action} withBorder radius="md" p="md">
              <Stack gap="sm" h="100%" justify="space-between">
                <Group gap="sm" wrap="nowrap" align="flex-start">
                  <ThemeIcon size={38} radius="md" variant="light" color={a.color}>
                    {a.icon}
                  </ThemeIcon>
                  <div>
                    <Title order={4}>{a.title}</Title>
                    <Text size="sm" c="dimmed">
                      {a.description}
                    </Text>
                  </div>
                </Group>
                <Group justify="flex-end" display={canWrite ? undefined : 'none'}>
                  <Button
                    color={a.color}
                    onClick={() => request(action)}
                    disabled={running}
                    loading={running && run?.action === action}
                  >
                    {a.button}
                  </Button>
                </Group>
              </Stack>
            </Paper>
          );
        })}
      </SimpleGrid>

      {run && !opened ? (
        <Paper withBorder radius="md" p="md" aria-label="Last run">
          <Group justify="space-between" mb="sm">
            <Title order={5}>Last run: {ACTIONS[run.action].title}</Title>
            <Button variant="subtle" size="xs" onClick={() => setOpened(true)}>
              Details
            </Button>
          </Group>
          <RunReport run={run} job={job.data} progress={progress.value ?? 0} />
        </Paper>
      ) : null}

      <Modal
        opened={opened && run !== null}
        onClose={() => setOpened(false)}
        title={run ? ACTIONS[run.action].title : ''}
        size="lg"
        centered
      >
        {run ? (
          <Stack gap="md">
            <RunReport run={run} job={job.data} progress={progress.value ?? 0} />
            <Group justify="flex-end">
              <Button variant={running ? 'default' : 'filled'} onClick={() => setOpened(false)}>
                {running ? 'Hide (keeps running)' : 'Close'}
              </Button>
            </Group>
          </Stack>
        ) : null}
      </Modal>
    </Stack>
  );
}
