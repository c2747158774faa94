/**
 * The maintenance actions of spec 002 §7 with their controls: thresholds, bounds and defaults
 * (§5, §9) from the contracts, and the confirmation each destructive one asks (§5).
 */
import {
  CLEAR_OLD_JOBS_DAYS,
  DUPLICATE_THRESHOLD_DEFAULT,
  LOW_QUALITY_THRESHOLD_DEFAULT,
  SCORE_BOUNDS,
  STUCK_AFTER_SECONDS,
  type MaintenanceAction,
  type MaintenanceRequest,
} from '@adam/contracts';

export interface ThresholdControl {
  label: string;
  description: string;
  min: number;
  max: number;
  step: number;
  defaultValue: number;
}

export interface MaintenanceTask {
  action: MaintenanceAction;
  title: string;
  description: string;
  button: string;
  color: string;
  threshold?: ThresholdControl;
  /** The cleanups can first be run as a dry run that only counts. */
  preview?: boolean;
  /** Destructive: the confirmation's title and text for the given threshold. */
  confirm?: { title: string; message: (threshold: number | undefined) => string; label: string };
  /** Fixed parameters sent with the action. */
  params?: NonNullable<MaintenanceRequest['params']>;
}

export const MAINTENANCE_TASKS: readonly MaintenanceTask[] = [
  {
    action: 'optimize_index',
    title: 'Optimize Index',
    description:
      'Compacts the vector graph from the stored embeddings, without re-embedding. Runs as a job.',
    button: 'Optimize',
    color: 'indigo',
  },
  {
    action: 'rebuild_index',
    title: 'Rebuild Index',
    description:
      'Re-embeds every snippet with the active embedder and rebuilds the index. Runs as a job.',
    button: 'Rebuild',
    color: 'orange',
    confirm: {
      title: 'Rebuild the index?',
      message: () =>
        'Every snippet is re-embedded and the index is built again from scratch. Searches return fewer results until the job finishes.',
      label: 'Rebuild',
    },
  },
  {
    action: 'cleanup_duplicates',
    title: 'Remove Duplicates',
    description:
      'Deletes near-duplicate snippets by vector similarity, keeping the better-quality one of each pair.',
    button: 'Remove duplicates',
    color: 'red',
    threshold: {
      label: 'Similarity threshold',
      description: 'Pairs at or above this similarity are duplicates (0–1, step 0.01).',
      ...SCORE_BOUNDS,
      step: 0.01,
      defaultValue: DUPLICATE_THRESHOLD_DEFAULT,
    },
    preview: true,
    confirm: {
      title: 'Remove duplicate snippets?',
      message: (t) =>
        `Snippets with a better-quality neighbour at similarity ≥ ${t} are deleted from the store and the index. This cannot be undone (restore a backup to get them back).`,
      label: 'Remove duplicates',
    },
  },
  {
    action: 'cleanup_low_quality',
    title: 'Remove Low-Quality Snippets',
    description: 'Deletes the snippets whose quality score is below the threshold.',
    button: 'Remove low quality',
    color: 'red',
    threshold: {
      label: 'Quality threshold',
      description: 'Snippets below this quality are deleted (0–1, step 0.1).',
      ...SCORE_BOUNDS,
      step: 0.1,
      defaultValue: LOW_QUALITY_THRESHOLD_DEFAULT,
    },
    preview: true,
    confirm: {
      title: 'Remove low-quality snippets?',
      message: (t) =>
        `Snippets with a quality score below ${t} are deleted from the store and the index. This cannot be undone (restore a backup to get them back).`,
      label: 'Remove low quality',
    },
  },
  {
    action: 'reset_stuck_jobs',
    title: 'Reset Stuck Jobs',
    description: `Puts back in the queue the processing jobs whose worker sent no heartbeat for ${STUCK_AFTER_SECONDS / 60} minutes.`,
    button: 'Reset stuck jobs',
    color: 'yellow',
  },
  {
    action: 'clear_old_jobs',
    title: 'Clear Old Jobs',
    description: `Removes completed jobs older than ${CLEAR_OLD_JOBS_DAYS} days from the job history. Their snippets stay.`,
    button: 'Clear old jobs',
    color: 'red',
    params: { days: CLEAR_OLD_JOBS_DAYS },
    confirm: {
      title: 'Clear old jobs?',
      message: () =>
        `Completed jobs older than ${CLEAR_OLD_JOBS_DAYS} days are deleted from the job history. Their snippets are kept.`,
      label: 'Clear old jobs',
    },
  },
];

/** A threshold is sent only when it is a number within its bounds. */
export function validThreshold(control: ThresholdControl, value: number | string): number | null {
  const n = typeof value === 'number' ? value : Number(value);
  if (value === '' || !Number.isFinite(n) || n < control.min || n > control.max) return null;
  return n;
}
