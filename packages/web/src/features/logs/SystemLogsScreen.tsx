/**
 * Logs Système (monitoring-logs, spec 001 §2.7): the server's stored log lines, filtered by
 * level, range and text, paged 20 at a time, with live lines merged into page 1.
 */
import { useState } from 'react';
import {
  Alert,
  Anchor,
  Badge,
  Box,
  Button,
  Group,
  Input,
  Loader,
  Paper,
  SegmentedControl,
  Stack,
  Table,
  Text,
} from '@mantine/core';
import { useDebouncedValue } from '@mantine/hooks';
import {
  IconAlertTriangle,
  IconChevronLeft,
  IconChevronRight,
  IconRefresh,
} from '@tabler/icons-react';
import {
  HISTORY_RANGES,
  LOG_LEVELS,
  LOG_PAGE_SIZE,
  type HistoryRange,
  type LogEntry,
} from '@adam/contracts';
import { EmptyState } from '../../components/QueryState';
import { PageHeader } from '../../components/PageHeader';
import { FilterBar, SelectFilter, TextFilter, type FilterOption } from '../../components/FilterBar';
import { useRealtime, useRealtimeEvent } from '../../lib/realtime/RealtimeProvider';
import { useLogs, type LogsParams } from './logs.api';
import {
  LEVEL_COLORS,
  formatLogTime,
  matchesFilters,
  mergeLive,
  normalizeLogs,
  toLogEntry,
  type LogLevelFilter,
} from './logRules';
import { formatUtc } from '../../lib/format';
import { LOG_MESSAGES as M } from './messages';

/** Typing in the search box queries the server once the operator pauses (Enter: at once). */
const SEARCH_DEBOUNCE_MS = 400;
/** Past this length (or with line breaks) a message is clamped, with a toggle to read it all. */
const LONG_MESSAGE_CHARS = 240;

const LEVEL_OPTIONS: FilterOption<LogLevelFilter>[] = [
  { value: 'all', label: 'All' },
  ...LOG_LEVELS.map((level) => ({ value: level, label: level[0]!.toUpperCase() + level.slice(1) })),
];

const NO_LIVE: readonly LogEntry[] = [];

const rowKey = (entry: LogEntry) => `${entry.timestamp}\u0000${entry.message}`;

/** A message wraps; a long one is clamped to three lines, its full text in the title and a toggle. */
function MessageCell({ message }: { message: string }) {
  const [expanded, setExpanded] = useState(false);
  const long = message.length > LONG_MESSAGE_CHARS || message.includes('\n');
  return (
    <Stack gap={2} align="flex-start">
      <Text
        size="sm"
        title={message}
        lineClamp={long && !expanded ? 3 : undefined}
        style={{ whiteSpace: 'pre-wrap', overflowWrap: 'anywhere' }}
      >
        {message}
      </Text>
      {long ? (
        <Anchor component="button" size="xs" onClick={() => setExpanded((e) => !e)}>
          {expanded ? 'Show less' : 'Show all'}
        </Anchor>
      ) : null}
    </Stack>
  );
}

function LogRows({ rows, dimmed }: { rows: LogEntry[]; dimmed: boolean }) {
  return (
    // Narrow screens scroll sideways rather than squeeze the message into a sliver.
    <Table.ScrollContainer minWidth={720} type="native">
      <Table
        striped
        highlightOnHover
        verticalSpacing="xs"
        layout="fixed"
        aria-label="Log lines"
        style={{ opacity: dimmed ? 0.6 : 1 }}
      >
        <Table.Thead>
          <Table.Tr>
            <Table.Th w={190}>Timestamp</Table.Th>
            <Table.Th w={120}>Level</Table.Th>
            <Table.Th w={130}>Component</Table.Th>
            <Table.Th>Message</Table.Th>
          </Table.Tr>
        </Table.Thead>
        <Table.Tbody>
          {rows.map((entry) => (
            <Table.Tr key={rowKey(entry)} data-testid="log-row" style={{ verticalAlign: 'top' }}>
              <Table.Td
                ff="monospace"
                fz="sm"
                title={
                  Number.isNaN(Date.parse(entry.timestamp))
                    ? entry.timestamp
                    : formatUtc(entry.timestamp)
                }
                style={{ whiteSpace: 'nowrap' }}
              >
                {formatLogTime(entry.timestamp)}
              </Table.Td>
              <Table.Td>
                <Badge variant="light" radius="sm" color={LEVEL_COLORS[entry.level]}>
                  {entry.level}
                </Badge>
              </Table.Td>
              <Table.Td>
                <Text size="sm" truncate="end" title={entry.component}>
                  {entry.component}
                </Text>
              </Table.Td>
              <Table.Td>
                <MessageCell message={entry.message} />
              </Table.Td>
            </Table.Tr>
          ))}
        </Table.Tbody>
      </Table>
    </Table.ScrollContainer>
  );
}

export function SystemLogsScreen() {
  const [level, setLevel] = useState<LogLevelFilter>('all');
  const [range, setRange] = useState<HistoryRange>('1h');
  const [searchInput, setSearchInput] = useState('');
  const [debounced] = useDebouncedValue(searchInput.trim(), SEARCH_DEBOUNCE_MS);
  // Enter searches at once; typing on falls back to the debounced text.
  const [entered, setEntered] = useState<string | null>(null);
  const q = entered === searchInput.trim() ? entered : debounced;

  // The page and the live lines belong to the filters: any filter change is page 1, afresh.
  const filterKey = JSON.stringify([level, range, q]);
  const [paging, setPaging] = useState({ key: filterKey, page: 1 });
  const page = paging.key === filterKey ? paging.page : 1;
  const goTo = (next: number) => setPaging({ key: filterKey, page: Math.max(1, next) });

  const params: LogsParams = { level, range, q, page, page_size: LOG_PAGE_SIZE };
  const list = useLogs(params);
  const { connected } = useRealtime();

  const [live, setLive] = useState<{ key: string; entries: readonly LogEntry[] }>({
    key: filterKey,
    entries: NO_LIVE,
  });
  const liveEntries = live.key === filterKey ? live.entries : NO_LIVE;
  useRealtimeEvent('log_entry', (message) => {
    if (page !== 1) return;
    const entry = toLogEntry(message);
    if (!entry || !matchesFilters(entry, { level, q })) return;
    setLive((current) => ({
      key: filterKey,
      // Only the newest page's worth can ever show on page 1.
      entries: normalizeLogs([
        entry,
        ...(current.key === filterKey ? current.entries : NO_LIVE),
      ]).slice(0, LOG_PAGE_SIZE),
    }));
  });

  const data = list.data;
  // Live lines join the page only when page 1 is what is on screen (not a placeholder of another).
  const shown =
    data && data.page === 1
      ? mergeLive(liveEntries, data.logs, LOG_PAGE_SIZE)
      : { rows: normalizeLogs(data?.logs ?? []), overflow: false };
  const hasMore = (data?.has_more ?? false) || shown.overflow;
  const switching = list.isPlaceholderData;

  const liveNote = !connected ? M.liveOff : page === 1 ? M.liveOn : M.liveOtherPage;

  return (
    <Stack gap="lg">
      <PageHeader
        title={M.title}
        description={M.description}
        actions={
          <Button
            variant="default"
            leftSection={<IconRefresh size={16} />}
            loading={list.isFetching && !list.isPending}
            onClick={() => void list.refetch()}
          >
            Refresh
          </Button>
        }
      />

      <Paper withBorder radius="md" p="md">
        <Stack gap="md">
          <FilterBar label="Log filters">
            <SelectFilter
              label="Level"
              options={LEVEL_OPTIONS}
              value={level}
              onChange={setLevel}
              w={150}
            />
            <Input.Wrapper label="Range">
              <Box>
                <SegmentedControl
                  aria-label="Range"
                  data={[...HISTORY_RANGES]}
                  value={range}
                  onChange={(v) => setRange(v as HistoryRange)}
                />
              </Box>
            </Input.Wrapper>
            <TextFilter
              label="Search"
              placeholder="Text in the message or component (Enter to search now)"
              search
              clearLabel="Clear search"
              value={searchInput}
              onChange={(v) => {
                setSearchInput(v);
                // Clearing the box shows everything at once, without waiting for the debounce.
                if (v === '') setEntered('');
              }}
              onEnter={() => setEntered(searchInput.trim())}
              grow
              minWidth={240}
            />
          </FilterBar>

          <Group gap={8} wrap="nowrap" data-testid="live-note">
            <Box
              w={8}
              h={8}
              style={{
                borderRadius: '50%',
                flexShrink: 0,
                background: connected
                  ? 'var(--mantine-color-green-6)'
                  : 'var(--mantine-color-gray-5)',
              }}
            />
            <Text size="xs" c="dimmed">
              {liveNote}
            </Text>
          </Group>

          {list.isError ? (
            <Alert
              color="red"
              variant="light"
              icon={<IconAlertTriangle size={18} />}
              title={M.fetchFailed}
            >
              <Group justify="space-between" gap="sm">
                <Text size="sm">{M.error(list.error.message)}</Text>
                <Button size="xs" variant="light" color="red" onClick={() => void list.refetch()}>
                  Retry
                </Button>
              </Group>
            </Alert>
          ) : null}

          {list.isPending ? (
            <Group gap="sm" justify="center" py="xl" aria-busy="true">
              <Loader size="sm" />
              <Text c="dimmed">{M.loading}</Text>
            </Group>
          ) : data && shown.rows.length === 0 ? (
            <EmptyState title={M.empty} description={M.emptyHint} />
          ) : data ? (
            <LogRows rows={shown.rows} dimmed={switching} />
          ) : null}

          <Group justify="flex-end" gap="sm">
            <Button
              variant="default"
              size="xs"
              leftSection={<IconChevronLeft size={14} />}
              disabled={page <= 1 || switching}
              onClick={() => goTo(page - 1)}
            >
              Previous
            </Button>
            <Text size="sm" fw={500} className="tabular-nums" aria-live="polite">
              {M.page(page)}
            </Text>
            <Button
              variant="default"
              size="xs"
              rightSection={<IconChevronRight size={14} />}
              disabled={!hasMore || switching || !data}
              onClick={() => goTo(page + 1)}
            >
              Next
            </Button>
          </Group>
        </Stack>
      </Paper>
    </Stack>
  );
}
