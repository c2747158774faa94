import type { ComponentHealth, IndexStats, IndexStorage, ReconcileReport } from '@adam/contracts';
import type { EmbeddingSpace } from '../engine/engine.js';
import type { VectorHit } from '../vector/vector-index.js';
import { IndexFigures, SearchCounts } from './index/index-figures.js';
import { LiveIndex, type LiveIndexDeps } from './index/live-index.js';
import { SpaceSwitch, type SpaceSwitcher, type SwitchOutcome } from './index/space-switch.js';

export { blobToVector, storedCosines, vectorToBlob } from './index/live-index.js';
export {
  NEXT_INDEX_DIR,
  recoverSpaceSwitch,
  SWITCH_JOURNAL,
  type SpaceSwitcher,
  type SwitchOutcome,
} from './index/space-switch.js';

/**
 * The vector index as the rest of the server sees it: three units put together, each with one
 * job (services/index/): the live index (search, adds and removes, the pending keys, saves and
 * the index's health), the space switch (the next index built beside it, its files and their
 * recovery) and the figures (search counts, accuracy, the stats).
 *
 * Kept as a thin facade because the units share one lifetime — built together, closed in one
 * order (repairs, then a running measure, then the last save) — and the figures and the switch
 * follow what the live index does (its searches, its resets, its keys while a build runs): the
 * wiring lives here once, not in every caller. Consumers depend on the narrow types below.
 */
export class IndexService {
  private readonly live: LiveIndex;
  private readonly counts = new SearchCounts();
  private readonly figures: IndexFigures;
  private readonly switcher: SpaceSwitch;

  constructor(
    private readonly deps: Omit<LiveIndexDeps, 'meter' | 'onReset'> & {
      /** The engine's side of a space switch; without it switchSpace refuses. */
      spaces?: SpaceSwitcher;
    },
  ) {
    const { spaces, ...liveDeps } = deps;
    this.live = new LiveIndex({
      ...liveDeps,
      meter: this.counts,
      onReset: () => this.figures.forgetAccuracy(),
    });
    this.figures = new IndexFigures({
      index: this.live,
      counts: this.counts,
      snippets: deps.snippets,
      log: deps.log,
    });
    this.switcher = new SpaceSwitch({
      live: this.live,
      snippets: deps.snippets,
      log: deps.log,
      ...(spaces && { spaces }),
    });
  }

  // ---------------------------------------------------------------- the live index

  /** Resolves when the saved index is loaded (or found unusable and the rebuild queued). */
  get ready(): Promise<void> {
    return this.live.ready;
  }

  whenVerified(): Promise<void> {
    return this.live.whenVerified();
  }

  health(): ComponentHealth {
    return this.live.health();
  }

  watch(): Promise<void> {
    return this.live.watch();
  }

  get dimension(): number {
    return this.live.dimension;
  }

  get storage(): IndexStorage {
    return this.live.storage;
  }

  get wantedStorage(): IndexStorage {
    return this.live.wantedStorage;
  }

  get size(): number {
    return this.live.size;
  }

  has(key: number): boolean {
    return this.live.has(key);
  }

  keys(): number[] {
    return this.live.keys();
  }

  get unsavedCount(): number {
    return this.live.unsavedCount;
  }

  addDeferred(entries: ReadonlyArray<{ key: number; vector: Float32Array }>): void {
    this.live.addDeferred(entries);
  }

  flush(): Promise<void> {
    return this.live.flush();
  }

  addAndSave(entries: ReadonlyArray<{ key: number; vector: Float32Array }>): void {
    this.live.addAndSave(entries);
  }

  removeAndSave(keys: readonly number[]): number[] {
    return this.live.removeAndSave(keys);
  }

  saveIfDirty(): Promise<void> {
    return this.live.saveIfDirty();
  }

  /** Saves what is unsaved and stops the index's thread (a running measure finishes first). */
  close(): Promise<void> {
    return this.live.close(() => this.figures.settle());
  }

  /** The index's top k (cached by `cacheKey`); `breadth` widens the walk (VectorIndex.searchRaw). */
  search(
    vector: Float32Array,
    k: number,
    cacheKey: string,
    filter?: (key: number) => boolean,
    breadth = 0,
  ): Promise<{ hits: VectorHit[]; latencyMs: number; cached: boolean }> {
    return this.live.search(vector, k, cacheKey, filter, breadth);
  }

  /** A sparse query's best rows by a scan of the index's columns; null when they cannot answer. */
  scanColumns(
    vector: Float32Array,
    want: number,
    filter?: (key: number) => boolean,
  ): Promise<VectorHit[] | null> {
    return this.live.scanColumns(vector, want, filter);
  }

  reconcile(
    opts: { removeIndexOnly?: boolean } = {},
  ): Promise<ReconcileReport & { removed_index_only?: number }> {
    return this.live.reconcile(opts);
  }

  indexRows(ids: readonly number[]): Promise<number> {
    return this.live.indexRows(ids);
  }

  reindexLater(ids: readonly number[]): void {
    this.live.reindexLater(ids);
  }

  clearAll(): number {
    return this.live.clearAll();
  }

  checkFiles(dir: string): Promise<string | null> {
    return this.live.checkFiles(dir);
  }

  replaceFiles<T>(swap: () => T): Promise<T> {
    return this.live.replaceFiles(swap);
  }

  rebuild(opts: {
    reembed: boolean;
    onProgress?: (done: number, total: number) => void;
    shouldStop?: () => boolean;
  }): Promise<{ total: number; indexed: number; reembedded: number; storage: IndexStorage }> {
    return this.live.rebuild(opts);
  }

  get lastBuildSeconds(): number | null {
    return this.live.lastBuildSeconds;
  }

  markOptimized(): void {
    this.live.markOptimized();
  }

  get indexType(): string {
    return this.live.indexType;
  }

  diskBytes(): number {
    return this.live.diskBytes();
  }

  get lastSavedAt(): string | null {
    return this.live.lastSavedAt;
  }

  // ---------------------------------------------------------------- the space switch

  get switchingTo(): EmbeddingSpace | null {
    return this.switcher.switchingTo;
  }

  switchSpace(
    space: EmbeddingSpace,
    opts: { onProgress?: (done: number, total: number) => void; shouldStop?: () => boolean } = {},
  ): Promise<SwitchOutcome> {
    return this.switcher.switchSpace(space, opts);
  }

  // ---------------------------------------------------------------- the figures

  /** Similarity searches answered per second over the last minute. */
  searchesPerSecond(): number {
    return this.counts.perSecond();
  }

  /** Records the full latency of a search (embedding included), for the stats. */
  recordLatency(ms: number): void {
    this.counts.recordLatency(ms);
  }

  /** Query-cache hit rate (0–1), null before the first search. */
  cacheHitRate(): number | null {
    return this.counts.hitRate();
  }

  measureAccuracy(force = false): Promise<{ value: number; sample: number } | null> {
    return this.figures.measureAccuracy(force);
  }

  stats(): Promise<IndexStats> {
    return this.figures.stats();
  }

  get lastAccuracy(): number | null {
    return this.figures.lastAccuracy;
  }
}

/** Searching the live index and reading its shape. */
export type VectorSearch = Pick<
  IndexService,
  'search' | 'scanColumns' | 'has' | 'keys' | 'size' | 'dimension'
>;
/** Putting vectors in the index and taking them out (the rows' pending marks follow). */
export type IndexWrites = Pick<
  IndexService,
  'addDeferred' | 'reindexLater' | 'flush' | 'removeAndSave' | 'indexRows' | 'dimension'
>;
/** The index's files and health: restores, checks, repairs. */
export type IndexUpkeep = Pick<
  IndexService,
  | 'ready'
  | 'health'
  | 'watch'
  | 'reconcile'
  | 'checkFiles'
  | 'replaceFiles'
  | 'saveIfDirty'
  | 'size'
  | 'storage'
  | 'wantedStorage'
  | 'lastSavedAt'
>;
/** What is measured about the index: the database panel, the metrics and the stats route. */
export type IndexMeasures = Pick<
  IndexService,
  | 'size'
  | 'dimension'
  | 'diskBytes'
  | 'indexType'
  | 'lastAccuracy'
  | 'lastBuildSeconds'
  | 'measureAccuracy'
  | 'searchesPerSecond'
  | 'recordLatency'
  | 'cacheHitRate'
  | 'stats'
>;
/** Whether a space switch is building the next index. */
export type SpaceSwitchState = Pick<IndexService, 'switchingTo'>;
