import {
  normalizeQuery,
  SEARCH_HISTORY_RESULT_IDS,
  SEARCH_HISTORY_SUMMARY_ROWS,
  type SearchHistoryPage,
  type SearchHistoryQuery,
  type SearchHistoryQueryStats,
  type SearchHistoryRerank,
  type SearchHistorySummary,
  type SearchHistorySummaryQuery,
  type SearchMode,
  type QualitySettings,
} from '@adam/contracts';
import { NotFound } from '../lib/errors.js';
import type { Logger } from '../logging.js';
import type {
  QueryGroupRow,
  SearchHistoryRecord,
  SearchHistoryRepository,
} from '../store/search-history.repository.js';

/** Buffered searches are written this often: a crash loses at most this much history. */
const SEARCH_HISTORY_FLUSH_MS = 1000;
/** A buffer this full is written at once (after the answer, never on the request's path). */
const SEARCH_HISTORY_FLUSH_AT = 500;
/**
 * Searches held while the store cannot take them (busy, full disk): past this the oldest are
 * dropped and counted, so a lagging store never grows the server's memory without bound.
 */
const SEARCH_HISTORY_BUFFER_MAX = 20_000;
/** Rows the retention prune deletes per statement: each write stays short. */
const SEARCH_HISTORY_PRUNE_BATCH = 5000;

/** What a search answered, as far as the history needs it. */
export interface SearchAnswer {
  mode: SearchMode;
  latency_ms: number;
  results: ReadonlyArray<{
    id: number;
    score: number;
    similarity: number;
    keyword_score: number | null;
  }>;
  rerank?: SearchHistoryRerank | null;
}

export interface SearchAsked {
  query: string;
  k: number;
  filters?: Record<string, unknown> | null;
  history?: boolean;
}

/**
 * Records searches (issue 27) and answers the history's listings. A search only appends to an
 * in-memory buffer; a short timer writes the buffer in one transaction.
 */
export class SearchHistoryService {
  private buffer: SearchHistoryRecord[] = [];
  private timer: NodeJS.Timeout | null = null;
  private flushQueued = false;
  private droppedCount = 0;
  /** Read once and again on settingsChanged(): a search does not read the settings table. */
  private enabled: boolean | null = null;

  constructor(
    private readonly deps: {
      history: SearchHistoryRepository;
      settings: () => QualitySettings;
      log: Pick<Logger, 'error' | 'warn'>;
      now?: () => number;
    },
  ) {}

  private now(): number {
    return (this.deps.now ?? Date.now)();
  }

  start(): void {
    if (this.timer) return;
    this.timer = setInterval(() => this.flush(), SEARCH_HISTORY_FLUSH_MS);
    this.timer.unref();
  }

  /** Stops the timer and writes what is buffered (at shutdown, before a restore). */
  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    this.flush();
  }

  /** The quality settings were saved (or the store restored): read the switch again. */
  settingsChanged(): void {
    this.enabled = null;
  }

  get dropped(): number {
    return this.droppedCount;
  }

  get pending(): number {
    return this.buffer.length;
  }

  /**
   * Buffers one search; a few object copies, no I/O. Not recorded when the setting is off or
   * the request said `history: false`.
   */
  record(asked: SearchAsked, answer: SearchAnswer, userId: number | null): void {
    if (asked.history === false) return;
    this.enabled ??= this.deps.settings().search_history_enabled;
    if (!this.enabled) return;
    const results = answer.results;
    let bestSimilarity: number | null = null;
    let keywordMatches = 0;
    const ids: number[] = [];
    for (const r of results) {
      if (bestSimilarity === null || r.similarity > bestSimilarity) bestSimilarity = r.similarity;
      if (r.keyword_score !== null) keywordMatches++;
      if (ids.length < SEARCH_HISTORY_RESULT_IDS) ids.push(r.id);
    }
    const filters = asked.filters && Object.keys(asked.filters).length ? asked.filters : null;
    this.buffer.push({
      at: new Date(this.now()).toISOString(),
      user_id: userId,
      query: asked.query,
      query_norm: normalizeQuery(asked.query),
      mode: answer.mode,
      filters,
      k: asked.k,
      result_count: results.length,
      top_score: results[0]?.score ?? null,
      best_similarity: bestSimilarity,
      keyword_matches: keywordMatches,
      result_ids: ids,
      latency_ms: answer.latency_ms,
      rerank: answer.rerank ?? null,
    });
    if (this.buffer.length > SEARCH_HISTORY_BUFFER_MAX) {
      const over = this.buffer.length - SEARCH_HISTORY_BUFFER_MAX;
      this.buffer.splice(0, over);
      this.droppedCount += over;
    }
    if (this.buffer.length >= SEARCH_HISTORY_FLUSH_AT && !this.flushQueued) {
      this.flushQueued = true;
      setImmediate(() => this.flush());
    }
  }

  /** Writes the buffer in one transaction; on failure keeps it for the next round. */
  flush(): void {
    this.flushQueued = false;
    if (this.buffer.length === 0) return;
    const batch = this.buffer;
    this.buffer = [];
    try {
      this.deps.history.insertMany(batch);
    } catch (e) {
      // A row the store refuses would fail every retry: that batch is dropped, counted.
      if (String((e as { code?: unknown }).code).startsWith('SQLITE_CONSTRAINT')) {
        this.droppedCount += batch.length;
        this.deps.log.error(
          { component: 'search-history', err: e, dropped: batch.length },
          'The store refused recorded searches; they are dropped',
        );
        return;
      }
      // Busy or full: put back before what came since; the cap drops the oldest if the store
      // stays behind.
      this.buffer = batch.concat(this.buffer);
      if (this.buffer.length > SEARCH_HISTORY_BUFFER_MAX) {
        const over = this.buffer.length - SEARCH_HISTORY_BUFFER_MAX;
        this.buffer.splice(0, over);
        this.droppedCount += over;
      }
      this.deps.log.warn(
        { component: 'search-history', err: e, pending: this.buffer.length },
        'Writing the search history failed; kept for the next round',
      );
    }
  }

  list(q: SearchHistoryQuery): SearchHistoryPage {
    const beforeId = q.cursor === undefined ? null : Number(q.cursor);
    const rows = this.deps.history.listPage(q, beforeId);
    const entries = rows.slice(0, q.limit);
    const more = rows.length > q.limit;
    return {
      entries,
      next_cursor: more ? String(entries[entries.length - 1]!.id) : null,
    };
  }

  summary(q: SearchHistorySummaryQuery): SearchHistorySummary {
    const since = new Date(this.now() - q.days * 86400_000).toISOString();
    const rows = SEARCH_HISTORY_SUMMARY_ROWS;
    const settings = this.deps.settings();
    const withP95 = (g: QueryGroupRow): SearchHistoryQueryStats => ({
      normalized: g.normalized,
      query: g.query,
      mode: g.mode,
      count: g.count,
      avg_latency_ms: g.avg_latency_ms,
      p95_latency_ms: percentile95(this.deps.history.latencies(g.normalized, since)),
      avg_results: g.avg_results,
      last_at: g.last_at,
    });
    return {
      days: q.days,
      since,
      ...this.deps.history.count(since),
      top_queries: this.deps.history.topQueries(since, 'all', rows).map(withP95),
      slowest: this.deps.history.slowest(since, rows),
      found_nothing: this.deps.history.topQueries(since, 'empty', rows).map(withP95),
      weak_matches: this.deps.history.topQueries(since, 'weak', rows).map(withP95),
      recording: {
        enabled: settings.search_history_enabled,
        retention_days: settings.search_history_retention_days,
        dropped: this.droppedCount,
      },
    };
  }

  delete(id: number): { deleted: number } {
    if (!this.deps.history.deleteById(id)) throw new NotFound('search history entry', id);
    return { deleted: 1 };
  }

  /** Everything, the buffered searches too. */
  clear(): { deleted: number } {
    this.buffer = [];
    return { deleted: this.deps.history.deleteAll() };
  }

  /**
   * Deletes the rows past the retention setting, batch by batch, letting the event loop run
   * between batches (searches go on while a large backlog is pruned); answers how many.
   */
  async prune(): Promise<number> {
    const days = this.deps.settings().search_history_retention_days;
    const cutoff = new Date(this.now() - days * 86400_000).toISOString();
    let total = 0;
    for (;;) {
      const n = this.deps.history.deleteOlderThan(cutoff, SEARCH_HISTORY_PRUNE_BATCH);
      total += n;
      if (n < SEARCH_HISTORY_PRUNE_BATCH) return total;
      await new Promise((resolve) => setImmediate(resolve));
    }
  }
}

/** Nearest rank: the smallest value with at least 95 % of the values at or below it. */
function percentile95(sorted: readonly number[]): number {
  if (sorted.length === 0) return 0;
  return sorted[Math.ceil(0.95 * sorted.length) - 1]!;
}
