/** The pieces a job shows wherever it appears: status, priority and its live progress. */
import { Badge, Group, Progress, Stack, Text, type MantineColor } from '@mantine/core';
import type { Job, JobPriority, JobStatus } from '@adam/contracts';
import { formatNumber } from '../../lib/format';
import { segmentPercent, useSegmentProgress } from './jobs.api';

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

/**
 * The second bar (spec 001 §7 segment_progress): segments processed of total, as the job last
 * pushed them. Nothing until the job reports segments; the stage is shown when asked and when
 * it says more than the job's own stage line.
 */
export function JobSegmentProgress({
  jobId,
  label = 'Segments',
  jobStage,
  showStage = false,
}: {
  jobId: number;
  label?: string;
  jobStage?: string | null;
  showStage?: boolean;
}) {
  const p = useSegmentProgress(jobId);
  if (!p) return null;
  const percent = segmentPercent(p);
  return (
    <Stack gap={2} miw={0} data-testid="segment-progress">
      <Group gap="xs" justify="space-between" wrap="nowrap">
        <Text size="xs" c="dimmed">
          {label}
        </Text>
        <Text size="xs" fw={600} className="tabular-nums" data-testid="segment-count">
          {formatNumber(p.processed)} / {formatNumber(p.total)}
        </Text>
      </Group>
      <Progress
        value={percent}
        size="xs"
        radius="xl"
        color="grape"
        aria-label={`${label} of job ${jobId}: ${p.processed} of ${p.total}`}
      />
      {showStage && p.stage && p.stage !== jobStage ? (
        <Text size="xs" c="dimmed" truncate="end" title={p.stage} data-testid="segment-stage">
          {p.stage}
        </Text>
      ) : null}
    </Stack>
  );
}
