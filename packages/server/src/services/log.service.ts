import {
  LOG_TAIL_MAX,
  type HistoryRange,
  type LogsQuery,
  type LogsResponse,
} from '@adam/contracts';
import type { z } from 'zod';
import type { LogRepository } from '../store/log.repository.js';

/** How far back each range of the logs screen reaches from now. */
const LOG_RANGE_MS: Record<HistoryRange, number> = {
  '1h': 3600_000,
  '24h': 24 * 3600_000,
  '7d': 7 * 24 * 3600_000,
};

/**
 * The logs screen's list (GET /admin/logs): the stored lines of the range, newest first,
 * duplicates (same timestamp and message) dropped, filtered by level and a search term, a page
 * at a time. Only the newest LOG_TAIL_MAX matching lines are ever considered, so a deep page
 * costs at most that many rows read; `tail` narrows what a page shows to the newest `tail` of
 * them. `has_more` does not stop at `tail`: the console sends tail = page_size × page, so the
 * next page is asked with a larger one.
 */
export class LogService {
  constructor(
    private readonly deps: {
      logs: Pick<LogRepository, 'listPage'>;
      now?: () => number;
    },
  ) {}

  list(query: z.output<typeof LogsQuery>): LogsResponse {
    const { page, page_size: pageSize } = query;
    const offset = (page - 1) * pageSize;
    const empty = { logs: [], page, page_size: pageSize, has_more: false };
    if (offset >= LOG_TAIL_MAX) return empty;
    const now = (this.deps.now ?? Date.now)();
    // One line past the page says whether a next one exists.
    const rows = this.deps.logs.listPage(
      {
        since: new Date(now - LOG_RANGE_MS[query.range]).toISOString(),
        level: query.level === 'all' ? null : query.level,
        q: query.q,
      },
      offset,
      Math.min(pageSize + 1, LOG_TAIL_MAX - offset),
    );
    const shown = Math.max(0, Math.min(pageSize, (query.tail ?? LOG_TAIL_MAX) - offset));
    return {
      logs: rows.slice(0, shown),
      page,
      page_size: pageSize,
      has_more: rows.length > pageSize,
    };
  }
}
