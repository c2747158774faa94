/** Fetchers, query keys and hooks of the job calls (spec 002 §7: /sources/jobs/...). */
import { keepPreviousData, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import type {
  CancelPendingResponse,
  CrawlSkipReason,
  DeletedResponse,
  FrontierList,
  FrontierStatus,
  Job,
  JobErrors,
  JobFindResponse,
  JobList,
  JobPriority,
  JobStatus,
  JobThroughput,
  RelaunchResponse,
  ServerMessageFields,
} from '@adam/contracts';
import { api } from '../../api/client';

export const JOB_TABS = ['active', 'queue', 'history', 'stuck'] as const;
export type JobTab = (typeof JOB_TABS)[number];

/** Queue auto-refresh choices in seconds (spec 002 §2, §9): 2, 5 (default), 10, 30. */
export const JOB_REFRESH_SECONDS = [2, 5, 10, 30] as const;
export const DEFAULT_JOB_REFRESH_SECONDS = 5;

/** A followed job whose socket events may be missed is polled this often until it ends. */
export const JOB_FOLLOW_POLL_MS = 5000;

/** The statuses a job never leaves. */
export const FINAL_JOB_STATUSES: readonly JobStatus[] = ['completed', 'failed', 'cancelled'];
export const isFinalStatus = (status: JobStatus) => FINAL_JOB_STATUSES.includes(status);

export const jobKeys = {
  all: ['jobs'] as const,
  /** Every cached job list holds a JobList (tabs, status filters, find results). */
  lists: ['jobs', 'list'] as const,
  list: (tab: JobTab) => ['jobs', 'list', tab] as const,
  /** A tab's total only (limit 1): the counts of the tabs not shown. */
  count: (tab: JobTab) => ['jobs', 'list', tab, 'count'] as const,
  detail: (id: number) => ['jobs', 'detail', id] as const,
  errors: (id: number) => ['jobs', 'errors', id] as const,
  throughput: ['jobs', 'throughput'] as const,
  find: (q: string) => ['jobs', 'find', q] as const,
};

/** The fields job_progress carries, applied to a cached job. */
export type JobProgressPatch = Pick<
  ServerMessageFields<'job_progress'>,
  'job_id' | 'progress' | 'stage' | 'stats'
>;

export function patchJob(job: Job, patch: JobProgressPatch): Job {
  if (job.id !== patch.job_id) return job;
  return {
    ...job,
    // A pending job that reports progress has been claimed.
    status: job.status === 'pending' ? 'processing' : job.status,
    progress: patch.progress,
    stage: patch.stage,
    stats: { ...job.stats, ...patch.stats },
  };
}

export function patchJobList(
  list: JobList | undefined,
  patch: JobProgressPatch,
): JobList | undefined {
  if (!list || !list.jobs.some((job) => job.id === patch.job_id)) return list;
  return { ...list, jobs: list.jobs.map((job) => patchJob(job, patch)) };
}

// --- Which actions a job offers (spec 002 §4) ------------------------------------------------

export type JobAction = 'cancel' | 'relaunch' | 'delete' | 'snippets' | 'errors';

/**
 * Cancel for pending and processing; relaunch for completed, failed and cancelled; delete and
 * view-snippets always; view-errors when the job has errors.
 */
export function jobActions(job: Pick<Job, 'status' | 'errors'>): JobAction[] {
  const actions: JobAction[] = [];
  if (job.status === 'pending' || job.status === 'processing') actions.push('cancel');
  if (isFinalStatus(job.status)) actions.push('relaunch');
  actions.push('snippets');
  if (job.errors.length > 0) actions.push('errors');
  actions.push('delete');
  return actions;
}

// --- Fetchers ---------------------------------------------------------------------------------

/**
 * Job and source load failures are logged to the console only (spec 002 §8): the lists are
 * fetched silently and the screens show their error state.
 */
const logged =
  <A extends unknown[], T>(what: string, call: (...args: A) => Promise<T>) =>
  async (...args: A): Promise<T> => {
    try {
      return await call(...args);
    } catch (error) {
      // A call TanStack Query aborted (a newer one replaced it) is not a failure.
      if (!(error instanceof DOMException && error.name === 'AbortError')) {
        console.error(`${what} failed`, error);
      }
      throw error;
    }
  };

export const fetchJobList = logged(
  'Job list',
  (tab: JobTab, options: { limit?: number; signal?: AbortSignal } = {}) =>
    api.get<JobList>(`/sources/jobs/${tab}`, {
      query: { limit: options.limit },
      signal: options.signal,
      silent: true,
    }),
);

export const fetchJob = logged('Job', (id: number, signal?: AbortSignal) =>
  api.get<Job>(`/sources/jobs/${id}`, { signal, silent: true }),
);

export const fetchJobErrors = logged('Job errors', (id: number, signal?: AbortSignal) =>
  api.get<JobErrors>(`/sources/jobs/${id}/errors`, { signal, silent: true }),
);

export const fetchJobThroughput = logged('Job throughput', (signal?: AbortSignal) =>
  api.get<JobThroughput>('/sources/jobs/throughput', { signal, silent: true }),
);

export const findJobs = logged('Job search', (q: string, signal?: AbortSignal) =>
  api.get<JobFindResponse>('/sources/jobs/find', { query: { q }, signal, silent: true }),
);

// Actions keep the client's toast of the server's detail (a 409 says why), and log too.
export const cancelJob = logged('Job cancel', (id: number) =>
  api.post<Job>(`/sources/jobs/${id}/cancel`),
);

export const relaunchJob = logged('Job relaunch', (id: number, priority: JobPriority) =>
  api.post<RelaunchResponse>(`/sources/jobs/${id}/relaunch`, undefined, { query: { priority } }),
);

export const deleteJob = logged('Job delete', (id: number) =>
  api.delete<DeletedResponse>(`/sources/jobs/${id}`),
);

export const cancelPendingJobs = logged('Cancel all pending', () =>
  api.post<CancelPendingResponse>('/sources/jobs/cancel_pending'),
);

// --- Hooks ------------------------------------------------------------------------------------

/** `refetchMs` false: no polling (auto-refresh off). */
export function useJobList(tab: JobTab, refetchMs: number | false) {
  return useQuery({
    queryKey: jobKeys.list(tab),
    queryFn: ({ signal }) => fetchJobList(tab, { signal }),
    refetchInterval: refetchMs,
  });
}

/**
 * One job, followed: job_progress patches it in place and job_completed / job_failed refetch it
 * (the realtime table); while it is not final it is also polled in case the socket is down.
 */
export function useJob(id: number | null) {
  return useQuery({
    queryKey: jobKeys.detail(id ?? -1),
    queryFn: ({ signal }) => fetchJob(id as number, signal),
    enabled: id !== null,
    refetchInterval: (query) => {
      const job = query.state.data;
      return job && isFinalStatus(job.status) ? false : JOB_FOLLOW_POLL_MS;
    },
  });
}

export function useJobErrors(id: number | null) {
  return useQuery({
    queryKey: jobKeys.errors(id ?? -1),
    queryFn: ({ signal }) => fetchJobErrors(id as number, signal),
    enabled: id !== null,
  });
}

export function useJobThroughput(refetchMs: number | false) {
  return useQuery({
    queryKey: jobKeys.throughput,
    queryFn: ({ signal }) => fetchJobThroughput(signal),
    // The strip is a 24 h view: a minute between refreshes is plenty.
    refetchInterval: refetchMs === false ? false : Math.max(refetchMs, 60_000),
  });
}

/** Jobs whose id is `q` or whose URLs contain it; nothing is asked for an empty query. */
export function useFindJobs(q: string, refetchMs: number | false) {
  const query = q.trim();
  return useQuery({
    queryKey: jobKeys.find(query),
    queryFn: ({ signal }) => findJobs(query, signal),
    enabled: query.length > 0,
    refetchInterval: refetchMs,
    placeholderData: keepPreviousData,
  });
}

/** After an action the lists are refetched even when the socket is down. */
export function useRefreshJobs() {
  const queryClient = useQueryClient();
  return (id?: number) => {
    void queryClient.invalidateQueries({ queryKey: jobKeys.lists });
    void queryClient.invalidateQueries({ queryKey: ['jobs', 'find'] });
    void queryClient.invalidateQueries({ queryKey: jobKeys.throughput });
    if (id !== undefined) void queryClient.invalidateQueries({ queryKey: jobKeys.detail(id) });
  };
}

export function useCancelJob() {
  const refresh = useRefreshJobs();
  return useMutation({ mutationFn: cancelJob, onSuccess: (job) => refresh(job.id) });
}

export function useRelaunchJob() {
  const refresh = useRefreshJobs();
  return useMutation({
    mutationFn: ({ id, priority }: { id: number; priority: JobPriority }) =>
      relaunchJob(id, priority),
    onSuccess: () => refresh(),
  });
}

export function useDeleteJob() {
  const queryClient = useQueryClient();
  const refresh = useRefreshJobs();
  return useMutation({
    mutationFn: deleteJob,
    onSuccess: ({ id }) => {
      queryClient.removeQueries({ queryKey: jobKeys.detail(id) });
      refresh();
    },
  });
}

export function useCancelPendingJobs() {
  const refresh = useRefreshJobs();
  return useMutation({ mutationFn: cancelPendingJobs, onSuccess: () => refresh() });
}

/**
 * A tab's count: the shown tab reads the total of its own list, the others ask for one row only
 * (every list answers its total).
 */
export function useJobTabTotal(tab: JobTab, shown: boolean, refetchMs: number | false) {
  return useQuery({
    queryKey: shown ? jobKeys.list(tab) : jobKeys.count(tab),
    queryFn: ({ signal }) => fetchJobList(tab, { limit: shown ? undefined : 1, signal }),
    refetchInterval: refetchMs,
    select: (list: JobList) => list.total,
  });
}

// --- A crawl's frontier (issue 24) -----------------------------------------------------------

/** Frontier URLs per page of the modal. */
export const FRONTIER_PER_PAGE = 50;

export interface FrontierFilters {
  status: FrontierStatus | null;
  reason: CrawlSkipReason | null;
  page: number;
}

export const crawlKeys = {
  frontier: (jobId: number, f: FrontierFilters) =>
    ['jobs', 'frontier', jobId, f.status, f.reason, f.page] as const,
};

export const fetchFrontier = logged(
  'Crawl frontier',
  (jobId: number, f: FrontierFilters, signal?: AbortSignal) =>
    api.get<FrontierList>(`/sources/crawl/${jobId}/frontier`, {
      query: { status: f.status, reason: f.reason, page: f.page, per_page: FRONTIER_PER_PAGE },
      signal,
      silent: true,
    }),
);

/** `refetchMs`: polled while the crawl runs (its frontier moves without events), false after. */
export function useCrawlFrontier(
  jobId: number | null,
  f: FrontierFilters,
  refetchMs: number | false,
) {
  return useQuery({
    queryKey: crawlKeys.frontier(jobId ?? -1, f),
    queryFn: ({ signal }) => fetchFrontier(jobId as number, f, signal),
    enabled: jobId !== null,
    refetchInterval: refetchMs,
    placeholderData: keepPreviousData,
  });
}
