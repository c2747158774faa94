import { Link } from 'react-router';
import {
  Anchor,
  Badge,
  Button,
  Code,
  Drawer,
  Group,
  Paper,
  SimpleGrid,
  Stack,
  Table,
  Text,
  Title,
} from '@mantine/core';
import { IconFileText } from '@tabler/icons-react';
import type { JobDetail, UrlOutcomeStatus } from '@adam/contracts';
import { tabHref } from '../../navigation/tabRegistry';
import { EmptyState, ErrorState, LoadingState } from '../../components/QueryState';
import { formatDate, formatNumber } from '../../lib/format';
import { JobPriorityBadge, JobProgress, JobSegmentProgress, JobStatusBadge } from './JobBadges';
import { jobTypeLabel } from './jobTypes';
import { useJobDetail } from './jobs.api';

/** 950 ms, 12.4 s, 3 min 5 s, 2 h 4 min: a duration an operator reads at a glance. */
function formatDuration(ms: number | null): string {
  if (ms === null) return '-';
  if (ms < 1000) return `${Math.round(ms)} ms`;
  const s = ms / 1000;
  if (s < 60) return `${s.toFixed(1)} s`;
  const m = Math.floor(s / 60);
  if (m < 60) return `${m} min ${Math.round(s % 60)} s`;
  return `${Math.floor(m / 60)} h ${m % 60} min`;
}

const OUTCOME_COLOR: Record<UrlOutcomeStatus, string> = {
  ok: 'teal',
  failed: 'red',
  skipped: 'gray',
  pending: 'blue',
};

function Figure({ label, value }: { label: string; value: React.ReactNode }) {
  return (
    <Stack gap={0}>
      <Text size="xs" c="dimmed">
        {label}
      </Text>
      <Text size="sm" className="tabular-nums" style={{ overflowWrap: 'anywhere' }}>
        {value}
      </Text>
    </Stack>
  );
}

/** The job's own figures (stats) that are plain values, as label/value pairs. */
function statEntries(stats: Record<string, unknown>): [string, string][] {
  return Object.entries(stats)
    .filter(([, v]) => v !== null && (typeof v === 'number' || typeof v === 'string'))
    .map(([k, v]) => [k.replace(/_/g, ' '), typeof v === 'number' ? formatNumber(v) : String(v)]);
}

function DetailBody({ d }: { d: JobDetail }) {
  const { job } = d;
  const stats = statEntries(job.stats);
  return (
    <Stack gap="md">
      <Group gap="xs">
        <JobStatusBadge status={job.status} />
        <JobPriorityBadge priority={job.priority} />
        <Text size="sm" fw={600} data-testid="job-type">
          {jobTypeLabel(job)}
        </Text>
        <Code>{job.type}</Code>
        {job.stage ? (
          <Text size="sm" c="dimmed">
            {job.stage}
          </Text>
        ) : null}
      </Group>
      <JobProgress job={job} />
      <JobSegmentProgress jobId={job.id} jobStage={job.stage} showStage />

      <SimpleGrid cols={{ base: 2, sm: 3 }} spacing="sm">
        <Figure label="Queued by" value={d.queued_by ?? 'Not recorded'} />
        <Figure label="Created" value={formatDate(job.created_at)} />
        <Figure label="Started" value={formatDate(job.started_at)} />
        <Figure label="Ended" value={formatDate(d.ended_at)} />
        <Figure label="Waited in queue" value={formatDuration(d.durations.queued_ms)} />
        <Figure label="Ran for" value={formatDuration(d.durations.run_ms)} />
        <Figure label="Total" value={formatDuration(d.durations.total_ms)} />
        <Figure label="Worker" value={job.worker_id ?? '-'} />
        <Figure label="Attempts" value={job.attempts} />
      </SimpleGrid>

      <Group justify="space-between">
        <Text size="sm">
          <Text span fw={600} className="tabular-nums">
            {formatNumber(d.snippets_count)}
          </Text>{' '}
          snippet{d.snippets_count === 1 ? '' : 's'} stored by this job
        </Text>
        <Button
          component={Link}
          to={tabHref('sources-snippets', { job_id: job.id })}
          variant="light"
          size="xs"
          leftSection={<IconFileText size={14} />}
        >
          View snippets
        </Button>
      </Group>

      {stats.length > 0 ? (
        <Paper withBorder p="sm" radius="md">
          <Title order={6} mb="xs">
            Stats
          </Title>
          <SimpleGrid cols={{ base: 2, sm: 3 }} spacing="xs">
            {stats.map(([k, v]) => (
              <Figure key={k} label={k} value={v} />
            ))}
          </SimpleGrid>
        </Paper>
      ) : null}

      {d.result ? (
        <Paper withBorder p="sm" radius="md">
          <Title order={6} mb="xs">
            Result
          </Title>
          <Code block style={{ maxHeight: 160, overflow: 'auto' }}>
            {JSON.stringify(d.result, null, 2)}
          </Code>
        </Paper>
      ) : null}

      <Stack gap="xs">
        <Group justify="space-between">
          <Title order={6}>URLs</Title>
          <Group gap={6}>
            {(['ok', 'failed', 'skipped', 'pending'] as const).map((s) =>
              d.url_counts[s] > 0 ? (
                <Badge key={s} color={OUTCOME_COLOR[s]} variant="light" className="tabular-nums">
                  {formatNumber(d.url_counts[s])} {s}
                </Badge>
              ) : null,
            )}
          </Group>
        </Group>
        {d.url_outcomes.length === 0 ? (
          <Text size="sm" c="dimmed">
            This job has no URLs or files.
          </Text>
        ) : (
          <Table.ScrollContainer minWidth={480} maxHeight={420}>
            <Table verticalSpacing={4} fz="xs" stickyHeader aria-label="URL outcomes">
              <Table.Thead>
                <Table.Tr>
                  <Table.Th>URL</Table.Th>
                  <Table.Th w={80}>Outcome</Table.Th>
                  <Table.Th w={70} ta="right">
                    Snippets
                  </Table.Th>
                </Table.Tr>
              </Table.Thead>
              <Table.Tbody>
                {d.url_outcomes.map((o) => (
                  <Table.Tr key={o.url} data-testid="url-outcome">
                    <Table.Td style={{ overflowWrap: 'anywhere' }}>
                      <Anchor
                        href={o.url}
                        target="_blank"
                        rel="noreferrer"
                        size="xs"
                        ff="monospace"
                      >
                        {o.url}
                      </Anchor>
                      {o.reason ? (
                        <Text size="xs" c={o.status === 'failed' ? 'red' : 'dimmed'}>
                          {o.reason}
                        </Text>
                      ) : null}
                    </Table.Td>
                    <Table.Td>
                      <Badge size="xs" color={OUTCOME_COLOR[o.status]} variant="light">
                        {o.status}
                      </Badge>
                    </Table.Td>
                    <Table.Td ta="right" className="tabular-nums">
                      {o.status === 'ok' ? formatNumber(o.snippets) : '-'}
                    </Table.Td>
                  </Table.Tr>
                ))}
              </Table.Tbody>
            </Table>
          </Table.ScrollContainer>
        )}
        {d.url_outcomes_left_out > 0 ? (
          <Text size="xs" c="dimmed" className="tabular-nums">
            {formatNumber(d.url_outcomes_left_out)} more URLs not listed (failures are listed
            first).
          </Text>
        ) : null}
      </Stack>
    </Stack>
  );
}

/** A job's detail in a side panel; its id is in the address (?job=N), so a link opens it. */
export function JobDetailDrawer({ jobId, onClose }: { jobId: number | null; onClose: () => void }) {
  const { data, isLoading, isError, error, refetch } = useJobDetail(jobId);
  const notFound = isError && /not found/i.test(error.message);
  return (
    <Drawer
      opened={jobId !== null}
      onClose={onClose}
      position="right"
      size="lg"
      title={<Text fw={700}>Job #{jobId}</Text>}
    >
      {isLoading ? (
        <LoadingState rows={6} label="Loading the job" />
      ) : notFound ? (
        <EmptyState
          title="Job not found"
          description={`Job ${jobId} does not exist (it may have been deleted or cleared).`}
        />
      ) : isError ? (
        <ErrorState
          title="Could not load the job"
          message={error.message}
          onRetry={() => void refetch()}
        />
      ) : data ? (
        <DetailBody d={data} />
      ) : null}
    </Drawer>
  );
}
