import fs from 'node:fs';
import path from 'node:path';
import usearch from 'usearch';
import { fsyncDir, fsyncFile, writeFileAtomic } from './atomic-file.js';

const { Index, MetricKind, ScalarKind } = usearch;
type UIndex = InstanceType<typeof Index>;

export interface VectorHit {
  key: number;
  /** Cosine similarity, 1 = same direction. */
  similarity: number;
}

interface Manifest {
  format: 1;
  generation: number;
  dimension: number;
  count: number;
  saved_at: string;
}

const HNSW = { connectivity: 16, expansion_add: 128, expansion_search: 64 };

/**
 * HNSW (usearch, cosine) keyed by the snippet's vector key. usearch cannot list its keys, so
 * the keys are kept beside it. A save writes a new generation (index + keys) and then swaps the
 * manifest that names it, atomically: a crash mid-save leaves the previous generation in use.
 */
export class VectorIndex {
  private index: UIndex;
  private readonly keySet = new Set<number>();
  private generation = 0;
  private dirty = false;
  lastSavedAt: string | null = null;

  private constructor(
    readonly dir: string,
    readonly dimension: number,
  ) {
    this.index = VectorIndex.create(dimension);
  }

  private static create(dimension: number): UIndex {
    return new Index({
      dimensions: dimension,
      metric: MetricKind.Cos,
      quantization: ScalarKind.F32,
      multi: false,
      ...HNSW,
    });
  }

  /**
   * Loads the saved index from `dir`, or starts empty. `reset` says why a saved index could not
   * be used (dimension changed, files missing or damaged): the caller rebuilds from the store.
   */
  static open(dir: string, dimension: number): { index: VectorIndex; reset: string | null } {
    fs.mkdirSync(dir, { recursive: true });
    const vi = new VectorIndex(dir, dimension);
    const manifestFile = path.join(dir, 'manifest.json');
    if (!fs.existsSync(manifestFile)) return { index: vi, reset: null };
    try {
      const m = JSON.parse(fs.readFileSync(manifestFile, 'utf8')) as Manifest;
      vi.generation = m.generation;
      if (m.dimension !== dimension) {
        return { index: vi, reset: `dimension changed from ${m.dimension} to ${dimension}` };
      }
      const keys = readKeys(vi.file('keys', m.generation));
      if (keys.length !== m.count)
        throw new Error(`keys file holds ${keys.length}, manifest says ${m.count}`);
      if (m.count > 0) vi.index.load(vi.file('usearch', m.generation));
      if (vi.index.size() !== m.count) {
        throw new Error(`index holds ${vi.index.size()} vectors, manifest says ${m.count}`);
      }
      for (const k of keys) vi.keySet.add(k);
      vi.lastSavedAt = m.saved_at;
      return { index: vi, reset: null };
    } catch (e) {
      const fresh = new VectorIndex(dir, dimension);
      fresh.generation = vi.generation;
      return { index: fresh, reset: `saved index unreadable: ${(e as Error).message}` };
    }
  }

  private file(kind: 'usearch' | 'keys', generation: number): string {
    return path.join(this.dir, `index-${generation}.${kind}`);
  }

  get size(): number {
    return this.keySet.size;
  }

  has(key: number): boolean {
    return this.keySet.has(key);
  }

  keys(): number[] {
    return [...this.keySet];
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
    const replaced = entries.filter((e) => this.keySet.has(e.key)).map((e) => BigInt(e.key));
    if (replaced.length) this.index.remove(replaced);
    const keys = new BigUint64Array(entries.map((e) => BigInt(e.key)));
    const flat = new Float32Array(entries.length * this.dimension);
    entries.forEach((e, i) => flat.set(e.vector, i * this.dimension));
    this.index.add(keys, flat);
    for (const e of entries) this.keySet.add(e.key);
    this.dirty = true;
  }

  /** Removes the keys present; answers the ones that were there. */
  remove(keys: readonly number[]): number[] {
    const present = keys.filter((k) => this.keySet.has(k));
    if (present.length === 0) return [];
    this.index.remove(present.map((k) => BigInt(k)));
    for (const k of present) this.keySet.delete(k);
    this.dirty = true;
    return present;
  }

  /**
   * Nearest neighbours by cosine. With a filter, asks HNSW for more candidates until k pass it
   * or the whole index was considered.
   */
  search(vector: Float32Array, k: number, filter?: (key: number) => boolean): VectorHit[] {
    const n = this.keySet.size;
    if (n === 0 || k <= 0) return [];
    let want = filter ? Math.min(n, k * 4) : Math.min(n, k);
    for (;;) {
      const m = this.index.search(vector, want, 0);
      const hits: VectorHit[] = [];
      for (let i = 0; i < m.keys.length; i++) {
        const key = Number(m.keys[i]);
        if (filter && !filter(key)) continue;
        hits.push({ key, similarity: 1 - m.distances[i]! });
        if (hits.length === k) return hits;
      }
      if (want >= n) return hits;
      want = Math.min(n, want * 4);
    }
  }

  /** Empties the index (a rebuild follows). */
  clear(): void {
    this.index = VectorIndex.create(this.dimension);
    this.keySet.clear();
    this.dirty = true;
  }

  get isDirty(): boolean {
    return this.dirty;
  }

  /** Writes a new generation, then swaps the manifest; old generations are removed after. */
  save(): void {
    const gen = this.generation + 1;
    const keys = this.keys();
    if (keys.length > 0) {
      const indexFile = this.file('usearch', gen);
      this.index.save(indexFile);
      fsyncFile(indexFile);
    }
    writeFileAtomic(this.file('keys', gen), new Uint8Array(new Float64Array(keys).buffer));
    const savedAt = new Date().toISOString();
    const manifest: Manifest = {
      format: 1,
      generation: gen,
      dimension: this.dimension,
      count: keys.length,
      saved_at: savedAt,
    };
    writeFileAtomic(path.join(this.dir, 'manifest.json'), JSON.stringify(manifest, null, 2));
    this.generation = gen;
    this.dirty = false;
    this.lastSavedAt = savedAt;
    for (const f of fs.readdirSync(this.dir)) {
      const g = /^index-(\d+)\.(usearch|keys)$/.exec(f);
      if (g && Number(g[1]) !== gen) fs.rmSync(path.join(this.dir, f), { force: true });
    }
    fsyncDir(this.dir);
  }

  /** Bytes on disk of the current generation. */
  diskBytes(): number {
    let total = 0;
    for (const kind of ['usearch', 'keys'] as const) {
      total += fs.statSync(this.file(kind, this.generation), { throwIfNoEntry: false })?.size ?? 0;
    }
    return total;
  }
}

function readKeys(file: string): number[] {
  const buf = fs.readFileSync(file);
  if (buf.byteLength % 8 !== 0) throw new Error('keys file is truncated');
  const arr = new Float64Array(buf.buffer.slice(buf.byteOffset, buf.byteOffset + buf.byteLength));
  return Array.from(arr);
}
