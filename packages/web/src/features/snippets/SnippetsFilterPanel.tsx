import { Badge, CloseButton, Group, SegmentedControl, Text } from '@mantine/core';
import { FilterBar, SelectFilter, TextFilter } from '../../components/FilterBar';
import { MinQualityInput, ThemeFilterSelect } from './SnippetFilterInputs';
import type { SnippetsBrowserState, SortBy, SortOrder } from './useSnippetsBrowser';

const SORT_OPTIONS: { value: SortBy; label: string }[] = [
  { value: 'created_at', label: 'Created at' },
  { value: 'quality_score', label: 'Quality score' },
  { value: 'word_count', label: 'Word count' },
];

const ORDER_OPTIONS: { value: SortOrder; label: string }[] = [
  { value: 'desc', label: 'Desc' },
  { value: 'asc', label: 'Asc' },
];

/** The job or source the list was opened for, removable. */
function PrefilterChip({
  label,
  removeLabel,
  onRemove,
}: {
  label: string;
  removeLabel: string;
  onRemove: () => void;
}) {
  return (
    <Badge
      size="lg"
      variant="light"
      radius="xl"
      tt="none"
      fw={500}
      maw={560}
      pr={4}
      rightSection={<CloseButton size="xs" aria-label={removeLabel} onClick={onRemove} />}
    >
      <Text span size="sm" truncate="end" display="block">
        {label}
      </Text>
    </Badge>
  );
}

/** Search, theme, minimum quality and sort; below, the prefilters the tab was opened with. */
export function SnippetsFilterPanel({
  state,
}: {
  state: Pick<SnippetsBrowserState, 'form' | 'jobId' | 'sourceUrl' | 'removePrefilter'>;
}) {
  const { form, jobId, sourceUrl, removePrefilter } = state;
  const { values, set } = form;
  return (
    <>
      <FilterBar label="Snippet filters">
        <TextFilter
          label="Search"
          placeholder="Words in the text"
          search
          value={values.search}
          onChange={(v) => set('search', v)}
          grow
          minWidth={220}
        />
        <ThemeFilterSelect value={values.theme} onChange={(v) => set('theme', v)} />
        <MinQualityInput value={values.minQuality} onChange={(v) => set('minQuality', v)} />
        <SelectFilter
          label="Sort by"
          options={SORT_OPTIONS}
          value={values.sortBy}
          onChange={(v) => set('sortBy', v)}
          w={160}
        />
        <SegmentedControl
          aria-label="Order"
          data={ORDER_OPTIONS}
          value={values.order}
          onChange={(v) => set('order', v as SortOrder)}
        />
      </FilterBar>

      {jobId !== undefined || sourceUrl ? (
        <Group gap="xs">
          <Text size="sm" c="dimmed">
            Showing only:
          </Text>
          {jobId !== undefined ? (
            <PrefilterChip
              label={`Job #${jobId}`}
              removeLabel="Remove job filter"
              onRemove={() => removePrefilter('job_id')}
            />
          ) : null}
          {sourceUrl ? (
            <PrefilterChip
              label={`Source: ${sourceUrl}`}
              removeLabel="Remove source filter"
              onRemove={() => removePrefilter('source_url')}
            />
          ) : null}
        </Group>
      ) : null}
    </>
  );
}
