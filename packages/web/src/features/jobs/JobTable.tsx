import { Fragment, useState } from 'react';
import { Link } from 'react-router';
import {
  ActionIcon,
  Anchor,
  Button,
  Group,
  Menu,
  Stack,
  Table,
  Text,
  Tooltip,
} from '@mantine/core';
import {
  IconAlertTriangle,
  IconChevronDown,
  IconChevronRight,
  IconFileText,
  IconListSearch,
  IconPlayerStop,
  IconRefresh,
  IconTrash,
} from '@tabler/icons-react';
import type { Job, JobPriority } from '@adam/contracts';
import { tabHref } from '../../navigation/tabRegistry';
import { formatNumber } from '../../lib/format';
import { CRAWL_JOB_TYPE, CrawlCounts, crawlProgressOf } from './CrawlCounts';
import { JobPriorityBadge, JobProgress, JobSegmentProgress, JobStatusBadge } from './JobBadges';
import { jobTypeLabel } from './jobTypes';
import { jobActions } from './jobs.api';
import { useCan } from '../../session/useCan';
import { DateTime } from '../../components/DateTime';

/** Relaunch choices in the spec's order (spec 002 §9: normal, high, low). */
const RELAUNCH_PRIORITIES: readonly JobPriority[] = ['normal', 'high', 'low'];

/** URLs listed under an expanded row; the rest are counted. */
const URLS_SHOWN = 50;

export interface JobTableHandlers {
  onCancel: (job: Job) => void;
  onRelaunch: (job: Job, priority: JobPriority) => void;
  onDelete: (job: Job) => void;
  onViewErrors: (job: Job) => void;
  /** The job's detail (times, per-URL outcomes); the row's id opens it when given. */
  onOpenDetail?: (job: Job) => void;
  /** A crawl's frontier; crawl rows offer it when given. */
  onViewFrontier?: (job: Job) => void;
}

const endedAt = (job: Job) => job.completed_at ?? job.failed_at ?? job.cancelled_at;

function DateLine({ label, value }: { label: string; value: string | null }) {
  return (
    <Text
      size="xs"
      className="tabular-nums"
      c={value ? undefined : 'dimmed'}
      style={{ whiteSpace: 'nowrap' }}
    >
      <Text span size="xs" c="dimmed" w={68} display="inline-block">
        {label}
      </Text>
      <DateTime value={value} />
    </Text>
  );
}

function JobRowActions({ job, ...h }: { job: Job } & JobTableHandlers) {
  const canWrite = useCan('operator');
  // A viewer keeps what only reads (errors, snippets); the server would refuse the rest.
  const actions = jobActions(job).filter((action) => canWrite || action === 'errors');
  return (
    <Group gap={4} wrap="nowrap" justify="flex-end">
      {actions.includes('cancel') ? (
        <Tooltip label="Cancel">
          <ActionIcon
            variant="subtle"
            color="orange"
            aria-label={`Cancel job ${job.id}`}
            onClick={() => h.onCancel(job)}
          >
            <IconPlayerStop size={16} />
          </ActionIcon>
        </Tooltip>
      ) : null}
      {actions.includes('relaunch') ? (
        <Menu position="bottom-end" withinPortal>
          <Menu.Target>
            <Tooltip label="Relaunch">
              <ActionIcon variant="subtle" color="blue" aria-label={`Relaunch job ${job.id}`}>
                <IconRefresh size={16} />
              </ActionIcon>
            </Tooltip>
          </Menu.Target>
          <Menu.Dropdown>
            <Menu.Label>Relaunch with priority</Menu.Label>
            {RELAUNCH_PRIORITIES.map((priority) => (
              <Menu.Item key={priority} onClick={() => h.onRelaunch(job, priority)}>
                {priority}
              </Menu.Item>
            ))}
          </Menu.Dropdown>
        </Menu>
      ) : null}
      <Tooltip label="View snippets">
        <ActionIcon
          component={Link}
          to={tabHref('sources-snippets', { job_id: job.id })}
          variant="subtle"
          color="gray"
          aria-label={`View snippets of job ${job.id}`}
        >
          <IconFileText size={16} />
        </ActionIcon>
      </Tooltip>
      {actions.includes('errors') ? (
        <Tooltip label={`View errors (${job.errors.length})`}>
          <ActionIcon
            variant="subtle"
            color="red"
            aria-label={`View errors of job ${job.id}`}
            onClick={() => h.onViewErrors(job)}
          >
            <IconAlertTriangle size={16} />
          </ActionIcon>
        </Tooltip>
      ) : null}
      {canWrite ? (
        <Tooltip label="Delete">
          <ActionIcon
            variant="subtle"
            color="red"
            aria-label={`Delete job ${job.id}`}
            onClick={() => h.onDelete(job)}
          >
            <IconTrash size={16} />
          </ActionIcon>
        </Tooltip>
      ) : null}
    </Group>
  );
}

const COLUMNS = 8;

/**
 * The actions stay in view at the right edge while the table scrolls sideways (a 1024 px screen
 * with the sidebar open is narrower than the table; issue 28).
 */
const STICKY_ACTIONS: React.CSSProperties = {
  position: 'sticky',
  right: 0,
  background: 'var(--mantine-color-body)',
  boxShadow: '-6px 0 6px -6px rgba(0, 0, 0, 0.25)',
  zIndex: 1,
};

/** The job rows of a queue tab or of a search, each with the actions its status allows. */
export function JobTable({ jobs, ...handlers }: { jobs: Job[] } & JobTableHandlers) {
  const [expanded, setExpanded] = useState<ReadonlySet<number>>(new Set());
  const toggle = (id: number) =>
    setExpanded((prev) => {
      const next = new Set(prev);
      if (next.has(id)) next.delete(id);
      else next.add(id);
      return next;
    });

  // Native scrolling: ScrollArea pads its viewport for the scrollbar, and the sticky actions
  // stopped short of the edge with the dates showing through behind them.
  return (
    <Table.ScrollContainer minWidth={900} maxHeight={640} type="native">
      <Table striped highlightOnHover stickyHeader verticalSpacing="xs" aria-label="Jobs">
        <Table.Thead>
          <Table.Tr>
            <Table.Th>Job</Table.Th>
            <Table.Th w={124}>Status</Table.Th>
            <Table.Th>Progress</Table.Th>
            <Table.Th>URLs</Table.Th>
            <Table.Th ta="right">Segments</Table.Th>
            <Table.Th>Dates</Table.Th>
            <Table.Th>Worker</Table.Th>
            <Table.Th ta="right" style={STICKY_ACTIONS}>
              Actions
            </Table.Th>
          </Table.Tr>
        </Table.Thead>
        <Table.Tbody>
          {jobs.map((job) => {
            const open = expanded.has(job.id);
            const crawl = crawlProgressOf(job);
            return (
              <Fragment key={job.id}>
                <Table.Tr data-testid={`job-row-${job.id}`}>
                  <Table.Td>
                    {handlers.onOpenDetail ? (
                      <Anchor
                        component="button"
                        size="sm"
                        fw={700}
                        className="tabular-nums"
                        onClick={() => handlers.onOpenDetail?.(job)}
                        aria-label={`Details of job ${job.id}`}
                      >
                        #{job.id}
                      </Anchor>
                    ) : (
                      <Text size="sm" fw={700} className="tabular-nums">
                        #{job.id}
                      </Text>
                    )}
                    <Text size="xs" c="dimmed" title={job.type} data-testid="job-type">
                      {jobTypeLabel(job)}
                    </Text>
                  </Table.Td>
                  <Table.Td w={124}>
                    <Stack gap={4} align="flex-start" miw={104}>
                      <JobStatusBadge status={job.status} />
                      <JobPriorityBadge priority={job.priority} />
                    </Stack>
                  </Table.Td>
                  <Table.Td w={190} maw={190}>
                    <Stack gap={6}>
                      <JobProgress job={job} />
                      <JobSegmentProgress jobId={job.id} />
                    </Stack>
                  </Table.Td>
                  <Table.Td>
                    {job.urls.length > 0 ? (
                      <Button
                        variant="subtle"
                        size="compact-sm"
                        color="gray"
                        leftSection={
                          open ? <IconChevronDown size={14} /> : <IconChevronRight size={14} />
                        }
                        onClick={() => toggle(job.id)}
                        aria-expanded={open}
                        className="tabular-nums"
                      >
                        {formatNumber(job.urls.length)} URL{job.urls.length === 1 ? '' : 's'}
                      </Button>
                    ) : (
                      <Text size="sm" c="dimmed">
                        -
                      </Text>
                    )}
                  </Table.Td>
                  <Table.Td ta="right" className="tabular-nums">
                    {formatNumber(job.stats.segments_created ?? 0)}
                  </Table.Td>
                  <Table.Td>
                    <Stack gap={0}>
                      <DateLine label="Created" value={job.created_at} />
                      <DateLine label="Started" value={job.started_at} />
                      <DateLine
                        label={
                          job.status === 'failed'
                            ? 'Failed'
                            : job.status === 'cancelled'
                              ? 'Cancelled'
                              : 'Ended'
                        }
                        value={endedAt(job)}
                      />
                    </Stack>
                  </Table.Td>
                  <Table.Td>
                    <Text
                      size="xs"
                      ff="monospace"
                      c={job.worker_id ? undefined : 'dimmed'}
                      style={{ whiteSpace: 'nowrap' }}
                    >
                      {job.worker_id ?? '-'}
                    </Text>
                    <Text
                      size="xs"
                      c="dimmed"
                      className="tabular-nums"
                      data-testid="job-attempts"
                      style={{ whiteSpace: 'nowrap' }}
                    >
                      {job.attempts} attempt{job.attempts === 1 ? '' : 's'}
                    </Text>
                  </Table.Td>
                  <Table.Td style={STICKY_ACTIONS}>
                    <JobRowActions job={job} {...handlers} />
                  </Table.Td>
                </Table.Tr>
                {crawl || (job.type === CRAWL_JOB_TYPE && handlers.onViewFrontier) ? (
                  <Table.Tr data-testid={`crawl-row-${job.id}`}>
                    <Table.Td colSpan={COLUMNS} py={4}>
                      <Group gap="md" pl="xl" wrap="nowrap">
                        {crawl ? (
                          <CrawlCounts crawl={crawl} />
                        ) : (
                          <Text size="xs" c="dimmed">
                            No crawl figures yet
                          </Text>
                        )}
                        {handlers.onViewFrontier ? (
                          <Button
                            variant="subtle"
                            size="compact-xs"
                            leftSection={<IconListSearch size={14} />}
                            onClick={() => handlers.onViewFrontier?.(job)}
                            aria-label={`Frontier of job ${job.id}`}
                            ml="auto"
                          >
                            Frontier
                          </Button>
                        ) : null}
                      </Group>
                    </Table.Td>
                  </Table.Tr>
                ) : null}
                {open ? (
                  <Table.Tr>
                    <Table.Td colSpan={COLUMNS}>
                      <Stack gap={2} pl="xl" py={4}>
                        {job.urls.slice(0, URLS_SHOWN).map((url) => (
                          <Anchor
                            key={url}
                            href={url}
                            target="_blank"
                            rel="noreferrer"
                            size="xs"
                            ff="monospace"
                          >
                            {url}
                          </Anchor>
                        ))}
                        {job.urls.length > URLS_SHOWN ? (
                          <Text size="xs" c="dimmed">
                            and {formatNumber(job.urls.length - URLS_SHOWN)} more
                          </Text>
                        ) : null}
                      </Stack>
                    </Table.Td>
                  </Table.Tr>
                ) : null}
              </Fragment>
            );
          })}
        </Table.Tbody>
      </Table>
    </Table.ScrollContainer>
  );
}
