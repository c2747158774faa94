/**
 * The index's vectors once more, a column per dimension, for the queries the graph cannot walk
 * to: a query vector with few non-zero dimensions (the built-in embedder gives one to a single
 * word outside its word vectors: a number, a code, a name it does not know — only that word's
 * character grams). Such a query is far from every snippet (its best cosines are ~0.1–0.2, all
 * alike), and HNSW, which walks from neighbour to neighbour, finds about half of its exact top 10
 * (bench/vector-queries at 200k: 0.503). Its cosine with a row is a sum over those few
 * dimensions only, so a scan of those columns is exact up to the columns' rounding, at the cost
 * of a few passes over one byte a row (≈ 9 columns × 1M rows for a four-digit number).
 *
 * int8 (value × 127: a unit vector's components are within ±1), in blocks of 65,536 rows so
 * growing never copies what is there. 384 bytes a vector: 384 MB at 1M beside the graph. Rows
 * are slots; a removed key's slot is reused. The caller ranks what the scan answers by the
 * exact cosine (the scan's scores are rounded).
 */
const BLOCK_BITS = 16;
const BLOCK = 1 << BLOCK_BITS;
const SCALE = 127;
const FREE = -1;
/** Rows a scan adds up at a time (their 16 KB of scores stay in cache). */
const SCAN_ROWS = 4096;

export interface ColumnHits {
  keys: Float64Array;
  /** The rounded dot product, best first. */
  scores: Float32Array;
}

/** The dimensions a vector does not leave at zero. */
export function nonZeroDimensions(vector: Float32Array): number[] {
  const dims: number[] = [];
  for (let d = 0; d < vector.length; d++) if (vector[d] !== 0) dims.push(d);
  return dims;
}

/** A query the columns answer: at most an eighth of its dimensions non-zero (48 of 384). */
export function isSparseQuery(vector: Float32Array): boolean {
  const most = Math.floor(vector.length / 8);
  let n = 0;
  for (let d = 0; d < vector.length; d++) if (vector[d] !== 0 && ++n > most) return false;
  return n > 0;
}

/**
 * Rows `from`..`to` of `flat` into their slots' places in `block`, a column at a time: the
 * writes run along each column (the slots of a batch are mostly adjacent) while the reads step
 * through the rows at a fixed stride, which the CPU prefetches (measured: a row at a time, or
 * tiles of 64 rows, took 2–5× as long).
 */
function writeColumns(
  block: Int8Array,
  flat: Float32Array,
  slots: Int32Array,
  from: number,
  to: number,
  dim: number,
): void {
  const rows = slots.subarray(from, to).map((s) => s & (BLOCK - 1));
  const n = to - from;
  for (let d = 0; d < dim; d++) {
    const column = d * BLOCK;
    let at = from * dim + d;
    for (let r = 0; r < n; r++, at += dim) {
      // A unit vector's components stay within ±1; anything else is cut there.
      let x = flat[at]! * SCALE;
      if (!(x <= SCALE)) x = x > SCALE ? SCALE : 0;
      else if (x < -SCALE) x = -SCALE;
      // Rounded to nearest without Math.round (a call V8 keeps here, ~10× the loop's cost).
      block[column + rows[r]!] = ((x + 128.5) | 0) - 128;
    }
  }
}

export class VectorColumns {
  /** Block b holds rows b·BLOCK … as `dimension` columns of BLOCK bytes each. */
  private readonly blocks: Int8Array[] = [];
  private slotKeys = new Float64Array(0);
  private readonly slotOf = new Map<number, number>();
  private readonly free: number[] = [];
  /** Slots handed out so far (free ones among them); the scan covers these. */
  private used = 0;
  private scores = new Float32Array(0);

  constructor(readonly dimension: number) {}

  get size(): number {
    return this.slotOf.size;
  }

  has(key: number): boolean {
    return this.slotOf.has(key);
  }

  /**
   * Adds or replaces the vectors of `keys` (row i of `flat` is keys[i]'s), a column at a time
   * (writeColumns).
   */
  add(keys: ArrayLike<number>, flat: Float32Array): void {
    const dim = this.dimension;
    const slots = new Int32Array(keys.length);
    for (let i = 0; i < keys.length; i++) slots[i] = this.slotFor(keys[i]!);
    for (let i = 0; i < keys.length;) {
      // A run of rows in one block.
      const b = slots[i]! >>> BLOCK_BITS;
      let end = i + 1;
      while (end < keys.length && slots[end]! >>> BLOCK_BITS === b) end++;
      writeColumns(this.blocks[b]!, flat, slots, i, end, dim);
      i = end;
    }
  }

  /** The slot of `key`: its own, else a freed one, else a new one. */
  private slotFor(key: number): number {
    let slot = this.slotOf.get(key);
    if (slot === undefined) {
      slot = this.free.pop() ?? this.grow();
      this.slotOf.set(key, slot);
      this.slotKeys[slot] = key;
    }
    return slot;
  }

  remove(keys: Iterable<number>): void {
    for (const key of keys) {
      const slot = this.slotOf.get(key);
      if (slot === undefined) continue;
      this.slotOf.delete(key);
      this.slotKeys[slot] = FREE;
      this.free.push(slot);
    }
  }

  clear(): void {
    this.blocks.length = 0;
    this.slotKeys = new Float64Array(0);
    this.slotOf.clear();
    this.free.length = 0;
    this.used = 0;
    this.scores = new Float32Array(0);
  }

  private grow(): number {
    const slot = this.used++;
    if (slot >>> BLOCK_BITS >= this.blocks.length) {
      this.blocks.push(new Int8Array(this.dimension * BLOCK));
      const keys = new Float64Array(this.blocks.length * BLOCK).fill(FREE);
      keys.set(this.slotKeys);
      this.slotKeys = keys;
    }
    return slot;
  }

  /**
   * The `want` rows with the largest dot product with `query` over its non-zero dimensions,
   * best first (ties by key). Linear in rows × those dimensions: meant for sparse queries.
   */
  scan(query: Float32Array, want: number): ColumnHits {
    const dims = nonZeroDimensions(query);
    const weights = Float32Array.from(dims, (d) => query[d]! / SCALE);
    const used = this.used;
    if (this.scores.length < used) this.scores = new Float32Array(this.blocks.length * BLOCK);
    const scores = this.scores;
    scores.fill(0, 0, used);
    for (let b = 0; b < this.blocks.length; b++) {
      const block = this.blocks[b]!;
      const base = b * BLOCK;
      const rows = Math.min(BLOCK, used - base);
      // A few thousand rows at a time: their scores stay in the first-level cache while each
      // column adds its part.
      for (let from = 0; from < rows; from += SCAN_ROWS) {
        const to = Math.min(rows, from + SCAN_ROWS);
        for (let j = 0; j < dims.length; j++) {
          const w = weights[j]!;
          const column = dims[j]! * BLOCK;
          for (let r = from; r < to; r++) scores[base + r]! += w * block[column + r]!;
        }
      }
    }
    return this.best(scores, used, want);
  }

  /** The top `want` live slots by score, through a min-heap of that size. */
  private best(scores: Float32Array, used: number, want: number): ColumnHits {
    const k = Math.min(want, this.slotOf.size);
    const heap = new Int32Array(k);
    let n = 0;
    const keys = this.slotKeys;
    // a ranks below b: lower score, or the same score and a larger key.
    const below = (a: number, b: number) =>
      scores[a]! < scores[b]! || (scores[a] === scores[b] && keys[a]! > keys[b]!);
    const siftDown = (at: number) => {
      for (;;) {
        const l = 2 * at + 1;
        if (l >= n) return;
        const r = l + 1;
        const c = r < n && below(heap[r]!, heap[l]!) ? r : l;
        if (!below(heap[c]!, heap[at]!)) return;
        [heap[at], heap[c]] = [heap[c]!, heap[at]!];
        at = c;
      }
    };
    // The heap's lowest score: a row below it is passed over without a call (most rows).
    let floor = -Infinity;
    for (let s = 0; s < used && k > 0; s++) {
      if (scores[s]! < floor || keys[s] === FREE) continue;
      if (n < k) {
        let at = n++;
        heap[at] = s;
        while (at > 0) {
          const p = (at - 1) >> 1;
          if (!below(heap[at]!, heap[p]!)) break;
          [heap[at], heap[p]] = [heap[p]!, heap[at]!];
          at = p;
        }
        if (n === k) floor = scores[heap[0]!]!;
      } else if (below(heap[0]!, s)) {
        heap[0] = s;
        siftDown(0);
        floor = scores[heap[0]!]!;
      }
    }
    const order = Array.from(heap.subarray(0, n)).sort((a, b) =>
      below(a, b) ? 1 : below(b, a) ? -1 : 0,
    );
    return {
      keys: Float64Array.from(order, (s) => keys[s]!),
      scores: Float32Array.from(order, (s) => scores[s]!),
    };
  }
}
