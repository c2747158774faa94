import { Link } from 'react-router';
import { Anchor, Badge, Modal, Table, Text } from '@mantine/core';
import type { Source } from '@adam/contracts';
import { tabHref } from '../../navigation/tabRegistry';
import { EmptyState, ErrorState, LoadingState } from '../../components/QueryState';
import { formatNumber } from '../../lib/format';
import { OUTCOME_COLORS } from './SourceSyncCells';
import { SYNC_HISTORY_LIMIT, useSourceSyncs } from './sources.api';
import { DateTime } from '../../components/DateTime';

const n = (v: number) => formatNumber(v);

/** A source's sync history (GET /sources/{id}/syncs), newest first. */
export function SourceSyncsModal({
  source,
  onClose,
}: {
  source: Source | null;
  onClose: () => void;
}) {
  const { data, isLoading, isError, error, refetch } = useSourceSyncs(source?.id ?? null);
  return (
    <Modal
      opened={source !== null}
      onClose={onClose}
      title={
        <Text fw={600}>
          Sync history
          <Text span c="dimmed" size="sm" ff="monospace">
            {' '}
            · {source?.url}
          </Text>
        </Text>
      }
      size="xl"
      centered
    >
      {isLoading ? (
        <LoadingState rows={4} label="Loading the syncs" />
      ) : isError ? (
        <ErrorState
          title="Could not load the syncs"
          message={error.message}
          onRetry={() => void refetch()}
        />
      ) : !data || data.syncs.length === 0 ? (
        <EmptyState
          title="No sync yet"
          description="Syncs appear here once the schedule or Sync now has run one."
        />
      ) : (
        <Table.ScrollContainer minWidth={760} maxHeight="60vh">
          <Table striped stickyHeader verticalSpacing={4} aria-label="Sync history">
            <Table.Thead>
              <Table.Tr>
                <Table.Th>Started</Table.Th>
                <Table.Th>Outcome</Table.Th>
                <Table.Th>Pages (added / changed / unchanged / removed / failed)</Table.Th>
                <Table.Th>Segments (added / kept / removed)</Table.Th>
                <Table.Th ta="right">Re-embedded</Table.Th>
                <Table.Th>Job</Table.Th>
              </Table.Tr>
            </Table.Thead>
            <Table.Tbody>
              {data.syncs.map((s) => (
                <Table.Tr key={s.id} data-testid={`sync-row-${s.id}`}>
                  <Table.Td>
                    <Text size="xs" className="tabular-nums" style={{ whiteSpace: 'nowrap' }}>
                      <DateTime value={s.started_at} />
                    </Text>
                  </Table.Td>
                  <Table.Td>
                    <Badge size="sm" variant="light" color={OUTCOME_COLORS[s.outcome]}>
                      {s.outcome}
                    </Badge>
                    {s.error ? (
                      <Text size="xs" c="red.4" lineClamp={2} maw={220} title={s.error}>
                        {s.error}
                      </Text>
                    ) : null}
                  </Table.Td>
                  <Table.Td className="tabular-nums">
                    <Text size="xs">
                      {n(s.pages_added)} / {n(s.pages_changed)} / {n(s.pages_unchanged)} /{' '}
                      {n(s.pages_removed)} / {n(s.pages_failed)}
                    </Text>
                  </Table.Td>
                  <Table.Td className="tabular-nums">
                    <Text size="xs">
                      {n(s.segments_added)} / {n(s.segments_kept)} / {n(s.segments_removed)}
                    </Text>
                  </Table.Td>
                  <Table.Td ta="right" className="tabular-nums">
                    <Text size="xs">{n(s.reembedded)}</Text>
                  </Table.Td>
                  <Table.Td>
                    {s.job_id !== null ? (
                      <Anchor
                        component={Link}
                        to={tabHref('sources-queue', { job_id: s.job_id })}
                        size="xs"
                        className="tabular-nums"
                      >
                        #{s.job_id}
                      </Anchor>
                    ) : (
                      <Text size="xs" c="dimmed">
                        -
                      </Text>
                    )}
                  </Table.Td>
                </Table.Tr>
              ))}
            </Table.Tbody>
          </Table>
        </Table.ScrollContainer>
      )}
      {data && data.syncs.length >= SYNC_HISTORY_LIMIT ? (
        <Text size="xs" c="dimmed" mt="xs">
          The latest {SYNC_HISTORY_LIMIT} syncs.
        </Text>
      ) : null}
    </Modal>
  );
}
