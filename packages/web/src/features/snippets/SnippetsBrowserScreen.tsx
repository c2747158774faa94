/**
 * Snippets browser (sources-snippets, spec 002 §2): the consistency summary, the server-paged
 * list with its filters, selection, bulk delete and export, and the report's orphan lists.
 */
import { useState } from 'react';
import {
  ActionIcon,
  Badge,
  Button,
  Checkbox,
  CloseButton,
  Group,
  Pagination,
  Paper,
  SegmentedControl,
  Select,
  Stack,
  Table,
  Tabs,
  Text,
  TextInput,
  Tooltip,
} from '@mantine/core';
import { useDebouncedValue } from '@mantine/hooks';
import {
  IconDownload,
  IconRefresh,
  IconRotateClockwise,
  IconSearch,
  IconTrash,
} from '@tabler/icons-react';
import { Link, useSearchParams } from 'react-router';
import {
  EXPORT_FORMATS,
  SNIPPET_PAGE_SIZE,
  type ExportFormat,
  type Snippet,
  type Theme,
} from '@adam/contracts';
import { tabHref } from '../../navigation/tabRegistry';
import { confirmAction } from '../../components/ConfirmDialog';
import { PageHeader } from '../../components/PageHeader';
import { QualityBadge } from '../../components/QualityBadge';
import { EmptyState, ErrorState, LoadingState } from '../../components/QueryState';
import { formatNumber, formatTotal } from '../../lib/format';
import { pageRequest, type PageRequest } from '../../lib/cursorPaging';
import { toast } from '../../layout/toasts';
import { ConsistencySummary, ReportPanel, type ReportTab } from './ConsistencyPanels';
import { saveFile } from './download';
import { SNIPPET_MESSAGES } from './messages';
import { IndexStatusBadge, SnippetDetailsModal } from './SnippetDetailsModal';
import {
  useConsistency,
  useDeleteSnippets,
  useExportSnippets,
  useRefreshSnippetState,
  useSnippetList,
  type SnippetListParams,
} from './snippets.api';
import { MinQualityInput, ThemeFilterSelect } from './SnippetFilterInputs';
import { useCan } from '../../session/useCan';
import { DateTime } from '../../components/DateTime';

type SortBy = SnippetListParams['sort_by'];
type BrowserTab = 'all' | ReportTab;

const SORT_OPTIONS: { value: SortBy; label: string }[] = [
  { value: 'created_at', label: 'Created at' },
  { value: 'quality_score', label: 'Quality score' },
  { value: 'word_count', label: 'Word count' },
];

/** Typing in the search box queries the server once the operator pauses. */
const SEARCH_DEBOUNCE_MS = 300;
const EMPTY_SELECTION: ReadonlySet<number> = new Set();

function positiveInt(value: string | null): number | undefined {
  if (!value || !/^\d+$/.test(value)) return undefined;
  const n = Number(value);
  return Number.isSafeInteger(n) && n > 0 ? n : undefined;
}

function qualityFilter(value: number | string): number | undefined {
  const n = typeof value === 'number' ? value : value.trim() === '' ? NaN : Number(value);
  return Number.isFinite(n) ? Math.min(1, Math.max(0, n)) : undefined;
}

/** The job or source the list was opened for, removable. */
function PrefilterChip({
  label,
  removeLabel,
  onRemove,
}: {
  label: string;
  removeLabel: string;
  onRemove: () => void;
}) {
  return (
    <Badge
      size="lg"
      variant="light"
      radius="xl"
      tt="none"
      fw={500}
      maw={560}
      pr={4}
      rightSection={<CloseButton size="xs" aria-label={removeLabel} onClick={onRemove} />}
    >
      <Text span size="sm" truncate="end" display="block">
        {label}
      </Text>
    </Badge>
  );
}

export function SnippetsBrowserScreen() {
  const canWrite = useCan('operator');
  const [params, setParams] = useSearchParams();
  const jobId = positiveInt(params.get('job_id'));
  const sourceUrl = params.get('source_url')?.trim() || undefined;

  const [theme, setTheme] = useState<Theme | null>(null);
  const [minQuality, setMinQuality] = useState<number | string>('');
  const [searchInput, setSearchInput] = useState('');
  const [search] = useDebouncedValue(searchInput.trim(), SEARCH_DEBOUNCE_MS);
  const [sortBy, setSortBy] = useState<SortBy>('created_at');
  const [order, setOrder] = useState<'asc' | 'desc'>('desc');

  const filters = {
    sort_by: sortBy,
    order,
    theme: theme ?? undefined,
    min_quality: qualityFilter(minQuality),
    search: search || undefined,
    // A filter box narrows: every word (stemmed), not any of them.
    match: search ? ('all' as const) : undefined,
    job_id: jobId,
    source_url: sourceUrl,
  };
  // The page belongs to the filters it was chosen under: any filter change is page 1 again.
  const filterKey = JSON.stringify(filters);
  const [paging, setPaging] = useState<{ key: string } & PageRequest>({ key: filterKey, page: 1 });
  const current: PageRequest = paging.key === filterKey ? paging : { page: 1 };
  const page = current.page;
  const query: SnippetListParams = {
    ...filters,
    page,
    per_page: SNIPPET_PAGE_SIZE,
    cursor: current.cursor,
  };

  const list = useSnippetList(query);
  const consistency = useConsistency();
  const refreshState = useRefreshSnippetState();
  const remove = useDeleteSnippets();
  const exporter = useExportSnippets();

  // The selection belongs to one load of the list: a reload (or another page) clears it.
  const loadStamp = list.isPlaceholderData ? -1 : list.dataUpdatedAt;
  const [selection, setSelection] = useState<{ stamp: number; ids: ReadonlySet<number> }>({
    stamp: loadStamp,
    ids: EMPTY_SELECTION,
  });
  const selected = selection.stamp === loadStamp ? selection.ids : EMPTY_SELECTION;
  const setSelected = (ids: ReadonlySet<number>) => setSelection({ stamp: loadStamp, ids });

  const [requestedTab, setTab] = useState<BrowserTab>('all');
  // Without consistency data only the 'all' tab exists (spec 002 §4).
  const tab: BrowserTab = consistency.data ? requestedTab : 'all';
  const [exportFormat, setExportFormat] = useState<ExportFormat>('json');
  const [opened, setOpened] = useState<{ id: number; initial?: Snippet } | null>(null);

  const rows = list.data?.snippets ?? [];
  const total = list.data?.total ?? 0;
  // Past 10,000 matches the server estimates the total rather than count them (total_exact).
  const totalExact = list.data?.total_exact ?? true;
  const pages = Math.max(1, Math.ceil(total / SNIPPET_PAGE_SIZE));
  const pageIds = rows.map((s) => s.id);
  const allOnPage = pageIds.length > 0 && pageIds.every((id) => selected.has(id));
  const someOnPage = pageIds.some((id) => selected.has(id));
  const filtered =
    theme !== null ||
    filters.min_quality !== undefined ||
    !!filters.search ||
    jobId !== undefined ||
    !!sourceUrl;

  const reload = () => {
    void list.refetch();
    void consistency.refetch();
  };

  const removePrefilter = (name: 'job_id' | 'source_url') =>
    setParams(
      (current) => {
        const next = new URLSearchParams(current);
        next.delete(name);
        return next;
      },
      { replace: true },
    );

  const toggle = (id: number) => {
    const next = new Set(selected);
    if (next.has(id)) next.delete(id);
    else next.add(id);
    setSelected(next);
  };

  const toggleAll = () => {
    const next = new Set(selected);
    for (const id of pageIds) {
      if (allOnPage) next.delete(id);
      else next.add(id);
    }
    setSelected(next);
  };

  const askBulkDelete = () => {
    const ids = [...selected];
    confirmAction({
      title: 'Delete snippets',
      message: `Delete ${ids.length} selected snippet(s)? They are removed from the store and from the index.`,
      confirmLabel: 'Delete',
      danger: true,
      onConfirm: () =>
        remove.mutate(ids, {
          onSuccess: ({ deleted }) => {
            if (deleted.length) toast.success(`Deleted ${deleted.length} snippet(s)`);
          },
        }),
    });
  };

  const exportSelection = () => {
    const ids = [...selected];
    exporter.mutate(
      { ids, format: exportFormat },
      {
        onSuccess: (file) => {
          saveFile(file, `snippets.${exportFormat}`);
          toast.success(`Exported ${ids.length} snippet(s) as ${exportFormat}`);
        },
      },
    );
  };

  const summary = consistency.data?.summary;
  const tabCount = (n: number | undefined, exact = true) =>
    n === undefined ? null : (
      <Badge size="sm" variant="light" color="gray" className="tabular-nums">
        {formatTotal(n, exact)}
      </Badge>
    );

  return (
    <Stack gap="lg">
      <PageHeader
        title="Snippets Browser"
        description="Every stored snippet, its index status, and whether the store and the index agree."
        actions={
          <Button
            variant="light"
            display={canWrite ? undefined : 'none'}
            leftSection={<IconRotateClockwise size={16} />}
            loading={refreshState.isPending}
            onClick={() =>
              refreshState.mutate(undefined, {
                onSuccess: (r) =>
                  toast.success(
                    `Snippet state refreshed: ${r.reindexed} re-indexed, ${r.marked_pending} marked pending`,
                  ),
              })
            }
          >
            Refresh snippet state
          </Button>
        }
      />

      <ConsistencySummary
        report={consistency.data}
        loading={consistency.isPending}
        failed={consistency.isError}
        onCheck={() => void consistency.refetch()}
        checking={consistency.isFetching}
      />

      <Tabs value={tab} onChange={(v) => v && setTab(v as BrowserTab)} keepMounted={false}>
        <Tabs.List>
          <Tabs.Tab value="all" rightSection={tabCount(list.data?.total, totalExact)}>
            All
          </Tabs.Tab>
          <Tabs.Tab
            value="consistent"
            disabled={!consistency.data}
            rightSection={tabCount(summary?.consistent)}
          >
            Consistent
          </Tabs.Tab>
          <Tabs.Tab
            value="index_only"
            disabled={!consistency.data}
            rightSection={tabCount(summary?.index_only)}
          >
            Index only
          </Tabs.Tab>
          <Tabs.Tab
            value="disk_only"
            disabled={!consistency.data}
            rightSection={tabCount(summary?.disk_only)}
          >
            Disk only
          </Tabs.Tab>
        </Tabs.List>

        <Tabs.Panel value="all" pt="md">
          <Paper withBorder radius="md" p="md">
            <Stack gap="md">
              <Group gap="sm" align="flex-end">
                <TextInput
                  label="Search"
                  placeholder="Words in the text"
                  leftSection={<IconSearch size={16} />}
                  value={searchInput}
                  onChange={(e) => setSearchInput(e.currentTarget.value)}
                  style={{ flex: 1, minWidth: 220 }}
                />
                <ThemeFilterSelect value={theme} onChange={setTheme} />
                <MinQualityInput value={minQuality} onChange={setMinQuality} />
                <Select
                  label="Sort by"
                  data={SORT_OPTIONS}
                  value={sortBy}
                  onChange={(v) => v && setSortBy(v as SortBy)}
                  allowDeselect={false}
                  w={160}
                />
                <SegmentedControl
                  aria-label="Order"
                  data={[
                    { value: 'desc', label: 'Desc' },
                    { value: 'asc', label: 'Asc' },
                  ]}
                  value={order}
                  onChange={(v) => setOrder(v as 'asc' | 'desc')}
                />
              </Group>

              {jobId !== undefined || sourceUrl ? (
                <Group gap="xs">
                  <Text size="sm" c="dimmed">
                    Showing only:
                  </Text>
                  {jobId !== undefined ? (
                    <PrefilterChip
                      label={`Job #${jobId}`}
                      removeLabel="Remove job filter"
                      onRemove={() => removePrefilter('job_id')}
                    />
                  ) : null}
                  {sourceUrl ? (
                    <PrefilterChip
                      label={`Source: ${sourceUrl}`}
                      removeLabel="Remove source filter"
                      onRemove={() => removePrefilter('source_url')}
                    />
                  ) : null}
                </Group>
              ) : null}

              <Group justify="space-between" gap="sm">
                <Group gap="sm">
                  <Text size="sm" c="dimmed" className="tabular-nums" miw={90}>
                    {selected.size} selected
                  </Text>
                  <Select
                    aria-label="Export format"
                    data={EXPORT_FORMATS.map((f) => ({ value: f, label: f }))}
                    value={exportFormat}
                    onChange={(v) => v && setExportFormat(v as ExportFormat)}
                    allowDeselect={false}
                    size="xs"
                    w={90}
                  />
                  <Button
                    size="xs"
                    variant="default"
                    leftSection={<IconDownload size={14} />}
                    disabled={selected.size === 0}
                    loading={exporter.isPending}
                    onClick={exportSelection}
                  >
                    Export
                  </Button>
                  <Button
                    size="xs"
                    color="red"
                    variant="light"
                    leftSection={<IconTrash size={14} />}
                    display={canWrite ? undefined : 'none'}
                    disabled={selected.size === 0}
                    loading={remove.isPending}
                    onClick={askBulkDelete}
                  >
                    Delete selected
                  </Button>
                </Group>
                <Tooltip label="Reload the list and the consistency check">
                  <ActionIcon
                    variant="default"
                    aria-label="Reload"
                    onClick={reload}
                    loading={list.isFetching && !list.isPending}
                  >
                    <IconRefresh size={16} />
                  </ActionIcon>
                </Tooltip>
              </Group>

              {list.isPending ? (
                <LoadingState rows={10} label="Loading snippets" />
              ) : list.isError && !list.data ? (
                <ErrorState
                  title={SNIPPET_MESSAGES.loadListFailed}
                  message={list.error.message}
                  onRetry={() => void list.refetch()}
                />
              ) : rows.length === 0 ? (
                <EmptyState
                  title={filtered ? 'No snippet matches these filters' : 'No snippets yet'}
                  description={
                    filtered
                      ? 'Change or clear the filters to see more.'
                      : 'Snippets appear here once sources have been processed.'
                  }
                  action={
                    filtered ? null : (
                      <Button
                        component={Link}
                        to={tabHref('sources-add')}
                        size="xs"
                        variant="light"
                      >
                        Add sources
                      </Button>
                    )
                  }
                />
              ) : (
                <Table
                  striped
                  highlightOnHover
                  stickyHeader
                  stickyHeaderOffset={64}
                  verticalSpacing="xs"
                  style={{ opacity: list.isPlaceholderData ? 0.6 : 1 }}
                >
                  <Table.Thead>
                    <Table.Tr>
                      <Table.Th w={40}>
                        <Checkbox
                          aria-label="Select all on this page"
                          checked={allOnPage}
                          indeterminate={someOnPage && !allOnPage}
                          onChange={toggleAll}
                          disabled={list.isPlaceholderData}
                        />
                      </Table.Th>
                      <Table.Th w={80}>ID</Table.Th>
                      <Table.Th>Snippet</Table.Th>
                      <Table.Th w={140}>Theme</Table.Th>
                      <Table.Th w={90}>Quality</Table.Th>
                      <Table.Th w={80} ta="right">
                        Words
                      </Table.Th>
                      <Table.Th w={150}>Index</Table.Th>
                      <Table.Th w={170}>Created</Table.Th>
                    </Table.Tr>
                  </Table.Thead>
                  <Table.Tbody>
                    {rows.map((s) => (
                      <Table.Tr
                        key={s.id}
                        onClick={() => setOpened({ id: s.id, initial: s })}
                        style={{ cursor: 'pointer' }}
                        data-testid="snippet-row"
                        bg={selected.has(s.id) ? 'var(--mantine-primary-color-light)' : undefined}
                      >
                        <Table.Td onClick={(e) => e.stopPropagation()}>
                          <Checkbox
                            aria-label={`Select snippet ${s.id}`}
                            checked={selected.has(s.id)}
                            onChange={() => toggle(s.id)}
                            disabled={list.isPlaceholderData}
                          />
                        </Table.Td>
                        <Table.Td className="tabular-nums">{s.id}</Table.Td>
                        <Table.Td>
                          <Text size="sm" lineClamp={2}>
                            {s.text}
                          </Text>
                          {s.source_info.title || s.source_info.url ? (
                            <Text size="xs" c="dimmed" truncate="end" maw={560}>
                              {s.source_info.title || s.source_info.url}
                            </Text>
                          ) : null}
                        </Table.Td>
                        <Table.Td>
                          <Badge variant="light" color="indigo" radius="sm" tt="none">
                            {s.theme}
                          </Badge>
                        </Table.Td>
                        <Table.Td>
                          <QualityBadge score={s.quality_score} />
                        </Table.Td>
                        <Table.Td ta="right" className="tabular-nums">
                          {formatNumber(s.word_count)}
                        </Table.Td>
                        <Table.Td>
                          <IndexStatusBadge snippet={s} />
                        </Table.Td>
                        <Table.Td className="tabular-nums">
                          <DateTime value={s.created_at} />
                        </Table.Td>
                      </Table.Tr>
                    ))}
                  </Table.Tbody>
                </Table>
              )}

              {total > 0 ? (
                <Group justify="space-between">
                  <Text size="sm" c="dimmed" className="tabular-nums" data-testid="snippet-total">
                    {formatNumber((page - 1) * SNIPPET_PAGE_SIZE + 1)}–
                    {formatNumber(Math.min(page * SNIPPET_PAGE_SIZE, total))} of{' '}
                    {formatTotal(total, totalExact)}
                  </Text>
                  <Pagination
                    total={pages}
                    value={page}
                    onChange={(p) =>
                      setPaging({
                        key: filterKey,
                        ...pageRequest(
                          { page, answer: list.data, placeholder: list.isPlaceholderData },
                          p,
                        ),
                      })
                    }
                    size="sm"
                  />
                </Group>
              ) : null}
            </Stack>
          </Paper>
        </Tabs.Panel>

        {consistency.data
          ? (['consistent', 'index_only', 'disk_only'] as const).map((t) => (
              <Tabs.Panel key={t} value={t} pt="md">
                <Paper withBorder radius="md" p="md">
                  <ReportPanel
                    tab={t}
                    report={consistency.data}
                    onOpen={(id) => setOpened({ id })}
                  />
                </Paper>
              </Tabs.Panel>
            ))
          : null}
      </Tabs>

      <SnippetDetailsModal
        snippetId={opened?.id ?? null}
        initial={opened?.initial}
        onClose={() => setOpened(null)}
      />
    </Stack>
  );
}
