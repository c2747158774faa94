import { Anchor, Badge, Group, Modal, Paper, ScrollArea, Stack, Text } from '@mantine/core';
import { EmptyState, ErrorState, LoadingState } from '../../components/QueryState';
import { useJobErrors } from './jobs.api';
import { DateTime } from '../../components/DateTime';

/** A job's errors (GET /sources/jobs/{id}/errors): URL, type, message and diagnostic summary. */
export function JobErrorsModal({ jobId, onClose }: { jobId: number | null; onClose: () => void }) {
  const { data, isLoading, isError, error, refetch } = useJobErrors(jobId);
  return (
    <Modal
      opened={jobId !== null}
      onClose={onClose}
      title={
        <Text fw={600}>
          Errors of job #{jobId}
          {data ? (
            <Text span c="dimmed" size="sm" className="tabular-nums">
              {' '}
              · {data.total}
            </Text>
          ) : null}
        </Text>
      }
      size="lg"
      centered
    >
      {isLoading ? (
        <LoadingState rows={3} />
      ) : isError ? (
        <ErrorState message={error.message} onRetry={() => void refetch()} />
      ) : !data || data.errors.length === 0 ? (
        <EmptyState title="No errors" description="This job recorded no errors." />
      ) : (
        <ScrollArea.Autosize mah="60vh" type="auto" offsetScrollbars>
          <Stack
            component="ul"
            gap="sm"
            aria-label="Job errors"
            style={{ listStyle: 'none', margin: 0, padding: 0 }}
          >
            {data.errors.map((e, i) => (
              <Paper component="li" key={`${e.at}-${i}`} withBorder radius="sm" p="sm">
                <Group justify="space-between" gap="xs" mb={6} wrap="nowrap">
                  <Badge color="red" variant="light" size="sm" style={{ flexShrink: 0 }}>
                    {e.type}
                  </Badge>
                  <Text size="xs" c="dimmed" className="tabular-nums">
                    <DateTime value={e.at} />
                  </Text>
                </Group>
                {e.url ? (
                  <Anchor
                    href={e.url}
                    target="_blank"
                    rel="noreferrer"
                    size="sm"
                    ff="monospace"
                    style={{ wordBreak: 'break-all' }}
                  >
                    {e.url}
                  </Anchor>
                ) : null}
                <Text size="sm" mt={4}>
                  {e.message || e.error}
                </Text>
                {e.diagnostic_summary ? (
                  <Paper bg="var(--mantine-color-default-hover)" radius="sm" p="xs" mt="xs">
                    <Text size="xs" c="dimmed" mb={2}>
                      Diagnostic · score{' '}
                      <span className="tabular-nums">{e.diagnostic_summary.score.toFixed(2)}</span>
                    </Text>
                    <Text size="xs" fs="italic" lineClamp={4}>
                      {e.diagnostic_summary.snippet}
                    </Text>
                  </Paper>
                ) : null}
              </Paper>
            ))}
          </Stack>
        </ScrollArea.Autosize>
      )}
    </Modal>
  );
}
