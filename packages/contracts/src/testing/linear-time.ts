/**
 * Linear-time checks without wall-clock bounds: a function's growth from size n to factor·n is
 * compared with the growth of a plain character loop over the same inputs, measured the same
 * way in the same run. A busy machine slows both alike; a quadratic function grows about
 * `factor` times more than the loop, a cubic one factor² times more.
 */

export interface GrowthOptions {
  /** The small size; the large one is `factor` times it. */
  n: number;
  /** Default 16: a quadratic blow-up then shows as ~16× the linear growth. */
  factor?: number;
  /** Measurements per size; the fastest counts, which drops pauses (GC, other processes). */
  reps?: number;
}

export interface Growth {
  /** Time at factor·n over time at n, for the function under test. */
  fn: number;
  /** The same for a loop reading every character of the same inputs. */
  linear: number;
  /** fn / linear: about 1 for a linear function, about `factor` for a quadratic one. */
  excess: number;
}

/** Keeps results alive so the optimiser cannot drop the work. */
let sink = 0;

function scan(s: string): number {
  let h = 0;
  for (let i = 0; i < s.length; i++) h = (h + s.charCodeAt(i)) | 0;
  return h;
}

/** Fastest time of one call, each sample repeating the call until ~2 ms pass (timer noise). */
function fastest(run: () => unknown, reps: number): number {
  let best = Infinity;
  for (let r = 0; r < reps; r++) {
    let calls = 0;
    const start = performance.now();
    let elapsed = 0;
    do {
      const out = run();
      sink = (sink + (typeof out === 'string' ? out.length : 1)) | 0;
      calls++;
      elapsed = performance.now() - start;
    } while (elapsed < 2);
    best = Math.min(best, elapsed / calls);
  }
  return best;
}

/**
 * How `fn` grows from `make(n)` to `make(factor·n)`, against a linear scan of the same two
 * inputs. Assert `excess` below a generous bound (e.g. 6 with the default factor 16).
 */
export function growthVersusLinear<I>(
  fn: (input: I) => unknown,
  make: (size: number) => I,
  { n, factor = 16, reps = 5 }: GrowthOptions,
): Growth {
  const small = make(n);
  const large = make(n * factor);
  const text = (input: I) => (typeof input === 'string' ? input : JSON.stringify(input));
  const smallText = text(small);
  const largeText = text(large);
  // Warm-up: the first calls run unoptimised code.
  for (let i = 0; i < 3; i++) {
    fn(small);
    sink += scan(smallText);
  }
  const fnSmall = fastest(() => fn(small), reps);
  const fnLarge = fastest(() => fn(large), reps);
  const linSmall = fastest(() => scan(smallText), reps);
  const linLarge = fastest(() => scan(largeText), reps);
  const growth = { fn: fnLarge / fnSmall, linear: linLarge / linSmall };
  return { ...growth, excess: growth.fn / growth.linear };
}

/** For tests that print what they measured. */
export const describeGrowth = (g: Growth): string =>
  `grew ${g.fn.toFixed(1)}× where a linear scan grew ${g.linear.toFixed(1)}× (excess ${g.excess.toFixed(1)})`;

/**
 * growthVersusLinear measured again, up to `attempts` times in all, only while its excess is
 * at or over `bound`: a busy machine can spoil one measurement, while a quadratic cost is over
 * the bound every time. The best measurement counts.
 */
export function bestGrowthVersusLinear<I>(
  fn: (input: I) => unknown,
  make: (size: number) => I,
  { bound = 6, attempts = 3, ...options }: GrowthOptions & { bound?: number; attempts?: number },
): Growth {
  let best = growthVersusLinear(fn, make, options);
  for (let attempt = 1; attempt < attempts && best.excess >= bound; attempt++) {
    const g = growthVersusLinear(fn, make, options);
    if (g.excess < best.excess) best = g;
  }
  return best;
}
