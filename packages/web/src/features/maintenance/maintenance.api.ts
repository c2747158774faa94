/** Fetchers, query keys and hooks of maintenance, workers, health and backups (spec 002 §7). */
import { useEffect } from 'react';
import { useMutation, useQuery, useQueryClient, type QueryClient } from '@tanstack/react-query';
import {
  BACKUP_ARCHIVE_TYPE,
  CONSOLE_HEADER,
  CONSOLE_HEADER_VALUE,
  type Backup,
  type BackupList,
  type BackupVerification,
  type Job,
  type MaintenanceAction,
  type MaintenanceHealth,
  type MaintenanceRequest,
  type MaintenanceResult,
  type RestoreResult,
  type WorkersStatus,
} from '@adam/contracts';
import { ApiError, api, buildUrl, NETWORK_ERROR_MESSAGE } from '../../api/client';
import { getApiKey } from '../../session/storage';
import { toast } from '../../layout/toasts';
import { emotionKeys } from '../emotions/emotions.api';
import { indexKeys } from '../index/index.api';
import { isFinalStatus, jobKeys, useJob } from '../jobs/jobs.api';
import { overviewKeys } from '../overview/overview.api';
import { snippetKeys } from '../snippets/snippets.api';
import { sourceKeys } from '../sources/sources.api';
import { MAINTENANCE_MESSAGES } from './messages';

/** Worker status refresh while a screen shows it (starts and stops answer the new status at once). */
export const WORKERS_POLL_MS = 5000;

export const maintenanceKeys = {
  all: ['maintenance'] as const,
  health: ['maintenance', 'health'] as const,
  workers: ['maintenance', 'workers'] as const,
  backups: ['maintenance', 'backups'] as const,
};

function useFailureToast(error: unknown, errorUpdatedAt: number, message: string) {
  useEffect(() => {
    if (error) toast.error(message, { dedupe: true });
  }, [error, errorUpdatedAt, message]);
}

const invalidate = (queryClient: QueryClient, ...keys: (readonly unknown[])[]) => {
  for (const queryKey of keys) void queryClient.invalidateQueries({ queryKey });
};

/** What each action changes, refetched once it answered. */
const ACTION_EFFECTS: Record<MaintenanceAction, (readonly unknown[])[]> = {
  optimize_index: [jobKeys.lists, indexKeys.all],
  rebuild_index: [jobKeys.lists, indexKeys.all],
  cleanup_duplicates: [
    snippetKeys.all,
    indexKeys.all,
    sourceKeys.all,
    overviewKeys.all,
    emotionKeys.all,
  ],
  cleanup_low_quality: [
    snippetKeys.all,
    indexKeys.all,
    sourceKeys.all,
    overviewKeys.all,
    emotionKeys.all,
  ],
  reset_stuck_jobs: [jobKeys.all, maintenanceKeys.workers],
  clear_old_jobs: [jobKeys.all, overviewKeys.all],
};

/** The counts a maintenance job recorded as its result (job.metadata.result), numbers only. */
export function jobCounts(job: Job | undefined): Record<string, number> {
  const result = job?.metadata.result;
  if (!result || typeof result !== 'object') return {};
  return Object.fromEntries(
    Object.entries(result as Record<string, unknown>).filter(
      (entry): entry is [string, number] => typeof entry[1] === 'number',
    ),
  );
}

// --- Fetchers ---------------------------------------------------------------------------------

/** Silent: the screens show 'Action failed' and the detail themselves. */
export function executeMaintenance(body: MaintenanceRequest): Promise<MaintenanceResult> {
  return api.post<MaintenanceResult>('/admin/maintenance/execute', body, { silent: true });
}

export function fetchWorkersStatus(signal?: AbortSignal): Promise<WorkersStatus> {
  return api.get<WorkersStatus>('/admin/maintenance/workers/status', { signal });
}

export function startWorkers(count: number): Promise<WorkersStatus> {
  return api.post<WorkersStatus>('/admin/maintenance/workers/start', { count });
}

export function stopWorkers(): Promise<WorkersStatus> {
  return api.post<WorkersStatus>('/admin/maintenance/workers/stop');
}

export function fetchMaintenanceHealth(signal?: AbortSignal): Promise<MaintenanceHealth> {
  return api.get<MaintenanceHealth>('/admin/maintenance/health', { signal });
}

export function fetchBackups(signal?: AbortSignal): Promise<BackupList> {
  return api.get<BackupList>('/admin/maintenance/backups', { signal, silent: true });
}

/** Answers when the backup is written (it may take a while on a large store). */
export function createBackup(): Promise<Backup> {
  return api.post<Backup>('/admin/maintenance/backup', undefined, { silent: true });
}

/** 409 while a job is processing; 422 when the backup is damaged. */
export function restoreBackup(id: string): Promise<RestoreResult> {
  return api.post<RestoreResult>(
    `/admin/maintenance/restore/${encodeURIComponent(id)}`,
    undefined,
    { silent: true },
  );
}

/** 409 while it is being restored, downloaded or verified. */
export function deleteBackup(id: string): Promise<null> {
  return api.delete<null>(`/admin/maintenance/backups/${encodeURIComponent(id)}`, undefined, {
    silent: true,
  });
}

/** The checks a restore runs, each passed or failed; nothing is changed. */
export function verifyBackup(id: string): Promise<BackupVerification> {
  return api.post<BackupVerification>(
    `/admin/maintenance/backups/${encodeURIComponent(id)}/verify`,
    undefined,
    { silent: true },
  );
}

/**
 * The download's address: the browser saves the archive straight to disk (a backup can be
 * gigabytes: never held in the page), authenticated by the login cookie.
 */
export function backupDownloadHref(id: string): string {
  return buildUrl(`/admin/maintenance/backups/${encodeURIComponent(id)}/download`);
}

/**
 * Sends a backup archive; `onProgress` gets the fraction sent (0..1). XMLHttpRequest, not fetch:
 * only it reports an upload's progress. Rejects with the server's refusal as an ApiError (413
 * too large, 422 naming what failed, 409 already here).
 */
export function uploadBackup(
  file: File,
  onProgress: (fraction: number) => void,
  signal?: AbortSignal,
): Promise<Backup> {
  return new Promise((resolve, reject) => {
    const xhr = new XMLHttpRequest();
    xhr.open('POST', buildUrl('/admin/maintenance/backups/upload'));
    xhr.withCredentials = true;
    xhr.setRequestHeader('Content-Type', BACKUP_ARCHIVE_TYPE);
    xhr.setRequestHeader('Accept', 'application/json');
    xhr.setRequestHeader(CONSOLE_HEADER, CONSOLE_HEADER_VALUE);
    const key = getApiKey();
    if (key) xhr.setRequestHeader('X-API-Key', key);
    xhr.upload.onprogress = (e) => {
      if (e.lengthComputable && e.total > 0) onProgress(e.loaded / e.total);
    };
    xhr.onload = () => {
      let body: unknown = null;
      try {
        body = xhr.responseText ? JSON.parse(xhr.responseText) : null;
      } catch {
        body = null;
      }
      if (xhr.status >= 200 && xhr.status < 300) {
        resolve(body as Backup);
        return;
      }
      const detail = (body as { detail?: unknown } | null)?.detail;
      const message =
        typeof detail === 'string' && detail
          ? detail
          : xhr.status === 413
            ? 'The archive is larger than the server accepts'
            : `Upload failed with status ${xhr.status}`;
      reject(new ApiError(message, xhr.status, body));
    };
    xhr.onerror = () => reject(new ApiError(NETWORK_ERROR_MESSAGE, 0, null));
    xhr.onabort = () => reject(new ApiError('Upload cancelled', 0, null));
    signal?.addEventListener('abort', () => xhr.abort());
    xhr.send(file);
  });
}

// --- Hooks ------------------------------------------------------------------------------------

/** `failureMessage`: the spec's text for the screen running it ('Action failed' by default). */
export function useExecuteMaintenance(failureMessage: string = MAINTENANCE_MESSAGES.actionFailed) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: executeMaintenance,
    onSuccess: (_result, request) => invalidate(queryClient, ...ACTION_EFFECTS[request.action]),
    onError: () => toast.error(failureMessage),
  });
}

/**
 * The job a maintenance action queued, followed to its end (jobs.api's useJob: live through the
 * realtime table, polled meanwhile). When it ends, the index figures it changed are refetched.
 */
export function useMaintenanceJob(id: number | null) {
  const queryClient = useQueryClient();
  const query = useJob(id);
  const final = query.data ? isFinalStatus(query.data.status) : false;
  useEffect(() => {
    if (final) invalidate(queryClient, indexKeys.all, snippetKeys.all);
  }, [final, queryClient]);
  return query;
}

export function useWorkersStatus() {
  return useQuery({
    queryKey: maintenanceKeys.workers,
    queryFn: ({ signal }) => fetchWorkersStatus(signal),
    refetchInterval: WORKERS_POLL_MS,
  });
}

function useWorkersMutation<A>(call: (arg: A) => Promise<WorkersStatus>) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: call,
    onSuccess: (status) => queryClient.setQueryData(maintenanceKeys.workers, status),
  });
}

export const useStartWorkers = () => useWorkersMutation(startWorkers);
export const useStopWorkers = () => useWorkersMutation((_: void) => stopWorkers());

/** While the server is still starting (engine threads, the index), asked again until it is not. */
export const STARTING_REFETCH_MS = 1000;

export function useMaintenanceHealth() {
  return useQuery({
    queryKey: maintenanceKeys.health,
    queryFn: ({ signal }) => fetchMaintenanceHealth(signal),
    refetchInterval: (query) =>
      query.state.data?.checks.some((c) => c.status === 'starting') ? STARTING_REFETCH_MS : false,
  });
}

export function useBackups() {
  const query = useQuery({
    queryKey: maintenanceKeys.backups,
    queryFn: ({ signal }) => fetchBackups(signal),
  });
  useFailureToast(query.error, query.errorUpdatedAt, MAINTENANCE_MESSAGES.backupsLoadFailed);
  return query;
}

export function useCreateBackup() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: createBackup,
    onSuccess: () => invalidate(queryClient, maintenanceKeys.backups),
    onError: () => toast.error(MAINTENANCE_MESSAGES.backupFailed),
  });
}

/** A restore replaces the whole store: every cached figure is stale, so everything is refetched. */
export function useRestoreBackup() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: restoreBackup,
    onSuccess: () => void queryClient.invalidateQueries(),
    onError: () => toast.error(MAINTENANCE_MESSAGES.restoreFailed),
  });
}

export function useDeleteBackup() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: deleteBackup,
    onSettled: () => invalidate(queryClient, maintenanceKeys.backups),
  });
}

export function useVerifyBackup() {
  return useMutation({ mutationFn: verifyBackup });
}

export function useUploadBackup(onProgress: (fraction: number) => void) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (file: File) => uploadBackup(file, onProgress),
    onSuccess: () => invalidate(queryClient, maintenanceKeys.backups),
  });
}
