/** Snippets search (snippets-search, spec 002 §2, §7): similarity search over the index. */
import { useState } from 'react';
import {
  Anchor,
  Badge,
  Button,
  Group,
  NumberInput,
  Paper,
  Progress,
  Stack,
  Switch,
  Text,
  TextInput,
  UnstyledButton,
} from '@mantine/core';
import { IconSearch } from '@tabler/icons-react';
import {
  MAX_SEARCH_K,
  SNIPPET_SEARCH_K,
  type SearchMode,
  type SnippetSearchRequest,
  type SnippetSearchResponse,
  type Theme,
} from '@adam/contracts';
import { PageHeader } from '../../components/PageHeader';
import { FoundBy, SEARCH_MODE_LABELS, SearchModeControl } from '../../components/SearchMode';
import { QualityBadge } from '../../components/QualityBadge';
import { EmptyState, ErrorState } from '../../components/QueryState';
import { formatNumber } from '../../lib/format';
import { SNIPPET_MESSAGES } from './messages';
import { SnippetDetailsModal } from './SnippetDetailsModal';
import { useSnippetSearch } from './snippets.api';
import { MinQualityInput, ThemeFilterSelect } from './SnippetFilterInputs';

type Result = SnippetSearchResponse['results'][number];

function toNumber(value: number | string): number | undefined {
  const n = typeof value === 'number' ? value : value.trim() === '' ? NaN : Number(value);
  return Number.isFinite(n) ? n : undefined;
}

/**
 * The request as sent: k within 1..100 (default 5), filters only when set, `rerank: true` when
 * asked in hybrid mode (otherwise absent: the processing setting decides).
 */
export function buildSearchRequest(form: {
  query: string;
  k: number | string;
  theme: Theme | null;
  minQuality: number | string;
  mode: SearchMode;
  rerank?: boolean;
}): SnippetSearchRequest {
  const k = Math.round(toNumber(form.k) ?? SNIPPET_SEARCH_K);
  const minQuality = toNumber(form.minQuality);
  const filters: NonNullable<SnippetSearchRequest['filters']> = {};
  if (form.theme) filters.theme = form.theme;
  if (minQuality !== undefined) filters.min_quality = Math.min(1, Math.max(0, minQuality));
  return {
    query: form.query.trim(),
    k: Math.min(MAX_SEARCH_K, Math.max(1, k)),
    mode: form.mode,
    ...(Object.keys(filters).length ? { filters } : {}),
    ...(form.rerank && form.mode === 'hybrid' ? { rerank: true } : {}),
  };
}

/** The rerank stage's line: what reranked how many, and its own cost. */
export function rerankLine(rerank: NonNullable<SnippetSearchResponse['rerank']>): string {
  return `Reranked the top ${rerank.top_n} with ${rerank.model} in ${formatNumber(rerank.latency_ms, 2)} ms`;
}

function ResultCard({
  result,
  rank,
  onOpen,
}: {
  result: Result;
  rank: number;
  onOpen: () => void;
}) {
  const source = result.source_info;
  return (
    <Paper withBorder radius="md" p="md" data-testid="search-result">
      <Stack gap="xs">
        <Group justify="space-between" wrap="nowrap">
          <Group gap="xs">
            <Text size="sm" c="dimmed" className="tabular-nums">
              #{rank}
            </Text>
            <Badge variant="light" color="indigo" radius="sm" tt="none">
              {result.theme}
            </Badge>
            <QualityBadge score={result.quality_score} />
            <Text size="xs" c="dimmed">
              Snippet {result.snippet_id}
            </Text>
            <FoundBy result={result} />
          </Group>
          <Group gap="xs" wrap="nowrap" w={280}>
            <Progress
              value={Math.max(0, Math.min(1, result.score)) * 100}
              size="sm"
              radius="xl"
              style={{ flex: 1 }}
              aria-label="Score"
            />
            <Text size="sm" fw={600} className="tabular-nums" title="Score" data-testid="score">
              {result.score.toFixed(4)}
            </Text>
            <Text
              size="xs"
              c="dimmed"
              className="tabular-nums"
              title="Similarity (cosine)"
              data-testid="similarity"
            >
              cos {result.similarity.toFixed(4)}
            </Text>
            {result.rerank_score !== null ? (
              <Text
                size="xs"
                c="grape"
                className="tabular-nums"
                title="Reranker score (higher is more relevant)"
                data-testid="rerank-score"
              >
                rerank {result.rerank_score.toFixed(3)}
              </Text>
            ) : null}
          </Group>
        </Group>
        <UnstyledButton onClick={onOpen} aria-label={`Open snippet ${result.snippet_id}`}>
          <Text size="sm" lineClamp={4}>
            {result.text}
          </Text>
        </UnstyledButton>
        {source.url || source.title ? (
          <Text size="xs" c="dimmed" truncate="end">
            {source.url ? (
              <Anchor href={source.url} target="_blank" rel="noopener noreferrer" size="xs">
                {source.title || source.url}
              </Anchor>
            ) : (
              source.title
            )}
          </Text>
        ) : null}
      </Stack>
    </Paper>
  );
}

export function SnippetsSearchScreen() {
  const [query, setQuery] = useState('');
  const [k, setK] = useState<number | string>(SNIPPET_SEARCH_K);
  const [theme, setTheme] = useState<Theme | null>(null);
  const [minQuality, setMinQuality] = useState<number | string>('');
  const [mode, setMode] = useState<SearchMode>('hybrid');
  const [rerank, setRerank] = useState(false);
  const [opened, setOpened] = useState<Result | null>(null);
  // Snippets deleted from the modal leave the results shown.
  const [deleted, setDeleted] = useState<ReadonlySet<number>>(new Set());
  const search = useSnippetSearch();
  const blank = query.trim() === '';

  const submit = () => {
    if (blank) return;
    search.mutate(buildSearchRequest({ query, k, theme, minQuality, mode, rerank }));
  };

  const answer = search.data;
  const results = answer?.results.filter((r) => !deleted.has(r.snippet_id)) ?? [];

  return (
    <Stack gap="lg">
      <PageHeader
        title="Snippets Search"
        description="Find the snippets that answer a question or match a phrase, by meaning and by words."
      />

      <Paper withBorder radius="md" p="md">
        <form
          onSubmit={(e) => {
            e.preventDefault();
            submit();
          }}
        >
          <Stack gap="sm">
            <Group gap="sm" align="flex-end">
              <TextInput
                label="Query"
                placeholder="e.g. how do bees communicate?"
                leftSection={<IconSearch size={16} />}
                value={query}
                onChange={(e) => setQuery(e.currentTarget.value)}
                style={{ flex: 1, minWidth: 260 }}
                data-autofocus
              />
              <NumberInput
                label="Results (k)"
                min={1}
                max={MAX_SEARCH_K}
                step={1}
                allowDecimal={false}
                clampBehavior="strict"
                value={k}
                onChange={setK}
                w={120}
              />
              <ThemeFilterSelect value={theme} onChange={setTheme} />
              <MinQualityInput value={minQuality} onChange={setMinQuality} />
              <Button
                type="submit"
                leftSection={<IconSearch size={16} />}
                disabled={blank}
                loading={search.isPending}
              >
                Search
              </Button>
            </Group>
            <Group justify="space-between" align="flex-start">
              <Group gap="md">
                <SearchModeControl value={mode} onChange={setMode} />
                {mode === 'hybrid' ? (
                  <Switch
                    label="Rerank"
                    description="Re-score the top results with the reranker model (off: the processing setting decides)"
                    checked={rerank}
                    onChange={(e) => setRerank(e.currentTarget.checked)}
                  />
                ) : null}
              </Group>
              <Text size="xs" c="dimmed" mih={18}>
                {blank ? SNIPPET_MESSAGES.emptyQuery : null}
              </Text>
            </Group>
          </Stack>
        </form>
      </Paper>

      {search.isError ? (
        <ErrorState title={SNIPPET_MESSAGES.searchFailed} message={search.error.message} />
      ) : null}

      {answer ? (
        <Stack gap="sm">
          <Group justify="space-between">
            <Text size="sm" c="dimmed">
              {formatNumber(answer.total)} result(s) for “{answer.query}” ·{' '}
              {SEARCH_MODE_LABELS[answer.mode]}
            </Text>
            <Text size="sm" c="dimmed" className="tabular-nums" data-testid="search-latency">
              {formatNumber(answer.latency_ms, 2)} ms
            </Text>
          </Group>
          {answer.rerank ? (
            <Text size="sm" c="grape" className="tabular-nums" data-testid="rerank-line">
              {rerankLine(answer.rerank)}
            </Text>
          ) : null}
          {results.length === 0 ? (
            <EmptyState
              title="No results"
              description="No indexed snippet matches this query and these filters."
            />
          ) : (
            results.map((r, i) => (
              <ResultCard key={r.snippet_id} result={r} rank={i + 1} onOpen={() => setOpened(r)} />
            ))
          )}
        </Stack>
      ) : !search.isError ? (
        <EmptyState
          title="Search the snippets"
          description="Type a query and press Search: the best snippets are listed with their score, which side found them (words, meaning or both), quality, theme and source."
        />
      ) : null}

      <SnippetDetailsModal
        snippetId={opened?.snippet_id ?? null}
        initial={opened ?? undefined}
        onClose={() => setOpened(null)}
        onDeleted={(id) => setDeleted((current) => new Set(current).add(id))}
      />
    </Stack>
  );
}
