/**
 * Judging search results for an evaluation query: grade badges, the 0–3 grade control, and the
 * search whose results are graded (the real POST /snippets/search, through the snippets area).
 */
import {
  Anchor,
  Badge,
  Button,
  Checkbox,
  Group,
  Paper,
  SegmentedControl,
  Stack,
  Text,
  TextInput,
  Tooltip,
} from '@mantine/core';
import { IconSearch } from '@tabler/icons-react';
import {
  EVALUATION_GRADE_MAX,
  type Judgment,
  type JudgmentKind,
  type SearchMode,
  type SnippetSearchResult,
} from '@adam/contracts';
import { SearchModeControl } from '../../components/SearchMode';
import { EmptyState, ErrorState } from '../../components/QueryState';

const GRADE_COLORS = ['gray', 'yellow', 'teal', 'green'] as const;
const GRADE_LABELS = ['not relevant', 'partly relevant', 'relevant', 'the best answer'];
export const GRADE_LEGEND = GRADE_LABELS.map((label, grade) => `${grade} ${label}`).join(' · ');

/** How many results a judging search asks for: enough to find the relevant ones below the top 10. */
export const JUDGING_SEARCH_K = 20;

const KIND_LABELS: Record<JudgmentKind, string> = {
  snippet: 'Snippet',
  source: 'Source',
  source_url: 'Source',
  source_title: 'Source',
};

export function judgmentKey(j: Pick<Judgment, 'kind' | 'ref'>): string {
  return `${j.kind}:${j.ref}`;
}

export function judgmentLabel(j: Pick<Judgment, 'kind' | 'ref'>): string {
  if (j.kind === 'snippet') return `Snippet ${j.ref}`;
  if (j.kind === 'source') return `Source ${j.ref}`;
  return `${KIND_LABELS[j.kind]} “${j.ref}”`;
}

/** One judgment: what it names and its grade, coloured by grade. */
export function GradeBadge({ judgment, onClick }: { judgment: Judgment; onClick?: () => void }) {
  const label = judgmentLabel(judgment);
  const badge = (
    <Badge
      variant="light"
      color={GRADE_COLORS[judgment.grade] ?? 'gray'}
      radius="sm"
      tt="none"
      maw={320}
      style={onClick ? { cursor: 'pointer' } : undefined}
      onClick={onClick}
      data-testid="judgment"
    >
      {label} · {judgment.grade}
    </Badge>
  );
  return (
    <Tooltip
      label={`${label}: grade ${judgment.grade}, ${GRADE_LABELS[judgment.grade] ?? ''}`}
      withArrow
      multiline
      maw={420}
    >
      {badge}
    </Tooltip>
  );
}

/** A grade 0–3, or none (not judged). */
export function GradeControl({
  value,
  onChange,
  label,
}: {
  value: number | null;
  onChange: (grade: number | null) => void;
  label: string;
}) {
  const data = [
    { value: 'none', label: '–' },
    ...Array.from({ length: EVALUATION_GRADE_MAX + 1 }, (_, g) => ({
      value: String(g),
      label: String(g),
    })),
  ];
  return (
    <SegmentedControl
      size="xs"
      aria-label={label}
      value={value === null ? 'none' : String(value)}
      onChange={(v) => onChange(v === 'none' ? null : Number(v))}
      data={data}
      color={value === null ? undefined : GRADE_COLORS[value]}
    />
  );
}

/** The judgments being edited, by judgmentKey. */
export type JudgmentDraft = ReadonlyMap<string, Judgment>;

export function setGrade(
  draft: JudgmentDraft,
  target: Pick<Judgment, 'kind' | 'ref'>,
  grade: number | null,
): JudgmentDraft {
  const next = new Map(draft);
  if (grade === null) next.delete(judgmentKey(target));
  else next.set(judgmentKey(target), { kind: target.kind, ref: target.ref, grade });
  return next;
}

/** The source judgment a result's "whole source" stands for: by URL, else by title. */
function sourceTarget(result: SnippetSearchResult): Pick<Judgment, 'kind' | 'ref'> | null {
  const { url, title } = result.source_info;
  if (url) return { kind: 'source_url', ref: url };
  if (title) return { kind: 'source_title', ref: title };
  return null;
}

function ResultToJudge({
  result,
  rank,
  draft,
  onDraft,
}: {
  result: SnippetSearchResult;
  rank: number;
  draft: JudgmentDraft;
  onDraft: (draft: JudgmentDraft) => void;
}) {
  const snippet = { kind: 'snippet' as const, ref: String(result.snippet_id) };
  const source = sourceTarget(result);
  const sourceJudgment = source ? draft.get(judgmentKey(source)) : undefined;
  const wholeSource = sourceJudgment !== undefined;
  const grade = wholeSource
    ? sourceJudgment.grade
    : (draft.get(judgmentKey(snippet))?.grade ?? null);

  // Switching to the whole source carries the grade over (1 when none was given yet).
  const toggleWholeSource = (on: boolean) => {
    if (!source) return;
    let next = draft;
    if (on) {
      next = setGrade(next, snippet, null);
      next = setGrade(next, source, grade ?? 1);
    } else {
      next = setGrade(next, source, null);
      next = setGrade(next, snippet, grade);
    }
    onDraft(next);
  };

  return (
    <Paper withBorder radius="sm" p="sm" data-testid="judging-result">
      <Group justify="space-between" align="flex-start" wrap="nowrap" gap="md">
        <Stack gap={4} style={{ flex: 1, minWidth: 0 }}>
          <Group gap="xs">
            <Text size="xs" c="dimmed" className="tabular-nums">
              #{rank}
            </Text>
            <Text size="xs" c="dimmed">
              Snippet {result.snippet_id}
            </Text>
            <Text size="xs" c="dimmed" className="tabular-nums">
              score {result.score.toFixed(3)}
            </Text>
          </Group>
          <Text size="sm" lineClamp={3}>
            {result.text}
          </Text>
          {result.source_info.url || result.source_info.title ? (
            <Text size="xs" c="dimmed" truncate="end">
              {result.source_info.url ? (
                <Anchor
                  href={result.source_info.url}
                  target="_blank"
                  rel="noopener noreferrer"
                  size="xs"
                >
                  {result.source_info.title || result.source_info.url}
                </Anchor>
              ) : (
                result.source_info.title
              )}
            </Text>
          ) : null}
        </Stack>
        <Stack gap={6} align="flex-end" style={{ flexShrink: 0 }}>
          <GradeControl
            label={`Grade of snippet ${result.snippet_id}`}
            value={grade}
            onChange={(g) => onDraft(setGrade(draft, wholeSource ? source! : snippet, g))}
          />
          {source ? (
            <Checkbox
              size="xs"
              label="Judge the whole source"
              checked={wholeSource}
              onChange={(e) => toggleWholeSource(e.currentTarget.checked)}
              aria-label={`Judge the whole source of snippet ${result.snippet_id}`}
            />
          ) : null}
        </Stack>
      </Group>
    </Paper>
  );
}

/** The search box and its results, each with a grade control. */
export function JudgingSearch({
  text,
  onText,
  textLocked = false,
  mode,
  onMode,
  onSearch,
  searching,
  error,
  results,
  draft,
  onDraft,
}: {
  text: string;
  onText: (text: string) => void;
  /** An existing query's text is fixed: only its judgments change. */
  textLocked?: boolean;
  mode: SearchMode;
  onMode: (mode: SearchMode) => void;
  onSearch: () => void;
  searching: boolean;
  error: Error | null;
  results: SnippetSearchResult[] | undefined;
  draft: JudgmentDraft;
  onDraft: (draft: JudgmentDraft) => void;
}) {
  const blank = text.trim() === '';
  return (
    <Stack gap="sm">
      <form
        onSubmit={(e) => {
          e.preventDefault();
          if (!blank) onSearch();
        }}
      >
        <Group gap="sm" align="flex-end">
          <TextInput
            label="Query"
            placeholder="e.g. how do bees communicate?"
            value={text}
            onChange={(e) => onText(e.currentTarget.value)}
            readOnly={textLocked}
            style={{ flex: 1, minWidth: 240 }}
            maxLength={2000}
            data-autofocus
          />
          <Button
            type="submit"
            variant="light"
            leftSection={<IconSearch size={16} />}
            disabled={blank}
            loading={searching}
          >
            Search
          </Button>
        </Group>
        <Stack mt="xs">
          <SearchModeControl value={mode} onChange={onMode} />
        </Stack>
      </form>
      {error ? <ErrorState title="Search failed" message={error.message} /> : null}
      {results === undefined ? (
        !error ? (
          <Text size="sm" c="dimmed">
            Search, then grade the results that answer the query ({GRADE_LEGEND}). A result left at
            “–” is not judged.
          </Text>
        ) : null
      ) : results.length === 0 ? (
        <EmptyState
          title="No results"
          description="No indexed snippet matches this query. A query needs at least one judged result."
        />
      ) : (
        <Stack gap="xs">
          <Text size="xs" c="dimmed">
            Grades: {GRADE_LEGEND}. “–” leaves a result unjudged.
          </Text>
          {results.map((r, i) => (
            <ResultToJudge
              key={r.snippet_id}
              result={r}
              rank={i + 1}
              draft={draft}
              onDraft={onDraft}
            />
          ))}
        </Stack>
      )}
    </Stack>
  );
}
