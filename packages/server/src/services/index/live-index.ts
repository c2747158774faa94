import fs from 'node:fs';
import path from 'node:path';
import {
  DEFAULT_PROCESSING_SETTINGS,
  type ComponentHealth,
  type IndexStorage,
  type ReconcileReport,
} from '@adam/contracts';
import type { Embedder } from '../../embedding/embedder.js';
import type { Logger } from '../../logging.js';
import type { EventBus } from '../../lib/event-bus.js';
import type { Piscina } from 'piscina';
import {
  pickKeys,
  skip,
  skipBitmap,
  type MarkResult,
  type MarkTask,
} from '../../store/mark-indexed.js';
import type { SnippetRepository } from '../../store/snippet.repository.js';
import { writeFileAtomic } from '../../vector/atomic-file.js';
import { IndexClient } from '../../vector/index-client.js';
import {
  checkSavedFiles,
  listDamaged,
  moveAside,
  type DamagedCopy,
} from '../../vector/index-files.js';
import { KeySet } from '../../vector/key-set.js';
import { startPool } from '../../vector/recall.js';
import {
  EXPANSION_SEARCH,
  HNSW,
  rerankDepth,
  type IndexOptions,
  type VectorHit,
} from '../../vector/vector-index.js';
import { round } from '../../lib/round.js';
import { dot } from '../../embedding/embedder.js';
import { type MeasuredIndex, type SearchMeter } from './index-figures.js';
import { PendingKeys } from './pending-keys.js';

const CACHE_SIZE = 256;
/** Rows re-indexed (or embedded in a switch) per batch. */
export const REINDEX_BATCH = 256;
/**
 * While vectors arrive, the index is saved at most this often (and at every flush: a job's end,
 * a backup, shutdown). A save rewrites the whole file — seconds at 1M vectors — so it is not
 * done per batch; rows stay index_pending until the save holding them is on disk, so a crash
 * in between only leaves rows that start-up reconciliation indexes again.
 */
const SAVE_INTERVAL_MS = 3 * 60_000;
/**
 * Keys per batch sent to the marking thread: the pending count moves on per batch, and a reload
 * meanwhile stops the marking at the next one.
 */
const MARK_BATCH_KEYS = 20_000;

/**
 * How often the index's files and its agreement with the store are looked at: a few stats and
 * two counts the triggers keep, never a scan. A failed save looks at once.
 */
const WATCH_INTERVAL_MS = 10_000;
/** Store and index may differ by this many keys (in-flight batches) before a reconcile starts. */
const AGREEMENT_TOLERANCE = (n: number) => Math.max(10, Math.ceil(n * 0.001));

/**
 * Follows the keys the live index gets or loses (a space switch's next index catches up with
 * them), and learns when the live index was replaced under it.
 */
export interface KeyFollower {
  added: Set<number>;
  removed: Set<number>;
  /** The live index was replaced meanwhile (a restore): the build no longer matches the store. */
  invalid: string | null;
}

export const vectorToBlob = (v: Float32Array): Buffer =>
  Buffer.from(v.buffer, v.byteOffset, v.byteLength);
export const blobToVector = (b: Buffer): Float32Array =>
  new Float32Array(b.buffer.slice(b.byteOffset, b.byteOffset + b.byteLength));

/**
 * The cosine to `query` of each row's stored vector of the embedder `space` (rows without one,
 * of another embedder or another dimension left out): exact, where an index's are rounded.
 */
export function storedCosines(
  snippets: Pick<SnippetRepository, 'storedVectors'>,
  ids: readonly number[],
  query: Float32Array,
  space: string,
): Map<number, number> {
  const out = new Map<number, number>();
  for (const [id, e] of snippets.storedVectors(ids)) {
    if (e.embedder_id === space && e.embedding.byteLength === query.length * 4)
      out.set(id, dot(query, blobToVector(e.embedding)));
  }
  return out;
}

/** What the live index is built from. */
export interface LiveIndexDeps {
  dir: string;
  snippets: SnippetRepository;
  /** The active embedder (the engine, in its current space). */
  embedder: Embedder & {
    /** A query vector made before a space switch, embedded again in the new space. */
    inCurrentSpace?: (vector: Float32Array) => Promise<Float32Array>;
  };
  log: Logger;
  bus: EventBus;
  /**
   * The storage the settings ask for (default: the settings' default). The index opens with it; a later
   * change takes effect at the next rebuild(), which the settings change queues.
   */
  storage?: () => IndexStorage;
  /** Between two looks at the files and the store's agreement (0: never); tests shorten it. */
  watchIntervalMs?: number;
  /** Between an add and the save holding it (0: only at a flush); benches time their own. */
  saveIntervalMs?: number;
  /** The first load waits for it (tests hold the index "starting" with it). */
  openGate?: Promise<void>;
  /** Graph settings other than HNSW's; a bench builds a cheaper graph of the same layout. */
  graph?: Omit<IndexOptions, 'quantization'>;
  /**
   * Marks a batch of saved rows indexed (default: on the marking thread, store/
   * mark-indexed.worker.ts); tests and benches watch or slow it.
   */
  markIndexed?: (task: MarkTask) => Promise<MarkResult>;
  /** Told of each search (the stats' counts). */
  meter?: SearchMeter;
  /** The index was emptied or replaced (the last accuracy measure no longer holds). */
  onReset?: () => void;
}

/**
 * The live vector index: search, adds and removes, the pending keys and their marking, saves,
 * and the index's health (its load, the watch and its repairs). The vector key of a snippet is its id; the
 * row keeps its embedding, so re-indexing a row never needs the model unless the embedder
 * changed. usearch runs on its own thread (IndexClient): searches, adds and saves never block
 * the event loop. Saved at most every SAVE_INTERVAL_MS while vectors arrive, and at each flush;
 * a crash loses what the last save did not hold, which start-up reconciliation puts back from
 * the rows.
 */
export class LiveIndex implements MeasuredIndex {
  private index: IndexClient;
  private readonly cache = new Map<string, VectorHit[]>();
  /** Added keys whose rows stay pending until a save holds them, and how many the index has. */
  private readonly pending = new PendingKeys((k) => this.index.has(k));
  /**
   * Whether the vector_deletions recorded before the index was opened were applied (reconcile
   * removes their vectors): until then a save does not hold them, and must not forget them.
   */
  private deletionsApplied = false;
  /** While marking: the keys changed in the index since (store/mark-indexed.ts). */
  private skipBits: Int32Array | null = null;
  /**
   * Past the largest key ever added: the skip bitmap's size, kept as keys arrive (a pass over a
   * million pending keys at the flush held the loop 45 ms, its iterator garbage 40 scavenges).
   */
  private keyEnd = 0;
  /** The marking thread, started at the first marking. */
  private markPool: Piscina | null = null;
  private saveTimer: NodeJS.Timeout | null = null;
  /** The flush in progress; the next one starts after it. */
  private saving: Promise<void> = Promise.resolve();
  /** Background re-indexing (reindexLater), one batch list after another. */
  private reindexing: Promise<void> = Promise.resolve();
  private state: IndexState;
  /** A space switch's build, following the keys while it does. */
  follower: KeyFollower | null = null;
  private readonly stateFile: string;
  private quantization: IndexStorage;
  /** Resolves when the saved index is loaded (or found unusable and the rebuild queued). */
  ready: Promise<void>;
  /** Loading the saved index (at start, or again after a restore): /health says "starting". */
  private loading = true;
  /** The loaded files' checksums being hashed in the background, and any rebuild it led to. */
  private verifying: Promise<void> = Promise.resolve();
  private checksums: 'verifying' | 'verified' | 'none' = 'none';
  /** A fault found while running (files gone or damaged, store and index apart) and its repair. */
  private fault: IndexFault | null = null;
  /** The last repair that finished, told by /health as long as the server runs. */
  private lastRepair: IndexFault | null = null;
  private repairing: Promise<void> | null = null;
  private watchTimer: NodeJS.Timeout | null = null;
  private closed = false;
  /** A flush is running (its save swaps the files the watch looks at). */
  private flushing = false;
  /** Reconciles running, and whether one finished (the watch waits for the start's). */
  private reconciling = 0;
  private reconciledOnce = false;

  constructor(private readonly deps: LiveIndexDeps) {
    this.quantization = this.wantedStorage;
    this.stateFile = path.join(deps.dir, 'state.json');
    this.state = readState(this.stateFile);
    this.index = this.openIndex(deps.openGate);
    this.ready = this.whenOpened();
    const every = deps.watchIntervalMs ?? WATCH_INTERVAL_MS;
    if (every > 0) {
      this.watchTimer = setInterval(() => void this.watch(), every);
      this.watchTimer.unref();
    }
  }

  private openIndex(openGate?: Promise<void>): IndexClient {
    return new IndexClient(
      this.deps.dir,
      this.deps.embedder.dimension,
      { ...this.deps.graph, quantization: this.quantization },
      { openGate },
    );
  }

  /**
   * An index the worker could not use is emptied and every row queued for re-indexing (the
   * start's reconcile, or a restore's, re-adds them from their stored embeddings).
   */
  private async whenOpened(): Promise<void> {
    this.loading = true;
    try {
      await this.opened();
    } finally {
      this.loading = false;
    }
  }

  private async opened(): Promise<void> {
    const opened = await this.index.ready;
    // A load that found the saved index unusable emptied the keys under the pending ones.
    this.pending.recount();
    const { damaged } = opened;
    let reset = opened.reset;
    const space = this.deps.embedder.id;
    // An index saved in another space (a backup of before a switch, restored) has the same
    // dimension at times: its vectors would answer nonsense, so it is rebuilt as well.
    if (!reset && this.state.embedder && this.state.embedder !== space && this.index.size > 0) {
      reset = `it holds ${this.state.embedder} vectors, the active embedder is ${space}`;
      await this.index.clear();
      this.pending.emptied();
    }
    if (this.state.embedder !== space) this.writeState({ ...this.state, embedder: space });
    if (!reset) {
      this.verifying = this.verifyLoaded(this.index);
      return;
    }
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
   * Resolves once the loaded files' checksums were compared (and, when they did not match, the
   * index was emptied and its files moved aside): the start's reconcile waits for it, so it
   * re-adds every row a damaged index lost.
   */
  async whenVerified(): Promise<void> {
    for (let v = this.verifying; ; v = this.verifying) {
      await this.ready.catch(() => undefined);
      await v;
      if (v === this.verifying) return;
    }
  }

  /**
   * Hashes the files `client` loaded (in steps on the index's thread, searches answered
   * meanwhile). A mismatch goes down the damaged path of a load: the files are moved aside,
   * the index re-opened empty, and the rows re-added by a reconcile (the start's, which waits
   * for this, or one started here).
   */
  private async verifyLoaded(client: IndexClient): Promise<void> {
    this.checksums = 'verifying';
    let problem: string | null;
    try {
      problem = await client.verify();
    } catch (e) {
      this.deps.log.error({ component: 'index', err: e }, 'Checking the vector index files failed');
      return;
    } finally {
      if (this.index === client) this.checksums = 'verified';
    }
    if (!problem || this.closed || this.index !== client) return;
    const dir = this.deps.dir;
    this.deps.log.warn(
      { component: 'index' },
      `Vector index will be rebuilt from the store: saved index damaged: ${problem}`,
    );
    try {
      const moved: { copy: DamagedCopy | null } = { copy: null };
      await this.reopen(this.quantization, () => {
        if (this.index === client) moved.copy = moveAside(dir, problem);
      });
      if (moved.copy) {
        this.deps.log.warn(
          { component: 'index' },
          `The damaged vector index files were moved to ${path.join(dir, moved.copy.dir)}`,
        );
      }
      if (this.reconciledOnce) await this.reconcile({ removeIndexOnly: true });
    } catch (e) {
      this.deps.log.error(
        { component: 'index', err: e },
        'Rebuilding the damaged vector index failed',
      );
    }
  }

  /**
   * The `index` component of /health: degraded while a fault found while running is repaired
   * (files gone or damaged: rebuilt from the store; store and index apart: reconciled), and
   * while a damaged saved index lies moved aside, so the operator learns it was rebuilt;
   * deleting that folder clears it. Cheap: what the watch found last, never a scan.
   */
  health(): ComponentHealth {
    const details = {
      path: this.deps.dir,
      ...(this.checksums !== 'none' && { checksums: this.checksums }),
      total_vectors: this.size,
      dimension: this.dimension,
      embedder: this.deps.embedder.id,
      last_saved_at: this.lastSavedAt,
      ...(this.fault && { repair: describeFault(this.fault) }),
      ...(this.lastRepair && { last_repair: describeFault(this.lastRepair) }),
    };
    if (this.fault) return { status: 'degraded', error: this.fault.message, details };
    // The keys are known at once; searches sent meanwhile wait on the index's thread.
    if (this.loading)
      return { status: 'starting', details: { ...details, state: 'loading the saved index' } };
    const damaged = listDamaged(this.deps.dir)[0];
    return {
      status: damaged ? 'degraded' : 'healthy',
      ...(damaged && {
        error:
          `The saved index was damaged (${damaged.problem}) and was rebuilt from the store on ${damaged.at}; ` +
          `the damaged files are in ${path.basename(this.deps.dir)}/${damaged.dir}: delete that folder to clear this warning`,
      }),
      details,
    };
  }

  /**
   * Looks at the saved files and at the store's counts; starts the repair a fault needs. Runs
   * on a timer and after a failed save; answers once the repair it started (if any) is done.
   */
  async watch(): Promise<void> {
    // Not before the start's reconcile is done, nor beside another one: their counts move.
    if (this.closed || this.repairing || this.flushing || this.follower) return;
    if (!this.reconciledOnce || this.reconciling > 0) return;
    let found: IndexFault | null = null;
    try {
      await this.ready;
      if (this.flushing || this.repairing) return;
      const problem = checkSavedFiles(this.deps.dir, this.lastSavedAt !== null);
      if (problem) {
        found = {
          kind: 'files',
          path: this.deps.dir,
          message: `The vector index files in ${this.deps.dir} are missing or damaged (${problem}): rebuilding the index from the store`,
          since: new Date().toISOString(),
          state: 'running',
        };
      } else {
        found = this.disagreement();
      }
    } catch (e) {
      this.deps.log.error({ component: 'index', err: e }, 'Checking the vector index failed');
      return;
    }
    if (!found) {
      // A repair that failed, and whose cause is gone since.
      if (this.fault?.state === 'failed') this.fault = null;
      return;
    }
    if (this.closed) return;
    this.repairing = this.repair(found).finally(() => (this.repairing = null));
    await this.repairing;
  }

  /** Store and index apart beyond the tolerance, from the counts the triggers keep. */
  private disagreement(): IndexFault | null {
    const { total, pending } = this.deps.snippets.indexCounts();
    const indexedRows = total - pending;
    // Vectors whose rows stay pending until the save holding them: counted on neither side.
    const saved = this.index.size - this.unsavedCount;
    const gap = Math.abs(saved - indexedRows);
    if (gap <= AGREEMENT_TOLERANCE(Math.max(total, this.index.size))) return null;
    return {
      kind: 'agreement',
      path: this.deps.dir,
      message:
        `The store and the vector index disagree (${indexedRows} snippets marked indexed, ` +
        `${saved} vectors saved in ${this.deps.dir}): reconciling them`,
      since: new Date().toISOString(),
      state: 'running',
    };
  }

  private async repair(fault: IndexFault): Promise<void> {
    this.fault = fault;
    this.deps.log.warn({ component: 'index' }, fault.message);
    try {
      if (fault.kind === 'files') {
        // As at start: a fresh open (a damaged save is moved aside), then every row whose
        // vector the new index lacks goes back to pending and is indexed from its embedding.
        await this.reopen(this.quantization, () =>
          fs.mkdirSync(this.deps.dir, { recursive: true }),
        );
      }
      const r = await this.reconcile({ removeIndexOnly: true });
      fault.state = 'done';
      fault.outcome =
        `${r.reindexed} snippets re-indexed, ${r.marked_pending} were missing from the index, ` +
        `${r.removed_index_only ?? 0} vectors without a snippet removed`;
      this.deps.log.info(
        { component: 'index' },
        `Vector index repaired (${fault.kind === 'files' ? 'rebuilt from the store' : 'reconciled'}): ${fault.outcome}`,
      );
      this.lastRepair = fault;
      this.fault = null;
    } catch (e) {
      fault.state = 'failed';
      fault.outcome = (e as Error).message;
      fault.message = `${fault.message}; the repair failed: ${(e as Error).message}`;
      // Left in place: /health keeps saying so, and the next watch tries again.
      this.deps.log.error({ component: 'index', err: e }, 'Repairing the vector index failed');
    }
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
    return this.pending.unsaved;
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
    const every = this.deps.saveIntervalMs ?? SAVE_INTERVAL_MS;
    if (this.saveTimer || every <= 0) return;
    this.saveTimer = setTimeout(() => this.background(this.flush(), 'save'), every);
    this.saveTimer.unref();
  }

  /**
   * Adds vectors now (searchable at once); the save, and the rows' indexed mark, follow within
   * SAVE_INTERVAL_MS or at the next flush.
   */
  addDeferred(entries: ReadonlyArray<{ key: number; vector: Float32Array }>): void {
    if (entries.length === 0) return;
    const keys = entries.map((e) => e.key);
    const fresh = this.pending.notHeld(keys);
    this.background(this.index.add(entries), 'add');
    this.pending.added(keys, fresh);
    for (const k of keys) if (k >= this.keyEnd) this.keyEnd = k + 1;
    if (this.skipBits) for (const k of keys) skip(this.skipBits, k);
    if (this.follower) for (const k of keys) this.follower.added.add(k);
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
      const marking = this.pending.startSave();
      const index = this.index;
      // Deletions recorded so far had their vectors removed before: this save holds that.
      // Not those recorded before the index was opened, until reconcile removed them.
      const deletionsSaved = this.deletionsApplied ? this.deps.snippets.lastVectorDeletion() : 0;
      try {
        if (index.isDirty) await index.save();
      } catch (e) {
        // Not saved: those rows stay pending and wait for the next save.
        this.pending.saveFailed();
        this.deps.log.error({ component: 'index', err: e }, 'Vector index save failed');
        this.scheduleSave();
        // The files may be gone or the folder unwritable: the watch looks now, not later.
        setImmediate(() => void this.watch());
        throw e;
      }
      if (index !== this.index) {
        this.pending.endSave();
        return; // reloaded meanwhile: those rows belong to the old one
      }
      const at = new Date().toISOString();
      // Keys the index changes from here on (removed, or added again with a vector this save
      // does not hold) are set in it and not marked, even in a batch already sent.
      this.skipBits = skipBitmap(this.keyEnd);
      try {
        for (let i = 0; i < marking.length; i += MARK_BATCH_KEYS) {
          if (index !== this.index) break;
          // Picked per batch, in slices between turns of the loop (a million keys at 1M).
          const keys = await pickKeys(marking, i, i + MARK_BATCH_KEYS, (k) => index.has(k));
          if (keys.length)
            await this.markIndexed({
              dbFile: this.deps.snippets.file,
              keys,
              at,
              skip: this.skipBits,
            });
          this.pending.markedTo(i + MARK_BATCH_KEYS);
        }
      } catch (e) {
        // Saved but not marked: the rows stay pending and the next flush marks them (its save
        // has nothing to write).
        this.pending.saveFailed();
        this.deps.log.error(
          { component: 'index' },
          `Marking saved rows indexed failed: ${(e as Error).message}`,
        );
        this.scheduleSave();
        throw e;
      } finally {
        this.skipBits = null;
        this.pending.endSave();
      }
      if (deletionsSaved) this.deps.snippets.forgetVectorDeletions(deletionsSaved);
    };
    const next = this.saving
      .catch(() => undefined)
      .then(async () => {
        this.flushing = true;
        try {
          await run();
        } finally {
          this.flushing = false;
        }
      });
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
    this.pending.removed(removed);
    if (this.skipBits) for (const k of removed) skip(this.skipBits, k);
    if (this.follower) for (const k of removed) this.follower.removed.add(k);
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

  /**
   * Saves what is unsaved and stops the index's thread; `settle` (a measure reading the index)
   * is waited for once no repair runs.
   */
  async close(settle?: () => Promise<void>): Promise<void> {
    this.closed = true;
    if (this.watchTimer) clearInterval(this.watchTimer);
    await this.repairing?.catch(() => undefined);
    await settle?.();
    await this.reindexing.catch(() => undefined);
    await this.flush();
    await this.markPool?.destroy();
    this.markPool = null;
    await this.index.close();
  }

  private markIndexed(task: MarkTask): Promise<MarkResult> {
    if (this.deps.markIndexed) return this.deps.markIndexed(task);
    this.markPool ??= startPool('../store/mark-indexed.worker');
    return this.markPool.run(task) as Promise<MarkResult>;
  }

  async search(
    vector: Float32Array,
    k: number,
    cacheKey: string,
    filter?: (key: number) => boolean,
    breadth = 0,
  ): Promise<{
    hits: VectorHit[];
    latencyMs: number;
    cached: boolean;
  }> {
    const started = performance.now();
    const key = `${k}\u0000${breadth}\u0000${cacheKey}`;
    let hits = this.cache.get(key);
    const cached = hits !== undefined;
    this.deps.meter?.lookup(cached);
    if (hits) {
      // Refresh its place: the map's order is the LRU order.
      this.cache.delete(key);
      this.cache.set(key, hits);
    } else {
      hits = await this.searchIndex(vector, k, filter, key, breadth);
    }
    const latencyMs = performance.now() - started;
    this.deps.meter?.answered(latencyMs);
    return { hits, latencyMs, cached };
  }

  /**
   * A sparse query's best rows by the index thread's scan of its columns (IndexClient
   * .scanColumns): null when the columns cannot answer yet (a loaded index's rows are still
   * being read into them) or the query is not of the index's space.
   */
  async scanColumns(
    vector: Float32Array,
    want: number,
    filter?: (key: number) => boolean,
  ): Promise<VectorHit[] | null> {
    const index = this.index;
    const query = (await this.deps.embedder.inCurrentSpace?.(vector)) ?? vector;
    if (index !== this.index || query.length !== index.dimension) return null;
    try {
      return await index.scanColumns(query, want, filter);
    } catch (e) {
      if (index === this.index) throw e;
      return null; // replaced meanwhile (a space switch): the graph answers this one
    }
  }

  /**
   * Asks the open index, and caches what it answers. A query embedded before a space switch is
   * embedded again in the new space; one the index was replaced under (the switch) is asked
   * again of the new index; a stored vector of another space finds nothing.
   */
  private async searchIndex(
    vector: Float32Array,
    k: number,
    filter: ((key: number) => boolean) | undefined,
    cacheKey?: string,
    breadth = 0,
  ): Promise<VectorHit[]> {
    const index = this.index;
    const query = (await this.deps.embedder.inCurrentSpace?.(vector)) ?? vector;
    if (index !== this.index) return this.searchIndex(vector, k, filter, cacheKey, breadth);
    if (query.length !== index.dimension) return [];
    let hits: VectorHit[];
    const rerank = index.options.quantization === 'i8';
    try {
      hits = await index.search(query, rerank ? rerankDepth(k) : k, filter, breadth);
    } catch (e) {
      if (index === this.index) throw e;
      return this.searchIndex(vector, k, filter, cacheKey, breadth);
    }
    if (rerank) hits = this.exactOrder(hits, query).slice(0, k);
    // An answer of a replaced index is right for this search, not for the cache of the new one.
    if (cacheKey !== undefined && index === this.index) {
      this.cache.set(cacheKey, hits);
      if (this.cache.size > CACHE_SIZE) this.cache.delete(this.cache.keys().next().value!);
    }
    return hits;
  }

  /**
   * The hits by their exact cosine to the query, from their stored vectors of the current
   * embedder (an i8 graph's similarities are rounded, its order with them); a hit without one
   * (a space switch under way) keeps the graph's. Ties by key, as the graph's answers.
   */
  private exactOrder(hits: VectorHit[], query: Float32Array): VectorHit[] {
    const cosines = storedCosines(
      this.deps.snippets,
      hits.map((h) => h.key),
      query,
      this.deps.embedder.id,
    );
    return hits
      .map((h) => ({ key: h.key, similarity: cosines.get(h.key) ?? h.similarity }))
      .sort((a, b) => b.similarity - a.similarity || a.key - b.key);
  }

  /**
   * Makes the index agree with the store: rows marked indexed whose vector is missing go back
   * to pending, and every pending row is indexed from its stored embedding (re-embedded when it
   * has none or it came from another embedder). The vectors of snippets deleted after the last
   * save (a crash came before the next) are removed; other vectors without a row are reported,
   * not removed.
   */
  async reconcile(
    opts: { removeIndexOnly?: boolean } = {},
  ): Promise<ReconcileReport & { removed_index_only?: number }> {
    this.reconciling++;
    try {
      return await this.reconcileNow(opts);
    } finally {
      this.reconciling--;
      if (!this.reconciledOnce) {
        this.reconciledOnce = true;
        // Right after the start's reconcile, which reports vectors without a row but keeps
        // them: many of them (an older store under a newer index) start a repair at once.
        setImmediate(() => void this.watch());
      }
    }
  }

  private async reconcileNow(opts: {
    removeIndexOnly?: boolean;
  }): Promise<ReconcileReport & { removed_index_only?: number }> {
    await this.ready;
    // Plain id lists into bitsets: no per-row object, even at 1M rows.
    const rows = KeySet.from(this.deps.snippets.allIds());
    // Same tick as the row list: a row stored under a reused id keeps its vector.
    const deleted = this.deps.snippets
      .vectorDeletions()
      .filter((k) => !rows.has(k) && this.index.has(k));
    this.deletionsApplied = true;
    if (deleted.length) {
      this.removeAndSave(deleted);
      this.deps.log.warn(
        { component: 'index' },
        `${deleted.length} vectors of deleted snippets were still in the saved index: removed`,
      );
    }
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
    if (reindexed || deleted.length) await this.flush();
    const orphans: number[] = [];
    // Rows stored since the list above was read are not orphans.
    const now = opts.removeIndexOnly ? KeySet.from(this.deps.snippets.allIds()) : rows;
    for (const k of this.index.keyArray()) if (!now.has(k)) orphans.push(k);
    let removed = 0;
    if (orphans.length && opts.removeIndexOnly) {
      // A repair: vectors without a row (an older store under a newer index) only crowd out
      // the answers of a search, which drops them.
      removed = this.removeAndSave(orphans).length;
      await this.flush();
      this.deps.log.warn(
        { component: 'index' },
        `${removed} vectors in the index had no snippet (index_only): removed`,
      );
    } else if (orphans.length) {
      this.deps.log.warn(
        { component: 'index' },
        `${orphans.length} vectors in the index have no snippet (index_only)`,
      );
    }
    return {
      total_disk: rows.size,
      total_index: this.index.size,
      marked_pending: lost.length,
      reindexed,
      index_only: orphans.length - removed,
      ...(opts.removeIndexOnly && { removed_index_only: removed }),
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
    const space = this.deps.embedder.id;
    const entries: { key: number; vector: Float32Array }[] = [];
    const toEmbed: { id: number; text: string }[] = [];
    for (const r of rows) {
      const e = stored?.get(r.id);
      if (
        e?.embedding &&
        e.embedder_id === space &&
        e.embedding.byteLength === this.dimension * 4
      ) {
        entries.push({ key: r.id, vector: blobToVector(e.embedding) });
      } else {
        toEmbed.push({ id: r.id, text: r.text });
      }
    }
    if (toEmbed.length) {
      const vectors = await this.deps.embedder.embed(toEmbed.map((t) => t.text));
      // The space switched while these were embedded: they belong to neither index. Again,
      // from the rows (the stored vectors of the old space are re-embedded too).
      if (this.deps.embedder.id !== space) return this.indexBatch(ids, reembed);
      this.deps.snippets.setEmbeddings(
        toEmbed.map((t, i) => ({
          id: t.id,
          embedding: vectorToBlob(vectors[i]!),
          embedder_id: space,
        })),
      );
      toEmbed.forEach((t, i) => entries.push({ key: t.id, vector: vectors[i]! }));
    }
    this.addDeferred(entries);
    return { indexed: entries.length, reembedded: toEmbed.length };
  }

  /**
   * Indexes these rows in the background (an analysis stored after the space it was embedded in
   * was left: its rows are re-embedded). They stay pending until then; a failure leaves them
   * to the next reconcile.
   */
  reindexLater(ids: readonly number[]): void {
    if (ids.length === 0) return;
    const list = [...ids];
    this.reindexing = this.reindexing
      .catch(() => undefined)
      .then(async () => {
        for (let i = 0; i < list.length; i += REINDEX_BATCH)
          await this.indexBatch(list.slice(i, i + REINDEX_BATCH), false);
      });
    this.background(this.reindexing, 're-index');
  }

  /** Empties the index and marks every row pending (the next reconcile rebuilds it). */
  clearAll(): number {
    this.background(this.index.clear(), 'clear');
    this.pending.emptied();
    this.pending.dropUnmarked();
    this.changed();
    this.deps.onReset?.();
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
  async reopen(storage: IndexStorage, swap?: () => void): Promise<void> {
    // Wait until no save is in flight: one landing after `swap` would overwrite its files.
    await this.ready.catch(() => undefined);
    for (let s = this.saving; ; s = this.saving) {
      await s.catch(() => undefined);
      if (s === this.saving) break;
    }
    // From here to the switch, synchronous: the old index gets no call that would save.
    const building = this.follower;
    swap?.();
    // Another index went in (a restore, a storage change): a next one built from the old
    // store no longer fits. The switch's own swap ended its build before this point.
    if (this.follower === building && building) building.invalid = 'the index was replaced';
    // What the replaced index had not saved yet is dropped, not saved over the new files.
    if (this.saveTimer) clearTimeout(this.saveTimer);
    this.saveTimer = null;
    this.pending.dropUnmarked();
    const old = this.index;
    this.quantization = storage;
    this.index = this.openIndex();
    this.pending.recount();
    this.deletionsApplied = false;
    this.state = readState(this.stateFile);
    this.cache.clear();
    this.deps.onReset?.();
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
    const started = performance.now();
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
    let complete = false;
    while (!opts.shouldStop?.()) {
      const ids = this.deps.snippets.pendingIdsAfter(after, REINDEX_BATCH);
      if (ids.length === 0) {
        complete = true;
        break;
      }
      after = ids[ids.length - 1]!;
      const batch = await this.indexBatch(ids, opts.reembed);
      indexed += batch.indexed;
      reembedded += batch.reembedded;
      opts.onProgress?.(indexed, Math.max(total, indexed));
    }
    await this.flush();
    // Kept in state.json, so the database panel still shows it after a restart.
    if (complete)
      this.writeState({
        ...this.state,
        last_build_s: round((performance.now() - started) / 1000, 3),
      });
    return { total, indexed, reembedded, storage };
  }

  /** Seconds the last complete rebuild() took (saving included); null when none was measured. */
  get lastBuildSeconds(): number | null {
    return this.state.last_build_s ?? null;
  }

  markOptimized(): void {
    this.writeState({ ...this.state, last_optimized: new Date().toISOString() });
  }

  private writeState(state: IndexState): void {
    this.state = state;
    writeFileAtomic(this.stateFile, JSON.stringify(state));
  }

  get indexType(): string {
    const rerank = this.quantization === 'i8' ? ', exact rerank' : '';
    return `HNSW (usearch, cosine, ${this.quantization}, M=${HNSW.connectivity}, ef=${EXPANSION_SEARCH[this.quantization]}${rerank})`;
  }

  diskBytes(): number {
    return this.index.diskBytes();
  }

  get dir(): string {
    return this.deps.dir;
  }

  get embedderId(): string {
    return this.deps.embedder.id;
  }

  get lastOptimized(): string | null {
    return this.state.last_optimized;
  }

  get cacheSize(): number {
    return this.cache.size;
  }

  keyArray(): Float64Array {
    return this.index.keyArray();
  }

  /** The index's own answer to a query vector, as searches get it (an i8 graph's reranked). */
  rawSearch(): (query: Float32Array, k: number) => Promise<Float64Array> {
    const index = this.index;
    if (index.options.quantization !== 'i8')
      return async (q, k) => (await index.searchRaw(q, k)).keys;
    return async (q, k) => {
      const { keys, similarities } = await index.searchRaw(q, rerankDepth(k));
      const hits = Array.from(keys, (key, i) => ({ key, similarity: similarities[i]! }));
      return Float64Array.from(
        this.exactOrder(hits, q)
          .slice(0, k)
          .map((h) => h.key),
      );
    };
  }

  get lastSavedAt(): string | null {
    return this.index.lastSavedAt;
  }
}

/** A fault the watch found while running, and how its repair went. */
interface IndexFault {
  kind: 'files' | 'agreement';
  path: string;
  message: string;
  since: string;
  state: 'running' | 'done' | 'failed';
  outcome?: string;
}

function describeFault(f: IndexFault): Record<string, unknown> {
  return {
    cause: f.kind === 'files' ? 'index_files' : 'store_index_disagreement',
    action: f.kind === 'files' ? 'rebuild from the store' : 'reconcile',
    path: f.path,
    state: f.state,
    since: f.since,
    ...(f.outcome && { outcome: f.outcome }),
  };
}

/** state.json: when the index was last optimized, and the space its vectors are in. */
interface IndexState {
  last_optimized: string | null;
  /** Absent in indexes saved before embedding spaces: the built-in one's. */
  embedder?: string;
  /** Seconds the last complete rebuild took. */
  last_build_s?: number;
}

function readState(file: string): IndexState {
  try {
    const s = JSON.parse(fs.readFileSync(file, 'utf8')) as Partial<IndexState>;
    return {
      last_optimized: s.last_optimized ?? null,
      ...(typeof s.embedder === 'string' && { embedder: s.embedder }),
      ...(typeof s.last_build_s === 'number' && { last_build_s: s.last_build_s }),
    };
  } catch {
    return { last_optimized: null };
  }
}
