import { useState } from 'react';
import { useSearchParams } from 'react-router';
import {
  ActionIcon,
  Badge,
  Button,
  CloseButton,
  Group,
  Paper,
  Select,
  Stack,
  Switch,
  Tabs,
  Text,
  TextInput,
  Tooltip,
} from '@mantine/core';
import { useDebouncedValue } from '@mantine/hooks';
import { IconPlayerStopFilled, IconRefresh, IconSearch } from '@tabler/icons-react';
import { STUCK_AFTER_SECONDS, type Job, type JobPriority } from '@adam/contracts';
import { confirmAction } from '../../components/ConfirmDialog';
import { EmptyState, ErrorState, LoadingState } from '../../components/QueryState';
import { PageHeader } from '../../components/PageHeader';
import { toast } from '../../layout/toasts';
import { formatNumber } from '../../lib/format';
import { useRealtime } from '../../lib/realtime/RealtimeProvider';
import { FrontierModal } from './FrontierModal';
import { JobDetailDrawer } from './JobDetailDrawer';
import { JobErrorsModal } from './JobErrorsModal';
import { JobHistoryPanel } from './JobHistoryPanel';
import { JobTable, type JobTableHandlers } from './JobTable';
import {
  DEFAULT_JOB_REFRESH_SECONDS,
  JOB_REFRESH_SECONDS,
  JOB_TABS,
  useCancelJob,
  useCancelPendingJobs,
  useDeleteJob,
  useFindJobs,
  useJobList,
  useJobTabTotal,
  useRefreshJobs,
  useRelaunchJob,
  type JobTab,
} from './jobs.api';
import { ThroughputStrip } from './ThroughputStrip';
import { useCan } from '../../session/useCan';

const TAB_LABELS: Record<JobTab, string> = {
  active: 'Active',
  queue: 'Queue',
  history: 'History',
  stuck: 'Stuck',
};

const EMPTY_TEXT: Record<JobTab, { title: string; description: string }> = {
  active: {
    title: 'No active jobs',
    description: 'Jobs waiting for a worker or being processed appear here.',
  },
  queue: { title: 'The queue is empty', description: 'Pending jobs wait here for a worker.' },
  history: {
    title: 'No finished jobs yet',
    description: 'Completed, failed and cancelled jobs appear here.',
  },
  stuck: {
    title: 'No stuck jobs',
    description: `Processing jobs whose worker has not reported for ${STUCK_AFTER_SECONDS / 60} minutes appear here.`,
  },
};

const REFRESH_OPTIONS = JOB_REFRESH_SECONDS.map((s) => ({ value: String(s), label: `${s} s` }));

function TabLabel({
  tab,
  shown,
  refetchMs,
}: {
  tab: JobTab;
  shown: boolean;
  refetchMs: number | false;
}) {
  const { data: total } = useJobTabTotal(tab, shown, refetchMs);
  const alert = tab === 'stuck' && (total ?? 0) > 0;
  return (
    <Group gap={8} wrap="nowrap">
      <span>{TAB_LABELS[tab]}</span>
      <Badge
        size="sm"
        variant={shown ? 'filled' : 'light'}
        color={alert ? 'red' : shown ? 'indigo' : 'gray'}
        className="tabular-nums"
        data-testid={`tab-count-${tab}`}
        miw={28}
      >
        {total === undefined ? '–' : formatNumber(total)}
      </Badge>
    </Group>
  );
}

function JobTabPanel({
  tab,
  refetchMs,
  handlers,
}: {
  tab: JobTab;
  refetchMs: number | false;
  handlers: JobTableHandlers;
}) {
  const { data, isLoading, isError, error, refetch } = useJobList(
    tab,
    refetchMs,
    tab !== 'history',
  );
  if (tab === 'history') return <JobHistoryPanel refetchMs={refetchMs} handlers={handlers} />;
  if (isLoading) return <LoadingState rows={6} label="Loading jobs" />;
  if (isError) {
    return (
      <ErrorState
        title="Could not load the jobs"
        message={error.message}
        onRetry={() => void refetch()}
      />
    );
  }
  if (!data || data.jobs.length === 0) return <EmptyState {...EMPTY_TEXT[tab]} />;
  return (
    <Stack gap="xs">
      <JobTable jobs={data.jobs} {...handlers} />
      {data.total > data.jobs.length ? (
        <Text size="xs" c="dimmed" className="tabular-nums">
          Showing the latest {formatNumber(data.jobs.length)} of {formatNumber(data.total)} jobs.
          Find an older one by id or URL above.
        </Text>
      ) : null}
    </Stack>
  );
}

function FindResults({
  q,
  refetchMs,
  handlers,
  onClear,
}: {
  q: string;
  refetchMs: number | false;
  handlers: JobTableHandlers;
  onClear: () => void;
}) {
  const { data, isLoading, isError, error } = useFindJobs(q, refetchMs);
  return (
    <Paper withBorder radius="md" p="md" aria-label="Job search results">
      <Group justify="space-between" mb="sm">
        <Text fw={600} size="sm">
          Jobs matching “{q}”
          {data ? (
            <Text span c="dimmed" size="sm" className="tabular-nums">
              {' '}
              · {formatNumber(data.total)} found
            </Text>
          ) : null}
        </Text>
        <CloseButton aria-label="Clear the search" onClick={onClear} />
      </Group>
      {isLoading ? (
        <LoadingState rows={3} label="Searching jobs" />
      ) : isError ? (
        <ErrorState title="Job search failed" message={error.message} />
      ) : !data || data.jobs.length === 0 ? (
        <EmptyState title="No job matches" description="Search by job id or by part of a URL." />
      ) : (
        <JobTable jobs={data.jobs} {...handlers} />
      )}
    </Paper>
  );
}

/** Job Queue Management (spec 002 §2, §4): tabs, auto-refresh, per-job actions, live progress. */
export function JobQueueScreen() {
  const canWrite = useCan('operator');
  const [tab, setTab] = useState<JobTab>('active');
  const [autoRefresh, setAutoRefresh] = useState(true);
  const [refreshSeconds, setRefreshSeconds] = useState<number>(DEFAULT_JOB_REFRESH_SECONDS);
  // Opened from elsewhere with ?job_id=N (a maintenance result, a job link): that job is found.
  // ?job=N opens that job's detail: a link to it, and the back button closes it.
  const [params, setParams] = useSearchParams();
  const detailParam = Number(params.get('job'));
  const detailOf = Number.isSafeInteger(detailParam) && detailParam > 0 ? detailParam : null;
  const openDetail = (id: number | null) =>
    setParams((p) => {
      const next = new URLSearchParams(p);
      if (id === null) next.delete('job');
      else next.set('job', String(id));
      return next;
    });
  const [search, setSearch] = useState(params.get('job_id') ?? '');
  const [debouncedSearch] = useDebouncedValue(search.trim(), 300);
  const [errorsOf, setErrorsOf] = useState<number | null>(null);
  const [frontierOf, setFrontierOf] = useState<number | null>(null);
  const { connected } = useRealtime();

  const refetchMs = autoRefresh ? refreshSeconds * 1000 : false;
  const refreshJobs = useRefreshJobs();
  const cancel = useCancelJob();
  const relaunch = useRelaunchJob();
  const remove = useDeleteJob();
  const cancelPending = useCancelPendingJobs();

  const handlers: JobTableHandlers = {
    onCancel: (job: Job) =>
      cancel.mutate(job.id, { onSuccess: () => toast.success(`Job ${job.id} cancelled`) }),
    onRelaunch: (job: Job, priority: JobPriority) =>
      relaunch.mutate(
        { id: job.id, priority },
        {
          onSuccess: (r) =>
            toast.success(`Job ${job.id} relaunched as job ${r.job_id} (${priority} priority)`),
        },
      ),
    onDelete: (job: Job) =>
      confirmAction({
        title: `Delete job #${job.id}`,
        message:
          job.status === 'pending' || job.status === 'processing'
            ? `Job ${job.id} is ${job.status}: it will be cancelled, then its record deleted. Snippets it already created stay.`
            : `Delete the record of job ${job.id}? Snippets it created stay.`,
        confirmLabel: 'Delete job',
        danger: true,
        onConfirm: () =>
          remove.mutate(job.id, { onSuccess: () => toast.success(`Job ${job.id} deleted`) }),
      }),
    onViewErrors: (job: Job) => setErrorsOf(job.id),
    onViewFrontier: (job: Job) => setFrontierOf(job.id),
    onOpenDetail: (job: Job) => openDetail(job.id),
  };

  const onCancelPending = () =>
    confirmAction({
      title: 'Cancel all pending jobs',
      message: 'Every job still waiting for a worker will be cancelled. Running jobs continue.',
      confirmLabel: 'Cancel pending jobs',
      cancelLabel: 'Keep them',
      danger: true,
      onConfirm: () =>
        cancelPending.mutate(undefined, {
          onSuccess: (r) =>
            toast.success(
              r.cancelled === 0
                ? 'No pending job to cancel'
                : `Cancelled ${r.cancelled} pending job${r.cancelled === 1 ? '' : 's'}`,
            ),
        }),
    });

  return (
    <Stack gap="lg">
      <PageHeader
        title="Job Queue"
        description="Processing jobs: follow them live, cancel, relaunch, delete and inspect their errors."
      />

      <ThroughputStrip refetchMs={refetchMs} />

      <Group justify="space-between" gap="md">
        <TextInput
          aria-label="Find a job"
          placeholder="Find a job by id or URL"
          leftSection={<IconSearch size={16} />}
          value={search}
          onChange={(e) => setSearch(e.currentTarget.value)}
          rightSection={
            search ? <CloseButton aria-label="Clear" onClick={() => setSearch('')} /> : null
          }
          w={380}
        />
        <Group gap="sm">
          <Tooltip
            label={connected ? 'Progress is pushed live' : 'Live channel down: polling only'}
          >
            <Badge variant="dot" color={connected ? 'teal' : 'gray'}>
              {connected ? 'Live' : 'Polling'}
            </Badge>
          </Tooltip>
          <Switch
            label="Auto-refresh"
            checked={autoRefresh}
            onChange={(e) => setAutoRefresh(e.currentTarget.checked)}
          />
          <Select
            aria-label="Refresh interval"
            data={REFRESH_OPTIONS}
            value={String(refreshSeconds)}
            onChange={(v) => v && setRefreshSeconds(Number(v))}
            disabled={!autoRefresh}
            allowDeselect={false}
            w={84}
          />
          <Tooltip label="Refresh now">
            <ActionIcon
              variant="default"
              size="input-sm"
              aria-label="Refresh now"
              onClick={() => refreshJobs()}
            >
              <IconRefresh size={16} />
            </ActionIcon>
          </Tooltip>
          {canWrite ? (
            <Button
              color="red"
              variant="light"
              leftSection={<IconPlayerStopFilled size={14} />}
              onClick={onCancelPending}
              loading={cancelPending.isPending}
            >
              Cancel all pending
            </Button>
          ) : null}
        </Group>
      </Group>
      {debouncedSearch ? (
        <FindResults
          q={debouncedSearch}
          refetchMs={refetchMs}
          handlers={handlers}
          onClear={() => setSearch('')}
        />
      ) : null}

      <Paper withBorder radius="md" p="md">
        <Tabs value={tab} onChange={(v) => v && setTab(v as JobTab)} keepMounted={false}>
          <Tabs.List mb="md">
            {JOB_TABS.map((t) => (
              <Tabs.Tab key={t} value={t}>
                <TabLabel tab={t} shown={t === tab} refetchMs={refetchMs} />
              </Tabs.Tab>
            ))}
          </Tabs.List>
          {JOB_TABS.map((t) => (
            <Tabs.Panel key={t} value={t}>
              <JobTabPanel tab={t} refetchMs={refetchMs} handlers={handlers} />
            </Tabs.Panel>
          ))}
        </Tabs>
      </Paper>

      <JobErrorsModal jobId={errorsOf} onClose={() => setErrorsOf(null)} />
      <FrontierModal jobId={frontierOf} onClose={() => setFrontierOf(null)} />
      <JobDetailDrawer jobId={detailOf} onClose={() => openDetail(null)} />
    </Stack>
  );
}
