import fs from 'node:fs';
import path from 'node:path';
import usearch from 'usearch';
import type { IndexStats } from '@adam/contracts';
import type { Embedder } from '../embedding/embedder.js';
import type { Logger } from '../logging.js';
import type { EventBus } from '../realtime/event-bus.js';
import type { SnippetRepository } from '../store/snippet.repository.js';
import { writeFileAtomic } from '../vector/atomic-file.js';
import { VectorIndex, type VectorHit } from '../vector/vector-index.js';

const CACHE_SIZE = 256;
const LATENCY_WINDOW = 500;
const ACCURACY_SAMPLE = 100;
const ACCURACY_MAX_AGE_MS = 5 * 60_000;
const REINDEX_BATCH = 256;
const SAVE_DELAY_MS = 1000;

export interface ReconcileReport {
  total_disk: number;
  total_index: number;
  /** Rows said to be indexed whose vector was missing: put back to pending. */
  marked_pending: number;
  /** Pending rows whose vectors are now in the index. */
  reindexed: number;
  /** Vectors with no row. */
  index_only: number;
}

export const vectorToBlob = (v: Float32Array): Buffer =>
  Buffer.from(v.buffer, v.byteOffset, v.byteLength);
export const blobToVector = (b: Buffer): Float32Array =>
  new Float32Array(b.buffer.slice(b.byteOffset, b.byteOffset + b.byteLength));

/**
 * The vector index and what is measured about it. The vector key of a snippet is its id; the
 * row keeps its embedding, so re-indexing a row never needs the model unless the embedder
 * changed. Saved after each batch: a crash loses at most one batch, which start-up
 * reconciliation puts back from the rows.
 */
export class IndexService {
  private index: VectorIndex;
  private readonly cache = new Map<string, VectorHit[]>();
  private unmarked: number[] = [];
  private saveTimer: NodeJS.Timeout | null = null;
  private hits = 0;
  private misses = 0;
  private readonly latencies: number[] = [];
  private queries = 0;
  private accuracy: { value: number; sample: number; at: number; size: number } | null = null;
  private state: { last_optimized: string | null };
  private readonly stateFile: string;

  constructor(
    private readonly deps: {
      dir: string;
      snippets: SnippetRepository;
      embedder: Embedder;
      log: Logger;
      bus: EventBus;
    },
  ) {
    const { index, reset } = VectorIndex.open(deps.dir, deps.embedder.dimension);
    this.index = index;
    this.stateFile = path.join(deps.dir, 'state.json');
    this.state = readState(this.stateFile);
    if (reset) {
      deps.log.warn(
        { component: 'index' },
        `Vector index will be rebuilt from the store: ${reset}`,
      );
      const n = deps.snippets.markAllPending();
      this.index.clear();
      this.index.save();
      deps.log.info({ component: 'index' }, `${n} snippets queued for re-indexing`);
    }
  }

  get dimension(): number {
    return this.index.dimension;
  }

  get size(): number {
    return this.index.size;
  }

  has(key: number): boolean {
    return this.index.has(key);
  }

  keys(): number[] {
    return this.index.keys();
  }

  private changed(): void {
    this.cache.clear();
  }

  /**
   * Adds vectors now (searchable at once); the save, and the rows' indexed mark, follow within
   * SAVE_DELAY_MS or at the next flush. A save rewrites the whole index (hundreds of ms at 100k
   * vectors), so ingestion batches them; a crash before the save leaves the rows pending, and
   * start-up reconciliation adds them back from their stored embeddings.
   */
  addDeferred(entries: ReadonlyArray<{ key: number; vector: Float32Array }>): void {
    if (entries.length === 0) return;
    this.index.add(entries);
    for (const e of entries) this.unmarked.push(e.key);
    this.changed();
    this.saveTimer ??= setTimeout(() => this.flush(), SAVE_DELAY_MS);
    this.saveTimer.unref();
  }

  /** Saves what changed and marks the rows added since the last save as indexed. */
  flush(): void {
    if (this.saveTimer) clearTimeout(this.saveTimer);
    this.saveTimer = null;
    if (this.index.isDirty) this.index.save();
    if (this.unmarked.length) {
      const keys = this.unmarked.filter((k) => this.index.has(k));
      this.unmarked = [];
      this.deps.snippets.markIndexed(keys, new Date().toISOString());
    }
  }

  /** Adds the vectors, saves the index, then marks the rows indexed. */
  addAndSave(entries: ReadonlyArray<{ key: number; vector: Float32Array }>): void {
    if (entries.length === 0) return;
    this.index.add(entries);
    for (const e of entries) this.unmarked.push(e.key);
    this.changed();
    this.flush();
  }

  /** Removes vectors and saves; answers the keys that were in the index. */
  removeAndSave(keys: readonly number[]): number[] {
    const removed = this.index.remove(keys);
    if (removed.length) {
      this.changed();
      this.flush();
    }
    return removed;
  }

  saveIfDirty(): void {
    this.flush();
  }

  search(
    vector: Float32Array,
    k: number,
    cacheKey: string,
    filter?: (key: number) => boolean,
  ): {
    hits: VectorHit[];
    latencyMs: number;
    cached: boolean;
  } {
    const started = performance.now();
    const key = `${k}\u0000${cacheKey}`;
    let hits = this.cache.get(key);
    const cached = hits !== undefined;
    if (hits) {
      this.hits++;
      // Refresh its place: the map's order is the LRU order.
      this.cache.delete(key);
      this.cache.set(key, hits);
    } else {
      this.misses++;
      hits = this.index.search(vector, k, filter);
      this.cache.set(key, hits);
      if (this.cache.size > CACHE_SIZE) this.cache.delete(this.cache.keys().next().value!);
    }
    const latencyMs = performance.now() - started;
    this.queries++;
    this.latencies.push(latencyMs);
    if (this.latencies.length > LATENCY_WINDOW) this.latencies.shift();
    return { hits, latencyMs, cached };
  }

  /** Records the full latency of a search (embedding included), for the stats. */
  recordLatency(ms: number): void {
    if (this.latencies.length) this.latencies[this.latencies.length - 1] = ms;
  }

  /**
   * Makes the index agree with the store: rows marked indexed whose vector is missing go back
   * to pending, and every pending row is indexed from its stored embedding (re-embedded when it
   * has none or it came from another embedder). Vectors without a row are reported, not removed.
   */
  async reconcile(): Promise<ReconcileReport> {
    const state = this.deps.snippets.indexState();
    const rowIds = new Set<number>();
    const lost: number[] = [];
    for (const r of state) {
      rowIds.add(r.id);
      if (!r.index_pending && !this.index.has(r.id)) lost.push(r.id);
    }
    if (lost.length) {
      this.deps.snippets.markPending(lost);
      this.deps.log.warn(
        { component: 'index' },
        `${lost.length} snippets were marked indexed but missing from the index: re-indexing them`,
      );
    }
    let reindexed = 0;
    for (;;) {
      const ids = this.deps.snippets.pendingIds(REINDEX_BATCH);
      if (ids.length === 0) break;
      reindexed += await this.indexRows(ids);
    }
    const indexOnly = this.index.keys().filter((k) => !rowIds.has(k)).length;
    if (indexOnly) {
      this.deps.log.warn(
        { component: 'index' },
        `${indexOnly} vectors in the index have no snippet (index_only)`,
      );
    }
    return {
      total_disk: state.length,
      total_index: this.index.size,
      marked_pending: lost.length,
      reindexed,
      index_only: indexOnly,
    };
  }

  /** Indexes these rows from their stored embeddings, embedding the ones that need it. */
  async indexRows(ids: readonly number[]): Promise<number> {
    return (await this.indexBatch(ids, false)).indexed;
  }

  /**
   * Adds rows to the index: from their stored embeddings when those came from the active
   * embedder (and `reembed` is off), else embedded now and stored on the rows.
   */
  private async indexBatch(
    ids: readonly number[],
    reembed: boolean,
  ): Promise<{ indexed: number; reembedded: number }> {
    const rows = this.deps.snippets.findByIds(ids);
    const stored = reembed ? null : this.deps.snippets.embeddings(ids);
    const entries: { key: number; vector: Float32Array }[] = [];
    const toEmbed: { id: number; text: string }[] = [];
    for (const r of rows) {
      const e = stored?.get(r.id);
      if (
        e?.embedding &&
        e.embedder_id === this.deps.embedder.id &&
        e.embedding.byteLength === this.dimension * 4
      ) {
        entries.push({ key: r.id, vector: blobToVector(e.embedding) });
      } else {
        toEmbed.push({ id: r.id, text: r.text });
      }
    }
    if (toEmbed.length) {
      const vectors = await this.deps.embedder.embed(toEmbed.map((t) => t.text));
      this.deps.snippets.setEmbeddings(
        toEmbed.map((t, i) => ({
          id: t.id,
          embedding: vectorToBlob(vectors[i]!),
          embedder_id: this.deps.embedder.id,
        })),
      );
      toEmbed.forEach((t, i) => entries.push({ key: t.id, vector: vectors[i]! }));
    }
    this.addAndSave(entries);
    return { indexed: entries.length, reembedded: toEmbed.length };
  }

  /** Empties the index and marks every row pending (the next reconcile rebuilds it). */
  clearAll(): number {
    this.index.clear();
    this.index.save();
    this.changed();
    return this.deps.snippets.markAllPending();
  }

  /** Re-opens the index from its directory (after a restore swapped its files in). */
  reload(): void {
    // What the replaced index had not saved yet is dropped, not saved over the new files.
    if (this.saveTimer) clearTimeout(this.saveTimer);
    this.saveTimer = null;
    this.unmarked = [];
    const { index, reset } = VectorIndex.open(this.deps.dir, this.deps.embedder.dimension);
    this.index = index;
    this.state = readState(this.stateFile);
    this.cache.clear();
    this.accuracy = null;
    if (reset) {
      this.deps.log.warn(
        { component: 'index' },
        `Vector index will be rebuilt from the store: ${reset}`,
      );
      const n = this.deps.snippets.markAllPending();
      this.index.clear();
      this.index.save();
      this.deps.log.info({ component: 'index' }, `${n} snippets queued for re-indexing`);
    }
  }

  /**
   * Empties the index and adds every row again, in batches of 256, re-embedding them all with
   * the active embedder when `reembed` (the new vectors are stored on the rows). Stopping early
   * leaves the remaining rows pending: reconcile (or a relaunch) finishes them.
   */
  async rebuild(opts: {
    reembed: boolean;
    onProgress?: (done: number, total: number) => void;
    shouldStop?: () => boolean;
  }): Promise<{ total: number; indexed: number; reembedded: number }> {
    const total = this.clearAll();
    this.accuracy = null;
    let indexed = 0;
    let reembedded = 0;
    while (!opts.shouldStop?.()) {
      const ids = this.deps.snippets.pendingIds(REINDEX_BATCH);
      if (ids.length === 0) break;
      const batch = await this.indexBatch(ids, opts.reembed);
      // Guard: a batch that indexes nothing would find the same pending ids again.
      if (batch.indexed === 0) break;
      indexed += batch.indexed;
      reembedded += batch.reembedded;
      opts.onProgress?.(indexed, Math.max(total, indexed));
    }
    return { total, indexed, reembedded };
  }

  markOptimized(): void {
    this.state.last_optimized = new Date().toISOString();
    writeFileAtomic(this.stateFile, JSON.stringify(this.state));
  }

  /**
   * recall@10 of HNSW against exact search, on up to 100 of the indexed vectors used as
   * queries. Measured again when the index changed size and the last measure is 5 minutes old.
   */
  measureAccuracy(force = false): { value: number; sample: number } | null {
    const n = this.index.size;
    if (n === 0) return null;
    const fresh = this.accuracy && Date.now() - this.accuracy.at < ACCURACY_MAX_AGE_MS;
    if (!force && this.accuracy && (fresh || this.accuracy.size === n)) return this.accuracy;
    const keys = this.index.keys();
    const stored = this.deps.snippets.embeddings(keys);
    const ids: number[] = [];
    const flat = new Float32Array(keys.length * this.dimension);
    for (const k of keys) {
      const e = stored.get(k)?.embedding;
      if (!e || e.byteLength !== this.dimension * 4) continue;
      flat.set(blobToVector(e), ids.length * this.dimension);
      ids.push(k);
    }
    if (ids.length === 0) return null;
    const dataset = flat.subarray(0, ids.length * this.dimension);
    const k = Math.min(10, ids.length);
    const step = Math.max(1, Math.floor(ids.length / ACCURACY_SAMPLE));
    let found = 0;
    let wanted = 0;
    let sample = 0;
    for (let i = 0; i < ids.length && sample < ACCURACY_SAMPLE; i += step, sample++) {
      const q = dataset.subarray(i * this.dimension, (i + 1) * this.dimension);
      const exact = usearch.exactSearch(dataset, q, this.dimension, k, usearch.MetricKind.Cos) as {
        keys: BigUint64Array;
      };
      const truth = new Set(Array.from(exact.keys, (row) => ids[Number(row)]));
      const approx = this.index.search(q, k);
      for (const h of approx) if (truth.has(h.key)) found++;
      wanted += truth.size;
    }
    this.accuracy = { value: wanted ? found / wanted : 1, sample, at: Date.now(), size: n };
    return this.accuracy;
  }

  stats(): IndexStats {
    const acc = this.measureAccuracy();
    const avg = this.latencies.length
      ? this.latencies.reduce((a, b) => a + b, 0) / this.latencies.length
      : 0;
    const lookups = this.hits + this.misses;
    return {
      total_vectors: this.index.size,
      index_size_mb: round(this.index.diskBytes() / 1048576, 3),
      index_type: 'HNSW (usearch, cosine, M=16)',
      dimension: this.dimension,
      is_trained: true,
      training_samples: this.index.size,
      themes: this.deps.snippets.themeCounts(),
      last_optimized: this.state.last_optimized,
      query_performance: { avg_latency_ms: round(avg, 3), queries: this.queries },
      cache_stats: {
        hit_rate: lookups ? round(this.hits / lookups, 4) : 0,
        hits: this.hits,
        misses: this.misses,
        size: this.cache.size,
      },
      accuracy: acc ? round(acc.value, 4) : null,
      accuracy_sample: acc?.sample ?? 0,
      embedder: this.deps.embedder.id,
    };
  }

  diskBytes(): number {
    return this.index.diskBytes();
  }

  /** Query-cache hit rate (0–1), null before the first search. */
  cacheHitRate(): number | null {
    const lookups = this.hits + this.misses;
    return lookups ? this.hits / lookups : null;
  }

  get lastSavedAt(): string | null {
    return this.index.lastSavedAt;
  }
}

function readState(file: string): { last_optimized: string | null } {
  try {
    const s = JSON.parse(fs.readFileSync(file, 'utf8')) as { last_optimized?: string };
    return { last_optimized: s.last_optimized ?? null };
  } catch {
    return { last_optimized: null };
  }
}

const round = (n: number, d: number) => Math.round(n * 10 ** d) / 10 ** d;
