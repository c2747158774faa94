/**
 * The one place pushed events touch the query cache (spec 001 §7, spec 002 §4): a typed table
 * from each realtime message type to the query keys it refreshes. A type missing here is a type
 * error, so a new server event must say what it refreshes (possibly nothing).
 */
import type { QueryClient } from '@tanstack/react-query';
import {
  SETTINGS_SECTIONS,
  type Job,
  type JobDetail,
  type JobList,
  type ServerMessage,
  type ServerMessageOf,
  type ServerMessageType,
  type SettingsSection,
} from '@adam/contracts';
import type { RealtimeMessage } from '../lib/realtime/realtimeClient';
import { emotionKeys } from '../features/emotions/emotions.api';
import { indexKeys } from '../features/index/index.api';
import {
  applySegmentProgress,
  jobKeys,
  patchJob,
  patchJobDetail,
  patchJobList,
} from '../features/jobs/jobs.api';
import { maintenanceKeys } from '../features/maintenance/maintenance.api';
import { applyRealtimeMetricsPush } from '../features/monitoring/monitoring.api';
import { applyModelProgress } from '../features/models/models.api';
import { overviewKeys } from '../features/overview/overview.api';
import { qualityAlertKeys } from '../features/overview/quality-alerts.api';
import { qualityRunKeys } from '../features/quality/quality-runs.api';
import { settingsKeys } from '../features/settings/settings.api';
import { snippetKeys } from '../features/snippets/snippets.api';
import { sourceKeys } from '../features/sources/sources.api';

type Effect<T extends ServerMessageType> = (
  queryClient: QueryClient,
  message: ServerMessageOf<T>,
) => void;

const invalidate = (queryClient: QueryClient, ...keys: (readonly unknown[])[]) => {
  for (const queryKey of keys) void queryClient.invalidateQueries({ queryKey });
};

/** A job ended: its lists, its record, and everything its snippets feed. */
const jobFinished = (queryClient: QueryClient, m: { job_id: number }) =>
  invalidate(
    queryClient,
    jobKeys.lists,
    jobKeys.detail(m.job_id),
    jobKeys.errors(m.job_id),
    jobKeys.throughput,
    snippetKeys.all,
    sourceKeys.all,
    indexKeys.stats,
    overviewKeys.all,
    emotionKeys.all,
    // An evaluation run's job: its run's status and figures (the events name no run).
    qualityRunKeys.all,
  );

const nothing = () => {};

export const REALTIME_TABLE: { [T in ServerMessageType]: Effect<T> } = {
  initial_state: (queryClient, m) => queryClient.setQueryData(overviewKeys.live, m.stats),
  stats_update: (queryClient, m) => queryClient.setQueryData(overviewKeys.live, m.stats),
  job_created: (queryClient, m) =>
    invalidate(
      queryClient,
      jobKeys.lists,
      jobKeys.throughput,
      overviewKeys.all,
      // A run queued by a rebuild, a model switch or the schedule appears in its set's list.
      ...(m.job_type === 'evaluation_run' ? [qualityRunKeys.lists] : []),
    ),
  // Progress updates the job in place: no refetch per event.
  job_progress: (queryClient, m) => {
    queryClient.setQueriesData<JobList>({ queryKey: jobKeys.lists }, (list) =>
      patchJobList(list, m),
    );
    queryClient.setQueryData<Job>(jobKeys.detail(m.job_id), (job) =>
      job ? patchJob(job, m) : job,
    );
    queryClient.setQueryData<JobDetail>(jobKeys.fullDetail(m.job_id), (detail) =>
      patchJobDetail(detail, m),
    );
  },
  job_completed: jobFinished,
  job_failed: jobFinished,
  job_cancelled: jobFinished,
  job_deleted: (queryClient, m) => {
    queryClient.removeQueries({ queryKey: jobKeys.detail(m.job_id) });
    invalidate(queryClient, jobKeys.lists, jobKeys.throughput);
  },
  'settings.updated': (queryClient, m) => {
    if ((SETTINGS_SECTIONS as readonly string[]).includes(m.section)) {
      invalidate(queryClient, settingsKeys.section(m.section as SettingsSection));
    }
  },
  // Missed events: refetch what they would have refreshed.
  dropped: (queryClient) =>
    invalidate(queryClient, jobKeys.all, overviewKeys.all, maintenanceKeys.workers),
  // A job's second progress bar (segments processed of total): kept in the cache, no refetch.
  segment_progress: applySegmentProgress,
  // Screens that show these keep them in local state (useRealtimeEvent), not in the cache.
  log_entry: nothing,
  // Pushed host figures become the realtime poll's answer (header, sidebar, Control Centre).
  'metrics.update': applyRealtimeMetricsPush,
  model_warning: nothing,
  // A drop alert: the overview's panel and its activity feed line.
  quality_alert: (queryClient) => invalidate(queryClient, qualityAlertKeys.all, overviewKeys.all),
  quality_alert_dismissed: (queryClient) => invalidate(queryClient, qualityAlertKeys.all),
  // The model's progress and status in place; its list, packs and files once it settles.
  model_progress: applyModelProgress,
  error: nothing,
  pong: nothing,
};

/** Applies one message; unknown types (passed through by the client) change nothing. */
export function applyRealtimeMessage(queryClient: QueryClient, message: RealtimeMessage): void {
  const effect = (REALTIME_TABLE as Record<string, Effect<ServerMessageType> | undefined>)[
    message.type
  ];
  effect?.(queryClient, message as ServerMessage);
}
