/**
 * Fetchers, query keys and hooks of the model calls (spec 001 §7: /admin/models/...), the
 * language packs and the model-file cleanup. Every call is silent: the screens show the spec's
 * own texts (§8) with the server's detail.
 */
import { useEffect } from 'react';
import { useMutation, useQuery, useQueryClient, type QueryClient } from '@tanstack/react-query';
import {
  ModelStatus,
  type ClearCacheResult,
  type DeleteModelFilesResult,
  type InstallProgress,
  type LanguagePack,
  type Model,
  type ModelActionResult,
  type ModelCreateInput,
  type ModelList,
  type ModelUpdate,
  type ServerMessageFields,
  type TestModelResult,
  type ToggleModelResult,
  type UnusedModelFile,
} from '@adam/contracts';
import { api } from '../../api/client';
import { toast } from '../../layout/toasts';
import { jobKeys } from '../jobs/jobs.api';
import { MODEL_MESSAGES } from './messages';

export const modelKeys = {
  all: ['models'] as const,
  list: ['models', 'list'] as const,
  detail: (id: number) => ['models', 'detail', id] as const,
  /** Filled by install/uninstall polling and by model_progress events; never fetched alone. */
  progress: (id: number) => ['models', 'progress', id] as const,
  /** The progress messages seen for a model this visit (the installation logs dialog). */
  log: (id: number) => ['models', 'log', id] as const,
  languagePacks: ['models', 'language-packs'] as const,
  cleanupFiles: ['models', 'cleanup', 'files'] as const,
};

const invalidate = (queryClient: QueryClient, ...keys: (readonly unknown[])[]) => {
  for (const queryKey of keys) void queryClient.invalidateQueries({ queryKey });
};

/** The error's human message (the client unwraps the body's detail). */
export const reasonOf = (error: unknown): string =>
  error instanceof Error && error.message ? error.message : 'Unknown error';

// --- Fetchers ---------------------------------------------------------------------------------

const path = (id: number, action = '') => `/admin/models/${id}${action ? `/${action}` : ''}`;

export function fetchModels(signal?: AbortSignal): Promise<ModelList> {
  return api.get<ModelList>('/admin/models', { signal, silent: true });
}

export function fetchModel(id: number, signal?: AbortSignal): Promise<Model> {
  return api.get<Model>(path(id), { signal, silent: true });
}

export function createModel(body: ModelCreateInput): Promise<Model> {
  return api.post<Model>('/admin/models', body, { silent: true });
}

export function updateModel(id: number, change: ModelUpdate): Promise<Model> {
  return api.put<Model>(path(id), change, { silent: true });
}

export function installModel(id: number): Promise<ModelActionResult> {
  return api.post<ModelActionResult>(path(id, 'install'), undefined, { silent: true });
}

export function uninstallModel(id: number): Promise<ModelActionResult> {
  return api.post<ModelActionResult>(path(id, 'uninstall'), undefined, { silent: true });
}

export function fetchInstallProgress(id: number, signal?: AbortSignal): Promise<InstallProgress> {
  return api.get<InstallProgress>(path(id, 'progress'), { signal, silent: true });
}

export function toggleModel(id: number, active: boolean): Promise<ToggleModelResult> {
  return api.post<ToggleModelResult>(path(id, 'toggle'), { active }, { silent: true });
}

/** 400 with a detail when the model is not ready. */
export function testModel(id: number, text: string): Promise<TestModelResult> {
  return api.post<TestModelResult>(path(id, 'test'), { text }, { silent: true });
}

export function fetchLanguagePacks(signal?: AbortSignal): Promise<LanguagePack[]> {
  return api.get<LanguagePack[]>('/admin/models/language-packs', { signal, silent: true });
}

/** Its `progress` may be absent (§7): then there is no phase to poll. */
export function installLanguagePack(code: string): Promise<ModelActionResult> {
  return api.post<ModelActionResult>(
    `/admin/models/language-packs/${encodeURIComponent(code)}/install`,
    undefined,
    { silent: true },
  );
}

export function uninstallLanguagePack(code: string): Promise<ModelActionResult> {
  return api.post<ModelActionResult>(
    `/admin/models/language-packs/${encodeURIComponent(code)}/uninstall`,
    undefined,
    { silent: true },
  );
}

export function fetchUnusedFiles(signal?: AbortSignal): Promise<UnusedModelFile[]> {
  return api.get<UnusedModelFile[]>('/admin/models/cleanup/files', { signal, silent: true });
}

/** 422 naming the path when one of them may not be deleted; then nothing is deleted. */
export function deleteModelFiles(files: string[]): Promise<DeleteModelFilesResult> {
  return api.delete<DeleteModelFilesResult>(
    '/admin/models/cleanup/files',
    { files },
    { silent: true },
  );
}

export function clearModelCache(): Promise<ClearCacheResult> {
  return api.post<ClearCacheResult>('/admin/models/cache/clear', undefined, { silent: true });
}

// --- Cache updates (polling and model_progress events) ---------------------------------------

export interface ModelLogEntry {
  at: string;
  status: string;
  progress: number;
  message: string;
}
export interface ModelLog {
  /** The install or uninstall job, once a progress answer named it. */
  jobId: number | null;
  entries: ModelLogEntry[];
}
const EMPTY_LOG: ModelLog = { jobId: null, entries: [] };
/** Enough for a whole install's distinct messages; older ones drop off. */
export const MODEL_LOG_LIMIT = 200;

/** Adds a line when the status or message changed: a poll repeating itself adds nothing. */
export function appendModelLog(
  queryClient: QueryClient,
  id: number,
  entry: Omit<ModelLogEntry, 'at'>,
  jobId?: number | null,
): void {
  queryClient.setQueryData<ModelLog>(modelKeys.log(id), (log = EMPTY_LOG) => {
    const last = log.entries[log.entries.length - 1];
    const same = last && last.status === entry.status && last.message === entry.message;
    const entries = same
      ? log.entries
      : [...log.entries, { ...entry, at: new Date().toISOString() }].slice(-MODEL_LOG_LIMIT);
    const nextJob = jobId ?? log.jobId;
    return same && nextJob === log.jobId ? log : { jobId: nextJob, entries };
  });
}

/** What a start answer says, as the progress shown until the first poll. */
export function progressFrom(result: ModelActionResult): InstallProgress {
  return {
    model_id: result.model_id,
    progress: result.progress ?? 0,
    status: result.status,
    message: result.message,
    downloaded_bytes: 0,
    total_bytes: 0,
    job_id: result.job_id,
  };
}

/**
 * A start answer, unless a poll or a model_progress event moved the model while the call was in
 * flight (`before`: the cached progress when it was sent): a fast failure is often pushed
 * before the answer arrives, and must not be overwritten by it.
 */
export function storeStartAnswer(
  queryClient: QueryClient,
  result: ModelActionResult,
  before: InstallProgress | undefined,
): void {
  if (queryClient.getQueryData(modelKeys.progress(result.model_id)) === before) {
    storeProgress(queryClient, progressFrom(result));
  } else if (result.job_id !== null) {
    // Its job is still the one the installation logs show.
    queryClient.setQueryData<ModelLog>(modelKeys.log(result.model_id), (log = EMPTY_LOG) => ({
      ...log,
      jobId: result.job_id,
    }));
  }
}

/** A polled progress answer: cached for the card and logged. */
export function storeProgress(queryClient: QueryClient, progress: InstallProgress): void {
  queryClient.setQueryData(modelKeys.progress(progress.model_id), progress);
  appendModelLog(queryClient, progress.model_id, progress, progress.job_id);
}

/** A polled model: its record and its row in the cached list. */
export function storeModel(queryClient: QueryClient, model: Model): void {
  queryClient.setQueryData(modelKeys.detail(model.id), model);
  queryClient.setQueryData<ModelList>(modelKeys.list, (list) =>
    list && list.models.some((m) => m.id === model.id)
      ? { ...list, models: list.models.map((m) => (m.id === model.id ? model : m)) }
      : list,
  );
}

type ModelProgressEvent = Pick<
  ServerMessageFields<'model_progress'>,
  'model_id' | 'status' | 'progress' | 'message'
>;

/** Statuses after which sizes, paths, stats and the files on disk have changed. */
const SETTLED: readonly string[] = ['loaded', 'installed', 'not_installed', 'available', 'error'];

/**
 * model_progress (through the realtime table): the card's progress and the model's status are
 * patched in place; once the model settles its list, packs and unused files are refetched.
 */
export function applyModelProgress(queryClient: QueryClient, m: ModelProgressEvent): void {
  const status = ModelStatus.safeParse(m.status);
  queryClient.setQueryData<InstallProgress>(modelKeys.progress(m.model_id), (p) => ({
    model_id: m.model_id,
    downloaded_bytes: p?.downloaded_bytes ?? 0,
    total_bytes: p?.total_bytes ?? 0,
    job_id: p?.job_id ?? null,
    progress: m.progress,
    status: status.success ? status.data : (p?.status ?? 'downloading'),
    message: m.message,
  }));
  appendModelLog(queryClient, m.model_id, m);
  if (status.success) {
    queryClient.setQueryData<ModelList>(modelKeys.list, (list) =>
      list && list.models.some((x) => x.id === m.model_id && x.status !== status.data)
        ? {
            ...list,
            models: list.models.map((x) =>
              x.id === m.model_id ? { ...x, status: status.data } : x,
            ),
          }
        : list,
    );
  }
  if (SETTLED.includes(m.status)) {
    invalidate(
      queryClient,
      modelKeys.list,
      modelKeys.detail(m.model_id),
      modelKeys.languagePacks,
      modelKeys.cleanupFiles,
    );
  }
}

// --- Hooks ------------------------------------------------------------------------------------

/** A failed load's toast, once per failure (a retrying query does not stack copies). */
function useFailureToast(message: string | null, errorUpdatedAt: number) {
  useEffect(() => {
    if (message) toast.error(message, { dedupe: true });
  }, [message, errorUpdatedAt]);
}

export function useModels() {
  const query = useQuery({
    queryKey: modelKeys.list,
    queryFn: ({ signal }) => fetchModels(signal),
  });
  useFailureToast(
    query.error ? MODEL_MESSAGES.loadFailed(query.error.message) : null,
    query.errorUpdatedAt,
  );
  return query;
}

/** The progress last polled or pushed for a model (nothing is fetched from here). */
export function useModelProgress(id: number) {
  return useQuery({
    queryKey: modelKeys.progress(id),
    queryFn: ({ signal }) => fetchInstallProgress(id, signal),
    enabled: false,
  }).data;
}

/** The progress messages seen for a model, and its job (installation logs). */
export function useModelLog(id: number | null): ModelLog {
  const { data } = useQuery({
    queryKey: modelKeys.log(id ?? -1),
    queryFn: () => EMPTY_LOG,
    enabled: false,
  });
  return data ?? EMPTY_LOG;
}

/** The current progress of one model, fetched once when a dialog opens (e.g. its job id). */
export function useFetchedProgress(id: number | null) {
  const queryClient = useQueryClient();
  return useQuery({
    queryKey: [...modelKeys.progress(id ?? -1), 'fetched'] as const,
    queryFn: async ({ signal }) => {
      const progress = await fetchInstallProgress(id as number, signal);
      storeProgress(queryClient, progress);
      return progress;
    },
    enabled: id !== null,
    staleTime: 0,
    gcTime: 0,
  });
}

export function useCreateModel() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: createModel,
    onSuccess: () => invalidate(queryClient, modelKeys.list),
  });
}

export function useUpdateModel() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: ({ id, change }: { id: number; change: ModelUpdate }) => updateModel(id, change),
    onSuccess: (model) => {
      storeModel(queryClient, model);
      invalidate(queryClient, modelKeys.list, modelKeys.languagePacks);
    },
  });
}

/** The answer carries the model; a re-embedding job (job_id) shows in the job lists. */
export function useToggleModel() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: ({ model, active }: { model: Model; active: boolean }) =>
      toggleModel(model.id, active),
    onSuccess: (result) => {
      storeModel(queryClient, result.model);
      // Activating one embedding model deactivates the previous one: refetch the whole list.
      invalidate(queryClient, modelKeys.list);
      if (result.job_id !== null) invalidate(queryClient, jobKeys.lists);
    },
  });
}

export function useTestModel() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: ({ model, text }: { model: Model; text: string }) => testModel(model.id, text),
    // A test measures inference speed and may load the model.
    onSettled: () => invalidate(queryClient, modelKeys.list),
  });
}

export function useLanguagePacks(enabled = true) {
  return useQuery({
    queryKey: modelKeys.languagePacks,
    queryFn: ({ signal }) => fetchLanguagePacks(signal),
    enabled,
  });
}

export function useUninstallLanguagePack() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (pack: LanguagePack) => uninstallLanguagePack(pack.code),
    onSuccess: () => invalidate(queryClient, modelKeys.languagePacks, modelKeys.list),
  });
}

export function useUnusedFiles() {
  const query = useQuery({
    queryKey: modelKeys.cleanupFiles,
    queryFn: ({ signal }) => fetchUnusedFiles(signal),
  });
  useFailureToast(query.error ? MODEL_MESSAGES.filesLoadFailed : null, query.errorUpdatedAt);
  return query;
}

export function useDeleteModelFiles() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: deleteModelFiles,
    // Refetched after a refusal too: the listing may have changed since it was read.
    onSettled: () => invalidate(queryClient, modelKeys.cleanupFiles, modelKeys.list),
  });
}

/** Unloads models (stats change) and removes download leftovers (the unused files change). */
export function useClearModelCache() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: clearModelCache,
    onSuccess: () => invalidate(queryClient, modelKeys.list, modelKeys.cleanupFiles),
  });
}
