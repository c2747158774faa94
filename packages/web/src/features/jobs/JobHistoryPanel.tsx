import { useState } from 'react';
import { Group, Select, Stack, Text, TextInput } from '@mantine/core';
import { useDebouncedValue } from '@mantine/hooks';
import { JOB_SEARCH_MAX } from '@adam/contracts';
import { FilterBar, TextFilter } from '../../components/FilterBar';
import { EmptyState, ErrorState, LoadingState } from '../../components/QueryState';
import { formatNumber, formatTotal } from '../../lib/format';
import { JobTable, type JobTableHandlers } from './JobTable';
import { JOB_TYPE_OPTIONS } from './jobTypes';
import {
  HISTORY_PAGE_SIZE,
  HISTORY_STATUSES,
  NO_HISTORY_FILTERS,
  useHistoryPage,
  type HistoryFilters,
} from './jobs.api';
import { CursorPager, useCursorPages } from '../../components/CursorPager';

const STATUS_OPTIONS = HISTORY_STATUSES.map((s) => ({ value: s, label: s }));

/**
 * The History tab: finished jobs newest first, a page at a time by cursor (the server's keyset),
 * with filters. Previous pages are the cursors already walked, kept here.
 */
export function JobHistoryPanel({
  refetchMs,
  handlers,
}: {
  refetchMs: number | false;
  handlers: JobTableHandlers;
}) {
  const [filters, setFilters] = useState<HistoryFilters>(NO_HISTORY_FILTERS);
  const [search, setSearch] = useState('');
  const [q] = useDebouncedValue(search.trim(), 300);
  const pages = useCursorPages();
  const applied = { ...filters, q };
  const { cursor } = pages;
  const { data, isLoading, isError, error, refetch, isPlaceholderData } = useHistoryPage(
    applied,
    cursor,
    refetchMs,
  );

  // A changed filter starts again at the first page.
  const setFilter = <K extends keyof HistoryFilters>(key: K, value: HistoryFilters[K]) => {
    setFilters((f) => ({ ...f, [key]: value }));
    pages.reset();
  };
  const filtered =
    filters.status !== null || filters.type !== null || !!filters.from || !!filters.to || !!q;
  const { pageNumber } = pages;
  const first = (pageNumber - 1) * HISTORY_PAGE_SIZE + 1;

  return (
    <Stack gap="sm">
      <FilterBar
        label="Filter the job history"
        active={filtered}
        onReset={() => {
          setFilters(NO_HISTORY_FILTERS);
          setSearch('');
          pages.reset();
        }}
      >
        <TextFilter
          label="Search"
          placeholder="Text in a URL or title"
          search
          clearLabel="Clear the search"
          value={search}
          maxLength={JOB_SEARCH_MAX}
          onChange={(value) => {
            setSearch(value);
            pages.reset();
          }}
          w={240}
        />
        <Select
          label="Status"
          placeholder="Any"
          data={STATUS_OPTIONS}
          value={filters.status}
          onChange={(v) => setFilter('status', v as HistoryFilters['status'])}
          clearable
          w={140}
        />
        <Select
          label="Type"
          placeholder="Any"
          data={JOB_TYPE_OPTIONS}
          value={filters.type}
          onChange={(v) => setFilter('type', v)}
          clearable
          searchable
          w={180}
        />
        <TextInput
          label="Created from"
          type="date"
          value={filters.from ?? ''}
          onChange={(e) => setFilter('from', e.currentTarget.value || null)}
          w={150}
        />
        <TextInput
          label="to"
          type="date"
          value={filters.to ?? ''}
          onChange={(e) => setFilter('to', e.currentTarget.value || null)}
          w={150}
        />
      </FilterBar>

      {isLoading ? (
        <LoadingState rows={6} label="Loading the job history" />
      ) : isError ? (
        <ErrorState
          title="Could not load the job history"
          message={error.message}
          onRetry={() => void refetch()}
        />
      ) : !data || data.jobs.length === 0 ? (
        filtered ? (
          <EmptyState
            title="No job matches these filters"
            description="Change or clear the filters to see more of the history."
          />
        ) : (
          <EmptyState
            title="No finished jobs yet"
            description="Completed, failed and cancelled jobs appear here."
          />
        )
      ) : (
        <>
          <div style={{ opacity: isPlaceholderData ? 0.6 : 1 }}>
            <JobTable jobs={data.jobs} {...handlers} />
          </div>
          <Group justify="space-between">
            <Text size="xs" c="dimmed" className="tabular-nums" data-testid="history-range">
              Jobs {formatNumber(first)}–{formatNumber(first + data.jobs.length - 1)} of{' '}
              {formatTotal(data.total, data.total_exact)}
              {data.total_exact ? '' : ' (more)'}
            </Text>
            <CursorPager
              pages={pages}
              next={data.next_cursor}
              showPage
              olderDisabled={isPlaceholderData}
            />
          </Group>
        </>
      )}
    </Stack>
  );
}
