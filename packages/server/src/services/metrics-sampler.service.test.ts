import Database from 'better-sqlite3';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { MetricsHistory, type SystemMetrics } from '@adam/contracts';
import { migrate, type Db } from '../store/db.js';
import { MetricsHistoryRepository } from '../store/metrics-history.repository.js';
import { migrations } from '../store/migrations/index.js';
import {
  FRESH_SAMPLE_MS,
  METRICS_TIERS,
  MetricsSamplerService,
} from './metrics-sampler.service.js';

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;
/** On a 10-minute boundary, so bucket arithmetic reads plainly. */
const START = Date.UTC(2026, 10, 22, 12, 0, 0);
const iso = (ms: number) => new Date(ms).toISOString();

/** A sample with every figure null but those given. */
function sample(figures: Partial<SystemMetrics> = {}): SystemMetrics {
  return {
    timestamp: iso(0),
    cpu_per_core: [],
    ...(Object.fromEntries(
      Object.keys(MetricsHistory.shape.metrics.element.shape)
        .filter((k) => k !== 'timestamp' && k !== 'cpu_per_core')
        .map((k) => [k, null]),
    ) as Omit<SystemMetrics, 'timestamp' | 'cpu_per_core'>),
    ...figures,
  };
}

/** A probe answering the queued samples in turn (the last one again when the queue is empty). */
function fakeProbe() {
  const queue: SystemMetrics[] = [];
  let last = sample();
  const probe = {
    calls: 0,
    fail: false,
    async sample() {
      probe.calls++;
      if (probe.fail) throw new Error('probe broke');
      last = queue.shift() ?? last;
      return last;
    },
    push: (...s: SystemMetrics[]) => void queue.push(...s),
  };
  return probe;
}

let db: Db | undefined;
afterEach(() => {
  db?.close();
  db = undefined;
  vi.useRealTimers();
});

function setup(opts: { start?: number; db?: Db } = {}) {
  db = opts.db ?? new Database(':memory:');
  migrate(db, migrations);
  let t = opts.start ?? START;
  const clock = {
    now: () => t,
    set: (ms: number) => void (t = ms),
    advance: (ms: number) => void (t += ms),
  };
  const probe = fakeProbe();
  const repo = new MetricsHistoryRepository(db);
  const errors: string[] = [];
  const sampler = new MetricsSamplerService({
    probe,
    history: repo,
    log: { error: (_o: unknown, msg?: string) => void errors.push(String(msg)) },
    now: clock.now,
  });
  /** One tick per sample given, 5 s apart, the first at the clock's time. */
  const tickWith = async (...samples: SystemMetrics[]) => {
    for (const [i, s] of samples.entries()) {
      if (i > 0) clock.advance(5000);
      probe.push(s);
      await sampler.tick();
    }
  };
  return { db, clock, probe, repo, sampler, errors, tickWith };
}

const cpu = (h: MetricsHistory) => h.metrics.map((m) => m.cpu_usage);
const times = (h: MetricsHistory) => h.metrics.map((m) => m.timestamp);

describe('MetricsSamplerService', () => {
  it('stores one raw sample per tick, stamped with its time, and answers 1h oldest first', async () => {
    const { sampler, tickWith } = setup();
    await tickWith(sample({ cpu_usage: 10 }), sample({ cpu_usage: 20 }), sample({ cpu_usage: 30 }));

    const h = sampler.history('1h');
    expect(h).toMatchObject({ range: '1h', interval_s: 5 });
    expect(cpu(h)).toEqual([10, 20, 30]);
    expect(times(h)).toEqual([iso(START), iso(START + 5000), iso(START + 10_000)]);
    expect(() => MetricsHistory.parse(h)).not.toThrow();
  });

  it('rolls a complete minute into the mean of its samples, core by core, null when all are null', async () => {
    const { clock, repo, tickWith } = setup();
    await tickWith(
      sample({ cpu_usage: 10, cpu_per_core: [0, 20], memory_used: null }),
      sample({ cpu_usage: 20, cpu_per_core: [10, 30], memory_used: 1000 }),
      sample({ cpu_usage: 60, cpu_per_core: [20, 40], memory_used: 3000 }),
    );
    expect(repo.listSince('minute', 0)).toEqual([]);

    clock.set(START + MINUTE);
    await tickWith(sample({ cpu_usage: 99 }));

    const [minute, ...rest] = repo.listSince('minute', 0);
    expect(rest).toEqual([]);
    expect(minute!.ts).toBe(START);
    expect(minute!.metrics).toMatchObject({
      timestamp: iso(START),
      cpu_usage: 30,
      cpu_per_core: [10, 30],
      memory_used: 2000,
      cpu_temperature: null,
      gpu_usage: null,
    });
  });

  it('answers the minute and the 10 minutes in progress before they are stored', async () => {
    const { clock, repo, sampler, tickWith } = setup();
    clock.set(START + 3 * MINUTE + 10_000);
    await tickWith(sample({ cpu_usage: 40 }), sample({ cpu_usage: 60 }));

    const day = sampler.history('24h');
    expect(day.interval_s).toBe(60);
    expect(times(day)).toEqual([iso(START + 3 * MINUTE)]);
    expect(cpu(day)).toEqual([50]);
    const week = sampler.history('7d');
    expect(week.interval_s).toBe(600);
    expect(times(week)).toEqual([iso(START)]);
    expect(cpu(week)).toEqual([50]);
    expect(repo.listSince('minute', 0)).toEqual([]);
    expect(repo.listSince('ten_minutes', 0)).toEqual([]);
  });

  it('rolls ten complete minutes into their mean, each minute counting once', async () => {
    const { clock, repo, sampler, tickWith } = setup();
    for (let m = 0; m < 10; m++) {
      clock.set(START + m * MINUTE);
      // Minute m: one sample of m×10 in the even minutes, twelve in the odd ones.
      const n = m % 2 === 0 ? 1 : 12;
      await tickWith(...Array.from({ length: n }, () => sample({ cpu_usage: m * 10 })));
    }
    expect(repo.listSince('ten_minutes', 0)).toEqual([]);

    clock.set(START + 10 * MINUTE + 2000);
    await tickWith(sample({ cpu_usage: 0 }));
    const stored = repo.listSince('ten_minutes', 0);
    expect(stored.map((p) => [p.ts, p.metrics.cpu_usage])).toEqual([[START, 45]]);
    expect(repo.listSince('minute', 0).map((p) => p.metrics.cpu_usage)).toEqual([
      0, 10, 20, 30, 40, 50, 60, 70, 80, 90,
    ]);

    // The stored bucket, then the one in progress.
    const week = sampler.history('7d');
    expect(times(week)).toEqual([iso(START), iso(START + 10 * MINUTE)]);
    expect(cpu(week)).toEqual([45, 0]);
    expect(cpu(sampler.history('24h'))).toEqual([0, 10, 20, 30, 40, 50, 60, 70, 80, 90, 0]);
  });

  it('answers only the points of the range asked', async () => {
    const { clock, repo, sampler, tickWith } = setup();
    const old = START - HOUR - 5000;
    repo.insertMany('raw', [{ ts: old, metrics: sample({ cpu_usage: 1, timestamp: iso(old) }) }]);
    repo.insertMany('minute', [
      { ts: START - DAY - MINUTE, metrics: sample({ cpu_usage: 2 }) },
      { ts: START - DAY + MINUTE, metrics: sample({ cpu_usage: 3 }) },
    ]);
    clock.set(START);
    await tickWith(sample({ cpu_usage: 4 }));
    expect(cpu(sampler.history('1h'))).toEqual([4]);
    // The sample older than the hour is still in its minute.
    expect(cpu(sampler.history('24h'))).toEqual([3, 1, 4]);
  });

  it('keeps raw samples 1 h, minutes 24 h and 10-minute points 7 d, each with its margin', async () => {
    const { clock, repo, tickWith } = setup();
    const now = START + 30 * 1000;
    const points = (ts: number[]) => ts.map((t) => ({ ts: t, metrics: sample({ cpu_usage: 1 }) }));
    const { raw, minute, ten_minutes } = METRICS_TIERS;
    repo.insertMany('raw', points([now - raw.keepMs - 1, now - raw.keepMs, now - HOUR]));
    repo.insertMany('minute', points([now - minute.keepMs - 1, now - minute.keepMs, now - DAY]));
    repo.insertMany(
      'ten_minutes',
      points([now - ten_minutes.keepMs - 1, now - ten_minutes.keepMs, now - 7 * DAY]),
    );
    expect(raw.keepMs).toBeGreaterThanOrEqual(HOUR + MINUTE);
    expect(minute.keepMs).toBeGreaterThanOrEqual(DAY + MINUTE);
    expect(ten_minutes.keepMs).toBeGreaterThanOrEqual(7 * DAY + MINUTE);

    clock.set(now);
    await tickWith(sample({ cpu_usage: 5 }));
    expect(repo.listSince('raw', 0).map((p) => p.ts)).toEqual([now - raw.keepMs, now - HOUR, now]);
    expect(
      repo
        .listSince('minute', 0)
        .map((p) => p.ts)
        .slice(0, 2),
    ).toEqual([now - minute.keepMs, now - DAY]);
    expect(
      repo
        .listSince('ten_minutes', 0)
        .map((p) => p.ts)
        .slice(0, 2),
    ).toEqual([now - ten_minutes.keepMs, now - 7 * DAY]);
  });

  it('reads its history back after a restart and rolls up what the last run left', async () => {
    const first = setup();
    await first.tickWith(sample({ cpu_usage: 10 }), sample({ cpu_usage: 30 }));
    await first.sampler.stop();

    const second = setup({ db: first.db, start: START + 5 * MINUTE });
    expect(cpu(second.sampler.history('1h'))).toEqual([10, 30]);
    expect(cpu(second.sampler.history('24h'))).toEqual([20]);
    await second.tickWith(sample({ cpu_usage: 70 }));
    expect(second.repo.listSince('minute', 0).map((p) => [p.ts, p.metrics.cpu_usage])).toEqual([
      [START, 20],
    ]);
    expect(cpu(second.sampler.history('24h'))).toEqual([20, 70]);
  });

  it('answers the latest sample while it is fresh, else samples again, sharing one sample between callers', async () => {
    const { clock, probe, sampler } = setup();
    probe.push(sample({ cpu_usage: 1 }), sample({ cpu_usage: 2 }));
    const [a, b] = await Promise.all([sampler.current(), sampler.current()]);
    expect(probe.calls).toBe(1);
    expect(a).toBe(b);
    expect(a).toMatchObject({ cpu_usage: 1, timestamp: iso(START) });

    clock.advance(FRESH_SAMPLE_MS - 1);
    expect((await sampler.current()).cpu_usage).toBe(1);
    expect(probe.calls).toBe(1);
    clock.advance(1);
    expect((await sampler.current()).cpu_usage).toBe(2);
    expect(probe.calls).toBe(2);
  });

  it('stores the sample a request has just taken instead of sampling again', async () => {
    const { clock, probe, repo, sampler } = setup();
    probe.push(sample({ cpu_usage: 7 }));
    await sampler.current();
    clock.advance(300);
    await sampler.tick();
    expect(probe.calls).toBe(1);
    expect(repo.listSince('raw', 0).map((p) => [p.ts, p.metrics.cpu_usage])).toEqual([[START, 7]]);
  });

  it('logs a failed sample and samples again at the next tick', async () => {
    const { clock, probe, repo, sampler, errors } = setup();
    probe.fail = true;
    await sampler.tick();
    expect(errors).toEqual(['Sampling the system metrics failed']);
    expect(repo.listSince('raw', 0)).toEqual([]);
    probe.fail = false;
    clock.advance(5000);
    probe.push(sample({ cpu_usage: 3 }));
    await sampler.tick();
    expect(repo.listSince('raw', 0)).toHaveLength(1);
  });

  it('samples once per interval from start, on a timer that keeps no process alive, until stopped', async () => {
    vi.useFakeTimers();
    const { probe, repo, sampler } = setup();
    const spy = vi.spyOn(globalThis, 'setInterval');
    sampler.start();
    expect((spy.mock.results[0]?.value as NodeJS.Timeout).hasRef()).toBe(false);
    spy.mockRestore();
    expect(probe.calls).toBe(0);

    await vi.advanceTimersByTimeAsync(5000);
    expect(probe.calls).toBe(1);
    expect(repo.listSince('raw', 0)).toHaveLength(1);
    await sampler.stop();
    await vi.advanceTimersByTimeAsync(20_000);
    expect(probe.calls).toBe(1);
  });
});
