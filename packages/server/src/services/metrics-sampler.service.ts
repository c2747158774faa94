import {
  METRICS_SAMPLE_INTERVAL_MS,
  SystemMetrics,
  type HistoryRange,
  type MetricsHistory,
} from '@adam/contracts';
import type { Logger } from '../logging.js';
import type {
  MetricsHistoryRepository,
  MetricsPoint,
  MetricsTier,
} from '../store/metrics-history.repository.js';

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;

/** A sample younger than this answers GET /admin/system/metrics instead of a new one. */
export const FRESH_SAMPLE_MS = 1000;

interface Tier {
  name: MetricsTier;
  /** Each point is the mean of the lower tier's points in a bucket this long (0: raw samples). */
  bucketMs: number;
  /**
   * Kept a little past its range: pruning runs once a minute, so a range never loses its oldest
   * point between two prunings.
   */
  keepMs: number;
  lower: Tier | null;
}

const RAW: Tier = { name: 'raw', bucketMs: 0, keepMs: HOUR + 5 * MINUTE, lower: null };
const MINUTES: Tier = { name: 'minute', bucketMs: MINUTE, keepMs: DAY + 10 * MINUTE, lower: RAW };
const TEN_MINUTES: Tier = {
  name: 'ten_minutes',
  bucketMs: 10 * MINUTE,
  keepMs: 7 * DAY + HOUR,
  lower: MINUTES,
};
export const METRICS_TIERS = { raw: RAW, minute: MINUTES, ten_minutes: TEN_MINUTES } as const;

const RANGES: Record<HistoryRange, { tier: Tier; spanMs: number }> = {
  '1h': { tier: RAW, spanMs: HOUR },
  '24h': { tier: MINUTES, spanMs: DAY },
  '7d': { tier: TEN_MINUTES, spanMs: 7 * DAY },
};

type Figure = Exclude<keyof SystemMetrics, 'timestamp' | 'cpu_per_core'>;
const FIGURES = Object.keys(SystemMetrics.shape).filter(
  (k): k is Figure => k !== 'timestamp' && k !== 'cpu_per_core',
);

export interface MetricsSamplerDeps {
  probe: { sample(): Promise<SystemMetrics>; close?(): void };
  history: Pick<
    MetricsHistoryRepository,
    'insertMany' | 'listSince' | 'latestTs' | 'deleteOlderThan'
  >;
  log: Pick<Logger, 'error'>;
  /** Wall clock (epoch ms); tests move it to drive the downsampling. */
  now?: () => number;
  /** Between two stored samples (default METRICS_SAMPLE_INTERVAL_MS). */
  intervalMs?: number;
}

/**
 * Samples the machine every interval, keeps the latest sample for GET /admin/system/metrics and
 * the history in SQLite: raw samples for an hour, their per-minute means for a day and the
 * per-10-minute means of those for a week. A bucket is stored once complete; until then the
 * history computes it from what is stored below it, so the newest point is always there (a
 * fresh server has a 24h and a 7d point from its first sample).
 */
export class MetricsSamplerService {
  private readonly now: () => number;
  private readonly intervalMs: number;
  private timer: NodeJS.Timeout | null = null;
  private latest: MetricsPoint | null = null;
  private inFlight: Promise<MetricsPoint> | null = null;
  private running: Promise<void> | null = null;
  private lastStoredTs: number | null = null;
  /** Buckets can only complete at a minute's end: rolling up and pruning wait for it. */
  private nextRollUpAt = 0;

  constructor(private readonly deps: MetricsSamplerDeps) {
    this.now = deps.now ?? Date.now;
    this.intervalMs = deps.intervalMs ?? METRICS_SAMPLE_INTERVAL_MS;
  }

  /** Samples from the first interval's end on (a timer that keeps no process alive). */
  start(): void {
    if (this.timer) return;
    this.timer = setInterval(() => void this.tick(), this.intervalMs);
    this.timer.unref();
  }

  /** No sample is stored once this resolves. */
  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    await this.running;
    this.deps.probe.close?.();
  }

  /** The latest sample when fresh, else one taken now (callers at the same time share it). */
  async current(): Promise<SystemMetrics> {
    return (await this.fresh(FRESH_SAMPLE_MS)).metrics;
  }

  /** Oldest first; the bucket in progress last. */
  history(range: HistoryRange): MetricsHistory {
    const { tier, spanMs } = RANGES[range];
    const now = this.now();
    const points = this.points(tier, now - spanMs).filter((p) => p.ts <= now);
    return {
      range,
      interval_s: tier.bucketMs
        ? tier.bucketMs / 1000
        : Math.max(1, Math.round(this.intervalMs / 1000)),
      metrics: points.map((p) => withAllFields(p.metrics)),
    };
  }

  /** One round of the timer: sample, store, and once a minute roll up and prune. */
  async tick(): Promise<void> {
    if (this.running) return this.running;
    this.running = this.round().finally(() => {
      this.running = null;
    });
    return this.running;
  }

  private async round(): Promise<void> {
    try {
      // A sample the console asked for just before is as good as a new one.
      const point = await this.fresh(Math.min(FRESH_SAMPLE_MS, this.intervalMs / 2));
      if (point.ts !== this.lastStoredTs) {
        this.deps.history.insertMany('raw', [point]);
        this.lastStoredTs = point.ts;
      }
      const now = this.now();
      if (now >= this.nextRollUpAt) {
        this.rollUp(now);
        this.prune(now);
        this.nextRollUpAt = Math.floor(now / MINUTE) * MINUTE + MINUTE;
      }
    } catch (e) {
      this.deps.log.error({ component: 'metrics', err: e }, 'Sampling the system metrics failed');
    }
  }

  private fresh(maxAgeMs: number): Promise<MetricsPoint> {
    const age = this.latest ? this.now() - this.latest.ts : Infinity;
    if (this.latest && age >= 0 && age < maxAgeMs) return Promise.resolve(this.latest);
    // One probe sample at a time: its rates are the change since the previous one.
    this.inFlight ??= this.deps.probe
      .sample()
      .then((m) => {
        const ts = this.now();
        this.latest = { ts, metrics: { ...m, timestamp: new Date(ts).toISOString() } };
        return this.latest;
      })
      .finally(() => {
        this.inFlight = null;
      });
    return this.inFlight;
  }

  /** Stores the complete buckets of each tier, the minutes first (the 10 minutes read them). */
  private rollUp(now: number): void {
    for (const tier of [MINUTES, TEN_MINUTES]) {
      const complete = this.pending(tier).filter((p) => p.ts + tier.bucketMs <= now);
      if (complete.length > 0) this.deps.history.insertMany(tier.name, complete);
    }
  }

  private prune(now: number): void {
    for (const tier of [RAW, MINUTES, TEN_MINUTES]) {
      this.deps.history.deleteOlderThan(tier.name, now - tier.keepMs);
    }
  }

  /** A tier's points from `since`: those stored, then those not stored yet. */
  private points(tier: Tier, since: number): MetricsPoint[] {
    const stored = this.deps.history.listSince(tier.name, since);
    if (!tier.lower) return stored;
    return [...stored, ...this.pending(tier).filter((p) => p.ts >= since)];
  }

  /** The buckets after the tier's last stored one, from the tier below (in progress included). */
  private pending(tier: Tier): MetricsPoint[] {
    const last = this.deps.history.latestTs(tier.name);
    const lower = this.points(tier.lower!, last === null ? 0 : last + tier.bucketMs);
    return inBuckets(lower, tier.bucketMs);
  }
}

/** The mean point of each bucket of `points`, oldest first. */
function inBuckets(points: readonly MetricsPoint[], bucketMs: number): MetricsPoint[] {
  const buckets = new Map<number, SystemMetrics[]>();
  for (const p of points) {
    const start = Math.floor(p.ts / bucketMs) * bucketMs;
    let list = buckets.get(start);
    if (!list) buckets.set(start, (list = []));
    list.push(p.metrics);
  }
  return [...buckets.entries()]
    .sort((a, b) => a[0] - b[0])
    .map(([ts, list]) => ({ ts, metrics: meanOf(list, ts) }));
}

/**
 * Each figure's mean over the samples that have it (null when none has), cpu_per_core core by
 * core; stamped with the bucket's start.
 */
function meanOf(samples: readonly SystemMetrics[], ts: number): SystemMetrics {
  const out = withAllFields({ timestamp: new Date(ts).toISOString() });
  for (const k of FIGURES) out[k] = mean(samples.map((s) => s[k]));
  const cores = Math.max(0, ...samples.map((s) => s.cpu_per_core?.length ?? 0));
  out.cpu_per_core = Array.from(
    { length: cores },
    (_, i) => mean(samples.map((s) => s.cpu_per_core?.[i] ?? null)) ?? 0,
  );
  return out;
}

/** A point stored before a figure existed reads that figure as null. */
function withAllFields(m: Partial<SystemMetrics> & { timestamp: string }): SystemMetrics {
  const out = { cpu_per_core: [], ...m } as SystemMetrics;
  for (const k of FIGURES) out[k] ??= null;
  return out;
}

function mean(values: readonly (number | null | undefined)[]): number | null {
  let sum = 0;
  let n = 0;
  for (const v of values) {
    if (typeof v === 'number') {
      sum += v;
      n++;
    }
  }
  return n > 0 ? Math.round((sum / n) * 1000) / 1000 : null;
}
