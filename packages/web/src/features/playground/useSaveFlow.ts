/**
 * Runs the encyclopedia save flow: the calls of each step, fed into the pure `saveFlowReducer`,
 * and the tracked job followed through job_completed / job_failed events (with a poll of the
 * job while the channel is down).
 */
import { useCallback, useEffect, useReducer, useRef, useState } from 'react';
import { useQueryClient } from '@tanstack/react-query';
import { isApiError } from '../../api/client';
import { toast } from '../../layout/toasts';
import { useRealtimeEvent } from '../../lib/realtime/RealtimeProvider';
import { fetchJobErrors, jobKeys, useJob } from '../jobs/jobs.api';
import { WIKI_MESSAGES } from './messages';
import { loadSavedJob, loadWorkersStatus, retrySavedJob, saveSegments } from './playground.api';
import {
  initialSaveFlow,
  saveFailureText,
  saveFlowReducer,
  validateArticle,
  type SaveFailure,
} from './saveFlow';

export interface SaveInput {
  title: string;
  language: string;
  text: string;
}

/** Where the screen's debug panel records each answer. */
export type ResponseRecorder = (call: string, ok: boolean, body: unknown) => void;

const messageOf = (error: unknown) =>
  error instanceof Error && error.message ? error.message : String(error);

function failureOf(error: unknown): SaveFailure {
  if (isApiError(error)) {
    return { message: error.message, status: error.status, details: error.details };
  }
  return { message: messageOf(error), status: null, details: null };
}

export function useSaveFlow(record: ResponseRecorder) {
  const queryClient = useQueryClient();
  const [state, dispatch] = useReducer(saveFlowReducer, initialSaveFlow);
  const [savedText, setSavedText] = useState<string | null>(null);
  const [relaunching, setRelaunching] = useState(false);
  // A reset or a new save makes answers of the previous run stale.
  const run = useRef(0);
  const recordRef = useRef(record);
  recordRef.current = record;

  // Still read after the job ends: the realtime table refetches it with its final stats. useJob
  // also polls it while it runs, in case the channel is down.
  const followed = ['tracking', 'saved', 'failed'].includes(state.phase) ? state.jobId : null;
  const tracked = useJob(followed);
  useEffect(() => {
    if (tracked.data) dispatch({ type: 'job_seen', job: tracked.data });
  }, [tracked.data]);

  useRealtimeEvent(['job_completed', 'job_failed'], (message) => {
    if (message.type === 'job_completed') {
      dispatch({
        type: 'job_completed',
        jobId: message.job_id,
        segmentsCreated: message.segments_created,
      });
    } else {
      dispatch({ type: 'job_failed', jobId: message.job_id, error: message.error });
    }
  });

  const { phase, jobId } = state;
  const stateRef = useRef(state);
  stateRef.current = state;
  // Once per job outcome: a job id reaches saved or failed once.
  useEffect(() => {
    if (jobId === null) return;
    if (phase === 'saved') {
      const detail = stateRef.current.steps.job.detail;
      toast.success(detail ? `Article saved: ${detail}` : 'Article saved');
    }
    if (phase !== 'failed') return;
    toast.error(WIKI_MESSAGES.jobFailed);
    const current = run.current;
    fetchJobErrors(jobId).then(
      (answer) => {
        recordRef.current(`GET /sources/jobs/${jobId}/errors`, true, answer);
        if (current === run.current) dispatch({ type: 'job_errors', jobId, errors: answer.errors });
      },
      (error: unknown) => {
        // Spec 002 §8: job errors are otherwise logged to the console only.
        console.error(`Could not read the errors of job ${jobId}`, error);
        if (current === run.current) dispatch({ type: 'job_errors', jobId, errors: [] });
      },
    );
  }, [phase, jobId]);

  const save = useCallback(
    async (input: SaveInput) => {
      const current = ++run.current;
      const stale = () => current !== run.current;
      setSavedText(input.text);
      dispatch({ type: 'start', text: input.text });
      const refused = validateArticle(input.text);
      if (refused) {
        toast.error(refused.message);
        return;
      }

      let response;
      try {
        response = await saveSegments(input);
        recordRef.current('POST /playground/save-segments', true, response);
      } catch (error) {
        if (stale()) return;
        const failure = failureOf(error);
        recordRef.current('POST /playground/save-segments', false, failure);
        dispatch({ type: 'save_failed', failure });
        toast.error(saveFailureText(failure));
        return;
      }
      if (stale()) return;
      dispatch({ type: 'save_succeeded', response });
      const id = response.job_id;
      if (id === null) return;

      try {
        const workers = await loadWorkersStatus(queryClient);
        recordRef.current('GET /admin/maintenance/workers/status', true, workers);
        const job = workers.running > 0 ? await loadSavedJob(queryClient, id) : null;
        if (workers.running > 0) recordRef.current(`GET /sources/jobs/${id}`, !!job, job);
        if (stale()) return;
        dispatch({ type: 'worker_checked', running: workers.running, job });
        if (workers.running <= 0) toast.warning(WIKI_MESSAGES.noWorkerRunning);
        else if (!job) toast.error(WIKI_MESSAGES.noWorkerAvailable);
      } catch (error) {
        if (stale()) return;
        recordRef.current('GET /admin/maintenance/workers/status', false, failureOf(error));
        dispatch({ type: 'worker_check_failed', message: messageOf(error) });
        toast.error(messageOf(error));
      }
    },
    [queryClient],
  );

  const retryJob = useCallback(async () => {
    if (state.jobId === null) return;
    const current = run.current;
    setRelaunching(true);
    try {
      const answer = await retrySavedJob(state.jobId);
      recordRef.current(`POST /sources/jobs/${state.jobId}/relaunch`, true, answer);
      if (current !== run.current) return;
      queryClient.setQueryData(jobKeys.detail(answer.job_id), answer.job);
      dispatch({ type: 'job_relaunched', jobId: answer.job_id, job: answer.job });
      toast.info(`Job relaunched as #${answer.job_id}`);
    } catch (error) {
      recordRef.current(`POST /sources/jobs/${state.jobId}/relaunch`, false, failureOf(error));
      if (current !== run.current) return;
      dispatch({ type: 'retry_job_failed', message: messageOf(error) });
      toast.error(`${WIKI_MESSAGES.jobRetryFailed}: ${messageOf(error)}`);
    } finally {
      setRelaunching(false);
    }
  }, [state.jobId, queryClient]);

  const reset = useCallback(() => {
    run.current += 1;
    setSavedText(null);
    dispatch({ type: 'reset' });
  }, []);

  return { state, savedText, save, retryJob, relaunching, reset };
}
