/**
 * The snippets browser's state (sources-snippets, spec 002 §2): the filters, the prefilters the
 * tab was opened with (job_id, source_url in the URL), the page and the selection, and the list
 * they query. The panels only show it.
 */
import { useState } from 'react';
import { useSearchParams } from 'react-router';
import { SNIPPET_PAGE_SIZE, type Theme } from '@adam/contracts';
import { pageRequest, type PageRequest } from '../../lib/cursorPaging';
import { useFilterState } from '../../components/useFilterState';
import { useSnippetList, type SnippetListParams } from './snippets.api';

export type SortBy = SnippetListParams['sort_by'];
export type SortOrder = 'asc' | 'desc';
export type Prefilter = 'job_id' | 'source_url';

/** Typing in the search box queries the server once the operator pauses. */
const SEARCH_DEBOUNCE_MS = 300;
const EMPTY_SELECTION: ReadonlySet<number> = new Set();

export function positiveInt(value: string | null): number | undefined {
  if (!value || !/^\d+$/.test(value)) return undefined;
  const n = Number(value);
  return Number.isSafeInteger(n) && n > 0 ? n : undefined;
}

export function qualityFilter(value: number | string): number | undefined {
  const n = typeof value === 'number' ? value : value.trim() === '' ? NaN : Number(value);
  return Number.isFinite(n) ? Math.min(1, Math.max(0, n)) : undefined;
}

interface BrowserFilters extends Record<string, string | number | null> {
  search: string;
  theme: Theme | null;
  minQuality: number | string;
  sortBy: SortBy;
  order: SortOrder;
}

const DEFAULT_FILTERS: BrowserFilters = {
  search: '',
  theme: null,
  minQuality: '',
  sortBy: 'created_at',
  order: 'desc',
};

export function useSnippetsBrowser() {
  const [params, setParams] = useSearchParams();
  const jobId = positiveInt(params.get('job_id'));
  const sourceUrl = params.get('source_url')?.trim() || undefined;
  const form = useFilterState(DEFAULT_FILTERS, {
    text: ['search'],
    debounceMs: SEARCH_DEBOUNCE_MS,
  });
  const { applied } = form;
  const search = applied.search;

  const filters = {
    sort_by: applied.sortBy,
    order: applied.order,
    theme: applied.theme ?? undefined,
    min_quality: qualityFilter(applied.minQuality),
    search: search || undefined,
    // A filter box narrows: every word (stemmed), not any of them.
    match: search ? ('all' as const) : undefined,
    job_id: jobId,
    source_url: sourceUrl,
  };
  // The page belongs to the filters it was chosen under: any filter change is page 1 again.
  const filterKey = JSON.stringify(filters);
  const [paging, setPaging] = useState<{ key: string } & PageRequest>({ key: filterKey, page: 1 });
  const current: PageRequest = paging.key === filterKey ? paging : { page: 1 };
  const page = current.page;
  const list = useSnippetList({
    ...filters,
    page,
    per_page: SNIPPET_PAGE_SIZE,
    cursor: current.cursor,
  });

  // The selection belongs to one load of the list: a reload (or another page) clears it.
  const loadStamp = list.isPlaceholderData ? -1 : list.dataUpdatedAt;
  const [selection, setSelection] = useState<{ stamp: number; ids: ReadonlySet<number> }>({
    stamp: loadStamp,
    ids: EMPTY_SELECTION,
  });
  const selected = selection.stamp === loadStamp ? selection.ids : EMPTY_SELECTION;
  const setSelected = (ids: ReadonlySet<number>) => setSelection({ stamp: loadStamp, ids });

  const rows = list.data?.snippets ?? [];
  const total = list.data?.total ?? 0;
  const pageIds = rows.map((s) => s.id);
  const allOnPage = pageIds.length > 0 && pageIds.every((id) => selected.has(id));
  const someOnPage = pageIds.some((id) => selected.has(id));

  const toggle = (id: number) => {
    const next = new Set(selected);
    if (next.has(id)) next.delete(id);
    else next.add(id);
    setSelected(next);
  };

  const toggleAll = () => {
    const next = new Set(selected);
    for (const id of pageIds) {
      if (allOnPage) next.delete(id);
      else next.add(id);
    }
    setSelected(next);
  };

  const goToPage = (p: number) =>
    setPaging({
      key: filterKey,
      ...pageRequest({ page, answer: list.data, placeholder: list.isPlaceholderData }, p),
    });

  const removePrefilter = (name: Prefilter) =>
    setParams(
      (currentParams) => {
        const next = new URLSearchParams(currentParams);
        next.delete(name);
        return next;
      },
      { replace: true },
    );

  return {
    form,
    jobId,
    sourceUrl,
    removePrefilter,
    filtered:
      applied.theme !== null ||
      filters.min_quality !== undefined ||
      !!filters.search ||
      jobId !== undefined ||
      !!sourceUrl,
    list,
    rows,
    total,
    // Past 10,000 matches the server estimates the total rather than count them (total_exact).
    totalExact: list.data?.total_exact ?? true,
    page,
    pages: Math.max(1, Math.ceil(total / SNIPPET_PAGE_SIZE)),
    goToPage,
    selected,
    allOnPage,
    someOnPage,
    toggle,
    toggleAll,
  };
}

export type SnippetsBrowserState = ReturnType<typeof useSnippetsBrowser>;
