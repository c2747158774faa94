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
import type { EmbeddingSpace } from '../engine/engine.js';
import { Conflict } from '../lib/errors.js';
import { RateWindow } from '../lib/rate-window.js';
import type { Logger } from '../logging.js';
import type { EventBus } from '../lib/event-bus.js';
import type { Piscina } from 'piscina';
import {
  pickKeys,
  skip,
  skipBitmap,
  type MarkResult,
  type MarkTask,
} from '../store/mark-indexed.js';
import type { SnippetRepository } from '../store/snippet.repository.js';
import { fsyncDir, writeFileAtomic } from '../vector/atomic-file.js';
import { IndexClient } from '../vector/index-client.js';
import {
  checkSavedFiles,
  INDEX_MANIFEST,
  listDamaged,
  moveAside,
  prepareInstall,
  type DamagedCopy,
  readIndexManifest,
  removeGenerations,
} from '../vector/index-files.js';
import { KeySet } from '../vector/key-set.js';
import { exactNeighboursOffThread, recallAgainst, startPool } from '../vector/recall.js';
import { HNSW, type IndexOptions, type VectorHit } from '../vector/vector-index.js';

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

/** A space switch builds the next index here, beside the live one (index-files' layout). */
export const NEXT_INDEX_DIR = 'next';
/**
 * Written just before the next index's manifest goes in, removed once the rows hold the new
 * vectors: found at start, it means the switch had committed, and recoverSpaceSwitch finishes it.
 */
export const SWITCH_JOURNAL = 'switch.json';
/** The next space's vectors, kept aside for the rows: `[id f64][dimension × f32]` records. */
const SIDE_VECTORS = 'embeddings.f32';
/** Catch-up rounds for rows stored while the next index was built; later ones take the pending path. */
const CATCH_UP_ROUNDS = 5;

/** What a space switch needs of the engine. */
export interface SpaceSwitcher {
  /** Embeds in `space`, which need not be the current one. */
  embedWith(space: EmbeddingSpace, texts: string[]): Promise<Float32Array[]>;
  /**
   * Makes `space` the one every later task embeds in, and records it for the next start.
   * Called inside the swap, synchronously; throws only when recording failed (the engine has
   * switched: the journal left in place makes the next start record it).
   */
  activate(space: EmbeddingSpace): void;
}

export type SwitchOutcome =
  { status: 'switched'; total: number; embedded: number; late: number } | { status: 'stopped' };

interface SideBuild {
  space: EmbeddingSpace;
  /** Keys the live index got or lost since the build began: the catch-up follows them. */
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
  /**
   * Whether the vector_deletions recorded before the index was opened were applied (reconcile
   * removes their vectors): until then a save does not hold them, and must not forget them.
   */
  private deletionsApplied = false;
  /** The keys of the save in progress, marked indexed when it is on disk. */
  private marking: number[] = [];
  /** How many of `marking` are marked already (their rows are no longer pending). */
  private markedUpTo = 0;
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
  private hits = 0;
  private misses = 0;
  private readonly latencies: number[] = [];
  private queries = 0;
  /** Every search answered (cached ones included), for the database panel and the header. */
  private readonly searchRate = new RateWindow(60);
  private accuracy: {
    value: number;
    sample: number;
    at: number;
    size: number;
    storage: IndexStorage;
  } | null = null;
  private measuring: Promise<{ value: number; sample: number } | null> | null = null;
  private state: IndexState;
  /** The next index a space switch is building, while it does. */
  private building: SideBuild | null = null;
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

  constructor(
    private readonly deps: {
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
      /** The engine's side of a space switch; without it switchSpace refuses. */
      spaces?: SpaceSwitcher;
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
    },
  ) {
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
    const { damaged } = opened;
    let reset = opened.reset;
    const space = this.deps.embedder.id;
    // An index saved in another space (a backup of before a switch, restored) has the same
    // dimension at times: its vectors would answer nonsense, so it is rebuilt as well.
    if (!reset && this.state.embedder && this.state.embedder !== space && this.index.size > 0) {
      reset = `it holds ${this.state.embedder} vectors, the active embedder is ${space}`;
      await this.index.clear();
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
    if (this.closed || this.repairing || this.flushing || this.building) return;
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
    let n = 0;
    for (const k of this.unmarked) if (this.index.has(k)) n++;
    for (let i = this.markedUpTo; i < this.marking.length; i++)
      if (this.index.has(this.marking[i]!)) n++;
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
    this.background(this.index.add(entries), 'add');
    for (const e of entries) {
      this.unmarked.push(e.key);
      if (e.key >= this.keyEnd) this.keyEnd = e.key + 1;
    }
    if (this.skipBits) for (const e of entries) skip(this.skipBits, e.key);
    if (this.building) for (const e of entries) this.building.added.add(e.key);
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
      this.markedUpTo = 0;
      const index = this.index;
      // Deletions recorded so far had their vectors removed before: this save holds that.
      // Not those recorded before the index was opened, until reconcile removed them.
      const deletionsSaved = this.deletionsApplied ? this.deps.snippets.lastVectorDeletion() : 0;
      try {
        if (index.isDirty) await index.save();
      } catch (e) {
        // Not saved: those rows stay pending and wait for the next save.
        this.marking = [];
        // Not unshift(...marking): a spread of a million keys overflows the call's arguments.
        this.unmarked = marking.concat(this.unmarked);
        this.deps.log.error({ component: 'index', err: e }, 'Vector index save failed');
        this.scheduleSave();
        // The files may be gone or the folder unwritable: the watch looks now, not later.
        setImmediate(() => void this.watch());
        throw e;
      }
      if (index !== this.index) {
        this.marking = [];
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
          this.markedUpTo = i + MARK_BATCH_KEYS;
        }
      } catch (e) {
        // Saved but not marked: the rows stay pending and the next flush marks them (its save
        // has nothing to write).
        this.unmarked = marking.slice(this.markedUpTo).concat(this.unmarked);
        this.deps.log.error(
          { component: 'index' },
          `Marking saved rows indexed failed: ${(e as Error).message}`,
        );
        this.scheduleSave();
        throw e;
      } finally {
        this.skipBits = null;
        this.marking = [];
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
    if (this.skipBits) for (const k of removed) skip(this.skipBits, k);
    if (this.building) for (const k of removed) this.building.removed.add(k);
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
    this.closed = true;
    if (this.watchTimer) clearInterval(this.watchTimer);
    await this.repairing?.catch(() => undefined);
    if (this.measuring) await this.measuring.catch(() => null);
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
      hits = await this.searchIndex(vector, k, filter, key);
    }
    const latencyMs = performance.now() - started;
    this.queries++;
    this.searchRate.add();
    this.latencies.push(latencyMs);
    if (this.latencies.length > LATENCY_WINDOW) this.latencies.shift();
    return { hits, latencyMs, cached };
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
  ): Promise<VectorHit[]> {
    const index = this.index;
    const query = (await this.deps.embedder.inCurrentSpace?.(vector)) ?? vector;
    if (index !== this.index) return this.searchIndex(vector, k, filter, cacheKey);
    if (query.length !== index.dimension) return [];
    let hits: VectorHit[];
    try {
      hits = await index.search(query, k, filter);
    } catch (e) {
      if (index === this.index) throw e;
      return this.searchIndex(vector, k, filter, cacheKey);
    }
    // An answer of a replaced index is right for this search, not for the cache of the new one.
    if (cacheKey !== undefined && index === this.index) {
      this.cache.set(cacheKey, hits);
      if (this.cache.size > CACHE_SIZE) this.cache.delete(this.cache.keys().next().value!);
    }
    return hits;
  }

  /** Similarity searches answered per second over the last minute. */
  searchesPerSecond(): number {
    return this.searchRate.perSecond();
  }

  /** Records the full latency of a search (embedding included), for the stats. */
  recordLatency(ms: number): void {
    if (this.latencies.length) this.latencies[this.latencies.length - 1] = ms;
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
    const building = this.building;
    swap?.();
    // Another index went in (a restore, a storage change): a next one built from the old
    // store no longer fits. The switch's own swap ended its build before this point.
    if (this.building === building && building) building.invalid = 'the index was replaced';
    // What the replaced index had not saved yet is dropped, not saved over the new files.
    if (this.saveTimer) clearTimeout(this.saveTimer);
    this.saveTimer = null;
    this.unmarked = [];
    const old = this.index;
    this.quantization = storage;
    this.index = this.openIndex();
    this.deletionsApplied = false;
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

  /** The space a switch is building the next index in, while it does. */
  get switchingTo(): EmbeddingSpace | null {
    return this.building?.space ?? null;
  }

  /**
   * Switches the index to another embedding space while search keeps answering from this one:
   * every row is embedded in `space` into a next index built beside the live one (next/), with
   * its vectors kept aside in a file, not on the rows the live index is re-added from; rows
   * stored meanwhile are caught up; then, with no save in flight, the next index's files go in,
   * the engine switches space (`spaces.activate`) and the index re-opens with the new
   * dimension, all in one synchronous step. The rows get their new vectors after. Rows stored
   * after the last catch-up go back to pending and are re-embedded by the usual path.
   *
   * Stopped, failed or overtaken by a restore before the swap: the live index and space are
   * untouched and next/ is removed. A crash before the swap leaves next/ to recoverSpaceSwitch,
   * which removes it; from the journal written just before the swap on, it finishes the switch.
   */
  async switchSpace(
    space: EmbeddingSpace,
    opts: {
      onProgress?: (done: number, total: number) => void;
      shouldStop?: () => boolean;
    } = {},
  ): Promise<SwitchOutcome> {
    const spaces = this.deps.spaces;
    if (!spaces) throw new Error('This index cannot switch embedding spaces');
    await this.ready;
    if (this.building)
      throw new Conflict(`The index is already switching to ${this.building.space.id}`);
    if (fs.existsSync(path.join(this.deps.dir, SWITCH_JOURNAL)))
      throw new Conflict('The last embedding switch is finished at the next start: restart first');
    const build: SideBuild = { space, added: new Set(), removed: new Set(), invalid: null };
    this.building = build;
    const nextDir = path.join(this.deps.dir, NEXT_INDEX_DIR);
    const storage = this.quantization;
    let side: IndexClient | null = null;
    let vectors: SideVectors | null = null;
    let swapped = false;
    try {
      fs.rmSync(nextDir, { recursive: true, force: true });
      fs.mkdirSync(nextDir, { recursive: true });
      side = new IndexClient(nextDir, space.dimension, { quantization: storage });
      await side.ready;
      vectors = new SideVectors(path.join(nextDir, SIDE_VECTORS), space.dimension);
      const into = side;
      const out = vectors;
      const embedRows = async (ids: readonly number[]): Promise<number> => {
        const rows = this.deps.snippets.findByIds(ids);
        if (rows.length === 0) return 0;
        const made = await spaces.embedWith(
          space,
          rows.map((r) => r.text),
        );
        const entries = rows.map((r, i) => ({ key: r.id, vector: made[i]! }));
        await into.add(entries);
        out.append(entries);
        return rows.length;
      };
      const stopped = () => build.invalid !== null || (opts.shouldStop?.() ?? false);

      const ids = this.deps.snippets.allIds();
      let done = 0;
      let embedded = 0;
      opts.onProgress?.(0, ids.length);
      for (let i = 0; i < ids.length && !stopped(); i += REINDEX_BATCH) {
        const batch = ids.slice(i, i + REINDEX_BATCH);
        embedded += await embedRows(batch);
        done += batch.length;
        opts.onProgress?.(done, ids.length);
      }
      // Rows stored or deleted while the rest was embedded. A row keeps its text for life, so
      // only the ones the next index lacks (or lost and got again: an id reused) are embedded.
      for (let round = 0; round < CATCH_UP_ROUNDS && !stopped(); round++) {
        if (build.added.size === 0 && build.removed.size === 0) break;
        const removed = new Set(build.removed);
        const added = [...build.added].filter((k) => removed.has(k) || !into.has(k));
        build.removed.clear();
        build.added.clear();
        const { done: removing } = into.remove([...removed]);
        await removing;
        for (let i = 0; i < added.length && !stopped(); i += REINDEX_BATCH)
          embedded += await embedRows(added.slice(i, i + REINDEX_BATCH));
      }
      if (stopped()) {
        if (build.invalid)
          throw new Conflict(`The embedding switch was overtaken: ${build.invalid}`);
        return { status: 'stopped' };
      }
      await into.save();
      await into.close();
      side = null;
      out.close();
      writeFileAtomic(
        path.join(nextDir, 'state.json'),
        JSON.stringify({ last_optimized: this.state.last_optimized, embedder: space.id }),
      );

      const journal = path.join(this.deps.dir, SWITCH_JOURNAL);
      let install!: ReturnType<typeof prepareInstall>;
      let recorded = true;
      let late: { added: number[]; removed: number[] } = { added: [], removed: [] };
      await this.reopen(storage, () => {
        if (build.invalid)
          throw new Conflict(`The embedding switch was overtaken: ${build.invalid}`);
        install = prepareInstall(nextDir, this.deps.dir);
        try {
          const entry: SwitchJournal = { to: space, from: this.deps.embedder.id };
          writeFileAtomic(journal, JSON.stringify(entry, null, 2));
          install.commit();
        } catch (e) {
          install.rollback();
          fs.rmSync(journal, { force: true });
          throw e;
        }
        // Committed: from here a crash finishes the switch at the next start.
        swapped = true;
        try {
          spaces.activate(space);
        } catch (e) {
          recorded = false;
          this.deps.log.error(
            { component: 'index', err: e },
            `Recording ${space.id} as the active embedder failed: the next start records it`,
          );
        }
        // Stored or deleted since the last catch-up: handled by the pending path below.
        late = { added: [...build.added], removed: [...build.removed] };
        this.building = null;
      });

      try {
        this.removeAndSave(late.removed);
        const lateSet = new Set(late.added);
        await applySideVectors(nextDir, space, this.deps.snippets, lateSet);
        this.markHeldRowsIndexed(lateSet);
        if (late.added.length) {
          this.deps.snippets.markPending(late.added);
          this.reindexLater(late.added);
        }
        if (recorded) fs.rmSync(journal, { force: true });
        install.cleanup();
        fs.rmSync(nextDir, { recursive: true, force: true });
      } catch (e) {
        // Switched all the same: the journal left in place makes the next start finish it.
        this.deps.log.error(
          { component: 'index', err: e },
          `Giving the rows their ${space.id} vectors failed: the next start finishes it`,
        );
      }
      this.deps.log.info(
        { component: 'index' },
        `Switched the index to ${space.id} (${space.dimension} dimensions): ${embedded} snippets embedded` +
          (late.added.length
            ? `, ${late.added.length} stored during the swap re-embedded after it`
            : ''),
      );
      return { status: 'switched', total: ids.length, embedded, late: late.added.length };
    } finally {
      if (!swapped) {
        vectors?.close();
        await side?.close().catch(() => undefined);
        fs.rmSync(nextDir, { recursive: true, force: true });
        if (this.building === build) this.building = null;
      }
    }
  }

  /**
   * Pending rows the new index holds: they were saved in it (added before the swap but not yet
   * saved by the old index, or never indexed at all), so they are indexed.
   */
  private markHeldRowsIndexed(except: ReadonlySet<number>): void {
    const at = new Date().toISOString();
    let after = 0;
    for (;;) {
      const ids = this.deps.snippets.pendingIdsAfter(after, 1_000);
      if (ids.length === 0) break;
      after = ids[ids.length - 1]!;
      const held = ids.filter((id) => !except.has(id) && this.index.has(id));
      if (held.length) this.deps.snippets.markIndexed(held, at);
    }
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

  /** The last measured recall@10 (0–1); null before a first measure and while the index is empty. */
  get lastAccuracy(): number | null {
    return this.index.size > 0 && this.accuracy ? this.accuracy.value : null;
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

const round = (n: number, d: number) => Math.round(n * 10 ** d) / 10 ** d;

// ---------------------------------------------------------------- space switch files

interface SwitchJournal {
  to: EmbeddingSpace;
  from: string;
}

/** The next space's vectors, appended as they are made: `[id f64][dimension × f32]` records. */
class SideVectors {
  private fd: number | null;
  constructor(
    readonly file: string,
    private readonly dimension: number,
  ) {
    this.fd = fs.openSync(file, 'a');
  }

  append(entries: ReadonlyArray<{ key: number; vector: Float32Array }>): void {
    const record = 8 + this.dimension * 4;
    const buf = Buffer.alloc(entries.length * record);
    entries.forEach((e, i) => {
      buf.writeDoubleLE(e.key, i * record);
      Buffer.from(e.vector.buffer, e.vector.byteOffset, e.vector.byteLength).copy(
        buf,
        i * record + 8,
      );
    });
    fs.writeSync(this.fd!, buf);
  }

  close(): void {
    if (this.fd === null) return;
    fs.fsyncSync(this.fd);
    fs.closeSync(this.fd);
    this.fd = null;
  }
}

/** Records read and written to the rows at once: ~1.5 MB at 384 dimensions. */
const APPLY_CHUNK = 1_024;

/**
 * The side file's vectors as rows for setEmbeddings, a chunk at a time, in file order (a later
 * record of an id wins), without `except`. A record cut short by a crash ends the file.
 */
function* sideVectorChunks(
  nextDir: string,
  space: EmbeddingSpace,
  except: ReadonlySet<number>,
): Generator<{ id: number; embedding: Buffer; embedder_id: string }[]> {
  const file = path.join(nextDir, SIDE_VECTORS);
  if (!fs.existsSync(file)) return;
  const bytes = space.dimension * 4;
  const record = 8 + bytes;
  const fd = fs.openSync(file, 'r');
  try {
    const buf = Buffer.alloc(APPLY_CHUNK * record);
    for (;;) {
      const n = fs.readSync(fd, buf, 0, buf.length, null);
      const whole = Math.floor(n / record);
      if (whole === 0) return;
      const rows: { id: number; embedding: Buffer; embedder_id: string }[] = [];
      for (let i = 0; i < whole; i++) {
        const id = buf.readDoubleLE(i * record);
        if (except.has(id)) continue;
        const at = i * record + 8;
        rows.push({
          id,
          embedding: Buffer.from(buf.subarray(at, at + bytes)),
          embedder_id: space.id,
        });
      }
      yield rows;
      if (whole < APPLY_CHUNK) return;
    }
  } finally {
    fs.closeSync(fd);
  }
}

/**
 * Writes the next space's vectors onto the rows (rows deleted meanwhile are skipped by
 * setEmbeddings), yielding to the event loop between chunks: searches go on meanwhile.
 */
async function applySideVectors(
  nextDir: string,
  space: EmbeddingSpace,
  snippets: SnippetRepository,
  except: ReadonlySet<number>,
): Promise<void> {
  for (const rows of sideVectorChunks(nextDir, space, except)) {
    snippets.setEmbeddings(rows);
    await new Promise((r) => setImmediate(r));
  }
}

/**
 * At start, before the index opens: finishes a space switch that committed (its journal is
 * there) or removes the leftovers of one that did not. Answers the space a finished switch
 * went to, which the caller records as the active one; null when there was none.
 *
 * A committed switch is finished forward: the manifest and state.json renames that a crash cut
 * short are done, the next space's vectors (still in next/) are written onto the rows, then
 * the older generations, next/ and the journal are removed. Before the journal, the live
 * index was never touched: next/ and an install's `.next` files are simply removed.
 */
export function recoverSpaceSwitch(deps: {
  dir: string;
  snippets: SnippetRepository;
  log: Logger;
}): EmbeddingSpace | null {
  const { dir, snippets, log } = deps;
  const nextDir = path.join(dir, NEXT_INDEX_DIR);
  const journalFile = path.join(dir, SWITCH_JOURNAL);
  let journal: SwitchJournal | null = null;
  try {
    journal = JSON.parse(fs.readFileSync(journalFile, 'utf8')) as SwitchJournal;
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'ENOENT') {
      // Written atomically: an unreadable one was never complete, so nothing was committed.
      log.warn({ component: 'index' }, `Ignoring an unreadable ${SWITCH_JOURNAL}`);
    }
  }
  if (!journal?.to?.id || !journal.to.dimension) {
    if (fs.existsSync(nextDir)) {
      for (const name of [INDEX_MANIFEST, 'state.json'])
        fs.rmSync(path.join(dir, `${name}.next`), { force: true });
      fs.rmSync(nextDir, { recursive: true, force: true });
      log.warn(
        { component: 'index' },
        'An embedding switch was interrupted before its swap: the index and embedder stay as they were',
      );
    }
    fs.rmSync(journalFile, { force: true });
    return null;
  }
  const space = journal.to;
  // prepareInstall's commit, finished: each `.next` replaces its file (the old kept aside).
  for (const name of [INDEX_MANIFEST, 'state.json']) {
    const live = path.join(dir, name);
    if (!fs.existsSync(`${live}.next`)) continue;
    if (fs.existsSync(live)) fs.renameSync(live, `${live}.replaced`);
    fs.renameSync(`${live}.next`, live);
  }
  fsyncDir(dir);
  let applied = 0;
  for (const rows of sideVectorChunks(nextDir, space, new Set())) {
    snippets.setEmbeddings(rows);
    applied += rows.length;
  }
  for (const name of [INDEX_MANIFEST, 'state.json'])
    fs.rmSync(path.join(dir, `${name}.replaced`), { force: true });
  try {
    const m = readIndexManifest(dir);
    if (m) removeGenerations(dir, m.generation, true);
  } catch {
    // A damaged manifest: the index's open moves it aside and rebuilds from the rows.
  }
  fs.rmSync(nextDir, { recursive: true, force: true });
  fs.rmSync(journalFile, { force: true });
  log.warn(
    { component: 'index' },
    `Finished the switch to ${space.id} that a stop interrupted (${applied} snippets given their new vectors)`,
  );
  return space;
}
