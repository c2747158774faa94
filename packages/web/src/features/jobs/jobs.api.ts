/** Fetchers, query keys and hooks of the job calls (spec 002 §7: /sources/jobs/...). */
import {
  keepPreviousData,
  useMutation,
  useQuery,
  useQueryClient,
  type QueryClient,
} from '@tanstack/react-query';
import type {
  CancelPendingResponse,
  CrawlSkipReason,
  DeletedResponse,
  FrontierList,
  FrontierStatus,
  Job,
  JobDetail,
  JobErrors,
  JobFindResponse,
  JobList,
  JobPage,
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
  /** Under the job's detail key: a finish or delete of the job reaches both. */
  fullDetail: (id: number) => ['jobs', 'detail', id, 'full'] as const,
  /**
   * The job's last segment_progress (pushed only, never fetched). Under the detail key: a
   * delete drops it; a finish's refetch answers what is cached, so the last figures stay.
   */
  segments: (id: number) => ['jobs', 'detail', id, 'segments'] as const,
  /** A history page: under lists, so job events refetch it (keyset pages do not shift). */
  historyPage: (filters: HistoryFilters, cursor: string | null) =>
    ['jobs', 'list', 'history', 'page', filters, cursor] as const,
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

/** A job detail's cached answer with job_progress applied to its job. */
export function patchJobDetail(
  detail: JobDetail | undefined,
  patch: JobProgressPatch,
): JobDetail | undefined {
  return detail ? { ...detail, job: patchJob(detail.job, patch) } : detail;
}

// --- Segment progress (segment_progress: the second progress bar) ---------------------------

/** A job's processed/total snippets and stage, as its last segment_progress said. */
export type SegmentProgress = Pick<
  ServerMessageFields<'segment_progress'>,
  'processed' | 'total' | 'stage'
>;

/** The realtime table's segment_progress row: the figures into the cache, nothing refetched. */
export function applySegmentProgress(
  queryClient: QueryClient,
  m: Pick<ServerMessageFields<'segment_progress'>, 'job_id' | 'processed' | 'total' | 'stage'>,
): void {
  // Every job the server runs names itself; a message without a job has nowhere to go.
  if (m.job_id === null) return;
  const { processed, total, stage } = m;
  queryClient.setQueryData<SegmentProgress>(jobKeys.segments(m.job_id), {
    processed,
    total,
    stage,
  });
}

/** The share of segments done, 0–100 (100 when there was nothing to do). */
export function segmentPercent(p: SegmentProgress): number {
  if (p.total <= 0) return 100;
  return Math.round(Math.min(1, Math.max(0, p.processed / p.total)) * 100);
}

// --- The history's filters and pages (issue 28) ----------------------------------------------

/** Jobs per history page. */
export const HISTORY_PAGE_SIZE = 50;
export const HISTORY_STATUSES = ['completed', 'failed', 'cancelled'] as const;

export interface HistoryFilters {
  status: (typeof HISTORY_STATUSES)[number] | null;
  type: string | null;
  /** Local days (YYYY-MM-DD), both inclusive. */
  from: string | null;
  to: string | null;
  q: string;
}
export const NO_HISTORY_FILTERS: HistoryFilters = {
  status: null,
  type: null,
  from: null,
  to: null,
  q: '',
};

/** A local day's first and last instant, as the server compares created_at (UTC ISO). */
export const localDayStart = (day: string) => new Date(`${day}T00:00:00`).toISOString();
export const localDayEnd = (day: string) => new Date(`${day}T23:59:59.999`).toISOString();

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

export const fetchHistoryPage = logged(
  'Job history',
  (f: HistoryFilters, cursor: string | null, signal?: AbortSignal) =>
    api.get<JobPage>('/sources/jobs/history', {
      query: {
        limit: HISTORY_PAGE_SIZE,
        cursor: cursor ?? undefined,
        status: f.status ?? undefined,
        type: f.type ?? undefined,
        created_from: f.from ? localDayStart(f.from) : undefined,
        created_to: f.to ? localDayEnd(f.to) : undefined,
        q: f.q.trim() || undefined,
      },
      signal,
      silent: true,
    }),
);

export const fetchJobDetail = logged('Job detail', (id: number, signal?: AbortSignal) =>
  api.get<JobDetail>(`/sources/jobs/${id}/detail`, { signal, silent: true }),
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
export function useJobList(tab: JobTab, refetchMs: number | false, enabled = true) {
  return useQuery({
    queryKey: jobKeys.list(tab),
    queryFn: ({ signal }) => fetchJobList(tab, { signal }),
    refetchInterval: refetchMs,
    enabled,
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

/**
 * A job's segment progress, kept current by the realtime table; null until the job reports
 * one (jobs that count no segments never do) or when no job is given.
 */
export function useSegmentProgress(id: number | null): SegmentProgress | null {
  const queryClient = useQueryClient();
  const key = jobKeys.segments(id ?? -1);
  const { data } = useQuery({
    queryKey: key,
    // Nothing to fetch: what the socket pushed (a refetch on invalidation keeps it).
    queryFn: () => queryClient.getQueryData<SegmentProgress>(key) ?? null,
    enabled: id !== null,
    staleTime: Infinity,
  });
  return id === null ? null : (data ?? null);
}

/** One history page; the previous page stays shown while the next loads. */
export function useHistoryPage(
  f: HistoryFilters,
  cursor: string | null,
  refetchMs: number | false,
) {
  return useQuery({
    queryKey: jobKeys.historyPage(f, cursor),
    queryFn: ({ signal }) => fetchHistoryPage(f, cursor, signal),
    refetchInterval: refetchMs,
    placeholderData: keepPreviousData,
  });
}

/**
 * A job's detail, followed like useJob: job_progress patches its job (the realtime table),
 * its end refetches it, and while it runs it is polled for the URL outcomes.
 */
export function useJobDetail(id: number | null) {
  return useQuery({
    queryKey: jobKeys.fullDetail(id ?? -1),
    queryFn: ({ signal }) => fetchJobDetail(id as number, signal),
    enabled: id !== null,
    retry: (count, error) => !/not found/i.test(String(error)) && count < 2,
    refetchInterval: (query) => {
      const d = query.state.data;
      return d && isFinalStatus(d.job.status) ? false : JOB_FOLLOW_POLL_MS;
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
export function useJobTabTotal(tab: JobTab, shownTab: boolean, refetchMs: number | false) {
  // The history tab shows pages of its own: its count is asked like a hidden tab's.
  const shown = shownTab && tab !== 'history';
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
