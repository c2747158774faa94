/** The pieces a job shows wherever it appears: status, priority and its live progress. */
import { Badge, Group, Progress, Stack, Text, type MantineColor } from '@mantine/core';
import type { Job, JobPriority, JobStatus } from '@adam/contracts';

const STATUS_COLORS: Record<JobStatus, MantineColor> = {
  pending: 'gray',
  processing: 'blue',
  completed: 'teal',
  failed: 'red',
  cancelled: 'orange',
};

const PRIORITY_COLORS: Record<JobPriority, MantineColor> = {
  high: 'grape',
  normal: 'gray',
  low: 'cyan',
};

export function JobStatusBadge({ status }: { status: JobStatus }) {
  return (
    <Badge color={STATUS_COLORS[status]} variant="light" data-testid="job-status">
      {status}
    </Badge>
  );
}

export function JobPriorityBadge({ priority }: { priority: JobPriority }) {
  return (
    <Badge color={PRIORITY_COLORS[priority]} variant="outline" size="sm">
      {priority}
    </Badge>
  );
}

/** Progress 0–1 as a bar with its percentage, and the stage under it (spec 002 §3). */
export function JobProgress({
  job,
  size = 'sm',
}: {
  job: Pick<Job, 'id' | 'progress' | 'stage' | 'status'>;
  size?: 'sm' | 'md' | 'lg';
}) {
  const percent = Math.round(Math.min(1, Math.max(0, job.progress || 0)) * 100);
  const color = job.status === 'failed' ? 'red' : job.status === 'completed' ? 'teal' : 'blue';
  return (
    <Stack gap={4} miw={0}>
      <Group gap="xs" wrap="nowrap">
        <Progress
          value={percent}
          color={color}
          size={size}
          radius="xl"
          striped={job.status === 'processing'}
          animated={job.status === 'processing'}
          style={{ flex: 1 }}
          aria-label={`Progress of job ${job.id}`}
        />
        <Text
          size="xs"
          fw={600}
          className="tabular-nums"
          w={36}
          ta="right"
          data-testid="job-percent"
        >
          {percent}%
        </Text>
      </Group>
      <Text
        size="xs"
        c="dimmed"
        truncate="end"
        title={job.stage ?? undefined}
        data-testid="job-stage"
      >
        {job.stage ?? '-'}
      </Text>
    </Stack>
  );
}
