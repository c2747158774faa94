import type { Piscina } from 'piscina';
import type { IndexRequest } from './index-worker.js';
import { savedBytes, type DamagedCopy } from './index-files.js';
import { KeySet } from './key-set.js';
import type { ColumnHits } from './vector-columns.js';
import { startPool } from './recall.js';
import { DISK_FULL_MARK, VectorIndex, type IndexOptions, type VectorHit } from './vector-index.js';

/**
 * The vector index seen from the server's thread: usearch lives on its own worker thread
 * (index-worker.ts), so adding, searching, saving and loading never block the event loop. The
 * keys are mirrored here in a bitset, updated as each call is sent, so has/size/keys answer at
 * once and agree with every call sent so far; the worker runs the calls in the order sent.
 */
export class IndexClient {
  private readonly worker: Piscina;
  private keySet = new KeySet();
  private generation = 0;
  private dirty = false;
  private closed = false;
  private last: Promise<unknown> = Promise.resolve();
  /** Until it resolves, calls wait (in order) before reaching the thread; tests hold a load. */
  private gate: Promise<void> | null;
  lastSavedAt: string | null = null;
  /** Resolves once the worker loaded the saved index (searches sent earlier wait for it). */
  readonly ready: Promise<{ reset: string | null; damaged: DamagedCopy | null }>;
  /**
   * Resolves once the loaded generation's vectors are read into the thread's columns (a step
   * per call, searches in between): until then scanColumns answers null.
   */
  readonly columnsFilled: Promise<void>;

  /**
   * Reads the saved keys here (a few ms at 1M) and has the worker check and load the index.
   * `reset` (from `ready`) says why the saved index could not be used, `damaged` where a
   * damaged one was moved: the caller rebuilds from the store.
   */
  constructor(
    readonly dir: string,
    readonly dimension: number,
    readonly options: IndexOptions = {},
    { openGate }: { openGate?: Promise<void> } = {},
  ) {
    this.worker = startPool('index-worker');
    this.gate = openGate?.then(() => void (this.gate = null)) ?? null;
    this.ready = this.open();
    this.columnsFilled = this.fillColumns();
  }

  private async fillColumns(): Promise<void> {
    await this.ready.catch(() => undefined);
    while (!this.closed) {
      try {
        if ((await this.call({ op: 'fillColumns' })) === true) return;
      } catch {
        return; // closed meanwhile, or the thread gone: scans answer null
      }
    }
  }

  private async open(): Promise<{ reset: string | null; damaged: DamagedCopy | null }> {
    try {
      const { manifest: m, keys } = VectorIndex.readSaved(this.dir) ?? {};
      const storage = this.options.quantization ?? 'f32';
      if (m && keys && m.dimension === this.dimension && (m.quantization ?? 'f32') === storage) {
        this.generation = m.generation;
        this.keySet = KeySet.from(keys);
        this.lastSavedAt = m.saved_at;
      }
    } catch {
      // Damaged: the worker, which checks everything before loading, says so below.
    }
    const opened = (await this.call({
      op: 'open',
      dir: this.dir,
      dimension: this.dimension,
      options: this.options,
    })) as { reset: string | null; damaged: DamagedCopy | null; size: number };
    if (opened.reset) {
      this.keySet.clear();
      this.lastSavedAt = null;
    }
    return { reset: opened.reset, damaged: opened.damaged };
  }

  /**
   * Checks a saved index's files (another directory: a backup's copy) as a load would, on the
   * index's thread: answers the problem, or null when usearch can be given them.
   */
  async check(dir: string): Promise<string | null> {
    const r = (await this.call({ op: 'check', dir })) as { problem: string | null };
    return r.problem;
  }

  /**
   * Hashes the loaded files against the manifest's checksums on the index's thread, a step per
   * call, so searches and adds go between steps (the load itself checked sizes, keys and
   * layout only). Answers the problem found, or null; a client closed meanwhile answers null.
   */
  async verify(): Promise<string | null> {
    for (;;) {
      let r: { done: boolean; problem: string | null };
      try {
        r = (await this.call({ op: 'verify' })) as typeof r;
      } catch (e) {
        if (this.closed) return null;
        throw e;
      }
      if (r.done) return r.problem;
    }
  }

  private call(req: IndexRequest, transfer: ArrayBuffer[] = []): Promise<unknown> {
    if (this.closed) return Promise.reject(new Error('index closed'));
    // One thread, tasks in order: the last one done means all sent before it are.
    const run = () => this.worker.run(req, { transferList: transfer });
    const p = this.gate ? this.gate.then(run) : run();
    this.last = p;
    return p;
  }

  get size(): number {
    return this.keySet.size;
  }

  has(key: number): boolean {
    return this.keySet.has(key);
  }

  keys(): number[] {
    return Array.from(this.keySet.toArray());
  }

  keyArray(): Float64Array {
    return this.keySet.toArray();
  }

  get isDirty(): boolean {
    return this.dirty;
  }

  /** Adds or replaces vectors: known here at once, searchable once the worker got them. */
  add(entries: ReadonlyArray<{ key: number; vector: Float32Array }>): Promise<void> {
    if (entries.length === 0) return Promise.resolve();
    const flat = new Float32Array(entries.length * this.dimension);
    entries.forEach((e, i) => {
      if (e.vector.length !== this.dimension) {
        throw new Error(
          `vector for key ${e.key} has ${e.vector.length} dimensions, index has ${this.dimension}`,
        );
      }
      flat.set(e.vector, i * this.dimension);
    });
    const keys = Float64Array.from(entries, (e) => e.key);
    for (const k of keys) this.keySet.add(k);
    this.dirty = true;
    return this.call({ op: 'add', keys, flat }, [keys.buffer, flat.buffer]) as Promise<void>;
  }

  /** Removes the keys present; answers the ones that were there (the worker follows). */
  remove(keys: readonly number[]): { removed: number[]; done: Promise<unknown> } {
    const removed = keys.filter((k) => this.keySet.delete(k));
    if (removed.length === 0) return { removed, done: Promise.resolve() };
    this.dirty = true;
    return { removed, done: this.call({ op: 'remove', keys: removed }) };
  }

  /**
   * Nearest neighbours; a filter over keys runs here, over-fetching until k pass. `breadth`:
   * the walk's expansion when wider than the index's (VectorIndex.searchRaw).
   */
  async search(
    vector: Float32Array,
    k: number,
    filter?: (key: number) => boolean,
    breadth = 0,
  ): Promise<VectorHit[]> {
    const size = this.size;
    if (size === 0 || k <= 0) return [];
    // Same rule as VectorIndex.search: k (4k with a filter), then 4 times more.
    let want = filter ? Math.min(size, k * 4) : Math.min(size, k);
    for (;;) {
      const m = await this.searchRaw(vector, want, breadth);
      const hits: VectorHit[] = [];
      for (let i = 0; i < m.keys.length; i++) {
        const key = m.keys[i]!;
        // A key removed here after the search was sent is no longer an answer.
        if (!this.keySet.has(key) || (filter && !filter(key))) continue;
        hits.push({ key, similarity: m.similarities[i]! });
        if (hits.length === k) return hits;
      }
      if (want >= size) return hits;
      want = Math.min(size, want * 4);
    }
  }

  /** The `want` nearest keys and similarities, best first, as the worker's HNSW answers them. */
  searchRaw(
    vector: Float32Array,
    want: number,
    breadth = 0,
  ): Promise<{ keys: Float64Array; similarities: Float32Array }> {
    return this.call({ op: 'search', vector, want, breadth }) as Promise<{
      keys: Float64Array;
      similarities: Float32Array;
    }>;
  }

  /**
   * The `want` keys with the largest dot product with a sparse query over its non-zero
   * dimensions (vector-columns.ts), best first, their similarity that rounded product; a filter
   * runs here over the answer (ask more when filtering). Null while the columns are not whole.
   */
  async scanColumns(
    vector: Float32Array,
    want: number,
    filter?: (key: number) => boolean,
  ): Promise<VectorHit[] | null> {
    if (this.size === 0 || want <= 0) return [];
    const r = (await this.call({ op: 'scanColumns', vector, want })) as ColumnHits | null;
    if (!r) return null;
    const hits: VectorHit[] = [];
    for (let i = 0; i < r.keys.length; i++) {
      const key = r.keys[i]!;
      if (this.keySet.has(key) && (!filter || filter(key)))
        hits.push({ key, similarity: r.scores[i]! });
    }
    return hits;
  }

  /** Empties the index (a rebuild follows). */
  clear(): Promise<unknown> {
    this.keySet.clear();
    this.dirty = true;
    return this.call({ op: 'clear' });
  }

  /** Saves everything sent before this call; answers when the new generation is on disk. */
  async save(): Promise<string> {
    this.dirty = false;
    try {
      const r = (await this.call({ op: 'save' })) as { savedAt: string; generation: number };
      this.generation = r.generation;
      this.lastSavedAt = r.savedAt;
      return r.savedAt;
    } catch (e) {
      this.dirty = true;
      if (e instanceof Error && e.message.includes(DISK_FULL_MARK))
        Object.assign(e, { code: 'ENOSPC' });
      throw e;
    }
  }

  diskBytes(): number {
    return savedBytes(this.dir, this.generation);
  }

  /** Waits for the calls sent, then stops the thread (unsaved changes are not saved). */
  async close(): Promise<void> {
    if (this.closed) return;
    await this.last.catch(() => undefined);
    this.closed = true;
    await this.worker.close();
  }
}
