import fs from 'node:fs';
import type { SystemMetrics } from '@adam/contracts';
import { NvidiaSmi, type GpuFigures } from './nvidia-smi.js';
import { ProcSource } from './proc-source.js';
import type { Reading, ReadingSource } from './reading.js';
import { SiSource } from './si-source.js';
import { round } from '../lib/round.js';

/** Decimal megabytes: MB/s × 8 is then exactly the Mbps the console converts to (spec 001 §9). */
const MB = 1e6;
/** swap_total_gb in the console's GB, the one it turns memory bytes into. */
const GB = 1024 ** 3;

/**
 * Below this window CPU ticks (10 ms each) say little: the first sample reads a baseline and
 * waits this long, and a sample asked right after another waits out the rest.
 */
export const MIN_WINDOW_MS = 250;

export interface SystemProbeOptions {
  /** Default: /proc and /sys on Linux, systeminformation elsewhere. */
  source?: ReadingSource;
  /** Default: nvidia-smi from the PATH. */
  gpu?: { read(): Promise<GpuFigures>; stop?(): void };
  /** 0: no baseline, the first sample's rates are null. */
  minWindowMs?: number;
  /** Monotonic ms, for the rates' windows. */
  clock?: () => number;
  /** Wall-clock ms, for the timestamp. */
  now?: () => number;
  sleep?: (ms: number) => Promise<void>;
}

interface Timed {
  at: number;
  reading: Reading;
}

/**
 * Reads the machine's figures (SystemMetrics). Rates (CPU usage, MB/s, IOPS, packets/s) come
 * from the counters' change since this probe's previous sample: one probe per process, and one
 * sample at a time (the sampler shares its in-flight sample).
 */
export class SystemProbe {
  private readonly source: ReadingSource;
  private readonly gpu: { read(): Promise<GpuFigures>; stop?(): void };
  private readonly minWindowMs: number;
  private readonly clock: () => number;
  private readonly now: () => number;
  private readonly sleep: (ms: number) => Promise<void>;
  private prev: Timed | null = null;

  /** Disk usage is that of the file system holding `dataDir`. */
  constructor(
    private readonly dataDir: string,
    opts: SystemProbeOptions = {},
  ) {
    this.source = opts.source ?? (process.platform === 'linux' ? new ProcSource() : new SiSource());
    this.gpu = opts.gpu ?? new NvidiaSmi();
    this.minWindowMs = opts.minWindowMs ?? MIN_WINDOW_MS;
    this.clock = opts.clock ?? (() => performance.now());
    this.now = opts.now ?? Date.now;
    this.sleep = opts.sleep ?? ((ms) => new Promise((r) => setTimeout(r, ms)));
  }

  async sample(): Promise<SystemMetrics> {
    if (!this.prev && this.minWindowMs > 0) this.prev = await this.read();
    if (this.prev) {
      const wait = this.minWindowMs - (this.clock() - this.prev.at);
      if (wait > 0) await this.sleep(wait);
    }
    const [cur, gpu] = await Promise.all([this.read(), this.gpu.read()]);
    const metrics = compose(this.prev, cur, diskSpace(this.dataDir), gpu, this.now());
    this.prev = cur;
    return metrics;
  }

  /** Stops what the probe keeps running (nvidia-smi); a later sample starts it again. */
  close(): void {
    this.gpu.stop?.();
  }

  private async read(): Promise<Timed> {
    const reading = await this.source.read();
    return { at: this.clock(), reading };
  }
}

interface DiskSpace {
  used: number;
  total: number;
  usage: number | null;
}

function diskSpace(dir: string): DiskSpace | null {
  try {
    const s = fs.statfsSync(dir);
    const total = s.blocks * s.bsize;
    const used = (s.blocks - s.bfree) * s.bsize;
    const usable = used + s.bavail * s.bsize;
    // df's Use%: the blocks kept for root count as unavailable.
    return { used, total, usage: usable > 0 ? (used / usable) * 100 : null };
  } catch {
    return null;
  }
}

function compose(
  prev: Timed | null,
  cur: Timed,
  disk: DiskSpace | null,
  gpu: GpuFigures,
  now: number,
): SystemMetrics {
  const r = cur.reading;
  const p = prev?.reading ?? null;
  const seconds = prev ? (cur.at - prev.at) / 1000 : 0;
  /** Change per second of a counter; null without a window or when the counter went back. */
  const rate = (before: number | null | undefined, after: number | null | undefined) =>
    seconds > 0 && before != null && after != null && after >= before
      ? (after - before) / seconds
      : null;

  const cores = p && p.cores.length === r.cores.length ? r.cores : [];
  const deltas = cores.map((c, i) => ({
    busy: c.busy - p!.cores[i]!.busy,
    total: c.total - p!.cores[i]!.total,
  }));
  const usage = (busy: number, total: number) =>
    total > 0 ? clamp((busy / total) * 100, 0, 100) : null;
  const perCore = deltas.map((d) => usage(d.busy, d.total));
  const all = deltas.reduce((s, d) => ({ busy: s.busy + d.busy, total: s.total + d.total }), {
    busy: 0,
    total: 0,
  });

  const m = r.memory;
  const ops = rate(p?.disk?.ops, r.disk?.ops);
  const opsDone = p?.disk && r.disk ? r.disk.ops - p.disk.ops : 0;
  const opsMs =
    p?.disk?.opsMs != null && r.disk?.opsMs != null ? r.disk.opsMs - p.disk.opsMs : null;
  const netIn = rate(p?.net?.rxBytes, r.net?.rxBytes);
  const netOut = rate(p?.net?.txBytes, r.net?.txBytes);

  return {
    timestamp: new Date(now).toISOString(),
    cpu_usage: roundOrNull(deltas.length ? usage(all.busy, all.total) : null, 1),
    // A core with no tick in the window (too short a window) leaves the whole list unknown.
    cpu_per_core: perCore.every((v) => v !== null) ? perCore.map((v) => roundOrNull(v, 1)!) : [],
    cpu_temperature: roundOrNull(r.temperatureC, 1),
    cpu_frequency: roundOrNull(r.frequencyMhz, 0),
    cpu_processes: r.processes,
    cpu_threads: r.threads,
    memory_used: m.used,
    memory_total: m.total,
    memory_cached: m.cached,
    memory_buffers: m.buffers,
    memory_usage: roundOrNull(m.used !== null && m.total ? (m.used / m.total) * 100 : null, 1),
    // No swap configured: there is no usage to speak of.
    swap_usage: roundOrNull(
      m.swapUsed !== null && m.swapTotal ? (m.swapUsed / m.swapTotal) * 100 : null,
      1,
    ),
    swap_total_gb: roundOrNull(m.swapTotal !== null ? m.swapTotal / GB : null, 2),
    disk_used: disk?.used ?? null,
    disk_total: disk?.total ?? null,
    disk_usage: roundOrNull(disk?.usage ?? null, 1),
    disk_read: roundOrNull(mb(rate(p?.disk?.readBytes, r.disk?.readBytes)), 3),
    disk_write: roundOrNull(mb(rate(p?.disk?.writtenBytes, r.disk?.writtenBytes)), 3),
    disk_iops: roundOrNull(ops, 1),
    // Mean time per operation in the window; none done: nothing to measure.
    disk_latency: roundOrNull(
      opsMs !== null && opsDone > 0 && opsMs >= 0 ? opsMs / opsDone : null,
      2,
    ),
    network_in: roundOrNull(mb(netIn), 3),
    network_out: roundOrNull(mb(netOut), 3),
    network_connections: r.connections,
    network_packets_in: roundOrNull(rate(p?.net?.rxPackets, r.net?.rxPackets), 1),
    network_packets_out: roundOrNull(rate(p?.net?.txPackets, r.net?.txPackets), 1),
    network_packets_lost: roundOrNull(rate(p?.net?.lostPackets, r.net?.lostPackets), 1),
    network_bandwidth_used: roundOrNull(
      netIn !== null && netOut !== null ? ((netIn + netOut) * 8) / MB : null,
      3,
    ),
    network_bandwidth_total: r.net?.linkMbps ?? null,
    gpu_usage: roundOrNull(gpu.gpu_usage, 1),
    gpu_memory: gpu.gpu_memory,
    gpu_memory_total: gpu.gpu_memory_total,
    gpu_temperature: gpu.gpu_temperature,
    gpu_power: roundOrNull(gpu.gpu_power, 1),
  };
}

const mb = (bytesPerSecond: number | null) =>
  bytesPerSecond === null ? null : bytesPerSecond / MB;
const clamp = (x: number, lo: number, hi: number) => Math.min(hi, Math.max(lo, x));

function roundOrNull(x: number | null, decimals: number): number | null {
  return x === null || !Number.isFinite(x) ? null : round(x, decimals);
}
