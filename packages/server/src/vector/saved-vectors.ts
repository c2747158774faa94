import fs from 'node:fs';
import type { IndexStorage } from '@adam/contracts';
import { GRAPH_HEAD_BYTES, HEAD_BYTES, SCALAR_BYTES } from './index-files.js';

/** usearch's key of a removed row's node: the largest u64. */
const FREE_KEY = 0xffff_ffff_ffff_ffffn;

let halfTable: Float32Array | null = null;
/** Every IEEE half-precision value as a float, by its 16 bits. */
function halves(): Float32Array {
  if (halfTable) return halfTable;
  halfTable = new Float32Array(1 << 16);
  for (let h = 0; h < 1 << 16; h++) {
    const sign = h & 0x8000 ? -1 : 1;
    const exponent = (h >> 10) & 0x1f;
    const fraction = h & 0x3ff;
    halfTable[h] =
      exponent === 0
        ? sign * fraction * 2 ** -24
        : exponent === 31
          ? 0 // infinities and NaN: never a unit vector's component
          : sign * (1 + fraction / 1024) * 2 ** (exponent - 15);
  }
  return halfTable;
}

/**
 * The rows of a saved usearch file (a dense index, the layout index-files.ts checks before the
 * file is loaded), read a step at a time: each live row's key and its vector decoded to floats.
 * The vectors lie first, in slot order; each slot's key is at the start of its node in the graph
 * part after them (a removed row's key is the largest u64). The file is opened at once, so a
 * save that replaces the generation meanwhile (unlinking the name) does not cut the reading.
 */
export class SavedVectorReader {
  private fd: number | null;
  private readonly rows: number;
  private readonly rowBytes: number;
  /** Where each node starts in the file; entry `rows` is the file's end. */
  private readonly nodeAt: Float64Array;
  private next = 0;

  constructor(
    file: string,
    private readonly storage: IndexStorage,
    private readonly dimension: number,
  ) {
    this.fd = fs.openSync(file, 'r');
    try {
      const head = this.read(0, 8);
      const view = new DataView(head.buffer);
      this.rows = view.getUint32(0, true);
      this.rowBytes = view.getUint32(4, true);
      if (this.rowBytes !== dimension * SCALAR_BYTES[storage])
        throw new Error(`${file}: ${this.rowBytes} bytes a vector, not ${dimension} × ${storage}`);
      const graphAt = 8 + this.rows * this.rowBytes + HEAD_BYTES;
      const graph = new DataView(this.read(graphAt, GRAPH_HEAD_BYTES).buffer);
      const connectivity = Number(graph.getBigUint64(8, true));
      const base = Number(graph.getBigUint64(16, true));
      const levels = new DataView(this.read(graphAt + GRAPH_HEAD_BYTES, 2 * this.rows).buffer);
      this.nodeAt = new Float64Array(this.rows + 1);
      let at = graphAt + GRAPH_HEAD_BYTES + 2 * this.rows;
      for (let i = 0; i < this.rows; i++) {
        this.nodeAt[i] = at;
        at += 14 + 4 * base + levels.getInt16(2 * i, true) * (4 + 4 * connectivity);
      }
      this.nodeAt[this.rows] = at;
    } catch (e) {
      this.close();
      throw e;
    }
  }

  /** Bytes at `at`, exactly `length` of them (a shorter file is damaged). */
  private read(at: number, length: number): Uint8Array {
    const out = new Uint8Array(length);
    let got = 0;
    while (got < length) {
      const n = fs.readSync(this.fd!, out, got, length - got, at + got);
      if (n === 0) throw new Error(`saved index ends before byte ${at + length}`);
      got += n;
    }
    return out;
  }

  /**
   * Reads the next `count` rows: the live ones that `keep` accepts, as keys and their vectors
   * (flat, `dimension` floats a row); `done` once every row was read (the file is then closed).
   */
  step(
    count: number,
    keep: (key: number) => boolean = () => true,
  ): { done: boolean; keys: Float64Array; flat: Float32Array } {
    const from = this.next;
    const to = Math.min(this.rows, from + count);
    const dim = this.dimension;
    const kept: number[] = [];
    const slots: number[] = [];
    let flat = new Float32Array(0);
    if (to > from) {
      const bytes = this.read(8 + from * this.rowBytes, (to - from) * this.rowBytes);
      const nodesFrom = this.nodeAt[from]!;
      const nodes = new DataView(this.read(nodesFrom, this.nodeAt[to]! - nodesFrom).buffer);
      for (let s = from; s < to; s++) {
        const key = nodes.getBigUint64(this.nodeAt[s]! - nodesFrom, true);
        if (key === FREE_KEY || !keep(Number(key))) continue;
        kept.push(Number(key));
        slots.push(s - from);
      }
      flat = new Float32Array(kept.length * dim);
      const values = this.values(bytes);
      for (let i = 0; i < slots.length; i++) {
        const at = slots[i]! * dim;
        for (let d = 0; d < dim; d++) flat[i * dim + d] = values(at + d);
      }
    }
    this.next = to;
    const done = to >= this.rows;
    if (done) this.close();
    return { done, keys: Float64Array.from(kept), flat };
  }

  /** The file's components as floats, by index into the rows read. */
  private values(bytes: Uint8Array): (i: number) => number {
    if (this.storage === 'f32') {
      const f = new Float32Array(bytes.buffer);
      return (i) => f[i]!;
    }
    if (this.storage === 'f16') {
      const h = new Uint16Array(bytes.buffer);
      const table = halves();
      return (i) => table[h[i]!]!;
    }
    if (this.storage === 'bf16') {
      // A bfloat16 is the top half of a float32's bits. A plain loop: Uint32Array.from with a
      // mapping function took 30× longer (a 1M bf16 file read in 84.6 s, not 2.6).
      const h = new Uint16Array(bytes.buffer);
      const bits = new Uint32Array(h.length);
      for (let i = 0; i < h.length; i++) bits[i] = h[i]! << 16;
      const f = new Float32Array(bits.buffer);
      return (i) => f[i]!;
    }
    // usearch's i8 for cosine: the unit vector × 127.
    const q = new Int8Array(bytes.buffer);
    return (i) => q[i]! / 127;
  }

  close(): void {
    if (this.fd === null) return;
    fs.closeSync(this.fd);
    this.fd = null;
  }
}
