/** Fetchers, query keys and hooks of the source calls (spec 002 §7: /sources/...). */
import { keepPreviousData, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import type {
  DeleteSourceResponse,
  ProcessSourcesRequest,
  ProcessSourcesResponse,
  SourceList,
} from '@adam/contracts';
import { api } from '../../api/client';
import { jobKeys } from '../jobs/jobs.api';
import { snippetKeys } from '../snippets/snippets.api';

/** Manage Sources pages on the server. */
export const SOURCES_PER_PAGE = 50;

export const sourceKeys = {
  all: ['sources'] as const,
  list: (search: string, domain: string, page: number) =>
    ['sources', 'list', { search, domain, page }] as const,
};

export interface SourceFilters {
  search: string;
  domain: string;
  page: number;
}

/** Silent: source errors are logged to the console only (spec 002 §8); the screen shows its state. */
export async function fetchSources(
  { search, domain, page }: SourceFilters,
  signal?: AbortSignal,
): Promise<SourceList> {
  try {
    return await api.get<SourceList>('/sources/list', {
      query: { search, domain, page, per_page: SOURCES_PER_PAGE },
      signal,
      silent: true,
    });
  } catch (error) {
    if (!(error instanceof DOMException && error.name === 'AbortError')) {
      console.error('Source list failed', error);
    }
    throw error;
  }
}

/** Silent: the add-sources screen shows 'Failed to queue sources' with the detail itself. */
export function processSources(body: ProcessSourcesRequest): Promise<ProcessSourcesResponse> {
  return api.post<ProcessSourcesResponse>('/sources/process', body, { silent: true });
}

/** Removes the source and, with `deleteSnippets`, its snippets and their vectors. */
export function deleteSource(id: number, deleteSnippets = true): Promise<DeleteSourceResponse> {
  return api.delete<DeleteSourceResponse>(`/sources/${id}`, undefined, {
    query: { delete_snippets: deleteSnippets },
  });
}

export function useSources(filters: SourceFilters) {
  return useQuery({
    queryKey: sourceKeys.list(filters.search, filters.domain, filters.page),
    queryFn: ({ signal }) => fetchSources(filters, signal),
    // The previous page stays on screen while the next loads: no jump to a skeleton.
    placeholderData: keepPreviousData,
  });
}

export function useProcessSources() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: processSources,
    onSuccess: () => void queryClient.invalidateQueries({ queryKey: jobKeys.lists }),
  });
}

export function useDeleteSource() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (id: number) => deleteSource(id, true),
    onSuccess: () => {
      void queryClient.invalidateQueries({ queryKey: sourceKeys.all });
      void queryClient.invalidateQueries({ queryKey: snippetKeys.all });
    },
  });
}
