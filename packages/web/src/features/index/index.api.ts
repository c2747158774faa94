/** Fetchers, query keys and hooks of the index calls (spec 002 §7: /admin/index/...). */
import { useEffect } from 'react';
import { keepPreviousData, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import type {
  IndexEntryList,
  IndexRebuildRequest,
  MaintenanceResult,
  IndexSearchRequest,
  IndexStats,
  SnippetSearchResponse,
} from '@adam/contracts';
import { api } from '../../api/client';
import { toast } from '../../layout/toasts';
import { jobKeys } from '../jobs/jobs.api';
import { INDEX_MESSAGES } from './messages';

/** Spec 002 §9: index stats poll every 30 s. */
export const INDEX_STATS_POLL_MS = 30_000;
/** Spec 002 §9: index content page size 50. */
export const INDEX_CONTENT_PAGE_SIZE = 50;

export interface IndexEntriesParams {
  page: number;
  /** The neighbouring page's cursor, when the page was reached from it (see pageRequest). */
  cursor?: string;
  search: string;
  /** '' for every theme. */
  theme: string;
}

export const indexKeys = {
  all: ['index'] as const,
  stats: ['index', 'stats'] as const,
  entries: (params: IndexEntriesParams) => ['index', 'entries', params] as const,
};

/** The search body as the panel builds it: every field given. */
export type IndexSearchBody = Required<IndexSearchRequest>;

/** A failed load shows the spec's text once per failure (a failing poll does not stack copies). */
function useFailureToast(error: unknown, errorUpdatedAt: number, message: string) {
  useEffect(() => {
    if (error) toast.error(message, { dedupe: true });
  }, [error, errorUpdatedAt, message]);
}

// The calls below are silent: their screens show the spec's own failure text.

export function fetchIndexStats(signal?: AbortSignal): Promise<IndexStats> {
  return api.get<IndexStats>('/admin/index/stats', { signal, silent: true });
}

export function fetchIndexEntries(
  { page, cursor, search, theme }: IndexEntriesParams,
  signal?: AbortSignal,
): Promise<IndexEntryList> {
  return api.get<IndexEntryList>('/admin/index/entries', {
    signal,
    silent: true,
    query: { page, cursor, per_page: INDEX_CONTENT_PAGE_SIZE, search: search.trim(), theme },
  });
}

export function searchIndex(body: IndexSearchBody): Promise<SnippetSearchResponse> {
  return api.post<SnippetSearchResponse>(
    '/admin/index/search',
    { query: body.query.trim(), k: body.k, mode: body.mode },
    { silent: true },
  );
}

/** Index statistics, refetched every 30 s while a screen shows them. */
export function useIndexStats() {
  const query = useQuery({
    queryKey: indexKeys.stats,
    queryFn: ({ signal }) => fetchIndexStats(signal),
    refetchInterval: INDEX_STATS_POLL_MS,
  });
  useFailureToast(query.error, query.errorUpdatedAt, INDEX_MESSAGES.statsFailed);
  return query;
}

/** One page of indexed snippets; the previous page stays on screen while the next loads. */
export function useIndexEntries(params: IndexEntriesParams) {
  const query = useQuery({
    queryKey: indexKeys.entries(params),
    queryFn: ({ signal }) => fetchIndexEntries(params, signal),
    placeholderData: keepPreviousData,
  });
  useFailureToast(query.error, query.errorUpdatedAt, INDEX_MESSAGES.infoFailed);
  return query;
}

export function useIndexSearch() {
  return useMutation({
    mutationFn: searchIndex,
    onError: () => toast.error(INDEX_MESSAGES.searchFailed),
  });
}

/** The index jobs the Optimize screen starts, by the spec's dedicated calls. */
export type IndexJobAction = 'optimize_index' | 'rebuild_index';

/**
 * POST /admin/index/optimize or /admin/index/rebuild: queues the job and answers it (409 while
 * another index job waits or runs). Silent: the screen shows the spec's failure text.
 */
export function startIndexJob(
  action: IndexJobAction,
  body?: IndexRebuildRequest,
): Promise<MaintenanceResult> {
  return action === 'optimize_index'
    ? api.post<MaintenanceResult>('/admin/index/optimize', undefined, { silent: true })
    : api.post<MaintenanceResult>('/admin/index/rebuild', body ?? undefined, { silent: true });
}

/** Starts an index job; its queued job joins the lists and the index figures are refetched. */
export function useStartIndexJob() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (action: IndexJobAction) => startIndexJob(action),
    onSuccess: () => {
      void queryClient.invalidateQueries({ queryKey: jobKeys.lists });
      void queryClient.invalidateQueries({ queryKey: indexKeys.all });
    },
    onError: () => toast.error(INDEX_MESSAGES.optimizeFailed),
  });
}
