import { useState, type FormEvent, type ReactNode } from 'react';
import {
  Badge,
  Button,
  Group,
  NumberInput,
  Paper,
  Progress,
  Stack,
  Table,
  Text,
  TextInput,
} from '@mantine/core';
import { IconSearch } from '@tabler/icons-react';
import {
  INDEX_SEARCH_K,
  MAX_SEARCH_K,
  type SearchMode,
  type SnippetSearchResponse,
} from '@adam/contracts';
import { EmptyState, ErrorState } from '../../components/QueryState';
import { QualityBadge } from '../../components/QualityBadge';
import { FoundBy, SEARCH_MODE_LABELS, SearchModeControl } from '../../components/SearchMode';
import { formatNumber } from '../../lib/format';
import { useIndexSearch } from './index.api';
import { INDEX_MESSAGES } from './messages';

/** Similarity (cosine, 0–1) as a bar and a percentage. */
function SimilarityBar({ value }: { value: number }) {
  const percent = Math.max(0, Math.min(100, value * 100));
  return (
    <Group gap="xs" wrap="nowrap" miw={100}>
      <Progress value={percent} size="sm" radius="xl" w={70} aria-hidden />
      <Text size="sm" fw={600} className="tabular-nums">
        {percent.toFixed(1)}%
      </Text>
    </Group>
  );
}

function ResultsTable({ data, maxHeight }: { data: SnippetSearchResponse; maxHeight?: number }) {
  return (
    <Table.ScrollContainer minWidth={940} maxHeight={maxHeight} type="native">
      <Table striped highlightOnHover stickyHeader verticalSpacing="xs" aria-label="Search results">
        <Table.Thead>
          <Table.Tr>
            <Table.Th w={90}>Snippet</Table.Th>
            <Table.Th w={150}>Similarity</Table.Th>
            <Table.Th w={80}>Score</Table.Th>
            <Table.Th w={150}>Found by</Table.Th>
            <Table.Th miw={240}>Text</Table.Th>
            <Table.Th w={110}>Theme</Table.Th>
            <Table.Th w={80}>Quality</Table.Th>
          </Table.Tr>
        </Table.Thead>
        <Table.Tbody>
          {data.results.map((r) => (
            <Table.Tr key={r.snippet_id} data-snippet-id={r.snippet_id}>
              <Table.Td className="tabular-nums">#{r.snippet_id}</Table.Td>
              <Table.Td>
                <SimilarityBar value={r.similarity} />
              </Table.Td>
              <Table.Td className="tabular-nums" data-testid="score">
                {r.score.toFixed(3)}
              </Table.Td>
              <Table.Td>
                <FoundBy result={r} />
              </Table.Td>
              <Table.Td>
                <Text size="sm" lineClamp={2}>
                  {r.text}
                </Text>
                {r.source_info.title ? (
                  <Text size="xs" c="dimmed" lineClamp={1}>
                    {r.source_info.title}
                  </Text>
                ) : null}
              </Table.Td>
              <Table.Td>
                <Badge variant="light" color="gray" radius="sm" miw="max-content">
                  {r.theme}
                </Badge>
              </Table.Td>
              <Table.Td>
                <QualityBadge score={r.quality_score} />
              </Table.Td>
            </Table.Tr>
          ))}
        </Table.Tbody>
      </Table>
    </Table.ScrollContainer>
  );
}

/**
 * A similarity search over the index (POST /admin/index/search): a non-empty query and k
 * (default 10), results with their similarity. Used by the search tab and the test-search modal.
 */
export function IndexSearchPanel({
  resultsMaxHeight,
  beforeFirstSearch,
}: {
  resultsMaxHeight?: number;
  /** Shown until the first search is asked. */
  beforeFirstSearch?: ReactNode;
}) {
  const [query, setQuery] = useState('');
  const [k, setK] = useState<number | string>(INDEX_SEARCH_K);
  const [mode, setMode] = useState<SearchMode>('hybrid');
  const search = useIndexSearch();
  const trimmed = query.trim();
  const kValue = typeof k === 'number' ? k : Number(k) || INDEX_SEARCH_K;

  const submit = (event: FormEvent) => {
    event.preventDefault();
    // Spec 002 §5: searches need a non-empty query.
    if (!trimmed) return;
    search.mutate({ query: trimmed, k: kValue, mode });
  };

  return (
    <Stack gap="md">
      <form onSubmit={submit}>
        <Stack gap="xs">
          <Group align="flex-end" gap="sm" wrap="nowrap">
            <TextInput
              label="Query"
              placeholder="What are you looking for?"
              value={query}
              onChange={(e) => setQuery(e.currentTarget.value)}
              leftSection={<IconSearch size={16} />}
              style={{ flex: 1 }}
              data-autofocus
            />
            <NumberInput
              label="k"
              title={`Number of results, 1 to ${MAX_SEARCH_K}`}
              value={k}
              onChange={setK}
              min={1}
              max={MAX_SEARCH_K}
              allowDecimal={false}
              allowNegative={false}
              clampBehavior="strict"
              w={100}
            />
            <Button type="submit" disabled={!trimmed} loading={search.isPending}>
              Search
            </Button>
          </Group>
          <SearchModeControl value={mode} onChange={setMode} />
        </Stack>
      </form>

      {search.isIdle ? beforeFirstSearch : null}

      {search.isError ? (
        <ErrorState title={INDEX_MESSAGES.searchFailed} message={search.error.message} />
      ) : null}

      {search.data ? (
        <Stack gap="xs">
          <Text size="sm" c="dimmed" className="tabular-nums">
            {formatNumber(search.data.results.length)} result
            {search.data.results.length === 1 ? '' : 's'} for “{search.data.query}” (
            {SEARCH_MODE_LABELS[search.data.mode]}) in {formatNumber(search.data.latency_ms, 1)} ms
          </Text>
          {search.data.results.length ? (
            <Paper withBorder radius="md">
              <ResultsTable data={search.data} maxHeight={resultsMaxHeight} />
            </Paper>
          ) : (
            <EmptyState
              title="No match"
              description="The index holds no snippet close to this query."
            />
          )}
        </Stack>
      ) : null}
    </Stack>
  );
}
