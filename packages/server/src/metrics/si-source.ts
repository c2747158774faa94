import os from 'node:os';
import type { Systeminformation } from 'systeminformation';
import type { CpuTicks, NetCounters, Reading, ReadingSource } from './reading.js';

type Si = typeof import('systeminformation');
let loading: Promise<Si> | null = null;
/**
 * Loaded at the first reading, not with the server: its ~25 modules cost 0.1-0.5 s of a start,
 * and a Linux server (ProcSource) never reads through it.
 */
const systeminformation = (): Promise<Si> =>
  (loading ??= import('systeminformation').then((m) => ('default' in m ? m.default : m) as Si));

/**
 * Figures whose systeminformation call spawns heavy commands (ps, netstat, powershell) are read
 * at most this often and repeated in between: the sampler runs every 5 s.
 */
export const SLOW_FIGURES_EVERY_MS = 60_000;

/**
 * The portable readings, for machines without /proc (macOS, Windows, the BSDs): systeminformation,
 * and Node's os.cpus() for the CPU ticks (what si.currentLoad reads itself, without its
 * process-wide state). Costs more than ProcSource: it spawns commands.
 */
export class SiSource implements ReadingSource {
  private readonly temperature = new Throttled(async () => {
    const t = await (await systeminformation()).cpuTemperature();
    return positive(t.main);
  });
  private readonly processes = new Throttled(async () =>
    positive((await (await systeminformation()).processes()).all),
  );
  private readonly connections = new Throttled(
    async () => (await (await systeminformation()).networkConnections()).length,
  );
  /** Interfaces do not change while the server runs often enough to scan them every sample. */
  private readonly interfaces = new Throttled(
    async () => (await systeminformation()).networkInterfaces(),
    Infinity,
  );

  async read(): Promise<Reading> {
    const si = await systeminformation();
    const [speed, temperatureC, processes, mem, fsStats, disksIO, net, connections] =
      await Promise.all([
        si.cpuCurrentSpeed().catch(() => null),
        this.temperature.get(),
        this.processes.get(),
        si.mem().catch(() => null),
        si.fsStats().catch(() => null),
        si.disksIO().catch(() => null),
        this.net(),
        this.connections.get(),
      ]);
    const ops = disksIO ? disksIO.rIO + disksIO.wIO : null;
    return {
      cores: os.cpus().map((c): CpuTicks => {
        const t = c.times;
        const total = t.user + t.nice + t.sys + t.idle + t.irq;
        return { busy: total - t.idle, total };
      }),
      // si answers GHz.
      frequencyMhz: speed && speed.avg > 0 ? speed.avg * 1000 : null,
      temperatureC,
      processes,
      threads: null,
      memory: {
        total: mem?.total ?? null,
        used: mem ? mem.total - mem.available : null,
        cached: mem?.cached ?? null,
        buffers: mem?.buffers ?? null,
        swapTotal: mem?.swaptotal ?? null,
        swapUsed: mem?.swapused ?? null,
      },
      disk: fsStats
        ? {
            readBytes: fsStats.rx,
            writtenBytes: fsStats.wx,
            ops: ops ?? 0,
            opsMs: disksIO && disksIO.tWaitTime > 0 ? disksIO.tWaitTime : null,
          }
        : null,
      net,
      connections,
    };
  }

  private async net(): Promise<NetCounters | null> {
    const ifaces = ((await this.interfaces.get()) ?? []).filter((i) => !i.internal);
    if (ifaces.length === 0) return null;
    const si = await systeminformation();
    const stats = await si.networkStats(ifaces.map((i) => i.iface).join(',')).catch(() => []);
    if (stats.length === 0) return null;
    const speeds = ifaces.map((i) => i.speed ?? 0).filter((s) => s > 0);
    const sum = (pick: (s: Systeminformation.NetworkStatsData) => number) =>
      stats.reduce((acc, s) => acc + pick(s), 0);
    return {
      rxBytes: sum((s) => s.rx_bytes),
      txBytes: sum((s) => s.tx_bytes),
      // networkStats has no packet counts.
      rxPackets: null,
      txPackets: null,
      lostPackets: sum((s) => s.rx_dropped + s.rx_errors + s.tx_dropped + s.tx_errors),
      linkMbps: speeds.length > 0 ? speeds.reduce((a, b) => a + b, 0) : null,
    };
  }
}

/** The last value of `read`, read again once older than `everyMs`; null when it failed. */
class Throttled<T> {
  private last: { at: number; value: Promise<T | null> } | null = null;

  constructor(
    private readonly read: () => Promise<T>,
    private readonly everyMs = SLOW_FIGURES_EVERY_MS,
  ) {}

  get(): Promise<T | null> {
    const now = performance.now();
    if (!this.last || now - this.last.at >= this.everyMs) {
      this.last = { at: now, value: this.read().catch(() => null) };
    }
    return this.last.value;
  }
}

/** si answers -1 or 0 (or null) for a figure it could not read. */
const positive = (n: number | null | undefined): number | null =>
  typeof n === 'number' && n > 0 ? n : null;
