/** Fetchers, query keys and hooks of the evaluation runs (issue 27: /evaluation/runs...). */
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import {
  StartEvaluationRun,
  type EvaluationRun,
  type QueryResult,
  type RunComparison,
  type EvaluationMode,
} from '@adam/contracts';
import { api } from '../../api/client';
import { qualityKeys } from './quality.api';

/** A run whose job may end while its socket events are missed is polled this often. */
export const RUN_FOLLOW_POLL_MS = 5000;

/** The run keys are quality.api.ts's (one key root for the screen); the lists' common prefix: */
export const qualityRunKeys = {
  all: qualityKeys.runs,
  /** Every set's run list: a job's start or end refetches them (the realtime table). */
  lists: [...qualityKeys.runs, 'list'] as const,
};

export const isRunActive = (run: Pick<EvaluationRun, 'status'>) =>
  run.status === 'pending' || run.status === 'running';

/** The modes a run starts with when the operator changes nothing: the contract's default. */
export const DEFAULT_RUN_MODES: readonly EvaluationMode[] = StartEvaluationRun.parse({ set_id: 1 })
  .modes as EvaluationMode[];

/**
 * The start form checked against the contract itself (mode count, repeats), so its limits stay
 * the server's: the first problem's message, or null when the body is valid.
 */
export function startRunProblem(body: StartEvaluationRun): string | null {
  const parsed = StartEvaluationRun.safeParse(body);
  if (parsed.success) return null;
  const issue = parsed.error.issues[0];
  return issue ? `${issue.path.join('.') || 'body'}: ${issue.message}` : 'invalid';
}

// --- Fetchers ---------------------------------------------------------------------------------

export function fetchRuns(setId: number, signal?: AbortSignal): Promise<EvaluationRun[]> {
  return api
    .get<{ runs: EvaluationRun[] }>('/evaluation/runs', { query: { set_id: setId }, signal })
    .then((r) => r.runs);
}

export function fetchRun(id: number, signal?: AbortSignal): Promise<EvaluationRun> {
  return api.get<EvaluationRun>(`/evaluation/runs/${id}`, { signal });
}

export function fetchRunResults(
  id: number,
  mode: EvaluationMode | null,
  signal?: AbortSignal,
): Promise<QueryResult[]> {
  return api
    .get<{ results: QueryResult[] }>(`/evaluation/runs/${id}/results`, {
      query: { mode: mode ?? undefined },
      signal,
    })
    .then((r) => r.results);
}

export function fetchComparison(
  base: number,
  head: number,
  signal?: AbortSignal,
): Promise<RunComparison> {
  return api.get<RunComparison>('/evaluation/runs/compare', { query: { base, head }, signal });
}

export function startRun(body: StartEvaluationRun): Promise<EvaluationRun> {
  return api.post<EvaluationRun>('/evaluation/runs', body);
}

// --- Hooks ------------------------------------------------------------------------------------

/** A set's runs, newest first; polled slowly while one is still going (a closed socket). */
export function useEvaluationRuns(setId: number) {
  return useQuery({
    queryKey: qualityKeys.runList(setId),
    queryFn: ({ signal }) => fetchRuns(setId, signal),
    refetchInterval: (query) => (query.state.data?.some(isRunActive) ? RUN_FOLLOW_POLL_MS : false),
  });
}

export function useEvaluationRun(id: number | null) {
  return useQuery({
    queryKey: qualityKeys.run(id ?? -1),
    queryFn: ({ signal }) => fetchRun(id as number, signal),
    enabled: id !== null,
    refetchInterval: (query) =>
      query.state.data && isRunActive(query.state.data) ? RUN_FOLLOW_POLL_MS : false,
  });
}

export function useRunResults(id: number | null, mode: EvaluationMode | null, enabled = true) {
  return useQuery({
    queryKey: qualityKeys.results(id ?? -1, mode ?? undefined),
    queryFn: ({ signal }) => fetchRunResults(id as number, mode, signal),
    enabled: enabled && id !== null,
  });
}

export function useRunComparison(base: number | null, head: number | null) {
  return useQuery({
    queryKey: qualityKeys.compare(base ?? -1, head ?? -1),
    queryFn: ({ signal }) => fetchComparison(base as number, head as number, signal),
    enabled: base !== null && head !== null && base !== head,
  });
}

/** A started run shows at once in its set's list (pending, with its job), then is followed. */
export function useStartRun() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: startRun,
    onSuccess: (run) => {
      queryClient.setQueryData<EvaluationRun[]>(qualityKeys.runList(run.set_id), (runs) =>
        runs && !runs.some((r) => r.id === run.id) ? [run, ...runs] : runs,
      );
      void queryClient.invalidateQueries({ queryKey: qualityKeys.runList(run.set_id) });
    },
  });
}

/** A run's job ended: the runs and their details are read again (summaries, status). */
export function useRefreshRuns() {
  const queryClient = useQueryClient();
  return () => void queryClient.invalidateQueries({ queryKey: qualityRunKeys.all });
}
