import type { IndexStats, IndexStorage } from '@adam/contracts';
import { RateWindow } from '../../lib/rate-window.js';
import type { Logger } from '../../logging.js';
import type { SnippetRepository } from '../../store/snippet.repository.js';
import { exactNeighboursOffThread, recallAgainst } from '../../vector/recall.js';
import { round } from '../../lib/round.js';

const LATENCY_WINDOW = 500;
const ACCURACY_SAMPLE = 100;
const ACCURACY_MAX_AGE_MS = 5 * 60_000;
const ACCURACY_WAIT_MS = 15_000;

/** What the live index tells its meter about each search. */
export interface SearchMeter {
  /** A search looked in the query cache: found there or not. */
  lookup(cached: boolean): void;
  /** A search was answered, in this time. */
  answered(latencyMs: number): void;
}

/**
 * The searches' figures: cache hits and misses, the latencies of the last LATENCY_WINDOW
 * searches, and the rate over the last minute.
 */
export class SearchCounts implements SearchMeter {
  hits = 0;
  misses = 0;
  queries = 0;
  private readonly latencies: number[] = [];
  /** Every search answered (cached ones included), for the database panel and the header. */
  private readonly rate = new RateWindow(60);

  lookup(cached: boolean): void {
    if (cached) this.hits++;
    else this.misses++;
  }

  answered(latencyMs: number): void {
    this.queries++;
    this.rate.add();
    this.latencies.push(latencyMs);
    if (this.latencies.length > LATENCY_WINDOW) this.latencies.shift();
  }

  /** Replaces the last search's latency with the full one (embedding included). */
  recordLatency(ms: number): void {
    if (this.latencies.length) this.latencies[this.latencies.length - 1] = ms;
  }

  perSecond(): number {
    return this.rate.perSecond();
  }

  averageLatency(): number {
    return this.latencies.length
      ? this.latencies.reduce((a, b) => a + b, 0) / this.latencies.length
      : 0;
  }

  /** Query-cache hit rate (0–1), null before the first search. */
  hitRate(): number | null {
    const lookups = this.hits + this.misses;
    return lookups ? this.hits / lookups : null;
  }
}

/** What the figures read of the live index. */
export interface MeasuredIndex {
  readonly ready: Promise<void>;
  readonly size: number;
  readonly dimension: number;
  readonly storage: IndexStorage;
  readonly indexType: string;
  readonly lastOptimized: string | null;
  readonly cacheSize: number;
  readonly embedderId: string;
  keyArray(): Float64Array;
  /** The open index's own search (no cache, no filter), kept to that index if it is replaced. */
  rawSearch(): (query: Float32Array, k: number) => Promise<Float64Array>;
  diskBytes(): number;
}

/**
 * The index's accuracy (recall@10 against an exact scan) and the stats of the database panel
 * and the metrics: read from the live index and the search counts, never changing either.
 */
export class IndexFigures {
  private accuracy: {
    value: number;
    sample: number;
    at: number;
    size: number;
    storage: IndexStorage;
  } | null = null;
  private measuring: Promise<{ value: number; sample: number } | null> | null = null;

  constructor(
    private readonly deps: {
      index: MeasuredIndex;
      counts: SearchCounts;
      snippets: Pick<SnippetRepository, 'databaseFile' | 'themeCounts'>;
      log: Logger;
    },
  ) {}

  /** The index was emptied or replaced: the last measure no longer tells about it. */
  forgetAccuracy(): void {
    this.accuracy = null;
  }

  /** Waits for a measure in progress (the index closes after it). */
  async settle(): Promise<void> {
    if (this.measuring) await this.measuring.catch(() => null);
  }

  /**
   * recall@10 of HNSW against exact search, with up to 100 of the indexed vectors (evenly spread
   * over the keys) as queries. The exact side runs on a one-off thread that reads the vectors
   * from the store; the approximate side on the index's thread. Measured again when the index
   * changed size and the last measure is 5 minutes old; one measure at a time.
   */
  measureAccuracy(force = false): Promise<{ value: number; sample: number } | null> {
    const n = this.deps.index.size;
    if (n === 0) return Promise.resolve(null);
    const a = this.accuracy;
    const fresh = a && Date.now() - a.at < ACCURACY_MAX_AGE_MS;
    if (!force && a && (fresh || a.size === n)) return Promise.resolve(a);
    this.measuring ??= this.measureNow().finally(() => {
      this.measuring = null;
    });
    return this.measuring;
  }

  private async measureNow(): Promise<{ value: number; sample: number } | null> {
    const index = this.deps.index;
    await index.ready;
    const keys = index.keyArray();
    if (keys.length === 0) return null;
    const step = Math.max(1, Math.floor(keys.length / ACCURACY_SAMPLE));
    const sample = new Float64Array(Math.min(ACCURACY_SAMPLE, Math.ceil(keys.length / step)));
    for (let i = 0; i < sample.length; i++) sample[i] = keys[i * step]!;
    const exact = await exactNeighboursOffThread({
      dbFile: this.deps.snippets.databaseFile(),
      keys,
      sample,
      dimension: index.dimension,
      k: Math.min(10, keys.length),
      embedderId: index.embedderId,
    });
    if (exact.queryKeys.length === 0) return null;
    const search = index.rawSearch();
    const r = await recallAgainst(exact, index.dimension, search);
    this.accuracy = { ...r, at: Date.now(), size: keys.length, storage: index.storage };
    return r;
  }

  /**
   * The index's figures. The accuracy is the last measured one; a stale one is measured again
   * in the background (shown by a later call). Before the first measure the call waits for it,
   * up to ACCURACY_WAIT_MS (well under a second at 100k vectors; at 1M the later call shows it).
   */
  async stats(): Promise<IndexStats> {
    const measuring = this.measureAccuracy();
    measuring.catch((e: unknown) =>
      this.deps.log.error({ component: 'index', err: e }, 'Vector index accuracy measure failed'),
    );
    if (!this.accuracy) {
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([
        measuring.catch(() => null),
        new Promise((r) => (timer = setTimeout(r, ACCURACY_WAIT_MS))),
      ]);
      clearTimeout(timer);
    }
    const { index, counts } = this.deps;
    const acc = this.accuracy;
    const lookups = counts.hits + counts.misses;
    return {
      total_vectors: index.size,
      index_size_mb: round(index.diskBytes() / 1048576, 3),
      index_type: index.indexType,
      dimension: index.dimension,
      is_trained: true,
      training_samples: index.size,
      themes: this.deps.snippets.themeCounts(),
      last_optimized: index.lastOptimized,
      query_performance: {
        avg_latency_ms: round(counts.averageLatency(), 3),
        queries: counts.queries,
      },
      cache_stats: {
        hit_rate: lookups ? round(counts.hits / lookups, 4) : 0,
        hits: counts.hits,
        misses: counts.misses,
        size: index.cacheSize,
      },
      accuracy: acc ? round(acc.value, 4) : null,
      accuracy_sample: acc?.sample ?? 0,
      accuracy_measured_at: acc ? new Date(acc.at).toISOString() : null,
      storage: index.storage,
      embedder: index.embedderId,
    };
  }

  /** The last measured recall@10 (0–1); null before a first measure and while the index is empty. */
  get lastAccuracy(): number | null {
    return this.deps.index.size > 0 && this.accuracy ? this.accuracy.value : null;
  }
}
