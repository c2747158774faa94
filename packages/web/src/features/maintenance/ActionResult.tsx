import { Link } from 'react-router';
import { Alert, Anchor, Badge, Group, Progress, Stack, Text } from '@mantine/core';
import { IconAlertTriangle, IconCheck, IconClockHour4 } from '@tabler/icons-react';
import type { JobStatus, MaintenanceResult } from '@adam/contracts';
import { tabHref } from '../../navigation/tabRegistry';
import { formatNumber } from '../../lib/format';
import { jobCounts, useMaintenanceJob } from './maintenance.api';
import { MAINTENANCE_MESSAGES } from './messages';

const JOB_STATUS_COLOR: Record<JobStatus, string> = {
  pending: 'gray',
  processing: 'blue',
  completed: 'teal',
  failed: 'red',
  cancelled: 'gray',
};

export function CountBadges({ counts }: { counts: Record<string, number> }) {
  const entries = Object.entries(counts);
  if (!entries.length) return null;
  return (
    <Group gap={6}>
      {entries.map(([key, value]) => (
        <Badge key={key} variant="light" color="gray" radius="sm" className="tabular-nums">
          {key.replace(/_/g, ' ')}: {formatNumber(value)}
        </Badge>
      ))}
    </Group>
  );
}

/** A queued action's job, followed live to its end. */
function FollowedJob({ id }: { id: number }) {
  const { data: job } = useMaintenanceJob(id);
  if (!job) {
    return (
      <Text size="xs" c="dimmed">
        Loading job #{id}…
      </Text>
    );
  }
  const running = job.status === 'pending' || job.status === 'processing';
  return (
    <Stack gap={6} data-job-status={job.status}>
      <Group gap="xs" justify="space-between">
        <Group gap="xs">
          <Badge color={JOB_STATUS_COLOR[job.status]} variant="light" radius="sm">
            {job.status}
          </Badge>
          <Text size="xs" c="dimmed" lineClamp={1}>
            {job.stage ?? ''}
          </Text>
        </Group>
        <Text size="xs" fw={600} className="tabular-nums">
          {Math.round(job.progress * 100)}%
        </Text>
      </Group>
      <Progress
        value={job.progress * 100}
        size="sm"
        radius="xl"
        animated={running}
        color={JOB_STATUS_COLOR[job.status]}
        aria-label={`Job ${id} progress`}
      />
      {job.status === 'completed' ? <CountBadges counts={jobCounts(job)} /> : null}
      {job.status === 'failed' && job.errors[0] ? (
        <Text size="xs" c="red">
          {job.errors[0].message}
        </Text>
      ) : null}
    </Stack>
  );
}

/** What an action answered: its message, counts and, for a queued action, its job. */
export function ActionResult({
  result,
  error,
}: {
  result: MaintenanceResult | null;
  error: string | null;
}) {
  if (error) {
    return (
      <Alert
        color="red"
        variant="light"
        icon={<IconAlertTriangle size={16} />}
        title={MAINTENANCE_MESSAGES.actionFailed}
        p="xs"
      >
        <Text size="xs">{error}</Text>
      </Alert>
    );
  }
  if (!result) return null;
  const queued = result.status === 'queued';
  return (
    <Alert
      color={queued ? 'blue' : 'teal'}
      variant="light"
      icon={queued ? <IconClockHour4 size={16} /> : <IconCheck size={16} />}
      p="xs"
      aria-label="Action result"
    >
      <Stack gap={6}>
        <Text size="sm">{result.message}</Text>
        <CountBadges counts={result.counts} />
        {result.job_id !== null ? (
          <>
            <Anchor
              component={Link}
              to={tabHref('sources-queue', { job_id: result.job_id })}
              size="xs"
            >
              Job #{result.job_id} in the queue
            </Anchor>
            <FollowedJob id={result.job_id} />
          </>
        ) : null}
      </Stack>
    </Alert>
  );
}
