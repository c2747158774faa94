/** Fetchers, query keys and hooks of the search history: /search-history (issue 27). */
import { keepPreviousData, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import type {
  SearchHistoryCleared,
  SearchHistoryPage,
  SearchHistorySummary,
  SearchMode,
  SearchOutcome,
} from '@adam/contracts';
import { isApiError } from '../../api/client';
import { api } from '../../api/client';
import { tabHref } from '../../navigation/tabRegistry';
import { toast } from '../../layout/toasts';

/** The list's filters as the screen builds them. */
export interface SearchHistoryFilters {
  q?: string;
  mode?: SearchMode;
  outcome?: SearchOutcome;
  from?: string;
  to?: string;
}

export const searchHistoryKeys = {
  all: ['search-history'] as const,
  page: (filters: SearchHistoryFilters, cursor: string | null) =>
    ['search-history', 'page', filters, cursor] as const,
  summary: (days: number) => ['search-history', 'summary', days] as const,
};

export const SEARCH_HISTORY_PAGE_SIZE = 25;

export function fetchSearchHistoryPage(
  filters: SearchHistoryFilters,
  cursor: string | null,
  signal?: AbortSignal,
): Promise<SearchHistoryPage> {
  return api.get<SearchHistoryPage>('/search-history', {
    query: { ...filters, cursor, limit: SEARCH_HISTORY_PAGE_SIZE },
    signal,
  });
}

export function fetchSearchHistorySummary(
  days: number,
  signal?: AbortSignal,
): Promise<SearchHistorySummary> {
  return api.get<SearchHistorySummary>('/search-history/summary', { query: { days }, signal });
}

export function useSearchHistoryPage(filters: SearchHistoryFilters, cursor: string | null) {
  return useQuery({
    queryKey: searchHistoryKeys.page(filters, cursor),
    queryFn: ({ signal }) => fetchSearchHistoryPage(filters, cursor, signal),
    placeholderData: keepPreviousData,
  });
}

export function useSearchHistorySummary(days: number) {
  return useQuery({
    queryKey: searchHistoryKeys.summary(days),
    queryFn: ({ signal }) => fetchSearchHistorySummary(days, signal),
    placeholderData: keepPreviousData,
  });
}

function failed(message: string) {
  return (error: unknown) => {
    if (isApiError(error) && error.status === 401) return;
    toast.error(isApiError(error) ? `${message}: ${error.message}` : message);
  };
}

/** Clearing or deleting changes every list and the summary: all of it is read again. */
export function useClearSearchHistory() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: () => api.delete<SearchHistoryCleared>('/search-history'),
    onSuccess: (r) => {
      toast.success(`Search history cleared (${r.deleted} searches)`);
      return client.invalidateQueries({ queryKey: searchHistoryKeys.all });
    },
    onError: failed('Could not clear the search history'),
  });
}

export function useDeleteSearchHistoryEntry() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (id: number) => api.delete<SearchHistoryCleared>(`/search-history/${id}`),
    onSuccess: () => client.invalidateQueries({ queryKey: searchHistoryKeys.all }),
    onError: failed('Could not delete the search'),
  });
}

/** Index → Quality with the query prefilled in its "add a query" form (engineer D's screen). */
export function addToEvaluationHref(query: string, mode: SearchMode): string {
  return tabHref('index-quality', { add_query: query, mode });
}
