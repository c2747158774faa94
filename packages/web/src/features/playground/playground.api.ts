/**
 * Fetchers, query keys and hooks of the playground calls (spec 001 §7, spec 002 §7):
 * GET /playground/languages, POST /playground/analyze, /fetch-url, /fetch-wikipedia,
 * /save-segments, and what the encyclopedia save flow reads to follow its job (workers status,
 * the job, its relaunch). The job's record and errors come from the jobs module.
 *
 * The playground screens show the spec's own failure texts, so those calls are silent.
 */
import { useMutation, useQuery, type QueryClient } from '@tanstack/react-query';
import {
  ANALYZE_TOP_K,
  type AnalyzeResponse,
  type FetchUrlRequest,
  type FetchUrlResponse,
  type FetchWikipediaResponse,
  type Job,
  type PlaygroundLanguage,
  type RelaunchResponse,
  type SaveSegmentsRequest,
  type SaveSegmentsResponse,
  type WorkersStatus,
} from '@adam/contracts';
import { api, isApiError } from '../../api/client';
import { fetchJob, jobKeys } from '../jobs/jobs.api';
import { maintenanceKeys } from '../maintenance/maintenance.api';

export const playgroundKeys = {
  all: ['playground'] as const,
  languages: ['playground', 'languages'] as const,
};

export interface FetchArticleInput {
  title: string;
  language: string;
}

export interface AnalyzeInput {
  context: string;
  question: string;
  /** 'auto' lets the server detect the language. */
  language: string;
}

export function fetchPlaygroundLanguages(signal?: AbortSignal): Promise<PlaygroundLanguage[]> {
  return api.get<PlaygroundLanguage[]>('/playground/languages', { signal, silent: true });
}

export function fetchWikipediaArticle(input: FetchArticleInput): Promise<FetchWikipediaResponse> {
  return api.post<FetchWikipediaResponse>('/playground/fetch-wikipedia', input, { silent: true });
}

/** The body of spec 001 §7: {context, question, top_k 3, language}. */
export function analyzeText(input: AnalyzeInput): Promise<AnalyzeResponse> {
  return api.post<AnalyzeResponse>(
    '/playground/analyze',
    {
      context: input.context,
      question: input.question,
      top_k: ANALYZE_TOP_K,
      language: input.language,
    },
    { silent: true },
  );
}

/** POST /playground/fetch-url: the page, its clean text and the rule used (spec 001 §3, §7). */
export function fetchUrlContent(body: FetchUrlRequest): Promise<FetchUrlResponse> {
  return api.post<FetchUrlResponse>('/playground/fetch-url', body, { silent: true });
}

export function saveSegments(
  body: Pick<SaveSegmentsRequest, 'title' | 'language' | 'text'>,
): Promise<SaveSegmentsResponse> {
  return api.post<SaveSegmentsResponse>('/playground/save-segments', body, { silent: true });
}

/** Retry Job: silent, the screen says 'Job retry failed' with the detail. */
export function retrySavedJob(id: number): Promise<RelaunchResponse> {
  return api.post<RelaunchResponse>(`/sources/jobs/${id}/relaunch`, undefined, { silent: true });
}

/**
 * The save flow's worker check, silent (its step shows the failure), read through the workers'
 * cache entry so the status panel shows the same answer.
 */
export function loadWorkersStatus(queryClient: QueryClient): Promise<WorkersStatus> {
  return queryClient.fetchQuery({
    queryKey: maintenanceKeys.workers,
    queryFn: ({ signal }) =>
      api.get<WorkersStatus>('/admin/maintenance/workers/status', { signal, silent: true }),
    staleTime: 0,
  });
}

/**
 * The saved job as the server has it, or null when it does not exist (404). It lands in the
 * job's cache entry, which job_progress events then patch in place.
 */
export async function loadSavedJob(queryClient: QueryClient, id: number): Promise<Job | null> {
  try {
    return await queryClient.fetchQuery({
      queryKey: jobKeys.detail(id),
      queryFn: ({ signal }) => fetchJob(id, signal),
      staleTime: 0,
    });
  } catch (error) {
    if (isApiError(error) && error.status === 404) return null;
    throw error;
  }
}

export function usePlaygroundLanguages() {
  return useQuery({
    queryKey: playgroundKeys.languages,
    queryFn: ({ signal }) => fetchPlaygroundLanguages(signal),
    staleTime: Infinity,
  });
}

export function useFetchWikipedia() {
  return useMutation({ mutationFn: fetchWikipediaArticle });
}

export function useAnalyzeText() {
  return useMutation({ mutationFn: analyzeText });
}

export function useFetchUrl() {
  return useMutation({ mutationFn: fetchUrlContent });
}
