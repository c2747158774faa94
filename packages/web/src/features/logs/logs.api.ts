/** Fetchers, query keys and hooks of the logs call (spec 001 §7: GET /admin/logs). */
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import type { HistoryRange, LogsResponse } from '@adam/contracts';
import { api } from '../../api/client';
import type { LogLevelFilter } from './logRules';

/** One page of the list as the screen asks for it (the contract's input type is looser). */
export interface LogsParams {
  level: LogLevelFilter;
  range: HistoryRange;
  q: string;
  page: number;
  page_size: number;
}

export const logKeys = {
  all: ['logs'] as const,
  list: (params: LogsParams) => ['logs', 'list', params] as const,
};

/**
 * The query string of one page. `tail` is page_size × page (spec 001 §7): the server considers
 * only as many of the newest matching lines as the pages up to this one hold.
 */
export function logsQuery(params: LogsParams) {
  return { ...params, tail: params.page_size * params.page };
}

/** Silent: the screen shows its own inline failure texts (spec 001 §8). */
export function fetchLogs(params: LogsParams, signal?: AbortSignal): Promise<LogsResponse> {
  return api.get<LogsResponse>('/admin/logs', { query: logsQuery(params), signal, silent: true });
}

/** One page of logs; the previous page stays on screen (dimmed) while the next loads. */
export function useLogs(params: LogsParams) {
  return useQuery({
    queryKey: logKeys.list(params),
    queryFn: ({ signal }) => fetchLogs(params, signal),
    placeholderData: keepPreviousData,
  });
}
