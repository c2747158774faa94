/**
 * The metrics sampler's own cost (not a test: prints figures, asserts nothing).
 *
 *   npm run bench -w @adam/server -- metrics-sampler
 *
 * The sampler of the server (the real SystemProbe, a SQLite store in a temporary data dir) runs
 * TICKS rounds on a clock moved 5 s per round, so it also rolls minutes and 10 minutes up and
 * prunes as it would in 16 minutes of service. Its CPU time per round (process.cpuUsage, plus
 * the CPU of the commands it spawned, read from /proc/self/stat) is printed as a share of one
 * core at the 5 s interval: the target is under 1%. Beside it, in the same run: the reference,
 * one bare read of /proc/stat and os.cpus() (the least any CPU figure costs), the probe alone,
 * the portable systeminformation source (what the probe would cost without /proc), and the
 * history reads the console makes, on a full week of points.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { METRICS_SAMPLE_INTERVAL_MS, type SystemMetrics } from '@adam/contracts';
import siLib from 'systeminformation';
import { SiSource, SLOW_FIGURES_EVERY_MS } from '../src/metrics/si-source.js';
import { SystemProbe } from '../src/metrics/system-probe.js';
import { MetricsSamplerService } from '../src/services/metrics-sampler.service.js';
import { openDatabase } from '../src/store/db.js';
import {
  MetricsHistoryRepository,
  type MetricsPoint,
} from '../src/store/metrics-history.repository.js';
import { fixed, footer, header, removeDir, table } from './common.js';

const TICKS = 200;
const REFERENCE_CALLS = 2000;
const SI_SAMPLES = 5;
/** systeminformation answers its disk figures from a cache for 500 ms: its samples wait past it. */
const SI_WINDOW_MS = 600;
const HISTORY_READS = 20;
/** Short windows between samples: the CPU cost does not depend on them. */
const WINDOW_MS = 20;

header('metrics-sampler: CPU cost of one sample of the machine, stored and rolled up');
const started = performance.now();
const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'adam-bench-metrics-'));

/** Ticks of USER_HZ (100 per second) spent by children this process waited for (Linux). */
function childrenCpuMs(): number | null {
  try {
    const stat = fs.readFileSync('/proc/self/stat', 'utf8');
    const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    // Fields 16 and 17 of the file (cutime, cstime), counted from the state (field 3).
    return (Number(f[13]) + Number(f[14])) * 10;
  } catch {
    return null;
  }
}

interface Cost {
  name: string;
  calls: number;
  /** How often it runs in the server. */
  periodMs: number;
  ownMs: number;
  childMs: number | null;
}

async function cost(
  name: string,
  calls: number,
  fn: () => unknown,
  periodMs = METRICS_SAMPLE_INTERVAL_MS,
): Promise<Cost> {
  const cpu = process.cpuUsage();
  const children = childrenCpuMs();
  for (let i = 0; i < calls; i++) await fn();
  const used = process.cpuUsage(cpu);
  const childrenAfter = childrenCpuMs();
  return {
    name,
    calls,
    periodMs,
    ownMs: (used.user + used.system) / 1000 / calls,
    childMs:
      children !== null && childrenAfter !== null ? (childrenAfter - children) / calls : null,
  };
}

try {
  const db = openDatabase(dataDir);
  const repo = new MetricsHistoryRepository(db);
  const probe = new SystemProbe(dataDir, { minWindowMs: WINDOW_MS });
  let now = Date.UTC(2026, 10, 22, 12, 0, 0);
  const sampler = new MetricsSamplerService({
    probe,
    history: repo,
    log: { error: (o: unknown) => console.error('sampler error', o) },
    now: () => now,
  });
  await probe.sample(); // first-use costs (JIT, finding sensors and disks) left out

  const reference = await cost('reference: read /proc/stat + os.cpus()', REFERENCE_CALLS, () => {
    fs.readFileSync('/proc/stat');
    os.cpus();
  });
  const probeOnly = await cost('probe.sample()', TICKS, () => probe.sample());
  const ticks = await cost('sampler round (sample + store + roll-up)', TICKS, async () => {
    now += METRICS_SAMPLE_INTERVAL_MS;
    await sampler.tick();
  });
  const siProbe = new SystemProbe(dataDir, { source: new SiSource(), minWindowMs: SI_WINDOW_MS });
  await siProbe.sample();
  const si = await cost('probe.sample() on systeminformation', SI_SAMPLES, () => siProbe.sample());
  // The figures SiSource reads once a minute only (ps, netstat, sensors).
  const siSlow = await cost(
    'systeminformation: processes, connections, temperature',
    3,
    () => Promise.all([siLib.processes(), siLib.networkConnections(), siLib.cpuTemperature()]),
    SLOW_FIGURES_EVERY_MS,
  );

  const share = (c: Cost) => ((c.ownMs + (c.childMs ?? 0)) / c.periodMs) * 100;
  table(
    [
      'what',
      'calls',
      'every',
      'own CPU ms/call',
      'children CPU ms/call',
      '% of a core',
      '× reference',
    ],
    [reference, probeOnly, ticks, si, siSlow].map((c) => [
      c.name,
      c.calls,
      `${c.periodMs / 1000} s`,
      fixed(c.ownMs, 3),
      c.childMs === null ? '-' : fixed(c.childMs, 1),
      fixed(share(c), 3),
      fixed((c.ownMs + (c.childMs ?? 0)) / reference.ownMs, 1),
    ]),
  );
  console.log(
    `\nsampler: ${fixed(share(ticks), 3)}% of one core at one sample per ${METRICS_SAMPLE_INTERVAL_MS / 1000} s (target < 1%)`,
  );

  // A full week: 720 raw samples, 1,440 minutes, 1,008 10-minute points.
  const point = (await probe.sample()) as SystemMetrics;
  const fill = (tier: 'raw' | 'minute' | 'ten_minutes', n: number, stepMs: number) => {
    const points: MetricsPoint[] = Array.from({ length: n }, (_, i) => ({
      ts: now - (n - i) * stepMs,
      metrics: { ...point, timestamp: new Date(now - (n - i) * stepMs).toISOString() },
    }));
    repo.insertMany(tier, points);
  };
  fill('raw', 720, 5000);
  fill('minute', 1440, 60_000);
  fill('ten_minutes', 1008, 600_000);
  const reads = [];
  for (const range of ['1h', '24h', '7d'] as const) {
    const points = sampler.history(range).metrics.length;
    reads.push({
      range,
      points,
      ...(await cost(range, HISTORY_READS, () => sampler.history(range))),
    });
  }
  console.log();
  table(
    ['history read', 'points', 'own CPU ms/call'],
    reads.map((r) => [r.range, r.points, fixed(r.ownMs, 2)]),
  );
  db.close();
} finally {
  removeDir(dataDir);
}
footer(started);
