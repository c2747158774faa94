import {
  Alert,
  Badge,
  Group,
  Modal,
  Paper,
  ScrollArea,
  Stack,
  Table,
  Text,
  Title,
} from '@mantine/core';
import { IconAlertTriangle } from '@tabler/icons-react';
import type { Model } from '@adam/contracts';
import { ErrorState, LoadingState } from '../../components/QueryState';
import { formatDate } from '../../lib/format';
import { JobProgress, JobStatusBadge } from '../jobs/JobBadges';
import { useJob } from '../jobs/jobs.api';
import { useFetchedProgress, useModelLog, useModelProgress } from './models.api';
import { STATUS_COLOR, statusLabel } from './modelRules';
import { DateTime } from '../../components/DateTime';

const time = (iso: string) => new Date(iso).toLocaleTimeString('en-GB');

/** The install or uninstall job: its record, stage and the errors it kept. */
function JobSection({ jobId }: { jobId: number }) {
  const { data: job, isLoading, isError, error } = useJob(jobId);
  if (isLoading) return <LoadingState rows={2} label={`Loading job #${jobId}`} />;
  if (isError || !job) {
    return <ErrorState title={`Job #${jobId} could not be read`} message={error?.message} />;
  }
  return (
    <Paper withBorder radius="sm" p="sm" aria-label={`Job #${job.id}`}>
      <Stack gap="xs">
        <Group justify="space-between">
          <Text fw={600} size="sm">
            Job #{job.id} · {job.type}
          </Text>
          <JobStatusBadge status={job.status} />
        </Group>
        <JobProgress job={job} />
        <Text size="xs" c="dimmed" className="tabular-nums">
          Created <DateTime value={job.created_at} />
          {job.started_at ? ` · started ${formatDate(job.started_at)}` : ''}
          {job.completed_at ? ` · completed ${formatDate(job.completed_at)}` : ''}
          {job.failed_at ? ` · failed ${formatDate(job.failed_at)}` : ''}
          {job.cancelled_at ? ` · cancelled ${formatDate(job.cancelled_at)}` : ''}
        </Text>
        {job.errors.map((e, i) => (
          <Alert key={`${e.at}-${i}`} color="red" variant="light" p="xs" title={e.type}>
            <Text size="sm">{e.message || e.error}</Text>
            <Text size="xs" c="dimmed">
              <DateTime value={e.at} />
            </Text>
          </Alert>
        ))}
      </Stack>
    </Paper>
  );
}

function LogBody({ model }: { model: Model }) {
  const fetched = useFetchedProgress(model.id);
  const cached = useModelProgress(model.id);
  const log = useModelLog(model.id);
  const progress = cached ?? fetched.data;
  const jobId = log.jobId ?? progress?.job_id ?? null;

  return (
    <Stack gap="md">
      {progress ? (
        <Group gap="xs">
          <Badge variant="light" color={STATUS_COLOR[progress.status]}>
            {statusLabel(progress.status)}
          </Badge>
          <Text size="sm" className="tabular-nums">
            {Math.round(progress.progress)}%
          </Text>
          <Text size="sm" c="dimmed">
            {progress.message}
          </Text>
        </Group>
      ) : fetched.isLoading ? (
        <LoadingState rows={1} label="Loading progress" />
      ) : null}

      {model.error ? (
        <Alert
          color="red"
          variant="light"
          icon={<IconAlertTriangle size={16} />}
          title="Last error"
        >
          {model.error}
        </Alert>
      ) : null}

      {jobId !== null ? <JobSection jobId={jobId} /> : null}

      <Stack gap={6}>
        <Title order={5}>Progress messages</Title>
        {log.entries.length === 0 ? (
          <Text size="sm" c="dimmed">
            No progress messages yet: those of installs and uninstalls run while this console is
            open appear here.
          </Text>
        ) : (
          <ScrollArea.Autosize mah="40vh" type="auto">
            <Table verticalSpacing={4} fz="sm" aria-label="Progress messages">
              <Table.Tbody>
                {log.entries.map((entry, i) => (
                  <Table.Tr key={`${entry.at}-${i}`}>
                    <Table.Td className="tabular-nums" c="dimmed" w={80}>
                      {time(entry.at)}
                    </Table.Td>
                    <Table.Td w={110}>{entry.status}</Table.Td>
                    <Table.Td className="tabular-nums" w={60} ta="right">
                      {Math.round(entry.progress)}%
                    </Table.Td>
                    <Table.Td>{entry.message}</Table.Td>
                  </Table.Tr>
                ))}
              </Table.Tbody>
            </Table>
          </ScrollArea.Autosize>
        )}
      </Stack>
    </Stack>
  );
}

/**
 * Installation logs: the model's current progress, its install job (record, stage, errors) and
 * the progress messages this console saw, from polls and model_progress events.
 */
export function InstallLogsDialog({
  model,
  onClose,
}: {
  model: Model | null;
  onClose: () => void;
}) {
  return (
    <Modal
      opened={model !== null}
      onClose={onClose}
      title={model ? `Installation logs: ${model.name}` : ''}
      centered
      size="xl"
    >
      {model ? <LogBody key={model.id} model={model} /> : null}
    </Modal>
  );
}
