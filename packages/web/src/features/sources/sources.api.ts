/** Fetchers, query keys and hooks of the source calls (spec 002 §7: /sources/...). */
import { keepPreviousData, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import type {
  CrawlRequest,
  CrawlResponse,
  DeleteSourceResponse,
  ImportSummary,
  ProcessSourcesRequest,
  ProcessSourcesResponse,
  PrunePreview,
  PruneResponse,
  SourceList,
  SourceSyncList,
  SyncNowResponse,
  Source,
  SourceKind,
  UploadOptions,
  UploadResponse,
} from '@adam/contracts';
import { api } from '../../api/client';
import { jobKeys } from '../jobs/jobs.api';
import { snippetKeys } from '../snippets/snippets.api';

/** Manage Sources pages on the server. */
export const SOURCES_PER_PAGE = 50;

export const sourceKeys = {
  all: ['sources'] as const,
  list: (filters: SourceFilters) => ['sources', 'list', filters] as const,
};

export interface SourceFilters {
  search: string;
  domain: string;
  /** '' for every kind. */
  kind: SourceKind | '';
  page: number;
}

/** Silent: source errors are logged to the console only (spec 002 §8); the screen shows its state. */
export async function fetchSources(
  { search, domain, kind, page }: SourceFilters,
  signal?: AbortSignal,
): Promise<SourceList> {
  try {
    return await api.get<SourceList>('/sources/list', {
      query: { search, domain, kind, page, per_page: SOURCES_PER_PAGE },
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
    queryKey: sourceKeys.list(filters),
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

// --- Crawl a site, upload files, import (issue 24, Add Sources tabs) ---

/** Silent: the crawl tab shows the detail next to the fields it names. */
export function startCrawl(body: CrawlRequest): Promise<CrawlResponse> {
  return api.post<CrawlResponse>('/sources/crawl', body, { silent: true });
}

export interface UploadRequest {
  files: readonly File[];
  options: UploadOptions;
}

/**
 * One multipart body: the option fields first, then the files. Sent with fetch, which reports
 * no upload progress; the tab says how much is being sent while it waits.
 */
export function uploadDocuments({ files, options }: UploadRequest): Promise<UploadResponse> {
  const form = new FormData();
  for (const [name, value] of Object.entries(options)) {
    if (value !== undefined && value !== null) form.append(name, String(value));
  }
  for (const file of files) form.append('files', file, file.name);
  return api.post<UploadResponse>('/sources/upload', form, { silent: true });
}

export interface ImportRequest {
  file: Blob;
  /** Check and count only: nothing is written and no job is queued. */
  dryRun: boolean;
}

/** The file as the JSON Lines body the route reads (the browser streams it from disk). */
export function importSnippets({ file, dryRun }: ImportRequest): Promise<ImportSummary> {
  const body = new Blob([file], { type: 'application/x-ndjson' });
  return api.post<ImportSummary>('/snippets/import', body, {
    query: { dry_run: dryRun },
    silent: true,
  });
}

export function useStartCrawl() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: startCrawl,
    onSuccess: () => void queryClient.invalidateQueries({ queryKey: jobKeys.lists }),
  });
}

export function useUploadDocuments() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: uploadDocuments,
    onSuccess: () => void queryClient.invalidateQueries({ queryKey: jobKeys.lists }),
  });
}

/** A dry run changes nothing; a real import queues a job. */
export function useImportSnippets() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: importSnippets,
    onSuccess: (summary) => {
      if (!summary.dry_run) void queryClient.invalidateQueries({ queryKey: jobKeys.lists });
    },
  });
}

// --- Keep fresh: schedules, Sync now, sync history, prune (issue 24, Manage Sources) ---

/** Under `sourceKeys.all`, so a finished job (the realtime table) refreshes them too. */
export const sourceSyncKeys = {
  history: (id: number) => ['sources', 'syncs', id] as const,
  prunePreview: ['sources', 'prune', 'preview'] as const,
};

/** Syncs a history lists, newest first. */
export const SYNC_HISTORY_LIMIT = 50;

/** Silent: the schedule form shows the server's 422 under its input. */
export function setSourceSchedule(id: number, schedule: string): Promise<Source> {
  return api.put<Source>(`/sources/${id}/schedule`, { schedule }, { silent: true });
}

/** Not silent: a 409 (a sync already waiting or running) is toasted with its detail. */
export function syncSourceNow(id: number): Promise<SyncNowResponse> {
  return api.post<SyncNowResponse>(`/sources/${id}/sync`);
}

/** Silent: the history modal shows its own error state. */
export function fetchSourceSyncs(id: number, signal?: AbortSignal): Promise<SourceSyncList> {
  return api.get<SourceSyncList>(`/sources/${id}/syncs`, {
    query: { limit: SYNC_HISTORY_LIMIT },
    signal,
    silent: true,
  });
}

/** Silent: the prune modal shows its own error state. */
export function fetchPrunePreview(signal?: AbortSignal): Promise<PrunePreview> {
  return api.get<PrunePreview>('/sources/prune/preview', { signal, silent: true });
}

/** Removes exactly the sources named (those the operator saw in the preview). */
export function pruneSources(sourceIds: readonly number[]): Promise<PruneResponse> {
  return api.post<PruneResponse>('/sources/prune', { source_ids: sourceIds });
}

export function useSourceSyncs(id: number | null) {
  return useQuery({
    queryKey: sourceSyncKeys.history(id ?? -1),
    queryFn: ({ signal }) => fetchSourceSyncs(id as number, signal),
    enabled: id !== null,
  });
}

/** Dropped once unobserved: each opening of the prune modal asks what is gone now. */
export function usePrunePreview(enabled: boolean) {
  return useQuery({
    queryKey: sourceSyncKeys.prunePreview,
    queryFn: ({ signal }) => fetchPrunePreview(signal),
    enabled,
    staleTime: 0,
    gcTime: 0,
  });
}

export function useSetSourceSchedule() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: ({ id, schedule }: { id: number; schedule: string }) =>
      setSourceSchedule(id, schedule),
    onSuccess: () => void queryClient.invalidateQueries({ queryKey: sourceKeys.all }),
  });
}

export function useSyncSourceNow() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: syncSourceNow,
    onSuccess: () => {
      void queryClient.invalidateQueries({ queryKey: sourceKeys.all });
      void queryClient.invalidateQueries({ queryKey: jobKeys.lists });
    },
  });
}

export function usePruneSources() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: pruneSources,
    onSuccess: () => {
      void queryClient.invalidateQueries({ queryKey: sourceKeys.all });
      void queryClient.invalidateQueries({ queryKey: snippetKeys.all });
    },
  });
}
