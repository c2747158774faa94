/**
 * The keys added to the index whose rows are still pending: those no save holds yet, and those
 * of the save being marked that are not marked yet. A key added again before its save is there
 * twice, and counts twice.
 *
 * How many of them the index holds (`unsaved`) is kept as keys come and go, not counted: the
 * realtime stats read it every few seconds, and a pass over a million pending keys held the
 * event loop for tens of milliseconds. Per key, how often it is pending is kept in a typed
 * array indexed by the key (snippet ids: dense integers, as the skip bitmap assumes); a key
 * outside it goes to a map.
 */
export class PendingKeys {
  private unmarked: number[] = [];
  private marking: number[] = [];
  /** How many of `marking` are marked already (their rows are no longer pending). */
  private markedUpTo = 0;
  private times = new Uint32Array(1024);
  private readonly otherTimes = new Map<number, number>();
  private held = 0;

  /** `has`: whether the open index holds a key (the index in use at each call). */
  constructor(private readonly has: (key: number) => boolean) {}

  /** Pending keys the index holds: vectors whose rows stay pending until a save holds them. */
  get unsaved(): number {
    return this.held;
  }

  /** Keys of `keys` the index does not hold yet: call before adding them to it. */
  notHeld(keys: Iterable<number>): number[] {
    const out: number[] = [];
    for (const k of keys) if (!this.has(k)) out.push(k);
    return out;
  }

  /**
   * The index just got `keys` (`fresh`: the ones it did not hold before, from notHeld): they
   * are pending until the next save holds them.
   */
  added(keys: readonly number[], fresh: readonly number[]): void {
    for (const k of fresh) {
      // A key twice in one batch was fresh once.
      if (this.has(k) && !this.seen(k)) this.held += this.count(k);
    }
    this.seenClear();
    for (const k of keys) {
      this.bump(k, 1);
      if (this.has(k)) this.held++;
    }
    for (const k of keys) this.unmarked.push(k);
  }

  /** The index lost these keys (each held before). */
  removed(keys: readonly number[]): void {
    for (const k of keys) this.held -= this.count(k);
  }

  /** The index was emptied. */
  emptied(): void {
    this.held = 0;
  }

  /** The index changed under the keys (replaced, or found unusable at its load): counted again. */
  recount(): void {
    this.held = this.counted();
  }

  /** Counted key by key, as the kept count must always be (tests compare them). */
  counted(): number {
    let n = 0;
    for (const k of this.unmarked) if (this.has(k)) n++;
    for (let i = this.markedUpTo; i < this.marking.length; i++) if (this.has(this.marking[i]!)) n++;
    return n;
  }

  /** The keys no save holds yet become the ones the next save holds; answers them. */
  startSave(): number[] {
    const marking = this.unmarked;
    this.unmarked = [];
    this.marking = marking;
    this.markedUpTo = 0;
    return marking;
  }

  /** The save failed: its keys wait for the next one, before those added meanwhile. */
  saveFailed(): void {
    // Not unshift(...marking): a spread of a million keys overflows the call's arguments.
    this.unmarked = this.marking.slice(this.markedUpTo).concat(this.unmarked);
    this.marking = [];
    this.markedUpTo = 0;
  }

  /** The save's keys before `upTo` are marked indexed: no longer pending. */
  markedTo(upTo: number): void {
    const end = Math.min(upTo, this.marking.length);
    for (let i = this.markedUpTo; i < end; i++) this.leave(this.marking[i]!);
    this.markedUpTo = Math.max(this.markedUpTo, upTo);
  }

  /** The save's marking ended: keys it did not mark (the index was replaced) are dropped. */
  endSave(): void {
    this.markedTo(this.marking.length);
    this.marking = [];
    this.markedUpTo = 0;
  }

  /** Forgets the keys no save holds yet (the index was emptied or replaced). */
  dropUnmarked(): void {
    for (const k of this.unmarked) this.leave(k);
    this.unmarked = [];
  }

  private leave(k: number): void {
    this.bump(k, -1);
    if (this.has(k)) this.held--;
  }

  private count(k: number): number {
    return inArray(k) ? (this.times[k] ?? 0) : (this.otherTimes.get(k) ?? 0);
  }

  private bump(k: number, by: 1 | -1): void {
    if (!inArray(k)) {
      const n = (this.otherTimes.get(k) ?? 0) + by;
      if (n > 0) this.otherTimes.set(k, n);
      else this.otherTimes.delete(k);
      return;
    }
    if (k >= this.times.length) {
      let size = this.times.length;
      while (size <= k) size *= 2;
      const grown = new Uint32Array(size);
      grown.set(this.times);
      this.times = grown;
    }
    this.times[k] = this.times[k]! + by;
  }

  private readonly seenKeys = new Set<number>();
  private seen(k: number): boolean {
    if (this.seenKeys.has(k)) return true;
    this.seenKeys.add(k);
    return false;
  }
  private seenClear(): void {
    this.seenKeys.clear();
  }
}

/** Keys kept in the typed array: ids below 2^24 (64 MiB of counts at most; 4 MiB at 1M ids). */
const inArray = (k: number) => Number.isInteger(k) && k >= 0 && k < 2 ** 24;
