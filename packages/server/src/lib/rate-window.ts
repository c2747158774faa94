/**
 * Events per second over a sliding window of whole seconds: a ring of per-second counts, so
 * adding and reading cost the same at any rate. The current second counts as it fills.
 */
export class RateWindow {
  private readonly counts: number[];
  private readonly seconds: number[];

  constructor(
    private readonly windowSeconds = 60,
    private readonly now: () => number = Date.now,
  ) {
    this.counts = new Array<number>(windowSeconds).fill(0);
    this.seconds = new Array<number>(windowSeconds).fill(-1);
  }

  add(n = 1): void {
    const s = Math.floor(this.now() / 1000);
    const i = s % this.windowSeconds;
    if (this.seconds[i] !== s) {
      this.seconds[i] = s;
      this.counts[i] = 0;
    }
    this.counts[i]! += n;
  }

  /** Total over the last `windowSeconds` seconds (the current one included). */
  total(): number {
    const s = Math.floor(this.now() / 1000);
    let sum = 0;
    for (let i = 0; i < this.windowSeconds; i++) {
      if (s - this.seconds[i]! < this.windowSeconds) sum += this.counts[i]!;
    }
    return sum;
  }

  perSecond(): number {
    return this.total() / this.windowSeconds;
  }
}
