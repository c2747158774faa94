/** Fetchers, query keys and hooks of the snippet calls (spec 002 §7: /snippets...). */
import { keepPreviousData, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import type {
  CleanupOrphansResponse,
  CleanupType,
  ConsistencyReport,
  DeleteSnippetResponse,
  ExportRequest,
  ReconcileReport,
  Snippet,
  SnippetAnalytics,
  SnippetIndexInfo,
  SnippetList,
  SnippetListQuery,
  SnippetSearchRequest,
  SnippetSearchResponse,
  TextMatch,
  Theme,
} from '@adam/contracts';
import { api, isApiError, type DownloadedFile } from '../../api/client';
import { toast } from '../../layout/toasts';
import { SNIPPET_MESSAGES, withDetail } from './messages';

export const snippetKeys = {
  all: ['snippets'] as const,
  lists: ['snippets', 'list'] as const,
  list: (query: SnippetListQuery) => ['snippets', 'list', query] as const,
  detail: (id: number) => ['snippets', 'detail', id] as const,
  indexInfo: (id: number) => ['snippets', 'index-info', id] as const,
  consistency: ['snippets', 'consistency'] as const,
  analytics: (days: number) => ['snippets', 'analytics', days] as const,
};

/** The list call's parameters as the browser builds them (the contract's input type is looser). */
export interface SnippetListParams {
  page: number;
  per_page: number;
  sort_by: 'created_at' | 'quality_score' | 'word_count';
  order: 'asc' | 'desc';
  theme?: Theme;
  min_quality?: number;
  search?: string;
  match?: TextMatch;
  job_id?: number;
  source_url?: string;
  /** The neighbouring page's cursor, when the page was reached from it (see pageRequest). */
  cursor?: string;
}

/**
 * Shows a spec failure text with the server's detail. A 401 has already ended the session (the
 * client's unauthorized handler said so): nothing more is shown (spec 002 §8).
 */
function report(error: unknown, message: string, options: { detail?: boolean } = {}): void {
  if (!isApiError(error) || error.status === 401) return;
  const text = options.detail === false ? message : withDetail(message, error.message);
  toast.error(text, { dedupe: true });
}

/** Runs a call and reports its failure with a spec text before passing the error on. */
async function reported<T>(
  call: Promise<T>,
  message: string,
  options?: { detail?: boolean },
): Promise<T> {
  try {
    return await call;
  } catch (error) {
    report(error, message, options);
    throw error;
  }
}

// ---------------------------------------------------------------------------------------------
// Fetchers

export function fetchSnippets(
  query: SnippetListParams,
  signal?: AbortSignal,
): Promise<SnippetList> {
  return api.get<SnippetList>('/snippets', { query: { ...query }, signal, silent: true });
}

export function fetchSnippet(id: number, signal?: AbortSignal): Promise<Snippet> {
  return api.get<Snippet>(`/snippets/${id}`, { signal });
}

/** 404 is an answer here ('Snippet not indexed'), so the call is silent. */
export function fetchSnippetIndexInfo(id: number, signal?: AbortSignal): Promise<SnippetIndexInfo> {
  return api.get<SnippetIndexInfo>(`/snippets/${id}/index`, { signal, silent: true });
}

export function fetchConsistency(signal?: AbortSignal): Promise<ConsistencyReport> {
  return api.get<ConsistencyReport>('/snippets/consistency-check', { signal, silent: true });
}

export function deleteSnippet(id: number): Promise<DeleteSnippetResponse> {
  return api.delete<DeleteSnippetResponse>(`/snippets/${id}`, undefined, { silent: true });
}

/** The answer is the file itself (json, jsonl or csv). */
export function exportSnippets(body: ExportRequest): Promise<DownloadedFile> {
  return api.download('/snippets/export', body);
}

export function cleanupOrphans(
  type: CleanupType,
  options: { delete?: boolean } = {},
): Promise<CleanupOrphansResponse> {
  return api.post<CleanupOrphansResponse>(
    '/snippets/cleanup-orphaned',
    type === 'disk_only' && options.delete ? { delete: true } : undefined,
    { query: { cleanup_type: type }, silent: true },
  );
}

export function refreshSnippetState(): Promise<ReconcileReport> {
  return api.post<ReconcileReport>('/admin/refresh-snippet-state');
}

export function searchSnippets(body: SnippetSearchRequest): Promise<SnippetSearchResponse> {
  return api.post<SnippetSearchResponse>('/snippets/search', body, { silent: true });
}

export function fetchSnippetAnalytics(
  days: number,
  signal?: AbortSignal,
): Promise<SnippetAnalytics> {
  return api.get<SnippetAnalytics>('/analytics/snippets', { query: { days }, signal });
}

// ---------------------------------------------------------------------------------------------
// Hooks

/** One page of snippets; the previous page stays on screen while the next loads (no jump). */
export function useSnippetList(query: SnippetListParams) {
  return useQuery({
    queryKey: snippetKeys.list(query),
    queryFn: ({ signal }) =>
      reported(fetchSnippets(query, signal), SNIPPET_MESSAGES.loadListFailed),
    placeholderData: keepPreviousData,
  });
}

export function useConsistency() {
  return useQuery({
    queryKey: snippetKeys.consistency,
    queryFn: ({ signal }) => reported(fetchConsistency(signal), SNIPPET_MESSAGES.consistencyFailed),
  });
}

/** One snippet; `placeholder` (the row it was opened from) shows while the fresh copy loads. */
export function useSnippet(id: number | null, placeholder?: Snippet) {
  return useQuery({
    queryKey: snippetKeys.detail(id ?? -1),
    queryFn: ({ signal }) => fetchSnippet(id!, signal),
    enabled: id !== null,
    placeholderData: placeholder && placeholder.id === id ? placeholder : undefined,
  });
}

export const isNotIndexedError = (error: unknown) => isApiError(error) && error.status === 404;

export function useSnippetIndexInfo(id: number | null) {
  return useQuery({
    queryKey: snippetKeys.indexInfo(id ?? -1),
    queryFn: async ({ signal }) => {
      try {
        return await fetchSnippetIndexInfo(id!, signal);
      } catch (error) {
        if (!isNotIndexedError(error)) {
          report(error, SNIPPET_MESSAGES.indexInfoFailed, { detail: false });
        }
        throw error;
      }
    },
    enabled: id !== null,
  });
}

/** After snippets changed: every list, the consistency report and the analytics. */
function refreshAfterChange(queryClient: ReturnType<typeof useQueryClient>, removed: number[]) {
  for (const id of removed) {
    queryClient.removeQueries({ queryKey: snippetKeys.detail(id) });
    queryClient.removeQueries({ queryKey: snippetKeys.indexInfo(id) });
  }
  void queryClient.invalidateQueries({ queryKey: snippetKeys.lists });
  void queryClient.invalidateQueries({ queryKey: snippetKeys.consistency });
  void queryClient.invalidateQueries({ queryKey: ['snippets', 'analytics'] });
}

export interface DeleteOutcome {
  deleted: number[];
  failed: number[];
}

/**
 * Deletes each snippet with its own call; each failure gets its own toast
 * ('Failed to delete snippet {id}: …') and the others still go.
 */
export function useDeleteSnippets() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: async (ids: number[]): Promise<DeleteOutcome> => {
      const results = await Promise.allSettled(ids.map((id) => deleteSnippet(id)));
      const outcome: DeleteOutcome = { deleted: [], failed: [] };
      results.forEach((result, i) => {
        const id = ids[i]!;
        if (result.status === 'fulfilled') {
          outcome.deleted.push(id);
        } else {
          outcome.failed.push(id);
          report(result.reason, SNIPPET_MESSAGES.deleteFailed(id));
        }
      });
      return outcome;
    },
    onSuccess: (outcome) => refreshAfterChange(queryClient, outcome.deleted),
  });
}

export function useExportSnippets() {
  return useMutation({ mutationFn: exportSnippets });
}

export function useCleanupOrphans() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: ({ type, delete: del }: { type: CleanupType; delete?: boolean }) =>
      reported(cleanupOrphans(type, { delete: del }), SNIPPET_MESSAGES.cleanupFailed, {
        detail: false,
      }),
    onSuccess: (result) =>
      refreshAfterChange(queryClient, result.action === 'deleted_rows' ? result.ids : []),
  });
}

/** Status 200 reloads the list and the consistency report (spec 002 §7). */
export function useRefreshSnippetState() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: refreshSnippetState,
    onSuccess: () => void queryClient.invalidateQueries({ queryKey: snippetKeys.all }),
  });
}

export function useSnippetSearch() {
  return useMutation({
    mutationFn: (body: SnippetSearchRequest) =>
      reported(searchSnippets(body), SNIPPET_MESSAGES.searchFailed, { detail: false }),
  });
}

export function useSnippetAnalytics(days: number) {
  return useQuery({
    queryKey: snippetKeys.analytics(days),
    queryFn: ({ signal }) => fetchSnippetAnalytics(days, signal),
    placeholderData: keepPreviousData,
  });
}
