import type { ReactNode } from 'react';
import { Group, Pagination, Stack, Text } from '@mantine/core';
import type { UseQueryResult } from '@tanstack/react-query';
import { formatNumber } from '../lib/format';
import { EmptyState, ErrorState, LoadingState } from './QueryState';
import { FilterBar } from './FilterBar';

/** The part of a query a table shows: its data, its load, its failure and a retry. */
export type TableQuery<T> = Pick<
  UseQueryResult<T>,
  'data' | 'isLoading' | 'isError' | 'error' | 'refetch' | 'isPlaceholderData'
>;

interface EmptyText {
  title: string;
  description: ReactNode;
}

/** Pages of `perPage` rows that `total` rows fill; one at least, so an empty list has its page. */
export const pageCount = (total: number, perPage: number) =>
  Math.max(1, Math.ceil(total / perPage));

/**
 * A table fed by a query: the filter row above it, then loading, failed, empty (or nothing
 * matching the filters) or the table itself with its pager. While another page or filter loads,
 * the rows shown are the previous ones, dimmed.
 */
export function QueryTable<T>({
  query,
  count,
  filters,
  loading,
  errorTitle,
  empty,
  filtered = false,
  noMatch,
  emptyFooter,
  pager,
  gap = 'sm',
  children,
}: {
  query: TableQuery<T>;
  /** How many rows the data holds; none shows the empty state. */
  count: (data: T) => number;
  /** The filter inputs, laid out in a row (anything at its right end takes `ml="auto"`). */
  filters?: ReactNode;
  loading: { rows: number; label: string };
  errorTitle: string;
  empty: EmptyText;
  /** When filters are set, the empty state says nothing matches them. */
  filtered?: boolean;
  noMatch?: EmptyText;
  /** Below the empty state (a Close button, say). */
  emptyFooter?: ReactNode;
  pager?: { page: number; perPage: number; total: number; onChange: (page: number) => void };
  gap?: 'sm' | 'md';
  children: (data: T) => ReactNode;
}) {
  const { data, isLoading, isError, error, refetch, isPlaceholderData } = query;
  const shown = filtered && noMatch ? noMatch : empty;
  return (
    <Stack gap={gap}>
      {filters ? <FilterBar gap={gap}>{filters}</FilterBar> : null}
      {isLoading ? (
        <LoadingState rows={loading.rows} label={loading.label} />
      ) : isError ? (
        <ErrorState title={errorTitle} message={error?.message} onRetry={() => void refetch()} />
      ) : data === undefined || count(data) === 0 ? (
        <>
          <EmptyState title={shown.title} description={shown.description} />
          {emptyFooter}
        </>
      ) : (
        <Stack gap={gap} opacity={isPlaceholderData ? 0.6 : 1}>
          {children(data)}
          {pager ? <Pager {...pager} /> : null}
        </Stack>
      )}
    </Stack>
  );
}

/** Which rows of how many, and the pages; nothing when one page holds them all. */
function Pager({
  page,
  perPage,
  total,
  onChange,
}: {
  page: number;
  perPage: number;
  total: number;
  onChange: (page: number) => void;
}) {
  const pages = pageCount(total, perPage);
  if (pages <= 1) return null;
  return (
    <Group justify="space-between">
      <Text size="xs" c="dimmed" className="tabular-nums">
        {formatNumber((page - 1) * perPage + 1)}–{formatNumber(Math.min(page * perPage, total))} of{' '}
        {formatNumber(total)}
      </Text>
      <Pagination total={pages} value={page} onChange={onChange} size="sm" />
    </Group>
  );
}
