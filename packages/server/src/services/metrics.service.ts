import fs from 'node:fs';
import os from 'node:os';
import type { RealtimeMetrics } from '@adam/contracts';
import type { EventBus } from '../lib/event-bus.js';
import { RateWindow } from '../lib/rate-window.js';
import { parseMeminfo } from '../metrics/proc-source.js';

interface CpuSample {
  idle: number;
  total: number;
}

function sampleCpu(): CpuSample {
  let idle = 0;
  let total = 0;
  for (const c of os.cpus()) {
    const t = c.times;
    idle += t.idle;
    total += t.user + t.nice + t.sys + t.idle + t.irq;
  }
  return { idle, total };
}

/** Memory in use as the kernel counts it (MemTotal - MemAvailable), falling back to os.freemem. */
function memoryUsagePercent(): number {
  try {
    const { total, used } = parseMeminfo(fs.readFileSync('/proc/meminfo', 'utf8'));
    if (total && used !== null) return (used / total) * 100;
  } catch {
    // not Linux
  }
  return ((os.totalmem() - os.freemem()) / os.totalmem()) * 100;
}

/** The window of jobsPerMinute: long enough that a few jobs an hour still show. */
export const JOB_RATE_WINDOW_S = 5 * 60;

/**
 * Host CPU and memory for the sidebar, CPU measured between two calls (at least 200 ms apart),
 * and the live pipeline rates: segments stored per second, jobs running and finished per
 * minute, similarity searches per second.
 */
export class MetricsService {
  /** Jobs that ended completed or failed (a cancelled job did not run to its end). */
  private readonly finishedJobs: RateWindow;
  private readonly unsubscribe: (() => void)[] = [];

  constructor(
    private readonly deps: {
      segmentsPerSecond?: () => number;
      searchesPerSecond?: () => number;
      activeJobs?: () => number;
      /** The job events: job_completed and job_failed feed jobsPerMinute. */
      bus?: Pick<EventBus, 'on'>;
      now?: () => number;
    } = {},
  ) {
    this.finishedJobs = new RateWindow(JOB_RATE_WINDOW_S, deps.now);
    if (deps.bus) {
      this.unsubscribe.push(
        deps.bus.on('job_completed', () => this.finishedJobs.add()),
        deps.bus.on('job_failed', () => this.finishedJobs.add()),
      );
    }
  }

  private last: CpuSample = sampleCpu();
  private lastAt = Date.now();
  private lastCpu = 0;

  /** Jobs finished per minute over the last JOB_RATE_WINDOW_S seconds. */
  jobsPerMinute(): number {
    return this.finishedJobs.perSecond() * 60;
  }

  realtime(): RealtimeMetrics {
    const now = Date.now();
    if (now - this.lastAt >= 200) {
      const s = sampleCpu();
      const total = s.total - this.last.total;
      const idle = s.idle - this.last.idle;
      this.lastCpu = total > 0 ? Math.min(100, Math.max(0, (1 - idle / total) * 100)) : 0;
      this.last = s;
      this.lastAt = now;
    }
    return {
      cpuUsage: round1(this.lastCpu),
      memoryUsage: round1(memoryUsagePercent()),
      segmentsPerSecond: round3(this.deps.segmentsPerSecond?.() ?? 0),
      activeJobs: this.deps.activeJobs?.() ?? 0,
      jobsPerMinute: round3(this.jobsPerMinute()),
      searchesPerSecond: round3(this.deps.searchesPerSecond?.() ?? 0),
      timestamp: new Date(now).toISOString(),
    };
  }

  stop(): void {
    for (const off of this.unsubscribe.splice(0)) off();
  }
}

const round1 = (n: number) => Math.round(n * 10) / 10;
const round3 = (n: number) => Math.round(n * 1000) / 1000;
