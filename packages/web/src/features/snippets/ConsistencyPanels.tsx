/** The consistency summary and the consistent / index_only / disk_only lists of the report. */
import { useState, type ReactNode } from 'react';
import {
  Alert,
  Badge,
  Button,
  Group,
  Pagination,
  Paper,
  SimpleGrid,
  Skeleton,
  Stack,
  Table,
  Text,
} from '@mantine/core';
import { IconAlertTriangle, IconRefresh, IconTrash, IconVectorTriangle } from '@tabler/icons-react';
import { SNIPPET_PAGE_SIZE, type CleanupType, type ConsistencyReport } from '@adam/contracts';
import { confirmAction } from '../../components/ConfirmDialog';
import { QualityBadge } from '../../components/QualityBadge';
import { EmptyState } from '../../components/QueryState';
import { formatNumber } from '../../lib/format';
import { toast } from '../../layout/toasts';
import { IndexStatusBadge } from './SnippetDetailsModal';
import { useCleanupOrphans } from './snippets.api';
import { DateTime } from '../../components/DateTime';

type Entry = ConsistencyReport['snippets_ok'][number];
export type ReportTab = 'consistent' | 'index_only' | 'disk_only';

const SUMMARY_FIGURES: {
  key: keyof ConsistencyReport['summary'];
  label: string;
  alert?: boolean;
}[] = [
  { key: 'total_index', label: 'Vectors in index' },
  { key: 'total_disk', label: 'Snippets on disk' },
  { key: 'consistent', label: 'Consistent' },
  { key: 'index_only', label: 'Index only', alert: true },
  { key: 'disk_only', label: 'Disk only', alert: true },
];

export function ConsistencySummary({
  report,
  loading,
  failed,
  onCheck,
  checking,
}: {
  report: ConsistencyReport | undefined;
  loading: boolean;
  failed: boolean;
  onCheck: () => void;
  checking: boolean;
}) {
  return (
    <Paper withBorder radius="md" p="md">
      <Stack gap="sm">
        <Group justify="space-between">
          <Text fw={600}>Store and index consistency</Text>
          <Group gap="sm">
            {report ? (
              <Text size="xs" c="dimmed">
                Checked <DateTime value={report.checked_at} />
              </Text>
            ) : null}
            <Button
              size="xs"
              variant="default"
              leftSection={<IconRefresh size={14} />}
              onClick={onCheck}
              loading={checking}
            >
              Check again
            </Button>
          </Group>
        </Group>
        {failed && !report ? (
          <Alert
            color="orange"
            variant="light"
            icon={<IconAlertTriangle size={18} />}
            title="Consistency data unavailable"
          >
            The consistency check could not be run, so the consistent, index_only and disk_only tabs
            are disabled until it succeeds.
          </Alert>
        ) : (
          <SimpleGrid cols={{ base: 2, sm: 3, lg: 5 }} spacing="sm">
            {SUMMARY_FIGURES.map(({ key, label, alert }) => {
              const value = report?.summary[key];
              return (
                <Paper key={key} radius="sm" p="sm" bg="var(--mantine-color-default-hover)">
                  <Text size="xs" c="dimmed" tt="uppercase" fw={700}>
                    {label}
                  </Text>
                  {loading || value === undefined ? (
                    <Skeleton height={28} mt={4} width="50%" />
                  ) : (
                    <Text
                      fz={22}
                      fw={700}
                      className="tabular-nums"
                      c={alert && value > 0 ? 'orange' : undefined}
                      data-testid={`consistency-${key}`}
                    >
                      {formatNumber(value)}
                    </Text>
                  )}
                </Paper>
              );
            })}
          </SimpleGrid>
        )}
      </Stack>
    </Paper>
  );
}

/** Client-side pages of a report list (the server caps each list; 50 rows a page here). */
function usePaged<T>(items: T[]) {
  const [page, setPage] = useState(1);
  const pages = Math.max(1, Math.ceil(items.length / SNIPPET_PAGE_SIZE));
  const current = Math.min(page, pages);
  const rows = items.slice((current - 1) * SNIPPET_PAGE_SIZE, current * SNIPPET_PAGE_SIZE);
  const pager =
    pages > 1 ? (
      <Group justify="flex-end">
        <Pagination total={pages} value={current} onChange={setPage} size="sm" />
      </Group>
    ) : null;
  return { rows, pager };
}

const CLEANUP_DONE: Record<string, (n: number) => string> = {
  removed_vectors: (n) => `Removed ${n} orphaned vector(s) from the index`,
  reindexed: (n) => `Re-indexed ${n} snippet(s)`,
  deleted_rows: (n) => `Deleted ${n} snippet(s) missing from the index`,
};

function useCleanup() {
  const cleanup = useCleanupOrphans();
  const ask = (type: CleanupType, del: boolean, title: string, message: ReactNode) =>
    confirmAction({
      title,
      message,
      confirmLabel: title,
      danger: true,
      onConfirm: () =>
        cleanup.mutate(
          { type, delete: del },
          {
            onSuccess: (result) =>
              toast.success(
                CLEANUP_DONE[result.action]?.(result.processed) ??
                  `Cleaned ${result.processed} orphaned snippet(s)`,
              ),
          },
        ),
    });
  return { ask, pending: cleanup.isPending };
}

function EntryText({ entry }: { entry: Entry }) {
  return (
    <>
      <Text size="sm" lineClamp={2}>
        {entry.text ?? '-'}
      </Text>
      {entry.source_info?.title || entry.source_info?.url ? (
        <Text size="xs" c="dimmed" truncate="end" maw={520}>
          {entry.source_info.title || entry.source_info.url}
        </Text>
      ) : null}
    </>
  );
}

export function ReportPanel({
  tab,
  report,
  onOpen,
}: {
  tab: ReportTab;
  report: ConsistencyReport;
  onOpen: (id: number) => void;
}) {
  const entries =
    tab === 'consistent'
      ? report.snippets_ok
      : tab === 'index_only'
        ? report.index_only
        : report.disk_only;
  const count = report.summary[tab];
  const { rows, pager } = usePaged(entries);
  const cleanup = useCleanup();

  const actions =
    tab === 'index_only' ? (
      <Button
        color="red"
        variant="light"
        leftSection={<IconVectorTriangle size={16} />}
        disabled={count === 0}
        loading={cleanup.pending}
        onClick={() =>
          cleanup.ask(
            'index_only',
            false,
            'Remove orphaned vectors',
            `Remove the ${count} vector(s) that have no snippet on disk from the index?`,
          )
        }
      >
        Remove orphaned vectors
      </Button>
    ) : tab === 'disk_only' ? (
      <Group gap="sm">
        <Button
          variant="light"
          leftSection={<IconRefresh size={16} />}
          disabled={count === 0}
          loading={cleanup.pending}
          onClick={() =>
            cleanup.ask(
              'disk_only',
              false,
              'Re-index snippets',
              `Index the ${count} snippet(s) that are on disk but missing from the index?`,
            )
          }
        >
          Re-index snippets
        </Button>
        <Button
          color="red"
          variant="light"
          leftSection={<IconTrash size={16} />}
          disabled={count === 0}
          loading={cleanup.pending}
          onClick={() =>
            cleanup.ask(
              'disk_only',
              true,
              'Delete orphaned snippets',
              `Delete the ${count} snippet(s) that are missing from the index? This cannot be undone.`,
            )
          }
        >
          Delete orphaned snippets
        </Button>
      </Group>
    ) : null;

  const description = {
    consistent: 'Snippets stored on disk with their vector in the index.',
    index_only: 'Vectors in the index with no snippet on disk.',
    disk_only: 'Snippets on disk whose vector is missing from the index or still pending.',
  }[tab];

  return (
    <Stack gap="md">
      <Group justify="space-between" align="center">
        <Stack gap={0}>
          <Text size="sm" c="dimmed">
            {description}
          </Text>
          {entries.length < count ? (
            <Text size="xs" c="dimmed">
              Listing {formatNumber(entries.length)} of {formatNumber(count)}.
            </Text>
          ) : null}
        </Stack>
        {actions}
      </Group>
      {entries.length === 0 ? (
        <EmptyState
          title={tab === 'consistent' ? 'No consistent snippets' : 'No orphans'}
          description={
            tab === 'consistent'
              ? 'No snippet is both on disk and in the index.'
              : 'The store and the index agree here.'
          }
        />
      ) : (
        <Table striped highlightOnHover stickyHeader stickyHeaderOffset={64} verticalSpacing="xs">
          <Table.Thead>
            <Table.Tr>
              {tab !== 'index_only' ? <Table.Th w={80}>ID</Table.Th> : null}
              <Table.Th w={110}>Vector id</Table.Th>
              {tab !== 'index_only' ? (
                <>
                  <Table.Th>Snippet</Table.Th>
                  <Table.Th w={140}>Theme</Table.Th>
                  <Table.Th w={90}>Quality</Table.Th>
                  <Table.Th w={150}>Index</Table.Th>
                  <Table.Th w={170}>Created</Table.Th>
                </>
              ) : null}
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {rows.map((entry, i) => {
              const id = entry.id;
              return (
                <Table.Tr
                  key={id ?? `vector-${entry.faiss_id ?? i}`}
                  onClick={id !== undefined ? () => onOpen(id) : undefined}
                  style={{ cursor: id !== undefined ? 'pointer' : undefined }}
                  data-testid={`report-row-${tab}`}
                >
                  {tab !== 'index_only' ? (
                    <Table.Td className="tabular-nums">{id ?? '-'}</Table.Td>
                  ) : null}
                  <Table.Td className="tabular-nums">{entry.faiss_id ?? '-'}</Table.Td>
                  {tab !== 'index_only' ? (
                    <>
                      <Table.Td>
                        <EntryText entry={entry} />
                      </Table.Td>
                      <Table.Td>
                        {entry.theme ? (
                          <Badge variant="light" color="indigo" radius="sm" tt="none">
                            {entry.theme}
                          </Badge>
                        ) : (
                          '-'
                        )}
                      </Table.Td>
                      <Table.Td>
                        <QualityBadge score={entry.quality_score} />
                      </Table.Td>
                      <Table.Td>
                        <IndexStatusBadge
                          snippet={{
                            indexed_at: entry.indexed_at ?? null,
                            faiss_id: entry.faiss_id ?? null,
                            index_pending: entry.index_pending,
                          }}
                        />
                      </Table.Td>
                      <Table.Td className="tabular-nums">
                        <DateTime value={entry.created_at} />
                      </Table.Td>
                    </>
                  ) : null}
                </Table.Tr>
              );
            })}
          </Table.Tbody>
        </Table>
      )}
      {pager}
    </Stack>
  );
}
