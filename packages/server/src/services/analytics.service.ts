import {
  ACTIVITY_TIMELINE_BUCKETS,
  EMOTIONS,
  QUALITY_BUCKETS,
  THEMES,
  type ActivityTimeline,
  type AnalyticsPeriod,
  type EmotionAnalytics,
  type EmotionDistribution,
  type EmotionTimeline,
  type JobStats,
  type JobThroughput,
  type OverviewStats,
  type SnippetAnalytics,
} from '@adam/contracts';
import { normalizedEntropy, percentile, roundTo } from '../lib/stats.js';
import {
  bucketKey,
  fillBuckets,
  floorTo,
  keyLength,
  lastBuckets,
  type BucketUnit,
} from '../lib/time-buckets.js';
import type { Logger } from '../logging.js';
import type { EventBus } from '../lib/event-bus.js';
import type { AnalyticsRepository, EmotionSums } from '../store/analytics.repository.js';
import type { JobRepository } from '../store/job.repository.js';
import type { SourceRepository } from '../store/source.repository.js';
import type { IndexMeasures } from './index.service.js';

const HOUR_MS = 3_600_000;
const PERIOD_MS: Record<Exclude<AnalyticsPeriod, 'all'>, number> = {
  hour: HOUR_MS,
  day: 24 * HOUR_MS,
  week: 7 * 24 * HOUR_MS,
  month: 30 * 24 * HOUR_MS,
};
const TIMELINE_UNIT: Record<AnalyticsPeriod, BucketUnit> = {
  hour: 'minute',
  day: 'hour',
  week: 'day',
  month: 'day',
  all: 'day',
};
const THROUGHPUT_HOURS = 24;
const TOP_SOURCES = 10;
/** The store keys snippets of an unknown language with ''; the pipeline calls that 'und'. */
const UNKNOWN_LANGUAGE = 'und';
const SEGMENTS_COUNTER = 'segments_total';

const r4 = (n: number) => roundTo(Math.max(0, n), 4);
const ratio = (a: number, b: number) => (b > 0 ? a / b : 0);
const zeroSums = (emotion: string): EmotionSums => ({
  emotion,
  n_present: 0,
  n_dominant: 0,
  score_sum: 0,
  present_sum: 0,
});

/** The eight emotions in their usual order, then any other the store holds. */
function byEmotion(rows: readonly EmotionSums[]): EmotionSums[] {
  const map = new Map<string, EmotionSums>(EMOTIONS.map((e) => [e, zeroSums(e)]));
  for (const r of rows) map.set(r.emotion, r);
  return [...map.values()];
}

/**
 * The figures of the analytics screens, read from the aggregate tables the store keeps on each
 * snippet write (so no request scans the snippets) and from the job records.
 */
export class AnalyticsService {
  private readonly unsubscribe: (() => void)[] = [];

  constructor(
    private readonly deps: {
      analytics: AnalyticsRepository;
      jobs: JobRepository;
      sources: SourceRepository;
      index: Pick<IndexMeasures, 'size' | 'diskBytes' | 'cacheHitRate'>;
      bus: EventBus;
      log: Logger;
      /** Segments stored per second over the last minute. */
      segmentsPerSecond: () => number;
      now?: () => number;
    },
  ) {}

  private now(): number {
    return (this.deps.now ?? Date.now)();
  }

  /** Counts each job's segments (stored and duplicates) once, when it ends. */
  start(): void {
    const count = ({ job_id }: { job_id: number }) => {
      // A listener that throws would fail the emitter: the job's end must not depend on this.
      try {
        const row = this.deps.jobs.findById(job_id);
        if (!row) return;
        const stats = JSON.parse(row.stats) as JobStats;
        const n = (stats.segments_created ?? 0) + (stats.duplicates ?? 0);
        if (n > 0) this.deps.analytics.addToCounter(SEGMENTS_COUNTER, n);
      } catch (e) {
        this.deps.log.warn({ component: 'analytics', err: e }, `Counting job ${job_id} failed`);
      }
    };
    this.unsubscribe.push(
      this.deps.bus.on('job_completed', count),
      this.deps.bus.on('job_failed', count),
      this.deps.bus.on('job_cancelled', count),
    );
  }

  stop(): void {
    for (const off of this.unsubscribe.splice(0)) off();
  }

  /** Start of the period: the hours overlapping its length up to now; null for all. */
  private since(period: AnalyticsPeriod): number | null {
    return period === 'all' ? null : floorTo('hour', this.now() - PERIOD_MS[period]);
  }

  /** Snippets (and those with an emotion) created since `since`, all time when null. */
  private totals(since: number | null): { n: number; with_emotion: number } {
    const rows =
      since === null
        ? this.deps.analytics.breakdown()
        : this.deps.analytics.hours(bucketKey('hour', since));
    return rows.reduce(
      (t, r) => ({ n: t.n + r.n, with_emotion: t.with_emotion + r.with_emotion }),
      { n: 0, with_emotion: 0 },
    );
  }

  private emotionSums(since: number | null): EmotionSums[] {
    return byEmotion(
      this.deps.analytics.emotionSums(since === null ? null : bucketKey('hour', since)),
    );
  }

  emotions(period: AnalyticsPeriod): EmotionAnalytics {
    const since = this.since(period);
    const { n, with_emotion } = this.totals(since);
    const sums = this.emotionSums(since);
    let dominant: EmotionSums | null = null;
    for (const s of sums) if (s.n_dominant > (dominant?.n_dominant ?? 0)) dominant = s;
    return {
      period,
      since: since === null ? null : new Date(since).toISOString(),
      total_snippets: n,
      with_emotion,
      emotions: sums.map((s) => ({
        emotion: s.emotion,
        count: s.n_present,
        average: r4(ratio(s.score_sum, n)),
        average_when_present: r4(ratio(s.present_sum, s.n_present)),
        dominant_count: s.n_dominant,
      })),
      dominant: dominant?.emotion ?? null,
      diversity: r4(
        normalizedEntropy(
          sums.map((s) => s.n_dominant),
          Math.max(EMOTIONS.length, sums.length),
        ),
      ),
    };
  }

  distribution(period: AnalyticsPeriod): EmotionDistribution {
    const since = this.since(period);
    const { n } = this.totals(since);
    const sums = this.emotionSums(since);
    const withDominant = sums.reduce((t, s) => t + s.n_dominant, 0);
    return {
      period,
      total: n,
      distribution: sums
        .map((s) => ({
          emotion: s.emotion,
          count: s.n_dominant,
          percentage: roundTo(ratio(s.n_dominant, withDominant) * 100, 2),
          average: r4(ratio(s.score_sum, n)),
        }))
        // Stable: equal counts keep the emotions' usual order.
        .sort((a, b) => b.count - a.count),
    };
  }

  emotionTimeline(hours: number): EmotionTimeline {
    const buckets = lastBuckets('hour', hours, this.now());
    const first = buckets[0]!.key;
    const totals = new Map(this.deps.analytics.hours(first).map((r) => [r.hour, r.n]));
    const perHour = new Map<string, EmotionSums[]>();
    for (const r of this.deps.analytics.emotionHours(first)) {
      const list = perHour.get(r.hour) ?? [];
      list.push(r);
      perHour.set(r.hour, list);
    }
    return {
      hours,
      buckets: buckets.map((b) => {
        const total = totals.get(b.key) ?? 0;
        const sums = byEmotion(perHour.get(b.key) ?? []);
        return {
          hour: b.iso,
          total,
          averages: Object.fromEntries(sums.map((s) => [s.emotion, r4(ratio(s.score_sum, total))])),
          counts: Object.fromEntries(sums.map((s) => [s.emotion, s.n_present])),
        };
      }),
    };
  }

  activityTimeline(period: AnalyticsPeriod): ActivityTimeline {
    const unit = TIMELINE_UNIT[period];
    const buckets = lastBuckets(unit, ACTIVITY_TIMELINE_BUCKETS, this.now());
    const from = buckets[0]!;
    // Minutes come from the created_at index (12 minutes of rows); hours and days from the
    // hourly aggregate.
    const snippetRows =
      unit === 'minute'
        ? this.deps.analytics.snippetsPerMinute(from.iso)
        : this.deps.analytics.hours(bucketKey('hour', from.start)).map((r) => ({
            key: r.hour,
            n: r.n,
          }));
    const jobs = (column: 'created_at' | 'completed_at' | 'failed_at') =>
      fillBuckets(buckets, this.deps.jobs.countPerBucket(column, from.iso, keyLength(unit)));
    const snippets = fillBuckets(buckets, snippetRows);
    const created = jobs('created_at');
    const completed = jobs('completed_at');
    const failed = jobs('failed_at');
    return {
      period,
      bucket: unit,
      buckets: buckets.map((b, i) => ({
        start: b.iso,
        snippets: snippets[i]!,
        jobs_created: created[i]!,
        jobs_completed: completed[i]!,
        jobs_failed: failed[i]!,
      })),
    };
  }

  overview(): OverviewStats {
    const now = this.now();
    const rows = this.deps.analytics.breakdown();
    let total = 0;
    let qualitySum = 0;
    const themes: Record<string, number> = {};
    for (const r of rows) {
      total += r.n;
      qualitySum += r.quality_sum;
      themes[r.theme] = (themes[r.theme] ?? 0) + r.n;
    }
    const byStatus = this.deps.jobs.countByStatus();
    const hitRate = this.deps.index.cacheHitRate();
    const sources = this.deps.sources.countByOutcome();
    return {
      total_snippets: total,
      total_segments: this.deps.analytics.counter(SEGMENTS_COUNTER),
      total_sources: this.deps.sources.count(),
      sources_with_content: sources.with_content,
      sources_failed: sources.failed,
      total_vectors: this.deps.index.size,
      index_size_mb: roundTo(this.deps.index.diskBytes() / 1048576, 3),
      active_jobs: byStatus.processing ?? 0,
      pending_jobs: byStatus.pending ?? 0,
      throughput_last_hour: this.deps.jobs.countCreatedSince(new Date(now - HOUR_MS).toISOString()),
      cache_hit_rate: hitRate === null ? null : r4(hitRate),
      segments_per_second: roundTo(this.deps.segmentsPerSecond(), 3),
      themes,
      average_quality: total ? r4(qualitySum / total) : null,
      generated_at: new Date(now).toISOString(),
    };
  }

  snippets(days: number): SnippetAnalytics {
    const rows = this.deps.analytics.breakdown();
    const themes = new Map<string, number>(THEMES.map((t) => [t, 0]));
    const languages = new Map<string, number>();
    const quality = new Array<number>(QUALITY_BUCKETS).fill(0);
    let total = 0;
    let qualitySum = 0;
    for (const r of rows) {
      total += r.n;
      qualitySum += r.quality_sum;
      themes.set(r.theme, (themes.get(r.theme) ?? 0) + r.n);
      const lang = r.language || UNKNOWN_LANGUAGE;
      languages.set(lang, (languages.get(lang) ?? 0) + r.n);
      quality[Math.min(QUALITY_BUCKETS - 1, Math.max(0, r.quality_bucket))]! += r.n;
    }

    const dayBuckets = lastBuckets('day', days, this.now());
    const perDay = fillBuckets(
      dayBuckets,
      this.deps.analytics
        .hours(bucketKey('hour', dayBuckets[0]!.start))
        .map((r) => ({ key: r.hour, n: r.n })),
    );
    // What the window does not hold was there before it.
    let cumulative = total - perDay.reduce((a, b) => a + b, 0);
    const growth = dayBuckets.map((b, i) => {
      cumulative += perDay[i]!;
      return { day: b.key, count: perDay[i]!, cumulative };
    });

    const sorted = (m: Map<string, number>) =>
      [...m].sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]));
    return {
      total,
      themes: sorted(themes).map(([theme, count]) => ({ theme, count })),
      quality: quality.map((count, i) => ({
        from: roundTo(i / QUALITY_BUCKETS, 1),
        to: roundTo((i + 1) / QUALITY_BUCKETS, 1),
        count,
      })),
      average_quality: total ? r4(qualitySum / total) : null,
      growth,
      top_sources: this.deps.sources.listTopBySegments(TOP_SOURCES).map((s) => ({
        url: s.url,
        domain: s.domain,
        title: s.title,
        segments_count: s.segments_count,
      })),
      languages: sorted(languages).map(([language, count]) => ({ language, count })),
    };
  }

  /** The last 24 clock hours of job records (the current hour included). */
  throughput(): JobThroughput {
    const buckets = lastBuckets('hour', THROUGHPUT_HOURS, this.now());
    const since = buckets[0]!.iso;
    const seconds = (from: string, to: string) => (Date.parse(to) - Date.parse(from)) / 1000;
    const created: { key: string; n: number }[] = [];
    const finished: { key: string; n: number }[] = [];
    const waits: number[] = [];
    const runs: number[] = [];
    let failed = 0;
    for (const j of this.deps.jobs.listTimesSince(since)) {
      if (j.created_at >= since) {
        created.push({ key: j.created_at, n: 1 });
        if (j.started_at) waits.push(Math.max(0, seconds(j.created_at, j.started_at)));
      }
      const end =
        j.status === 'completed' ? j.completed_at : j.status === 'failed' ? j.failed_at : null;
      if (!end || end < since) continue;
      finished.push({ key: end, n: 1 });
      if (j.status === 'failed') failed++;
      if (j.started_at) runs.push(Math.max(0, seconds(j.started_at, end)));
    }
    const createdPerHour = fillBuckets(buckets, created);
    const finishedPerHour = fillBuckets(buckets, finished);
    const p = (values: number[], q: number) => {
      const v = percentile(values, q);
      return v === null ? null : roundTo(v, 3);
    };
    return {
      window_hours: THROUGHPUT_HOURS,
      jobs_created: created.length,
      jobs_finished: finished.length,
      jobs_per_hour: roundTo(finished.length / THROUGHPUT_HOURS, 3),
      wait_p50_s: p(waits, 50),
      wait_p95_s: p(waits, 95),
      run_p50_s: p(runs, 50),
      run_p95_s: p(runs, 95),
      failure_rate: finished.length ? r4(failed / finished.length) : null,
      hourly: buckets.map((b, i) => ({
        hour: b.iso,
        created: createdPerHour[i]!,
        finished: finishedPerHour[i]!,
      })),
    };
  }
}
