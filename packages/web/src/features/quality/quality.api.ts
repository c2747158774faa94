/**
 * Fetchers, query keys and hooks of the evaluation sets (issue 27: Index → Quality): sets, their
 * versions, queries with judgments, and the BEIR import. The runs' hooks live beside this module
 * in quality-runs.api.ts, under the same key root.
 */
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import type {
  BeirImportSummary,
  CreateEvaluationSet,
  EvaluationQueryInput,
  EvaluationMode,
  EvaluationRun,
  EvaluationSet,
  EvaluationSetList,
  EvaluationSetVersion,
  EvaluationVersionList,
  Judgment,
  JudgmentInput,
  UpdateEvaluationSet,
} from '@adam/contracts';
import { api } from '../../api/client';

export const qualityKeys = {
  all: ['quality'] as const,
  sets: ['quality', 'sets'] as const,
  /** A set's latest version with its queries. */
  set: (id: number) => ['quality', 'sets', id] as const,
  versions: (id: number) => ['quality', 'sets', id, 'versions'] as const,
  version: (id: number, number: number) => ['quality', 'sets', id, 'versions', number] as const,
  runs: ['quality', 'runs'] as const,
  runList: (setId: number) => ['quality', 'runs', 'list', setId] as const,
  run: (id: number) => ['quality', 'runs', 'detail', id] as const,
  results: (id: number, mode?: EvaluationMode) =>
    ['quality', 'runs', 'results', id, mode ?? 'all'] as const,
  compare: (base: number, head: number) => ['quality', 'runs', 'compare', base, head] as const,
};

/**
 * The set as listed, with the `watched` flag of continuous runs when the server has it (an
 * older server's sets lack it: the switch is then not offered).
 */
export type QualitySet = EvaluationSet & { watched?: boolean };
export type SetChange = UpdateEvaluationSet & { watched?: boolean };

// ---------------------------------------------------------------------------------------------
// Fetchers: silent, the screen shows each failure where it happened.

export function fetchEvaluationSets(signal?: AbortSignal): Promise<EvaluationSetList> {
  return api.get<EvaluationSetList>('/evaluation/sets', { signal, silent: true });
}

export function fetchEvaluationSet(
  id: number,
  signal?: AbortSignal,
): Promise<EvaluationSetVersion> {
  return api.get<EvaluationSetVersion>(`/evaluation/sets/${id}`, { signal, silent: true });
}

export function fetchSetVersions(id: number, signal?: AbortSignal): Promise<EvaluationVersionList> {
  return api.get<EvaluationVersionList>(`/evaluation/sets/${id}/versions`, {
    signal,
    silent: true,
  });
}

export function fetchSetVersion(
  id: number,
  number: number,
  signal?: AbortSignal,
): Promise<EvaluationSetVersion> {
  return api.get<EvaluationSetVersion>(`/evaluation/sets/${id}/versions/${number}`, {
    signal,
    silent: true,
  });
}

export function fetchEvaluationRun(id: number, signal?: AbortSignal): Promise<EvaluationRun> {
  return api.get<EvaluationRun>(`/evaluation/runs/${id}`, { signal, silent: true });
}

export function createEvaluationSet(body: CreateEvaluationSet): Promise<QualitySet> {
  return api.post<QualitySet>('/evaluation/sets', body, { silent: true });
}

export function updateEvaluationSet(id: number, change: SetChange): Promise<QualitySet> {
  return api.patch<QualitySet>(`/evaluation/sets/${id}`, change, { silent: true });
}

export function deleteEvaluationSet(id: number): Promise<null> {
  return api.delete<null>(`/evaluation/sets/${id}`, undefined, { silent: true });
}

export function addEvaluationQuery(
  id: number,
  body: EvaluationQueryInput,
): Promise<EvaluationSetVersion> {
  return api.post<EvaluationSetVersion>(`/evaluation/sets/${id}/queries`, body, { silent: true });
}

export function replaceJudgments(
  id: number,
  key: number,
  judgments: JudgmentInput[],
): Promise<EvaluationSetVersion> {
  return api.put<EvaluationSetVersion>(
    `/evaluation/sets/${id}/queries/${key}/judgments`,
    { judgments },
    { silent: true },
  );
}

export function removeEvaluationQuery(id: number, key: number): Promise<EvaluationSetVersion> {
  return api.delete<EvaluationSetVersion>(`/evaluation/sets/${id}/queries/${key}`, undefined, {
    silent: true,
  });
}

export interface BeirUpload {
  name: string;
  description: string;
  queries: File;
  qrels: File[];
  corpus: File | null;
  importCorpus: boolean;
}

/**
 * The multipart body of POST /evaluation/sets/import. The server tells the files apart by name
 * (queries.jsonl, *.tsv, corpus.jsonl), so each input's file is sent under the name its input
 * stands for, whatever the operator's copy is called.
 */
export function buildBeirForm(upload: BeirUpload): FormData {
  const form = new FormData();
  form.append('name', upload.name.trim());
  if (upload.description.trim()) form.append('description', upload.description.trim());
  if (upload.corpus && upload.importCorpus) form.append('import_corpus', 'true');
  form.append('file', upload.queries, 'queries.jsonl');
  upload.qrels.forEach((file, i) => {
    const name = file.name.toLowerCase().endsWith('.tsv') ? file.name : `qrels-${i + 1}.tsv`;
    form.append('file', file, `qrels/${name}`);
  });
  if (upload.corpus) form.append('file', upload.corpus, 'corpus.jsonl');
  return form;
}

export function importBeir(upload: BeirUpload): Promise<BeirImportSummary> {
  return api.post<BeirImportSummary>('/evaluation/sets/import', buildBeirForm(upload), {
    silent: true,
  });
}

/** A judgment as shown (kind and ref) back to what the API takes. */
export function judgmentInput(judgment: Judgment): JudgmentInput {
  switch (judgment.kind) {
    case 'snippet':
      return { snippet_id: Number(judgment.ref), grade: judgment.grade };
    case 'source':
      return { source_id: Number(judgment.ref), grade: judgment.grade };
    case 'source_url':
      return { source_url: judgment.ref, grade: judgment.grade };
    case 'source_title':
      return { source_title: judgment.ref, grade: judgment.grade };
  }
}

// ---------------------------------------------------------------------------------------------
// Hooks

export function useEvaluationSets() {
  return useQuery({
    queryKey: qualityKeys.sets,
    queryFn: ({ signal }) => fetchEvaluationSets(signal),
  });
}

/** A set's latest version with its queries. */
export function useEvaluationSet(id: number | null) {
  return useQuery({
    queryKey: qualityKeys.set(id ?? -1),
    queryFn: ({ signal }) => fetchEvaluationSet(id!, signal),
    enabled: id !== null,
  });
}

export function useSetVersions(id: number | null) {
  return useQuery({
    queryKey: qualityKeys.versions(id ?? -1),
    queryFn: ({ signal }) => fetchSetVersions(id!, signal),
    enabled: id !== null,
  });
}

/** An older version, read-only; versions never change once written, so they stay cached. */
export function useSetVersion(id: number | null, number: number | null) {
  return useQuery({
    queryKey: qualityKeys.version(id ?? -1, number ?? -1),
    queryFn: ({ signal }) => fetchSetVersion(id!, number!, signal),
    enabled: id !== null && number !== null,
    staleTime: Infinity,
  });
}

/** The set a run belongs to, for a link that names only the run (?run=N). */
export function useRunSetId(runId: number | null) {
  return useQuery({
    queryKey: qualityKeys.run(runId ?? -1),
    queryFn: ({ signal }) => fetchEvaluationRun(runId!, signal),
    enabled: runId !== null,
    select: (run) => run.set_id,
  });
}

/** Every set change refetches the set list (counts, versions, dates) and the set's parts. */
function useSetMutation<A, R>(call: (args: A) => Promise<R>, setIdOf?: (args: A) => number) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: call,
    onSuccess: (answer, args) => {
      // An answer holding a new version is the set's latest: shown at once, no refetch.
      if (setIdOf && answer && typeof answer === 'object' && 'version' in answer) {
        queryClient.setQueryData(qualityKeys.set(setIdOf(args)), answer);
      }
    },
    onSettled: (_answer, _error, args) => {
      void queryClient.invalidateQueries({ queryKey: qualityKeys.sets, exact: true });
      if (setIdOf) void queryClient.invalidateQueries({ queryKey: qualityKeys.set(setIdOf(args)) });
    },
  });
}

export const useCreateSet = () => useSetMutation(createEvaluationSet);
export const useUpdateSet = () =>
  useSetMutation(
    ({ id, change }: { id: number; change: SetChange }) => updateEvaluationSet(id, change),
    ({ id }) => id,
  );
export function useDeleteSet() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: deleteEvaluationSet,
    onSuccess: (_answer, id) => {
      queryClient.removeQueries({ queryKey: qualityKeys.set(id) });
      void queryClient.invalidateQueries({ queryKey: qualityKeys.sets, exact: true });
    },
  });
}
export const useAddQuery = () =>
  useSetMutation(
    ({ setId, query }: { setId: number; query: EvaluationQueryInput }) =>
      addEvaluationQuery(setId, query),
    ({ setId }) => setId,
  );
export const useReplaceJudgments = () =>
  useSetMutation(
    ({ setId, key, judgments }: { setId: number; key: number; judgments: JudgmentInput[] }) =>
      replaceJudgments(setId, key, judgments),
    ({ setId }) => setId,
  );
export const useRemoveQuery = () =>
  useSetMutation(
    ({ setId, key }: { setId: number; key: number }) => removeEvaluationQuery(setId, key),
    ({ setId }) => setId,
  );
export const useBeirImport = () => useSetMutation(importBeir);
