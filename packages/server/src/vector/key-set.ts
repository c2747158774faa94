/**
 * The index's keys (snippet ids: positive integers, dense) as a growable bitset: 1M ids take
 * 125 KB and load from the keys file in milliseconds, where a Set<number> of 1M takes ~40 MB and
 * a noticeable pause to build. It takes (largest key / 8) bytes, so it suits dense ids; keys
 * above 2^32 are refused.
 */
/** The largest key a KeySet holds. */
export const MAX_KEY = 0xffffffff;

export class KeySet {
  private bits = new Uint32Array(1024);
  private count = 0;

  static from(keys: ArrayLike<number>): KeySet {
    const s = new KeySet();
    let max = 0;
    for (let i = 0; i < keys.length; i++) if (keys[i]! > max) max = keys[i]!;
    s.grow(max);
    for (let i = 0; i < keys.length; i++) s.add(keys[i]!);
    return s;
  }

  get size(): number {
    return this.count;
  }

  private grow(key: number): void {
    const word = key >>> 5;
    if (word < this.bits.length) return;
    let n = this.bits.length;
    while (n <= word) n *= 2;
    const next = new Uint32Array(n);
    next.set(this.bits);
    this.bits = next;
  }

  private static check(key: number): void {
    if (!Number.isInteger(key) || key < 0 || key > MAX_KEY) {
      throw new RangeError(`vector key must be an integer in 0..2^32-1, got ${key}`);
    }
  }

  has(key: number): boolean {
    if (!Number.isInteger(key) || key < 0) return false;
    const word = Math.floor(key / 32);
    return word < this.bits.length && (this.bits[word]! & (1 << (key & 31))) !== 0;
  }

  /** Answers whether the key was new. */
  add(key: number): boolean {
    KeySet.check(key);
    this.grow(key);
    const word = key >>> 5;
    const bit = 1 << (key & 31);
    if (this.bits[word]! & bit) return false;
    this.bits[word]! |= bit;
    this.count++;
    return true;
  }

  /** Answers whether the key was there. */
  delete(key: number): boolean {
    if (!this.has(key)) return false;
    this.bits[key >>> 5]! &= ~(1 << (key & 31));
    this.count--;
    return true;
  }

  clear(): void {
    this.bits = new Uint32Array(1024);
    this.count = 0;
  }

  /** The keys in ascending order. */
  toArray(): Float64Array {
    const out = new Float64Array(this.count);
    let n = 0;
    for (let w = 0; w < this.bits.length; w++) {
      let word = this.bits[w]!;
      while (word !== 0) {
        const low = word & -word;
        out[n++] = w * 32 + (31 - Math.clz32(low));
        word ^= low;
      }
    }
    return out;
  }
}
