import fs from 'node:fs';
import path from 'node:path';
import type { IndexStorage } from '@adam/contracts';
import usearch from 'usearch';
import { fsyncDir, fsyncFile, writeFileAtomic } from './atomic-file.js';
import {
  checkSaved,
  DamagedIndex,
  factsOf,
  INDEX_MANIFEST,
  indexFileName,
  moveAside,
  readIndexManifest,
  readKeys,
  removeGenerations,
  removeLeftovers,
  savedBytes,
  SavedIndexVerifier,
  type DamagedCopy,
  type IndexFileKind,
  type IndexManifest,
} from './index-files.js';
import { KeySet } from './key-set.js';
import { freeBytes } from '../lib/free-bytes.js';

const { Index, MetricKind, ScalarKind } = usearch;
type UIndex = InstanceType<typeof Index>;

export interface VectorHit {
  key: number;
  /** Cosine similarity, 1 = same direction. */
  similarity: number;
}

export type Quantization = IndexStorage;
/** usearch's scalar kind for each storage. */
const SCALAR_KIND = {
  f32: ScalarKind.F32,
  f16: ScalarKind.F16,
  bf16: ScalarKind.BF16,
  i8: ScalarKind.I8,
} as const;

/**
 * HNSW settings, tuned at 1M × 384 built-in vectors (bench/index-1m.bench.ts, recall@10 against
 * exact search, one thread): M=16/add 128 reached 0.78 at ef 64 and 0.91 at ef 256; M=32/add 200
 * reaches 0.87 at ef 64, 0.93 at ef 128 and 0.95 at ef 192 (f16: ~570 queries/s on this 2-core
 * VM, exact scan 6.3). The built-in vectors are hard for a graph (their hashed n-gram part
 * spreads neighbours evenly: the 10 nearest lie within 0.03 of cosine), so recall is bought with
 * expansion. A graph over a 96- or 128-d projection with an exact rerank was measured and kept no
 * recall for its speed (bench notes of issue 8).
 */
export const HNSW = { connectivity: 32, expansion_add: 200, expansion_search: 192 };
/**
 * The search expansion of each storage: about the least that reaches recall@10 0.95 on sentences
 * at 1M (bench/index-1m). bf16's graph, built from its own rounding, walks better than f16's at
 * every ef (2026-11-29, 1,000 unseen sentences against the exact scan: ef 144 0.943, 152 0.947,
 * 160 0.950, 168 0.954, 176 0.955; f16's 0.928 at 128 and 0.954 at 192 on 200), so it searches
 * at 176: ~900 queries/s a thread where 192 gave ~800.
 */
export const EXPANSION_SEARCH: Record<Quantization, number> = {
  f32: HNSW.expansion_search,
  f16: HNSW.expansion_search,
  bf16: 176,
  i8: HNSW.expansion_search,
};
/**
 * An i8 graph walks faster (a quarter of f32's bytes a distance) but ranks by rounded cosines:
 * the live index asks it for rerankDepth(k) and orders them by their exact cosine
 * (live-index.ts). Sentences, recall@10 / queries a second on one thread (usearch alone, the
 * rerank from memory): at 200k f16 ef 192 0.956 / 746, i8 + rerank ef 128 0.975 / ~1,500; but at
 * 1M, whose i8 graph was also built with rounded distances, i8 + rerank ef 128 0.917 / 1,040 and
 * ef 192 0.940 / 737, under f16's 0.954 at ef 192. So f16 stays the default.
 */
/** The candidates an i8 graph gives for an exact rerank: twice k, at least 20. */
export const rerankDepth = (k: number): number => Math.max(20, 2 * k);
/** Names the build settings; a bench's saved index is rebuilt when this changes. */
export const INDEX_FORMAT = `M${HNSW.connectivity}-add${HNSW.expansion_add}`;

/** usearch's settings for an index of ours: cosine, one vector a key, HNSW unless overridden. */
export function indexConfig(
  dimension: number,
  quantization: Quantization,
  options: Omit<IndexOptions, 'quantization'> = {},
) {
  return {
    dimensions: dimension,
    metric: MetricKind.Cos,
    quantization: SCALAR_KIND[quantization],
    multi: false,
    connectivity: options.connectivity ?? HNSW.connectivity,
    expansion_add: options.expansionAdd ?? HNSW.expansion_add,
    expansion_search: options.expansionSearch ?? EXPANSION_SEARCH[quantization],
  };
}

export interface IndexOptions {
  quantization?: Quantization;
  /** Search-time expansion (benches vary it on one built graph). */
  expansionSearch?: number;
  connectivity?: number;
  expansionAdd?: number;
}

/**
 * HNSW (usearch, cosine) keyed by the snippet's vector key. usearch cannot list its keys, so
 * the keys are kept beside it. A save writes a new generation (index + keys) and then swaps the
 * manifest that names it, atomically: a crash mid-save leaves the previous generation in use.
 * Synchronous: the server runs it on its own thread (index-worker.ts), benches directly.
 */
export class VectorIndex {
  private index: UIndex;
  private keySet = new KeySet();
  private generation = 0;
  private dirty = false;
  /**
   * The saved generation is memory-mapped (usearch view: searchable in a fraction of a second
   * at 1M, where a load reads the whole file); the first change loads it into memory.
   */
  private viewing = false;
  lastSavedAt: string | null = null;
  readonly quantization: Quantization;

  private constructor(
    readonly dir: string,
    readonly dimension: number,
    private readonly options: IndexOptions,
  ) {
    this.quantization = options.quantization ?? 'f32';
    this.index = this.create();
  }

  private create(): UIndex {
    return new Index(indexConfig(this.dimension, this.quantization, this.options));
  }

  /**
   * Reads the manifest and keys of the saved generation, without the index itself (the keys
   * checked, not the usearch file). Throws DamagedIndex.
   */
  static readSaved(dir: string): { manifest: IndexManifest; keys: Float64Array } | null {
    const manifest = readIndexManifest(dir);
    return manifest && { manifest, keys: readKeys(dir, manifest) };
  }

  /**
   * Loads the saved index from `dir`, or starts empty. `reset` says why a saved index could not
   * be used (dimension or storage changed, files missing or damaged): the caller rebuilds from
   * the store. A damaged one is moved aside first (`damaged`), so the next start does not
   * meet it again. `deferChecksums` (the server's load) checks sizes, keys and layout only and
   * answers a `verifier` that hashes the files afterwards, a step at a time.
   */
  static open(
    dir: string,
    dimension: number,
    options: IndexOptions = {},
    { deferChecksums = false }: { deferChecksums?: boolean } = {},
  ): {
    index: VectorIndex;
    reset: string | null;
    damaged: DamagedCopy | null;
    verifier?: SavedIndexVerifier | null;
  } {
    fs.mkdirSync(dir, { recursive: true });
    removeLeftovers(dir);
    const vi = new VectorIndex(dir, dimension, options);
    let generation = 0;
    let verifier: SavedIndexVerifier | null = null;
    try {
      const m = readIndexManifest(dir);
      if (!m) return { index: vi, reset: null, damaged: null };
      vi.generation = generation = m.generation;
      const changed =
        m.dimension !== dimension
          ? `dimension changed from ${m.dimension} to ${dimension}`
          : (m.quantization ?? 'f32') !== vi.quantization
            ? `storage changed from ${m.quantization ?? 'f32'} to ${vi.quantization}`
            : null;
      if (changed) return { index: vi, reset: changed, damaged: null };
      // Before usearch sees the file: its loader aborts the process on a damaged one. Sizes,
      // keys and layout catch a cut or misshapen file; with deferred checksums, bytes changed
      // in place are found by the verifier after the load (the damaged path then rebuilds).
      const saved = checkSaved(dir, { checksums: !deferChecksums })!;
      if (deferChecksums) verifier = new SavedIndexVerifier(dir, m);
      if (m.count > 0) {
        vi.index.view(vi.file('usearch', m.generation));
        vi.viewing = true;
      }
      if (vi.index.size() !== m.count) {
        throw new DamagedIndex(
          `usearch holds ${vi.index.size()} vectors, the index manifest says ${m.count}`,
        );
      }
      vi.keySet = KeySet.from(saved.keys);
      vi.lastSavedAt = m.saved_at;
      return { index: vi, reset: null, damaged: null, verifier };
    } catch (e) {
      verifier?.close();
      const problem = (e as Error).message;
      const fresh = new VectorIndex(dir, dimension, options);
      fresh.generation = generation;
      let damaged: DamagedCopy | null = null;
      try {
        damaged = moveAside(dir, problem);
      } catch {
        // Left in place: the next save replaces the manifest and removes the old files.
      }
      return { index: fresh, reset: `saved index damaged: ${problem}`, damaged };
    }
  }

  private file(kind: IndexFileKind, generation: number): string {
    return path.join(this.dir, indexFileName(generation, kind));
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

  /** Adds or replaces vectors. */
  add(entries: ReadonlyArray<{ key: number; vector: Float32Array }>): void {
    if (entries.length === 0) return;
    for (const e of entries) {
      if (e.vector.length !== this.dimension) {
        throw new Error(
          `vector for key ${e.key} has ${e.vector.length} dimensions, index has ${this.dimension}`,
        );
      }
    }
    const flat = new Float32Array(entries.length * this.dimension);
    entries.forEach((e, i) => flat.set(e.vector, i * this.dimension));
    this.addFlat(
      Float64Array.from(entries, (e) => e.key),
      flat,
    );
  }

  /** Adds or replaces vectors given as keys and one flat array (keys.length × dimension). */
  addFlat(keys: Float64Array, flat: Float32Array): void {
    if (keys.length === 0) return;
    if (flat.length !== keys.length * this.dimension) {
      throw new Error(
        `${flat.length / keys.length} dimensions per vector given, index has ${this.dimension}`,
      );
    }
    // A later duplicate in one batch replaces the earlier one, as two calls would.
    const last = new Map<number, number>();
    keys.forEach((k, i) => last.set(k, i));
    if (last.size !== keys.length) {
      const rows = [...last.values()];
      const f = new Float32Array(rows.length * this.dimension);
      rows.forEach((r, i) =>
        f.set(flat.subarray(r * this.dimension, (r + 1) * this.dimension), i * this.dimension),
      );
      return this.addFlat(
        Float64Array.from(rows, (r) => keys[r]!),
        f,
      );
    }
    this.writable();
    const replaced: bigint[] = [];
    for (const k of keys) if (this.keySet.has(k)) replaced.push(BigInt(k));
    if (replaced.length) this.index.remove(replaced);
    // usearch reads typed arrays from their buffer's start: pass a view that starts there.
    const data =
      flat.byteOffset === 0 && flat.length * 4 === flat.buffer.byteLength ? flat : flat.slice();
    this.index.add(
      BigUint64Array.from(keys, (k) => BigInt(k)),
      data,
    );
    for (const k of keys) this.keySet.add(k);
    this.dirty = true;
  }

  /** Removes the keys present; answers the ones that were there. */
  remove(keys: readonly number[]): number[] {
    const present = keys.filter((k) => this.keySet.has(k));
    if (present.length === 0) return [];
    this.writable();
    this.index.remove(present.map((k) => BigInt(k)));
    for (const k of present) this.keySet.delete(k);
    this.dirty = true;
    return present;
  }

  /**
   * The `want` nearest keys and their cosine similarities, best first (one thread). `breadth`
   * widens the walk: usearch keeps max(expansion, asked) candidates, so asking for `breadth`
   * walks at that expansion, of which the best `want` are answered.
   */
  searchRaw(
    vector: Float32Array,
    want: number,
    breadth = 0,
  ): { keys: Float64Array; similarities: Float32Array } {
    const n = Math.min(Math.max(want, breadth), this.keySet.size);
    if (n <= 0) return { keys: new Float64Array(0), similarities: new Float32Array(0) };
    const q =
      vector.byteOffset === 0 && vector.length * 4 === vector.buffer.byteLength
        ? vector
        : vector.slice();
    // One thread: a single query gains nothing from more, and each would be spawned per call.
    const m = this.index.search(q, n, 1);
    const keys = Float64Array.from(m.keys.subarray(0, Math.min(want, m.keys.length)), Number);
    const similarities = Float32Array.from(m.distances.subarray(0, keys.length), (d) => 1 - d);
    return { keys, similarities };
  }

  /**
   * Nearest neighbours by cosine. With a filter, asks HNSW for more candidates until k pass it
   * or the whole index was considered.
   */
  search(
    vector: Float32Array,
    k: number,
    filter?: (key: number) => boolean,
    breadth = 0,
  ): VectorHit[] {
    return searchFiltered(
      (v, want) => this.searchRaw(v, want, breadth),
      this.size,
      vector,
      k,
      filter,
    );
  }

  /** The saved file this index was opened on and still maps, if any (its vectors can be read). */
  viewedFile(): string | null {
    return this.viewing ? this.file('usearch', this.generation) : null;
  }

  /** A viewed index is read-only: the first change loads the viewed file into memory. */
  private writable(): void {
    if (!this.viewing) return;
    const loaded = this.create();
    loaded.load(this.file('usearch', this.generation));
    this.index = loaded;
    this.viewing = false;
  }

  /** Empties the index (a rebuild follows). */
  clear(): void {
    this.viewing = false;
    this.index = this.create();
    this.keySet.clear();
    this.dirty = true;
  }

  get isDirty(): boolean {
    return this.dirty;
  }

  /**
   * Writes a new generation, then swaps the manifest, which records each file's size and
   * sha256 (checked before the next load); old generations are removed after.
   */
  save(): { savedAt: string; generation: number } {
    const gen = this.generation + 1;
    try {
      return this.saveAs(gen);
    } catch (e) {
      // The manifest still names the previous generation; the new one's partial files would
      // only hold space (on a full disk, the space the next try needs).
      for (const kind of ['usearch', 'keys'] as const)
        fs.rmSync(this.file(kind, gen), { force: true });
      const free = freeBytes(this.dir);
      if (free !== null && free < DISK_FULL_BYTES)
        throw new Error(
          `Saving the vector index to ${this.dir} failed: ${DISK_FULL_MARK} (${free} bytes free); the previous save is kept`,
          { cause: e },
        );
      // usearch's own errors name no file ("No such file or directory"): say which folder.
      const message = (e as Error).message;
      if (message.includes(this.dir)) throw e;
      throw new Error(`Saving the vector index to ${this.dir} failed: ${message}`, { cause: e });
    }
  }

  private saveAs(gen: number): { savedAt: string; generation: number } {
    const keys = this.keySet.toArray();
    let usearchFacts;
    if (keys.length > 0) {
      const indexFile = this.file('usearch', gen);
      this.index.save(indexFile);
      fsyncFile(indexFile);
      usearchFacts = factsOf(indexFile);
    }
    const keysFile = this.file('keys', gen);
    writeFileAtomic(keysFile, new Uint8Array(keys.buffer));
    const savedAt = new Date().toISOString();
    const manifest: IndexManifest = {
      format: 1,
      generation: gen,
      dimension: this.dimension,
      count: keys.length,
      saved_at: savedAt,
      quantization: this.quantization,
      files: { ...(usearchFacts && { usearch: usearchFacts }), keys: factsOf(keysFile) },
    };
    writeFileAtomic(path.join(this.dir, INDEX_MANIFEST), JSON.stringify(manifest, null, 2));
    this.generation = gen;
    this.dirty = false;
    this.lastSavedAt = savedAt;
    removeGenerations(this.dir, gen);
    fsyncDir(this.dir);
    return { savedAt, generation: gen };
  }

  /** Bytes on disk of the current generation. */
  diskBytes(): number {
    return savedBytes(this.dir, this.generation);
  }
}

/**
 * In the message of a save that failed on a full disk: errors cross the index's thread as
 * name and message only, so IndexClient gives them back their ENOSPC code by it.
 */
export const DISK_FULL_MARK = 'the disk holding it is full';

/** Under this much free space a failed save is put down to a full disk. */
const DISK_FULL_BYTES = 1 << 20;

/**
 * Asks for k (4k with a filter) candidates, then 4 times more until k pass the filter or the
 * whole index was considered (IndexClient.search follows the same rule across the thread).
 */
function searchFiltered(
  raw: (v: Float32Array, want: number) => { keys: Float64Array; similarities: Float32Array },
  size: number,
  vector: Float32Array,
  k: number,
  filter?: (key: number) => boolean,
): VectorHit[] {
  if (size === 0 || k <= 0) return [];
  let want = filter ? Math.min(size, k * 4) : Math.min(size, k);
  for (;;) {
    const m = raw(vector, want);
    const hits: VectorHit[] = [];
    for (let i = 0; i < m.keys.length; i++) {
      const key = m.keys[i]!;
      if (filter && !filter(key)) continue;
      hits.push({ key, similarity: m.similarities[i]! });
      if (hits.length === k) return hits;
    }
    if (want >= size) return hits;
    want = Math.min(size, want * 4);
  }
}
