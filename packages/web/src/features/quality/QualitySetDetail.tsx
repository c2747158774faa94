/** One evaluation set: its queries and judgments, its versions (older ones read-only), its runs. */
import { useState } from 'react';
import {
  ActionIcon,
  Alert,
  Badge,
  Button,
  Group,
  Paper,
  Stack,
  Table,
  Tabs,
  Text,
  Title,
  Tooltip,
} from '@mantine/core';
import { IconEdit, IconEye, IconPencil, IconPlus, IconTrash } from '@tabler/icons-react';
import type { EvaluationQuery, EvaluationSetVersion } from '@adam/contracts';
import { confirmAction } from '../../components/ConfirmDialog';
import { EmptyState, ErrorState, LoadingState } from '../../components/QueryState';
import { formatDate } from '../../lib/format';
import { toast } from '../../layout/toasts';
import { SnippetDetailsModal } from '../snippets/SnippetDetailsModal';
import {
  useDeleteSet,
  useEvaluationSet,
  useRemoveQuery,
  useSetVersion,
  useSetVersions,
  type QualitySet,
} from './quality.api';
import { GRADE_LEGEND, GradeBadge } from './QualityJudging';
import { QualityRunsPanel } from './QualityRunsPanel';
import { DateTime } from '../../components/DateTime';

export type DetailTab = 'queries' | 'runs' | 'versions';

function QueriesTable({
  version,
  readOnly,
  onEdit,
  onRemove,
  onOpenSnippet,
}: {
  version: EvaluationSetVersion;
  readOnly: boolean;
  onEdit: (query: EvaluationQuery) => void;
  onRemove: (query: EvaluationQuery) => void;
  onOpenSnippet: (id: number) => void;
}) {
  return (
    <Table.ScrollContainer minWidth={640}>
      <Table verticalSpacing="xs" aria-label="Queries" highlightOnHover>
        <Table.Thead>
          <Table.Tr>
            <Table.Th w={40}>#</Table.Th>
            <Table.Th w="35%">Query</Table.Th>
            <Table.Th>Judgments</Table.Th>
            {readOnly ? null : <Table.Th w={90} />}
          </Table.Tr>
        </Table.Thead>
        <Table.Tbody>
          {version.queries.map((q, i) => (
            <Table.Tr key={q.key} data-testid="query-row">
              <Table.Td>
                <Text size="sm" c="dimmed" className="tabular-nums">
                  {i + 1}
                </Text>
              </Table.Td>
              <Table.Td>
                <Text size="sm">{q.text}</Text>
              </Table.Td>
              <Table.Td>
                <Group gap={6}>
                  {q.judgments.length === 0 ? (
                    <Text size="xs" c="dimmed">
                      No judgment
                    </Text>
                  ) : (
                    q.judgments.map((j) => (
                      <GradeBadge
                        key={`${j.kind}:${j.ref}`}
                        judgment={j}
                        onClick={
                          j.kind === 'snippet' ? () => onOpenSnippet(Number(j.ref)) : undefined
                        }
                      />
                    ))
                  )}
                </Group>
              </Table.Td>
              {readOnly ? null : (
                <Table.Td>
                  <Group gap={4} wrap="nowrap" justify="flex-end">
                    <Tooltip label="Edit judgments">
                      <ActionIcon
                        variant="subtle"
                        aria-label={`Edit judgments of “${q.text}”`}
                        onClick={() => onEdit(q)}
                      >
                        <IconEdit size={16} />
                      </ActionIcon>
                    </Tooltip>
                    <Tooltip label="Delete the query">
                      <ActionIcon
                        variant="subtle"
                        color="red"
                        aria-label={`Delete the query “${q.text}”`}
                        onClick={() => onRemove(q)}
                      >
                        <IconTrash size={16} />
                      </ActionIcon>
                    </Tooltip>
                  </Group>
                </Table.Td>
              )}
            </Table.Tr>
          ))}
        </Table.Tbody>
      </Table>
    </Table.ScrollContainer>
  );
}

function VersionsTable({
  setId,
  viewing,
  onView,
}: {
  setId: number;
  viewing: number;
  onView: (number: number) => void;
}) {
  const versions = useSetVersions(setId);
  if (versions.isPending) return <LoadingState rows={3} />;
  if (versions.isError)
    return (
      <ErrorState
        title="Could not load the versions"
        message={versions.error.message}
        onRetry={() => void versions.refetch()}
      />
    );
  const latest = versions.data.versions[0]?.number;
  return (
    <Table verticalSpacing="xs" aria-label="Versions" highlightOnHover>
      <Table.Thead>
        <Table.Tr>
          <Table.Th w={70}>Version</Table.Th>
          <Table.Th>Change</Table.Th>
          <Table.Th w={80}>Queries</Table.Th>
          <Table.Th w={170}>Date</Table.Th>
          <Table.Th w={90} />
        </Table.Tr>
      </Table.Thead>
      <Table.Tbody>
        {versions.data.versions.map((v) => (
          <Table.Tr
            key={v.id}
            bg={v.number === viewing ? 'var(--mantine-color-blue-light)' : undefined}
          >
            <Table.Td className="tabular-nums">v{v.number}</Table.Td>
            <Table.Td>
              <Text size="sm">{v.change}</Text>
            </Table.Td>
            <Table.Td className="tabular-nums">{v.query_count}</Table.Td>
            <Table.Td>
              <Text size="sm">
                <DateTime value={v.created_at} />
              </Text>
            </Table.Td>
            <Table.Td>
              {v.number === viewing ? (
                <Badge variant="light" size="sm">
                  shown
                </Badge>
              ) : (
                <Button
                  size="compact-xs"
                  variant="subtle"
                  leftSection={<IconEye size={14} />}
                  onClick={() => onView(v.number)}
                  aria-label={`View version ${v.number}`}
                >
                  {v.number === latest ? 'Latest' : 'View'}
                </Button>
              )}
            </Table.Td>
          </Table.Tr>
        ))}
      </Table.Tbody>
    </Table>
  );
}

export function QualitySetDetail({
  setId,
  tab,
  onTab,
  canWrite,
  canDelete,
  onAddQuery,
  onEditQuery,
  onEditSet,
  onDeleted,
}: {
  setId: number;
  tab: DetailTab;
  onTab: (tab: DetailTab) => void;
  canWrite: boolean;
  canDelete: boolean;
  onAddQuery: () => void;
  onEditQuery: (query: EvaluationQuery) => void;
  onEditSet: (set: QualitySet) => void;
  onDeleted: () => void;
}) {
  const latest = useEvaluationSet(setId);
  // An older version chosen in the history: shown read-only until the latest is asked back.
  const [viewing, setViewing] = useState<number | null>(null);
  const older = useSetVersion(setId, viewing);
  const [openSnippet, setOpenSnippet] = useState<number | null>(null);
  const removeQuery = useRemoveQuery();
  const deleteSet = useDeleteSet();

  if (latest.isPending) return <LoadingState rows={6} label="Loading the set" />;
  if (latest.isError)
    return (
      <ErrorState
        title="Could not load the set"
        message={latest.error.message}
        onRetry={() => void latest.refetch()}
      />
    );

  const set: QualitySet = latest.data.set;
  const latestNumber = latest.data.version.number;
  const showingOlder = viewing !== null && viewing !== latestNumber;
  const shown = showingOlder ? older.data : latest.data;

  const confirmRemove = (q: EvaluationQuery) =>
    confirmAction({
      title: 'Delete the query',
      message: `Delete “${q.text}” and its judgments from the set? The set gets a new version; older versions and their runs keep it.`,
      confirmLabel: 'Delete',
      danger: true,
      onConfirm: () =>
        removeQuery.mutate(
          { setId, key: q.key },
          {
            onSuccess: (v) => toast.success(`Query deleted: version ${v.version.number}`),
            onError: (e) => toast.error(`Could not delete the query: ${e.message}`),
          },
        ),
    });

  const confirmDelete = () =>
    confirmAction({
      title: 'Delete the set',
      message: `Delete “${set.name}” with all its versions and runs? This cannot be undone.`,
      confirmLabel: 'Delete',
      danger: true,
      onConfirm: () =>
        deleteSet.mutate(setId, {
          onSuccess: () => {
            toast.success(`Set “${set.name}” deleted`);
            onDeleted();
          },
          onError: (e) => toast.error(`Could not delete the set: ${e.message}`),
        }),
    });

  return (
    <Stack gap="md">
      <Paper withBorder radius="md" p="md">
        <Group justify="space-between" align="flex-start" wrap="nowrap">
          <Stack gap={4} style={{ minWidth: 0 }}>
            <Title order={3} data-testid="set-title">
              {set.name}
            </Title>
            {set.description ? (
              <Text size="sm" c="dimmed">
                {set.description}
              </Text>
            ) : null}
            <Text size="xs" c="dimmed">
              Version {latestNumber} · {latest.data.version.query_count} queries · updated{' '}
              <DateTime value={set.updated_at} />
            </Text>
          </Stack>
          <Group gap="xs" wrap="nowrap">
            {canWrite ? (
              <Button
                variant="default"
                size="xs"
                leftSection={<IconPencil size={14} />}
                onClick={() => onEditSet(set)}
              >
                Edit
              </Button>
            ) : null}
            {canDelete ? (
              <Button
                variant="light"
                color="red"
                size="xs"
                leftSection={<IconTrash size={14} />}
                onClick={confirmDelete}
                loading={deleteSet.isPending}
              >
                Delete
              </Button>
            ) : null}
          </Group>
        </Group>
      </Paper>

      <Tabs value={tab} onChange={(v) => v && onTab(v as DetailTab)} keepMounted={false}>
        <Tabs.List mb="md">
          <Tabs.Tab value="queries">Queries ({latest.data.version.query_count})</Tabs.Tab>
          <Tabs.Tab value="runs">Runs</Tabs.Tab>
          <Tabs.Tab value="versions">Versions ({latestNumber})</Tabs.Tab>
        </Tabs.List>

        <Tabs.Panel value="queries">
          <Stack gap="sm">
            {showingOlder ? (
              <Alert color="blue" variant="light" title={`Version ${viewing} of ${latestNumber}`}>
                <Group justify="space-between">
                  <Text size="sm">
                    An older version, read-only
                    {older.data
                      ? `: ${older.data.version.change}, ${formatDate(older.data.version.created_at)}`
                      : ''}
                    .
                  </Text>
                  <Button size="xs" variant="light" onClick={() => setViewing(null)}>
                    Back to the latest
                  </Button>
                </Group>
              </Alert>
            ) : (
              <Group justify="space-between">
                <Text size="xs" c="dimmed">
                  Grades: {GRADE_LEGEND}.
                </Text>
                {canWrite ? (
                  <Button size="xs" leftSection={<IconPlus size={14} />} onClick={onAddQuery}>
                    Add a query
                  </Button>
                ) : null}
              </Group>
            )}
            {showingOlder && older.isPending ? (
              <LoadingState rows={4} label="Loading the version" />
            ) : showingOlder && older.isError ? (
              <ErrorState title="Could not load the version" message={older.error.message} />
            ) : shown && shown.queries.length > 0 ? (
              <Paper withBorder radius="md">
                <QueriesTable
                  version={shown}
                  readOnly={showingOlder || !canWrite}
                  onEdit={onEditQuery}
                  onRemove={confirmRemove}
                  onOpenSnippet={setOpenSnippet}
                />
              </Paper>
            ) : (
              <EmptyState
                title="No queries in this set"
                description="Add a query by searching: grade the results that answer it (0 not relevant to 3 the best answer). Runs score the search against these judgments."
                action={
                  canWrite && !showingOlder ? (
                    <Button size="xs" leftSection={<IconPlus size={14} />} onClick={onAddQuery}>
                      Add a query
                    </Button>
                  ) : undefined
                }
              />
            )}
          </Stack>
        </Tabs.Panel>

        <Tabs.Panel value="runs">
          <QualityRunsPanel setId={setId} />
        </Tabs.Panel>

        <Tabs.Panel value="versions">
          <Paper withBorder radius="md" p="xs">
            <VersionsTable
              setId={setId}
              viewing={viewing ?? latestNumber}
              onView={(n) => {
                setViewing(n === latestNumber ? null : n);
                onTab('queries');
              }}
            />
          </Paper>
        </Tabs.Panel>
      </Tabs>

      <SnippetDetailsModal snippetId={openSnippet} onClose={() => setOpenSnippet(null)} />
    </Stack>
  );
}
