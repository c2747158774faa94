/**
 * The encyclopedia save flow (spec 002 §4, §5, §8) as a pure state machine: validate → check
 * size → save-segments call → check worker → process job, each step pending, running, success,
 * error or skipped. `useSaveFlow` makes the calls and feeds the results in as actions.
 */
import {
  ARTICLE_MAX_BYTES,
  type Job,
  type JobError,
  type SaveSegmentsResponse,
} from '@adam/contracts';
import type { Step, StepStatus } from '../../components/StepList';
import { WIKI_MESSAGES } from './messages';

export const SAVE_STEPS = [
  { id: 'validate', label: 'Validate' },
  { id: 'size', label: 'Check size' },
  { id: 'save', label: 'Save segments call' },
  { id: 'worker', label: 'Check worker' },
  { id: 'job', label: 'Process job' },
] as const;
export type SaveStepId = (typeof SAVE_STEPS)[number]['id'];

interface StepState {
  status: StepStatus;
  detail?: string;
}

/**
 * idle: nothing run; running: validate → check worker; tracking: a worker has the job;
 * saved: the job completed; failed: the job failed (Retry Job); stopped: an earlier step ended
 * the flow (validation, save call, no worker).
 */
export type SavePhase = 'idle' | 'running' | 'tracking' | 'saved' | 'failed' | 'stopped';

export interface SaveFailure {
  message: string;
  status: number | null;
  details: unknown;
}

export interface SaveFlowState {
  steps: Record<SaveStepId, StepState>;
  phase: SavePhase;
  jobId: number | null;
  /** 0-100: the job's own progress, 100 on completion. */
  jobProgress: number;
  response: SaveSegmentsResponse | null;
  /** The tracked job as last read (stats and diagnostics once it ends). */
  job: Job | null;
  saveFailure: SaveFailure | null;
  /** The job_failed event's error text. */
  jobFailure: string | null;
  /** GET /sources/jobs/{id}/errors after a failure; null until read. */
  jobErrors: JobError[] | null;
}

export type SaveFlowAction =
  | { type: 'reset' }
  | { type: 'start'; text: string }
  | { type: 'save_succeeded'; response: SaveSegmentsResponse }
  | { type: 'save_failed'; failure: SaveFailure }
  | { type: 'worker_checked'; running: number; job: Job | null }
  | { type: 'worker_check_failed'; message: string }
  | { type: 'job_seen'; job: Job }
  | { type: 'job_completed'; jobId: number; segmentsCreated?: number }
  | { type: 'job_failed'; jobId: number; error: string | null }
  | { type: 'job_errors'; jobId: number; errors: JobError[] }
  | { type: 'job_relaunched'; jobId: number; job: Job | null }
  | { type: 'retry_job_failed'; message: string };

const allPending = (): Record<SaveStepId, StepState> => ({
  validate: { status: 'pending' },
  size: { status: 'pending' },
  save: { status: 'pending' },
  worker: { status: 'pending' },
  job: { status: 'pending' },
});

export const initialSaveFlow: SaveFlowState = {
  steps: allPending(),
  phase: 'idle',
  jobId: null,
  jobProgress: 0,
  response: null,
  job: null,
  saveFailure: null,
  jobFailure: null,
  jobErrors: null,
};

/** UTF-8 size of the article, the unit of the 100 kB limit. */
export const articleBytes = (text: string) => new TextEncoder().encode(text).length;

/** The validation of spec 002 §5: which step refuses the text, with its message. */
export function validateArticle(
  text: string,
): { step: 'validate' | 'size'; message: string } | null {
  if (!text.trim()) return { step: 'validate', message: WIKI_MESSAGES.textEmpty };
  if (articleBytes(text) > ARTICLE_MAX_BYTES) {
    return { step: 'size', message: WIKI_MESSAGES.textTooBig };
  }
  return null;
}

const FINAL: readonly StepStatus[] = ['success', 'error'];
const isFinal = (s: StepState) => FINAL.includes(s.status);

function withSteps(
  state: SaveFlowState,
  changes: Partial<Record<SaveStepId, StepState>>,
): Record<SaveStepId, StepState> {
  return { ...state.steps, ...changes };
}

const clampPercent = (fraction: number) => Math.max(0, Math.min(100, Math.round(fraction * 100)));

const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;

function completed(state: SaveFlowState, segments: number | undefined): SaveFlowState {
  const worker = state.steps.worker;
  return {
    ...state,
    phase: 'saved',
    jobProgress: 100,
    steps: withSteps(state, {
      // A worker evidently ran it, whatever the check said before.
      worker: worker.status === 'success' ? worker : { status: 'success' },
      job: {
        status: 'success',
        detail: segments !== undefined ? `${plural(segments, 'segment')} created` : undefined,
      },
    }),
  };
}

function failed(state: SaveFlowState, error: string | null): SaveFlowState {
  const worker = state.steps.worker;
  return {
    ...state,
    phase: 'failed',
    jobFailure: error,
    steps: withSteps(state, {
      worker: worker.status === 'success' ? worker : { status: 'success' },
      job: { status: 'error', detail: WIKI_MESSAGES.jobFailed },
    }),
  };
}

/** An event or a read about the tracked job, applied once whatever the order they arrive in. */
function jobEnded(state: SaveFlowState, job: Job): SaveFlowState {
  if (job.status === 'completed') return completed(state, job.stats.segments_created);
  const reason = job.errors[job.errors.length - 1]?.message ?? job.status;
  return failed(state, reason);
}

export function saveFlowReducer(state: SaveFlowState, action: SaveFlowAction): SaveFlowState {
  switch (action.type) {
    case 'reset':
      return initialSaveFlow;

    case 'start': {
      const refused = validateArticle(action.text);
      const base: SaveFlowState = { ...initialSaveFlow, steps: allPending() };
      if (refused?.step === 'validate') {
        return {
          ...base,
          phase: 'stopped',
          steps: {
            validate: { status: 'error', detail: refused.message },
            size: { status: 'skipped' },
            save: { status: 'skipped' },
            worker: { status: 'skipped' },
            job: { status: 'skipped' },
          },
        };
      }
      const size = `${articleBytes(action.text).toLocaleString('en-US')} bytes`;
      if (refused) {
        return {
          ...base,
          phase: 'stopped',
          steps: {
            validate: { status: 'success' },
            size: { status: 'error', detail: `${refused.message} (${size})` },
            save: { status: 'skipped' },
            worker: { status: 'skipped' },
            job: { status: 'skipped' },
          },
        };
      }
      return {
        ...base,
        phase: 'running',
        steps: {
          ...base.steps,
          validate: { status: 'success' },
          size: { status: 'success', detail: size },
          save: { status: 'running' },
        },
      };
    }

    case 'save_succeeded': {
      const { response } = action;
      const detail =
        response.job_id !== null
          ? `Job #${response.job_id} ${response.status}`
          : `${plural(response.segments_created, 'segment')} created`;
      const next: SaveFlowState = {
        ...state,
        response,
        jobId: response.job_id,
        steps: withSteps(state, { save: { status: 'success', detail } }),
      };
      if (response.job_id === null) {
        // Nothing queued: the answer is the whole result.
        return {
          ...next,
          phase: response.status === 'completed' ? 'saved' : 'stopped',
          jobProgress: response.status === 'completed' ? 100 : 0,
          steps: withSteps(next, {
            worker: { status: 'skipped' },
            job: { status: response.status === 'completed' ? 'success' : 'skipped' },
          }),
        };
      }
      return { ...next, steps: withSteps(next, { worker: { status: 'running' } }) };
    }

    case 'save_failed':
      return {
        ...state,
        phase: 'stopped',
        saveFailure: action.failure,
        steps: withSteps(state, {
          save: { status: 'error', detail: action.failure.message },
          worker: { status: 'skipped' },
          job: { status: 'skipped' },
        }),
      };

    case 'worker_checked': {
      // An event may have ended the job while the check was in flight.
      if (isFinal(state.steps.job)) {
        return { ...state, steps: withSteps(state, { worker: { status: 'success' } }) };
      }
      if (action.running <= 0) {
        return {
          ...state,
          phase: 'stopped',
          steps: withSteps(state, {
            worker: { status: 'error', detail: WIKI_MESSAGES.noWorkerRunning },
            job: { status: 'skipped' },
          }),
        };
      }
      if (!action.job) {
        return {
          ...state,
          phase: 'stopped',
          steps: withSteps(state, {
            worker: { status: 'error', detail: WIKI_MESSAGES.noWorkerAvailable },
            job: { status: 'skipped' },
          }),
        };
      }
      const tracked: SaveFlowState = {
        ...state,
        job: action.job,
        steps: withSteps(state, {
          worker: { status: 'success', detail: `${plural(action.running, 'worker')} running` },
        }),
      };
      if (['completed', 'failed', 'cancelled'].includes(action.job.status)) {
        return jobEnded(tracked, action.job);
      }
      return {
        ...tracked,
        phase: 'tracking',
        jobProgress: clampPercent(action.job.progress),
        steps: withSteps(tracked, {
          job: { status: 'running', detail: action.job.stage ?? action.job.status },
        }),
      };
    }

    case 'worker_check_failed':
      if (isFinal(state.steps.job)) return state;
      return {
        ...state,
        phase: 'stopped',
        steps: withSteps(state, {
          worker: { status: 'error', detail: action.message },
          job: { status: 'skipped' },
        }),
      };

    case 'job_seen': {
      const { job } = action;
      if (job.id !== state.jobId) return state;
      const next = { ...state, job };
      if (state.phase !== 'tracking') return next;
      // The channel may be down: a read that finds the job ended stands for the event.
      if (['completed', 'failed', 'cancelled'].includes(job.status)) return jobEnded(next, job);
      return {
        ...next,
        jobProgress: Math.max(state.jobProgress, clampPercent(job.progress)),
        steps: withSteps(next, { job: { status: 'running', detail: job.stage ?? job.status } }),
      };
    }

    case 'job_completed':
      if (action.jobId !== state.jobId || state.steps.job.status === 'success') return state;
      return completed(state, action.segmentsCreated);

    case 'job_failed':
      if (action.jobId !== state.jobId || state.phase === 'failed') return state;
      if (state.steps.job.status === 'success') return state;
      return failed(state, action.error);

    case 'job_errors':
      if (action.jobId !== state.jobId) return state;
      return { ...state, jobErrors: action.errors };

    case 'job_relaunched':
      return {
        ...state,
        phase: 'tracking',
        jobId: action.jobId,
        job: action.job,
        jobProgress: 0,
        jobFailure: null,
        jobErrors: null,
        steps: withSteps(state, {
          worker: { status: 'success' },
          job: { status: 'running', detail: `Relaunched as job #${action.jobId}` },
        }),
      };

    case 'retry_job_failed':
      return {
        ...state,
        steps: withSteps(state, {
          job: { status: 'error', detail: `${WIKI_MESSAGES.jobRetryFailed}: ${action.message}` },
        }),
      };
  }
}

/** The step list as StepList shows it. */
export function saveSteps(state: SaveFlowState): Step[] {
  return SAVE_STEPS.map((def) => ({ id: def.id, label: def.label, ...state.steps[def.id] }));
}

/**
 * The first progress bar: how far the save got before the job, 25 per step done of validate,
 * check size, save call and check worker.
 */
export function saveProgress(state: SaveFlowState): number {
  const done = (['validate', 'size', 'save', 'worker'] as const).filter(
    (id) => state.steps[id].status === 'success',
  ).length;
  return done * 25;
}

/**
 * The save failure toast of spec 002 §8: the answer's detail or message, plus its reason when
 * present, or the French fallback.
 */
export function saveFailureText(failure: { message?: string | null; details: unknown }): string {
  const body = (failure.details && typeof failure.details === 'object' ? failure.details : {}) as {
    detail?: unknown;
    message?: unknown;
    reason?: unknown;
    errors?: unknown;
  };
  const text = (v: unknown) => (typeof v === 'string' && v.trim() ? v.trim() : null);
  const main = text(body.detail) ?? text(body.message) ?? text(failure.message);
  if (!main) return WIKI_MESSAGES.saveFailed;
  const fieldReasons = Array.isArray(body.errors)
    ? body.errors
        .map((e: { field?: unknown; message?: unknown }) =>
          text(e?.message) ? `${text(e.field) ?? ''} ${text(e.message)}`.trim() : null,
        )
        .filter((e): e is string => !!e)
        .join('; ')
    : '';
  const reason = text(body.reason) ?? (fieldReasons || null);
  return reason && !main.includes(reason) ? `${main}: ${reason}` : main;
}
