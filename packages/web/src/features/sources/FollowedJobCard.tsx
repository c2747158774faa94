import { useEffect, useRef, useState } from 'react';
import { Link } from 'react-router';
import { Anchor, Button, CloseButton, Group, Paper, SimpleGrid, Stack, Text } from '@mantine/core';
import { IconFileText, IconListDetails } from '@tabler/icons-react';
import { tabHref } from '../../navigation/tabRegistry';
import { LoadingState } from '../../components/QueryState';
import { toast } from '../../layout/toasts';
import { formatNumber } from '../../lib/format';
import { useRealtimeEvent } from '../../lib/realtime/RealtimeProvider';
import { JobPriorityBadge, JobProgress, JobStatusBadge } from '../jobs/JobBadges';
import { isFinalStatus, useJob } from '../jobs/jobs.api';
import { crawlProgressOf } from '../jobs/CrawlCounts';
import { CrawlProgress } from './CrawlProgress';
import { completedMessage, jobFigures, type JobFigure } from './jobFigures';
import { MESSAGES } from './messages';

function Figure({ label, value }: JobFigure) {
  return (
    <Stack gap={0}>
      <Text size="xs" c="dimmed">
        {label}
      </Text>
      <Text fw={600} className="tabular-nums" aria-label={label}>
        {formatNumber(value)}
      </Text>
    </Stack>
  );
}

/**
 * An add-sources job followed live (spec 002 §4: queued, progress, completed with a success
 * toast or failed with an error toast). job_progress updates the cached job in place; the
 * ending events refetch it; a slow poll covers a closed socket.
 */
export function FollowedJobCard({ jobId, onDismiss }: { jobId: number; onDismiss: () => void }) {
  const { data: job, isError, error } = useJob(jobId);
  // job_failed carries the reason; the job record keeps only per-URL errors.
  const [failReason, setFailReason] = useState<string | null>(null);
  useRealtimeEvent('job_failed', (m) => {
    if (m.job_id === jobId && typeof m.error === 'string') setFailReason(m.error);
  });

  const crawl = job ? crawlProgressOf(job) : null;

  const announced = useRef(false);
  useEffect(() => {
    if (!job || announced.current || !isFinalStatus(job.status)) return;
    announced.current = true;
    if (job.status === 'completed') {
      toast.success(completedMessage(job));
    } else if (job.status === 'failed') {
      const reason = failReason ?? job.errors[job.errors.length - 1]?.message ?? null;
      toast.error(reason ? `${MESSAGES.processingFailed}: ${reason}` : MESSAGES.processingFailed);
    } else {
      toast.info(`Job ${job.id} was cancelled`);
    }
  }, [job, failReason]);

  return (
    <Paper withBorder radius="md" p="md" aria-label={`Job ${jobId}`} data-testid="followed-job">
      <Group justify="space-between" mb="sm" wrap="nowrap">
        <Group gap="xs">
          <Text fw={700} className="tabular-nums">
            Job #{jobId}
          </Text>
          {job ? <JobStatusBadge status={job.status} /> : null}
          {job ? <JobPriorityBadge priority={job.priority} /> : null}
        </Group>
        <CloseButton size="sm" aria-label={`Stop following job ${jobId}`} onClick={onDismiss} />
      </Group>
      {!job ? (
        isError ? (
          <Text size="sm" c="red">
            Could not load job {jobId}: {error.message}
          </Text>
        ) : (
          <LoadingState rows={2} label="Loading the job" />
        )
      ) : (
        <Stack gap="sm">
          <JobProgress job={job} size="md" />
          {crawl ? <CrawlProgress progress={crawl} /> : null}
          <SimpleGrid cols={4} spacing="xs" aria-label={`Figures of job ${job.id}`}>
            {jobFigures(job).map((f) => (
              <Figure key={f.label} {...f} />
            ))}
          </SimpleGrid>
          {job.errors.length > 0 ? (
            <Stack gap={2}>
              {job.errors.slice(0, 3).map((e, i) => (
                <Stack key={i} gap={0}>
                  {e.url ? (
                    <Text size="xs" ff="monospace" truncate="end" title={e.url}>
                      {e.url}
                    </Text>
                  ) : null}
                  <Text size="xs" c="red.4" lineClamp={2}>
                    {e.message}
                  </Text>
                </Stack>
              ))}
              {job.errors.length > 3 ? (
                <Text size="xs" c="dimmed">
                  and {job.errors.length - 3} more errors (see the queue)
                </Text>
              ) : null}
            </Stack>
          ) : null}
          {job.status === 'failed' && failReason ? (
            <Text size="sm" c="red">
              {MESSAGES.processingFailed}: {failReason}
            </Text>
          ) : null}
          <Group gap="xs">
            <Button
              component={Link}
              to={tabHref('sources-snippets', { job_id: job.id })}
              variant="light"
              size="xs"
              leftSection={<IconFileText size={14} />}
            >
              View snippets
            </Button>
            <Anchor component={Link} to={tabHref('sources-queue')} size="sm">
              <Group gap={4}>
                <IconListDetails size={14} />
                Open the queue
              </Group>
            </Anchor>
          </Group>
        </Stack>
      )}
    </Paper>
  );
}
