import { Badge, Group, Input, SegmentedControl, Stack, Text, Tooltip } from '@mantine/core';
import { SEARCH_MODES, type SearchMode, type SnippetSearchResult } from '@adam/contracts';

export const SEARCH_MODE_LABELS: Record<SearchMode, string> = {
  hybrid: 'Hybrid',
  vector: 'Vector',
  keyword: 'Keyword',
};

const SEARCH_MODE_HELP: Record<SearchMode, string> = {
  hybrid: 'Meaning and words together: the default, and usually the best.',
  vector: 'Closest in meaning, even without a shared word.',
  keyword: 'Snippets holding the query’s words (any form of them), best bm25 first.',
};

/** The three search modes of POST /snippets/search and /admin/index/search. */
export function SearchModeControl({
  value,
  onChange,
}: {
  value: SearchMode;
  onChange: (mode: SearchMode) => void;
}) {
  return (
    <Input.Wrapper label="Mode" description={SEARCH_MODE_HELP[value]} miw={250}>
      <SegmentedControl
        value={value}
        onChange={(v) => onChange(v as SearchMode)}
        data={SEARCH_MODES.map((m) => ({ value: m, label: SEARCH_MODE_LABELS[m] }))}
        aria-label="Search mode"
        size="sm"
        fullWidth
      />
    </Input.Wrapper>
  );
}

type Scored = Pick<SnippetSearchResult, 'found_by' | 'vector_score' | 'keyword_score'>;

/** Which side found a result, with both of its scores (cosine; bm25, higher is better). */
export function FoundBy({ result }: { result: Scored }) {
  const vector = result.vector_score === null ? '–' : result.vector_score.toFixed(3);
  const keyword = result.keyword_score === null ? '–' : result.keyword_score.toFixed(2);
  return (
    <Tooltip label={`Vector (cosine): ${vector} · Keyword (bm25): ${keyword}`} withArrow>
      {/* Badges above the scores, each kept whole: side by side they were cut in a narrow column. */}
      <Stack gap={2} align="flex-start" data-testid="found-by">
        <Group gap={4} wrap="nowrap">
          {result.found_by.map((side) => (
            <Badge
              key={side}
              size="xs"
              radius="sm"
              variant="light"
              color={side === 'vector' ? 'violet' : 'teal'}
              tt="none"
              miw="max-content"
            >
              {side}
            </Badge>
          ))}
        </Group>
        <Text size="xs" c="dimmed" className="tabular-nums" style={{ whiteSpace: 'nowrap' }}>
          v {vector} · k {keyword}
        </Text>
      </Stack>
    </Tooltip>
  );
}
