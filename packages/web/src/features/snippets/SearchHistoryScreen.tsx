import { useState } from 'react';
import { Link } from 'react-router';
import {
  ActionIcon,
  Alert,
  Badge,
  Button,
  Group,
  Paper,
  SegmentedControl,
  SimpleGrid,
  Stack,
  Table,
  Text,
  Title,
  Tooltip,
} from '@mantine/core';
import { IconPlaylistAdd, IconTrash } from '@tabler/icons-react';
import {
  SEARCH_MODES,
  WEAK_SIMILARITY,
  type SearchHistoryEntry,
  type SearchHistoryQueryStats,
  type SearchMode,
  type SearchOutcome,
} from '@adam/contracts';
import { confirmAction } from '../../components/ConfirmDialog';
import { PageHeader } from '../../components/PageHeader';
import { ErrorState, LoadingState } from '../../components/QueryState';
import { QueryTable } from '../../components/QueryTable';
import {
  DateRangeFilter,
  ResetFiltersButton,
  SelectFilter,
  TextFilter,
  type FilterOption,
} from '../../components/FilterBar';
import { dateFilterToIso, useFilterState } from '../../components/useFilterState';
import { StatCard } from '../../components/StatCard';
import { formatDate, formatNumber } from '../../lib/format';
import { useCan } from '../../session/useCan';
import {
  addToEvaluationHref,
  useClearSearchHistory,
  useDeleteSearchHistoryEntry,
  useSearchHistoryPage,
  useSearchHistorySummary,
  type SearchHistoryFilters,
} from './search-history.api';
import { DateTime } from '../../components/DateTime';
import { CursorPager, useCursorPages } from '../../components/CursorPager';

const DAYS = ['1', '7', '30', '90'];
const OUTCOME_LABELS: Record<SearchOutcome, string> = {
  all: 'All',
  empty: 'Found nothing',
  weak: 'Weak matches',
};
const WEAK_HINT = `Found something, but the best vector similarity is below ${WEAK_SIMILARITY} and no result contains a query word.`;

const ms = (value: number) => `${formatNumber(value, value < 10 ? 1 : 0)} ms`;

function AddToSet({ query, mode }: { query: string; mode: SearchMode }) {
  return (
    <Tooltip label="Add to evaluation set">
      <ActionIcon
        component={Link}
        to={addToEvaluationHref(query, mode)}
        variant="subtle"
        aria-label={`Add "${query}" to evaluation set`}
      >
        <IconPlaylistAdd size={16} />
      </ActionIcon>
    </Tooltip>
  );
}

function OutcomeBadge({ entry }: { entry: SearchHistoryEntry }) {
  if (entry.outcome === 'empty')
    return (
      <Badge color="red" variant="light">
        nothing found
      </Badge>
    );
  if (entry.outcome === 'weak')
    return (
      <Tooltip label={WEAK_HINT} multiline w={260}>
        <Badge color="orange" variant="light">
          weak
        </Badge>
      </Tooltip>
    );
  return null;
}

/** One list of the summary: queries grouped by their normalised text. */
function QueryStatsPanel({
  title,
  hint,
  rows,
  empty,
  latency = true,
}: {
  title: string;
  hint?: string;
  rows: SearchHistoryQueryStats[];
  empty: string;
  latency?: boolean;
}) {
  return (
    <Paper withBorder radius="md" p="md">
      <Stack gap="xs">
        <Title order={5}>{title}</Title>
        {hint ? (
          <Text size="xs" c="dimmed">
            {hint}
          </Text>
        ) : null}
        {rows.length === 0 ? (
          <Text size="sm" c="dimmed">
            {empty}
          </Text>
        ) : (
          <Table verticalSpacing={4} fz="sm">
            <Table.Thead>
              <Table.Tr>
                <Table.Th>Query</Table.Th>
                <Table.Th ta="right">Searches</Table.Th>
                {latency ? (
                  <>
                    <Table.Th ta="right">Avg</Table.Th>
                    <Table.Th ta="right">p95</Table.Th>
                    <Table.Th ta="right">Avg results</Table.Th>
                  </>
                ) : (
                  <Table.Th>Last</Table.Th>
                )}
                <Table.Th w={40} />
              </Table.Tr>
            </Table.Thead>
            <Table.Tbody>
              {rows.map((r) => (
                <Table.Tr key={r.normalized}>
                  <Table.Td>
                    <Text size="sm" lineClamp={2} title={r.query}>
                      {r.query}
                    </Text>
                  </Table.Td>
                  <Table.Td ta="right" className="tabular-nums">
                    {r.count}
                  </Table.Td>
                  {latency ? (
                    <>
                      <Table.Td ta="right" className="tabular-nums">
                        {ms(r.avg_latency_ms)}
                      </Table.Td>
                      <Table.Td ta="right" className="tabular-nums">
                        {ms(r.p95_latency_ms)}
                      </Table.Td>
                      <Table.Td ta="right" className="tabular-nums">
                        {formatNumber(r.avg_results, 1)}
                      </Table.Td>
                    </>
                  ) : (
                    <Table.Td style={{ whiteSpace: 'nowrap' }}>
                      <DateTime value={r.last_at} />
                    </Table.Td>
                  )}
                  <Table.Td>
                    <AddToSet query={r.query} mode={r.mode} />
                  </Table.Td>
                </Table.Tr>
              ))}
            </Table.Tbody>
          </Table>
        )}
      </Stack>
    </Paper>
  );
}

function Summary({ days }: { days: number }) {
  const summary = useSearchHistorySummary(days);
  if (summary.isPending) return <LoadingState rows={4} label="Loading the summary" />;
  if (summary.isError)
    return (
      <ErrorState
        title="Could not load the summary"
        message={summary.error.message}
        onRetry={() => void summary.refetch()}
      />
    );
  const s = summary.data;
  return (
    <Stack gap="md">
      {!s.recording.enabled ? (
        <Alert color="yellow" variant="light" title="Recording is off">
          New searches are not recorded. Turn it on under Settings → Quality.
        </Alert>
      ) : null}
      {s.recording.dropped > 0 ? (
        <Alert color="orange" variant="light" title="Searches dropped">
          {s.recording.dropped} searches were not recorded since the server started: the database
          fell behind.
        </Alert>
      ) : null}
      <SimpleGrid cols={{ base: 1, sm: 3 }}>
        <StatCard title="Searches" value={formatNumber(s.searches)} />
        <StatCard title="Found nothing" value={formatNumber(s.empty)} color="red" />
        <StatCard title="Weak matches" value={formatNumber(s.weak)} color="orange" />
      </SimpleGrid>
      <SimpleGrid cols={{ base: 1, lg: 2 }}>
        <QueryStatsPanel
          title="Top queries"
          rows={s.top_queries}
          empty="No searches in this period."
        />
        <Paper withBorder radius="md" p="md">
          <Stack gap="xs">
            <Title order={5}>Slowest searches</Title>
            {s.slowest.length === 0 ? (
              <Text size="sm" c="dimmed">
                No searches in this period.
              </Text>
            ) : (
              <Table verticalSpacing={4} fz="sm">
                <Table.Thead>
                  <Table.Tr>
                    <Table.Th>Query</Table.Th>
                    <Table.Th>Mode</Table.Th>
                    <Table.Th ta="right">Latency</Table.Th>
                    <Table.Th>When</Table.Th>
                    <Table.Th w={40} />
                  </Table.Tr>
                </Table.Thead>
                <Table.Tbody>
                  {s.slowest.map((e) => (
                    <Table.Tr key={e.id}>
                      <Table.Td>
                        <Text size="sm" lineClamp={2} title={e.query}>
                          {e.query}
                        </Text>
                      </Table.Td>
                      <Table.Td>{e.mode}</Table.Td>
                      <Table.Td ta="right" className="tabular-nums">
                        {ms(e.latency_ms)}
                      </Table.Td>
                      <Table.Td style={{ whiteSpace: 'nowrap' }}>
                        <DateTime value={e.at} />
                      </Table.Td>
                      <Table.Td>
                        <AddToSet query={e.query} mode={e.mode} />
                      </Table.Td>
                    </Table.Tr>
                  ))}
                </Table.Tbody>
              </Table>
            )}
          </Stack>
        </Paper>
        <QueryStatsPanel
          title="Queries that found nothing"
          rows={s.found_nothing}
          empty="Every search found something."
          latency={false}
        />
        <QueryStatsPanel
          title="Queries with only weak matches"
          hint={WEAK_HINT}
          rows={s.weak_matches}
          empty="No search with only weak matches."
          latency={false}
        />
      </SimpleGrid>
    </Stack>
  );
}

function EntryRow({
  entry,
  canDelete,
  onDelete,
}: {
  entry: SearchHistoryEntry;
  canDelete: boolean;
  onDelete: (entry: SearchHistoryEntry) => void;
}) {
  return (
    <Table.Tr>
      <Table.Td style={{ whiteSpace: 'nowrap' }}>
        <DateTime value={entry.at} />
      </Table.Td>
      <Table.Td>
        <Group gap={6} wrap="nowrap">
          <Text size="sm" lineClamp={2} title={entry.query}>
            {entry.query}
          </Text>
          <OutcomeBadge entry={entry} />
        </Group>
      </Table.Td>
      <Table.Td>{entry.mode}</Table.Td>
      <Table.Td ta="right" className="tabular-nums">
        {entry.result_count}
      </Table.Td>
      <Table.Td ta="right" className="tabular-nums">
        {entry.best_similarity === null ? '—' : formatNumber(entry.best_similarity, 3)}
      </Table.Td>
      <Table.Td ta="right" className="tabular-nums">
        {ms(entry.latency_ms)}
        {entry.rerank ? (
          <Text size="xs" c="dimmed">
            rerank {ms(entry.rerank.latency_ms)}
          </Text>
        ) : null}
      </Table.Td>
      <Table.Td>
        <Group gap={2} wrap="nowrap">
          <AddToSet query={entry.query} mode={entry.mode} />
          {canDelete ? (
            <Tooltip label="Delete this search">
              <ActionIcon
                variant="subtle"
                color="red"
                aria-label={`Delete the search "${entry.query}"`}
                onClick={() => onDelete(entry)}
              >
                <IconTrash size={16} />
              </ActionIcon>
            </Tooltip>
          ) : null}
        </Group>
      </Table.Td>
    </Table.Tr>
  );
}

const MODE_OPTIONS: FilterOption<SearchMode | ''>[] = [
  { value: '', label: 'Any' },
  ...SEARCH_MODES.map((m) => ({ value: m, label: m })),
];
const OUTCOME_OPTIONS = (Object.keys(OUTCOME_LABELS) as SearchOutcome[]).map((value) => ({
  value,
  label: OUTCOME_LABELS[value],
}));

/** Snippets → Search history: what people search for, what is slow, what finds nothing. */
export function SearchHistoryScreen() {
  const [days, setDays] = useState('7');
  const pages = useCursorPages();
  const form = useFilterState(
    { q: '', mode: '' as SearchMode | '', outcome: 'all' as SearchOutcome, from: '', to: '' },
    { text: ['q'], onChange: pages.reset },
  );
  const { values, applied, set } = form;
  const canClear = useCan('administrator');
  const canDelete = useCan('operator');
  const clear = useClearSearchHistory();
  const remove = useDeleteSearchHistoryEntry();

  const filters: SearchHistoryFilters = {
    q: applied.q || undefined,
    mode: applied.mode || undefined,
    outcome: applied.outcome === 'all' ? undefined : applied.outcome,
    from: dateFilterToIso(applied.from),
    to: dateFilterToIso(applied.to),
  };
  const { cursor } = pages;
  const page = useSearchHistoryPage(filters, cursor);
  const resetPaging = pages.reset;

  const askClear = () =>
    confirmAction({
      title: 'Clear the search history?',
      message: 'Every recorded search is deleted, for all users. This cannot be undone.',
      confirmLabel: 'Clear history',
      danger: true,
      onConfirm: () => clear.mutate(undefined, { onSuccess: resetPaging }),
    });
  const askDelete = (entry: SearchHistoryEntry) =>
    confirmAction({
      title: 'Delete this search?',
      message: `"${entry.query}" (${formatDate(entry.at)}) is removed from the history.`,
      confirmLabel: 'Delete',
      danger: true,
      onConfirm: () => remove.mutate(entry.id),
    });

  return (
    <Stack gap="md">
      <PageHeader
        title="Search history"
        description="Searches made in the console and through the API: the most frequent, the slowest, those that found nothing or only weak matches."
        actions={
          canClear ? (
            <Button
              color="red"
              variant="light"
              leftSection={<IconTrash size={16} />}
              loading={clear.isPending}
              onClick={askClear}
            >
              Clear history
            </Button>
          ) : null
        }
      />
      <Group justify="space-between">
        <Title order={4}>Summary</Title>
        <SegmentedControl
          aria-label="Period"
          value={days}
          onChange={setDays}
          data={DAYS.map((d) => ({ value: d, label: d === '1' ? '24 h' : `${d} days` }))}
        />
      </Group>
      <Summary days={Number(days)} />
      <Title order={4}>Searches</Title>
      <QueryTable
        query={page}
        count={(data) => data.entries.length}
        filters={
          <>
            <TextFilter
              label="Query contains"
              value={values.q}
              onChange={(v) => set('q', v)}
              w={220}
              maxLength={200}
            />
            <SelectFilter
              label="Mode"
              options={MODE_OPTIONS}
              value={values.mode}
              onChange={(v) => set('mode', v)}
              w={130}
            />
            <SelectFilter
              label="Outcome"
              options={OUTCOME_OPTIONS}
              value={values.outcome}
              onChange={(v) => set('outcome', v)}
              w={160}
            />
            <DateRangeFilter
              from={values.from}
              to={values.to}
              onFrom={(v) => set('from', v)}
              onTo={(v) => set('to', v)}
            />
            <ResetFiltersButton active={form.active} onReset={form.reset} />
          </>
        }
        loading={{ rows: 8, label: 'Loading the search history' }}
        errorTitle="Could not load the search history"
        empty={{
          title: 'No searches recorded',
          description: 'Searches made under Snippets → Search or through the API appear here.',
        }}
        filtered={Object.values(filters).some((value) => value !== undefined)}
        noMatch={{
          title: 'No matching searches',
          description: 'No recorded search matches these filters.',
        }}
      >
        {(data) => (
          <Paper withBorder radius="md">
            <Table.ScrollContainer minWidth={860}>
              <Table verticalSpacing="xs" striped>
                <Table.Thead>
                  <Table.Tr>
                    <Table.Th>When</Table.Th>
                    <Table.Th>Query</Table.Th>
                    <Table.Th>Mode</Table.Th>
                    <Table.Th ta="right">Results</Table.Th>
                    <Table.Th ta="right">Best similarity</Table.Th>
                    <Table.Th ta="right">Latency</Table.Th>
                    <Table.Th w={80} />
                  </Table.Tr>
                </Table.Thead>
                <Table.Tbody>
                  {data.entries.map((entry) => (
                    <EntryRow
                      key={entry.id}
                      entry={entry}
                      canDelete={canDelete}
                      onDelete={askDelete}
                    />
                  ))}
                </Table.Tbody>
              </Table>
            </Table.ScrollContainer>
          </Paper>
        )}
      </QueryTable>
      <CursorPager pages={pages} next={page.data?.next_cursor} />
    </Stack>
  );
}
