import { useState } from 'react';
import { Badge, Group, Pagination, Paper, Stack, Table, Text } from '@mantine/core';
import { THEMES, type IndexEntry } from '@adam/contracts';
import { PageHeader } from '../../components/PageHeader';
import { FilterBar, SelectFilter, TextFilter } from '../../components/FilterBar';
import { useFilterState } from '../../components/useFilterState';
import { EmptyState, ErrorState, LoadingState } from '../../components/QueryState';
import { QualityBadge } from '../../components/QualityBadge';
import { formatNumber, formatTotal } from '../../lib/format';
import { pageRequest, type PageRequest } from '../../lib/cursorPaging';
import { INDEX_CONTENT_PAGE_SIZE, useIndexEntries } from './index.api';
import { INDEX_MESSAGES } from './messages';
import { DateTime } from '../../components/DateTime';

const THEME_OPTIONS = [
  { value: '', label: 'All themes' },
  ...THEMES.map((t) => ({ value: t, label: t })),
];

function EntryRow({ entry }: { entry: IndexEntry }) {
  return (
    <Table.Tr data-snippet-id={entry.snippet_id}>
      <Table.Td className="tabular-nums">#{entry.snippet_id}</Table.Td>
      <Table.Td className="tabular-nums">{entry.faiss_id ?? '-'}</Table.Td>
      <Table.Td className="tabular-nums" style={{ whiteSpace: 'nowrap' }}>
        <DateTime value={entry.indexed_at} />
      </Table.Td>
      <Table.Td>
        <Badge variant="light" color="gray" radius="sm" miw="max-content">
          {entry.theme}
        </Badge>
      </Table.Td>
      <Table.Td>
        <QualityBadge score={entry.quality_score} />
      </Table.Td>
      <Table.Td>
        <Text size="sm" lineClamp={2}>
          {entry.text}
        </Text>
      </Table.Td>
    </Table.Tr>
  );
}

/**
 * Index Content (spec 002 §2, §7): the indexed snippets, paged on the server (50 a page), with
 * a text search and a theme filter; a filter change goes back to page 1.
 */
export function IndexContentScreen() {
  const [paging, setPaging] = useState<PageRequest>({ page: 1 });
  const page = paging.page;
  const setPage = (p: number) => setPaging({ page: p });
  const form = useFilterState(
    { search: '', theme: '' },
    { text: ['search'], onChange: () => setPage(1) },
  );
  const { values, applied, set } = form;
  const entries = useIndexEntries({
    page,
    cursor: paging.cursor,
    search: applied.search,
    theme: applied.theme,
  });
  const data = entries.data;
  const pages = data ? Math.max(1, Math.ceil(data.total / INDEX_CONTENT_PAGE_SIZE)) : 1;
  const first = data && data.total ? (page - 1) * INDEX_CONTENT_PAGE_SIZE + 1 : 0;
  const last = data ? Math.min(data.total, page * INDEX_CONTENT_PAGE_SIZE) : 0;
  const filtered = applied.search !== '' || applied.theme !== '';

  return (
    <Stack gap="lg">
      <PageHeader
        title="Index Content"
        description="Snippets that have a vector in the index, newest first."
      />
      <Paper withBorder radius="md" p="md">
        <FilterBar label="Index filters" active={form.active} onReset={form.reset}>
          <TextFilter
            label="Search"
            placeholder="Text contains…"
            search
            value={values.search}
            onChange={(v) => set('search', v)}
            grow
            maw={480}
          />
          <SelectFilter
            label="Theme"
            options={THEME_OPTIONS}
            value={values.theme}
            onChange={(v) => set('theme', v)}
            w={180}
          />
        </FilterBar>
      </Paper>

      <Paper withBorder radius="md" p="md">
        {entries.isError && !data ? (
          <ErrorState
            title={INDEX_MESSAGES.infoFailed}
            message={entries.error.message}
            onRetry={() => void entries.refetch()}
          />
        ) : !data ? (
          <LoadingState rows={8} label="Loading index content" />
        ) : data.total === 0 ? (
          <EmptyState
            title={filtered ? 'No indexed snippet matches these filters' : 'The index is empty'}
            description={
              filtered
                ? 'Change the search text or the theme.'
                : 'Snippets appear here once their vectors are indexed.'
            }
          />
        ) : (
          <Stack gap="sm">
            <Group justify="space-between">
              <Text size="sm" c="dimmed" className="tabular-nums">
                {formatNumber(first)}–{formatNumber(last)} of{' '}
                {formatTotal(data.total, data.total_exact)} indexed snippets
              </Text>
              {entries.isError ? (
                <Badge color="red" variant="light">
                  {INDEX_MESSAGES.infoFailed}
                </Badge>
              ) : null}
            </Group>
            <Table.ScrollContainer minWidth={860} maxHeight="calc(100vh - 360px)">
              <Table
                striped
                highlightOnHover
                stickyHeader
                verticalSpacing="xs"
                aria-label="Index content"
                opacity={entries.isPlaceholderData ? 0.6 : 1}
              >
                <Table.Thead>
                  <Table.Tr>
                    <Table.Th w={90}>Snippet</Table.Th>
                    <Table.Th w={90}>FAISS ID</Table.Th>
                    <Table.Th w={160}>Indexed at</Table.Th>
                    <Table.Th w={120}>Theme</Table.Th>
                    <Table.Th w={80}>Quality</Table.Th>
                    <Table.Th>Text</Table.Th>
                  </Table.Tr>
                </Table.Thead>
                <Table.Tbody>
                  {data.snippets.map((entry) => (
                    <EntryRow key={entry.snippet_id} entry={entry} />
                  ))}
                </Table.Tbody>
              </Table>
            </Table.ScrollContainer>
            {pages > 1 ? (
              <Group justify="flex-end">
                <Pagination
                  total={pages}
                  value={page}
                  onChange={(p) =>
                    setPaging(
                      pageRequest(
                        { page, answer: data, placeholder: entries.isPlaceholderData },
                        p,
                      ),
                    )
                  }
                  size="sm"
                />
              </Group>
            ) : null}
          </Stack>
        )}
      </Paper>
    </Stack>
  );
}
