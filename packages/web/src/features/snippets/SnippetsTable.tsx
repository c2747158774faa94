import { Badge, Button, Checkbox, Group, Pagination, Table, Text } from '@mantine/core';
import { Link } from 'react-router';
import { SNIPPET_PAGE_SIZE, type Snippet } from '@adam/contracts';
import { tabHref } from '../../navigation/tabRegistry';
import { DateTime } from '../../components/DateTime';
import { QualityBadge } from '../../components/QualityBadge';
import { EmptyState, ErrorState, LoadingState } from '../../components/QueryState';
import { formatNumber, formatTotal } from '../../lib/format';
import { SNIPPET_MESSAGES } from './messages';
import { IndexStatusBadge } from './SnippetDetailsModal';
import type { SnippetsBrowserState } from './useSnippetsBrowser';

type TableState = Pick<
  SnippetsBrowserState,
  'list' | 'rows' | 'filtered' | 'selected' | 'allOnPage' | 'someOnPage' | 'toggle' | 'toggleAll'
>;

/** The page of snippets with its selection boxes, or its loading, error or empty state. */
export function SnippetsTable({
  state,
  onOpen,
}: {
  state: TableState;
  onOpen: (snippet: Snippet) => void;
}) {
  const { list, rows, filtered, selected, allOnPage, someOnPage, toggle, toggleAll } = state;

  if (list.isPending) return <LoadingState rows={10} label="Loading snippets" />;
  if (list.isError && !list.data)
    return (
      <ErrorState
        title={SNIPPET_MESSAGES.loadListFailed}
        message={list.error.message}
        onRetry={() => void list.refetch()}
      />
    );
  if (rows.length === 0)
    return (
      <EmptyState
        title={filtered ? 'No snippet matches these filters' : 'No snippets yet'}
        description={
          filtered
            ? 'Change or clear the filters to see more.'
            : 'Snippets appear here once sources have been processed.'
        }
        action={
          filtered ? null : (
            <Button component={Link} to={tabHref('sources-add')} size="xs" variant="light">
              Add sources
            </Button>
          )
        }
      />
    );

  return (
    // Scrolls sideways below its width rather than squeezing the badges (at 1024 px beside the
    // sidebar); a sticky header would stick to this container, not the page, so there is none.
    <Table.ScrollContainer minWidth={920} type="native">
      <Table
        striped
        highlightOnHover
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
              onClick={() => onOpen(s)}
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
                <Badge variant="light" color="indigo" radius="sm" tt="none" miw="max-content">
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
    </Table.ScrollContainer>
  );
}

/** "1–50 of 120" and the pager, while there is anything to page through. */
export function SnippetsPager({
  state,
}: {
  state: Pick<SnippetsBrowserState, 'total' | 'totalExact' | 'page' | 'pages' | 'goToPage'>;
}) {
  const { total, totalExact, page, pages, goToPage } = state;
  if (total === 0) return null;
  return (
    <Group justify="space-between">
      <Text size="sm" c="dimmed" className="tabular-nums" data-testid="snippet-total">
        {formatNumber((page - 1) * SNIPPET_PAGE_SIZE + 1)}–
        {formatNumber(Math.min(page * SNIPPET_PAGE_SIZE, total))} of{' '}
        {formatTotal(total, totalExact)}
      </Text>
      <Pagination total={pages} value={page} onChange={goToPage} size="sm" />
    </Group>
  );
}
