import fs from 'node:fs';
import path from 'node:path';
import {
  DEFAULT_PROCESSING_SETTINGS,
  type ComponentHealth,
  type IndexStats,
  type IndexStorage,
  type ReconcileReport,
} from '@adam/contracts';
import type { Embedder } from '../embedding/embedder.js';
import type { Logger } from '../logging.js';
import type { EventBus } from '../lib/event-bus.js';
import type { SnippetRepository } from '../store/snippet.repository.js';
import { writeFileAtomic } from '../vector/atomic-file.js';
import { IndexClient } from '../vector/index-client.js';
import { listDamaged } from '../vector/index-files.js';
import { KeySet } from '../vector/key-set.js';
import { exactNeighboursOffThread, recallAgainst } from '../vector/recall.js';
import { HNSW, type VectorHit } from '../vector/vector-index.js';

const CACHE_SIZE = 256;
const LATENCY_WINDOW = 500;
const ACCURACY_SAMPLE = 100;
const ACCURACY_MAX_AGE_MS = 5 * 60_000;
const ACCURACY_WAIT_MS = 15_000;
const REINDEX_BATCH = 256;
/**
 * While vectors arrive, the index is saved at most this often (and at every flush: a job's end,
 * a backup, shutdown). A save rewrites the whole file — seconds at 1M vectors — so it is not
 * done per batch; rows stay index_pending until the save holding them is on disk, so a crash
 * in between only leaves rows that start-up reconciliation indexes again.
 */
const SAVE_INTERVAL_MS = 3 * 60_000;

export const vectorToBlob = (v: Float32Array): Buffer =>
  Buffer.from(v.buffer, v.byteOffset, v.byteLength);
export const blobToVector = (b: Buffer): Float32Array =>
  new Float32Array(b.buffer.slice(b.byteOffset, b.byteOffset + b.byteLength));

/**
 * The vector index and what is measured about it. The vector key of a snippet is its id; the
 * row keeps its embedding, so re-indexing a row never needs the model unless the embedder
 * changed. usearch runs on its own thread (IndexClient): searches, adds and saves never block
 * the event loop. Saved at most every SAVE_INTERVAL_MS while vectors arrive, and at each flush;
 * a crash loses what the last save did not hold, which start-up reconciliation puts back from
 * the rows.
 */
export class IndexService {
  private index: IndexClient;
  private readonly cache = new Map<string, VectorHit[]>();
  private unmarked: number[] = [];
  /** The keys of the save in progress, marked indexed when it is on disk. */
  private marking: number[] = [];
  private saveTimer: NodeJS.Timeout | null = null;
  /** The flush in progress; the next one starts after it. */
  private saving: Promise<void> = Promise.resolve();
  private hits = 0;
  private misses = 0;
  private readonly latencies: number[] = [];
  private queries = 0;
  private accuracy: {
    value: number;
    sample: number;
    at: number;
    size: number;
    storage: IndexStorage;
  } | null = null;
  private measuring: Promise<{ value: number; sample: number } | null> | null = null;
  private state: { last_optimized: string | null };
  private readonly stateFile: string;
  private quantization: IndexStorage;
  /** Resolves when the saved index is loaded (or found unusable and the rebuild queued). */
  ready: Promise<void>;

  constructor(
    private readonly deps: {
      dir: string;
      snippets: SnippetRepository;
      embedder: Embedder;
      log: Logger;
      bus: EventBus;
      /**
       * The storage the settings ask for (default: the settings' default). The index opens with it; a later
       * change takes effect at the next rebuild(), which the settings change queues.
       */
      storage?: () => IndexStorage;
    },
  ) {
    this.quantization = this.wantedStorage;
    this.stateFile = path.join(deps.dir, 'state.json');
    this.state = readState(this.stateFile);
    this.index = this.openIndex();
    this.ready = this.whenOpened();
  }

  private openIndex(): IndexClient {
    return new IndexClient(this.deps.dir, this.deps.embedder.dimension, {
      quantization: this.quantization,
    });
  }

  /**
   * An index the worker could not use is emptied and every row queued for re-indexing (the
   * start's reconcile, or a restore's, re-adds them from their stored embeddings).
   */
  private async whenOpened(): Promise<void> {
    const { reset, damaged } = await this.index.ready;
    if (!reset) return;
    this.deps.log.warn(
      { component: 'index' },
      `Vector index will be rebuilt from the store: ${reset}` +
        (damaged
          ? ` (the damaged files were moved to ${path.join(this.deps.dir, damaged.dir)})`
          : ''),
    );
    const n = this.deps.snippets.markAllPending();
    this.changed();
    await this.index.save();
    this.deps.log.info({ component: 'index' }, `${n} snippets queued for re-indexing`);
  }

  /**
   * The `index` component of /health: degraded while a damaged saved index lies moved aside,
   * so the operator learns it was rebuilt; deleting the folder clears it.
   */
  health(): ComponentHealth {
    const damaged = listDamaged(this.deps.dir)[0];
    return {
      status: damaged ? 'degraded' : 'healthy',
      ...(damaged && {
        error:
          `The saved index was damaged (${damaged.problem}) and was rebuilt from the store on ${damaged.at}; ` +
          `the damaged files are in ${path.basename(this.deps.dir)}/${damaged.dir}: delete that folder to clear this warning`,
      }),
      details: {
        total_vectors: this.size,
        dimension: this.dimension,
        embedder: this.deps.embedder.id,
        last_saved_at: this.lastSavedAt,
      },
    };
  }

  get dimension(): number {
    return this.index.dimension;
  }

  /** How the open index stores its vectors. */
  get storage(): IndexStorage {
    return this.quantization;
  }

  get wantedStorage(): IndexStorage {
    return this.deps.storage?.() ?? DEFAULT_PROCESSING_SETTINGS.index_storage;
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

  /**
   * Vectors in the index whose rows are still pending because no save holds them yet: counts
   * that add vectors and pending rows leave them out of one side.
   */
  get unsavedCount(): number {
    let n = 0;
    for (const k of this.unmarked) if (this.index.has(k)) n++;
    for (const k of this.marking) if (this.index.has(k)) n++;
    return n;
  }

  private changed(): void {
    this.cache.clear();
  }

  /** Logs a failure of a call whose caller does not wait for it. */
  private background(p: Promise<unknown>, what: string): void {
    p.catch((e: unknown) =>
      this.deps.log.error({ component: 'index', err: e }, `Vector index ${what} failed`),
    );
  }

  private scheduleSave(): void {
    if (this.saveTimer) return;
    this.saveTimer = setTimeout(() => this.background(this.flush(), 'save'), SAVE_INTERVAL_MS);
    this.saveTimer.unref();
  }

  /**
   * Adds vectors now (searchable at once); the save, and the rows' indexed mark, follow within
   * SAVE_INTERVAL_MS or at the next flush.
   */
  addDeferred(entries: ReadonlyArray<{ key: number; vector: Float32Array }>): void {
    if (entries.length === 0) return;
    this.background(this.index.add(entries), 'add');
    for (const e of entries) this.unmarked.push(e.key);
    this.changed();
    this.scheduleSave();
  }

  /**
   * Saves what changed, off the event loop, then marks the rows added before the call as
   * indexed (never before the save holding them is on disk). Flushes run one after another.
   */
  flush(): Promise<void> {
    if (this.saveTimer) clearTimeout(this.saveTimer);
    this.saveTimer = null;
    const run = async () => {
      const marking = this.unmarked;
      this.unmarked = [];
      this.marking = marking;
      const index = this.index;
      try {
        if (index.isDirty) await index.save();
      } catch (e) {
        // Not saved: those rows stay pending and wait for the next save.
        this.marking = [];
        this.unmarked.unshift(...marking);
        this.deps.log.error({ component: 'index', err: e }, 'Vector index save failed');
        this.scheduleSave();
        throw e;
      }
      if (index !== this.index) {
        this.marking = [];
        return; // reloaded meanwhile: those rows belong to the old one
      }
      const keys = marking.filter((k) => index.has(k));
      if (keys.length) this.deps.snippets.markIndexed(keys, new Date().toISOString());
      this.marking = [];
    };
    const next = this.saving.catch(() => undefined).then(run);
    this.saving = next;
    return next;
  }

  /** Adds the vectors and starts a save; the rows are marked indexed once it is on disk. */
  addAndSave(entries: ReadonlyArray<{ key: number; vector: Float32Array }>): void {
    this.addDeferred(entries);
    this.background(this.flush(), 'save');
  }

  /** Removes vectors (the save follows); answers the keys that were in the index. */
  removeAndSave(keys: readonly number[]): number[] {
    const { removed, done } = this.index.remove(keys);
    if (removed.length) {
      this.background(done, 'remove');
      this.changed();
      this.scheduleSave();
    }
    return removed;
  }

  saveIfDirty(): Promise<void> {
    return this.flush();
  }

  /** Saves what is unsaved and stops the index's thread. */
  async close(): Promise<void> {
    if (this.measuring) await this.measuring.catch(() => null);
    await this.flush();
    await this.index.close();
  }

  async search(
    vector: Float32Array,
    k: number,
    cacheKey: string,
    filter?: (key: number) => boolean,
  ): Promise<{
    hits: VectorHit[];
    latencyMs: number;
    cached: boolean;
  }> {
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
      hits = await this.index.search(vector, k, filter);
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
    await this.ready;
    // Plain id lists into bitsets: no per-row object, even at 1M rows.
    const rows = KeySet.from(this.deps.snippets.allIds());
    const lost = this.deps.snippets.indexedIds().filter((id) => !this.index.has(id));
    if (lost.length) {
      this.deps.snippets.markPending(lost);
      this.deps.log.warn(
        { component: 'index' },
        `${lost.length} snippets were marked indexed but missing from the index: re-indexing them`,
      );
    }
    let reindexed = 0;
    let after = 0;
    for (;;) {
      const ids = this.deps.snippets.pendingIdsAfter(after, REINDEX_BATCH);
      if (ids.length === 0) break;
      after = ids[ids.length - 1]!;
      reindexed += (await this.indexBatch(ids, false)).indexed;
    }
    if (reindexed) await this.flush();
    let indexOnly = 0;
    for (const k of this.index.keyArray()) if (!rows.has(k)) indexOnly++;
    if (indexOnly) {
      this.deps.log.warn(
        { component: 'index' },
        `${indexOnly} vectors in the index have no snippet (index_only)`,
      );
    }
    return {
      total_disk: rows.size,
      total_index: this.index.size,
      marked_pending: lost.length,
      reindexed,
      index_only: indexOnly,
    };
  }

  /**
   * Indexes these rows from their stored embeddings, embedding the ones that need it, and saves
   * (the rows are marked indexed once saved).
   */
  async indexRows(ids: readonly number[]): Promise<number> {
    const { indexed } = await this.indexBatch(ids, false);
    await this.flush();
    return indexed;
  }

  /**
   * Adds rows to the index: from their stored embeddings when those came from the active
   * embedder (and `reembed` is off), else embedded now and stored on the rows. Marked indexed
   * at the next save.
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
    this.addDeferred(entries);
    return { indexed: entries.length, reembedded: toEmbed.length };
  }

  /** Empties the index and marks every row pending (the next reconcile rebuilds it). */
  clearAll(): number {
    this.background(this.index.clear(), 'clear');
    this.unmarked = [];
    this.changed();
    this.accuracy = null;
    const n = this.deps.snippets.markAllPending();
    this.background(this.flush(), 'save');
    return n;
  }

  /**
   * Checks a saved index in another directory (a backup's) as a load would, on the index's
   * thread: answers the problem, or null when it can be installed.
   */
  checkFiles(dir: string): Promise<string | null> {
    return this.index.check(dir);
  }

  /**
   * Replaces the index's files under it (a restore): `swap` runs once no save is in flight, and
   * nothing reaches the index between it and the re-open that follows. If `swap` throws, the
   * index stays as it was.
   */
  async replaceFiles<T>(swap: () => T): Promise<T> {
    let swapped!: T;
    await this.reopen(this.quantization, () => (swapped = swap()));
    return swapped;
  }

  /**
   * Re-opens the index with `storage`: when it differs from the saved one, the opened index is
   * empty and every row pending (whenOpened).
   */
  private async reopen(storage: IndexStorage, swap?: () => void): Promise<void> {
    // Wait until no save is in flight: one landing after `swap` would overwrite its files.
    await this.ready.catch(() => undefined);
    for (let s = this.saving; ; s = this.saving) {
      await s.catch(() => undefined);
      if (s === this.saving) break;
    }
    // From here to the switch, synchronous: the old index gets no call that would save.
    swap?.();
    // What the replaced index had not saved yet is dropped, not saved over the new files.
    if (this.saveTimer) clearTimeout(this.saveTimer);
    this.saveTimer = null;
    this.unmarked = [];
    const old = this.index;
    this.quantization = storage;
    this.index = this.openIndex();
    this.state = readState(this.stateFile);
    this.cache.clear();
    this.accuracy = null;
    this.ready = this.whenOpened();
    await old.close();
    await this.ready;
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
  }): Promise<{ total: number; indexed: number; reembedded: number; storage: IndexStorage }> {
    await this.ready;
    const storage = this.wantedStorage;
    if (storage !== this.quantization) {
      this.deps.log.info(
        { component: 'index' },
        `Index storage changes from ${this.quantization} to ${storage}: rebuilding`,
      );
      await this.reopen(storage);
    }
    const total = this.clearAll();
    let indexed = 0;
    let reembedded = 0;
    let after = 0;
    while (!opts.shouldStop?.()) {
      const ids = this.deps.snippets.pendingIdsAfter(after, REINDEX_BATCH);
      if (ids.length === 0) break;
      after = ids[ids.length - 1]!;
      const batch = await this.indexBatch(ids, opts.reembed);
      indexed += batch.indexed;
      reembedded += batch.reembedded;
      opts.onProgress?.(indexed, Math.max(total, indexed));
    }
    await this.flush();
    return { total, indexed, reembedded, storage };
  }

  markOptimized(): void {
    this.state.last_optimized = new Date().toISOString();
    writeFileAtomic(this.stateFile, JSON.stringify(this.state));
  }

  /**
   * recall@10 of HNSW against exact search, with up to 100 of the indexed vectors (evenly spread
   * over the keys) as queries. The exact side runs on a one-off thread that reads the vectors
   * from the store; the approximate side on the index's thread. Measured again when the index
   * changed size and the last measure is 5 minutes old; one measure at a time.
   */
  measureAccuracy(force = false): Promise<{ value: number; sample: number } | null> {
    const n = this.index.size;
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
    await this.ready;
    const keys = this.index.keyArray();
    if (keys.length === 0) return null;
    const step = Math.max(1, Math.floor(keys.length / ACCURACY_SAMPLE));
    const sample = new Float64Array(Math.min(ACCURACY_SAMPLE, Math.ceil(keys.length / step)));
    for (let i = 0; i < sample.length; i++) sample[i] = keys[i * step]!;
    const exact = await exactNeighboursOffThread({
      dbFile: this.deps.snippets.databaseFile(),
      keys,
      sample,
      dimension: this.dimension,
      k: Math.min(10, keys.length),
      embedderId: this.deps.embedder.id,
    });
    if (exact.queryKeys.length === 0) return null;
    const index = this.index;
    const r = await recallAgainst(
      exact,
      this.dimension,
      async (q, k) => (await index.searchRaw(q, k)).keys,
    );
    this.accuracy = { ...r, at: Date.now(), size: keys.length, storage: this.quantization };
    return r;
  }

  /**
   * The index's figures. The accuracy is the last measured one; a stale one is measured again
   * in the background (shown by a later call). Before the first measure the call waits for it,
   * up to ACCURACY_WAIT_MS (well under a second at 100k vectors; at 1M the later call shows it).
   */
  async stats(): Promise<IndexStats> {
    const measuring = this.measureAccuracy();
    this.background(measuring, 'accuracy measure');
    if (!this.accuracy) {
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([
        measuring.catch(() => null),
        new Promise((r) => (timer = setTimeout(r, ACCURACY_WAIT_MS))),
      ]);
      clearTimeout(timer);
    }
    const acc = this.accuracy;
    const avg = this.latencies.length
      ? this.latencies.reduce((a, b) => a + b, 0) / this.latencies.length
      : 0;
    const lookups = this.hits + this.misses;
    return {
      total_vectors: this.index.size,
      index_size_mb: round(this.index.diskBytes() / 1048576, 3),
      index_type: this.indexType,
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
      accuracy_measured_at: acc ? new Date(acc.at).toISOString() : null,
      storage: this.quantization,
      embedder: this.deps.embedder.id,
    };
  }

  get indexType(): string {
    return `HNSW (usearch, cosine, ${this.quantization}, M=${HNSW.connectivity}, ef=${HNSW.expansion_search})`;
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
