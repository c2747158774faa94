import fs from 'node:fs';
import os from 'node:os';
import type { RealtimeMetrics } from '@adam/contracts';

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
    const info = fs.readFileSync('/proc/meminfo', 'utf8');
    const kb = (name: string) => Number(new RegExp(`^${name}:\\s+(\\d+)`, 'm').exec(info)?.[1]);
    const total = kb('MemTotal');
    const available = kb('MemAvailable');
    if (total > 0 && Number.isFinite(available)) return ((total - available) / total) * 100;
  } catch {
    // not Linux
  }
  return ((os.totalmem() - os.freemem()) / os.totalmem()) * 100;
}

/**
 * Host CPU and memory for the sidebar, CPU measured between two calls (at least 200 ms apart),
 * and the segment rate the header shows.
 */
export class MetricsService {
  constructor(private readonly deps: { segmentsPerSecond?: () => number } = {}) {}

  private last: CpuSample = sampleCpu();
  private lastAt = Date.now();
  private lastCpu = 0;

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
      segmentsPerSecond: Math.round((this.deps.segmentsPerSecond?.() ?? 0) * 1000) / 1000,
      timestamp: new Date(now).toISOString(),
    };
  }
}

const round1 = (n: number) => Math.round(n * 10) / 10;
