/**
 * What a source reads from the machine at one moment: cumulative counters (rates come from two
 * readings) and instant values. null: the machine does not say.
 */
export interface Reading {
  /** Ticks each logical core spent busy and in total since boot; [] when unknown. */
  cores: CpuTicks[];
  /** MHz, mean over the cores. */
  frequencyMhz: number | null;
  temperatureC: number | null;
  processes: number | null;
  threads: number | null;
  memory: MemoryReading;
  disk: DiskCounters | null;
  net: NetCounters | null;
  connections: number | null;
}

export interface CpuTicks {
  busy: number;
  total: number;
}

/** Bytes. */
export interface MemoryReading {
  total: number | null;
  /** In use: total minus what the kernel could hand out without swapping (MemAvailable). */
  used: number | null;
  cached: number | null;
  buffers: number | null;
  swapTotal: number | null;
  swapUsed: number | null;
}

export interface DiskCounters {
  readBytes: number;
  writtenBytes: number;
  /** Reads and writes completed. */
  ops: number;
  /** Milliseconds those operations took, summed (iostat's await numerator). */
  opsMs: number | null;
}

export interface NetCounters {
  rxBytes: number;
  txBytes: number;
  rxPackets: number | null;
  txPackets: number | null;
  /** Packets dropped or in error, both directions. */
  lostPackets: number | null;
  /** Link speeds of the counted interfaces, summed; null when none reports one. */
  linkMbps: number | null;
}

/** Where readings come from: /proc on Linux, systeminformation elsewhere. */
export interface ReadingSource {
  read(): Promise<Reading>;
}

export const EMPTY_MEMORY: MemoryReading = {
  total: null,
  used: null,
  cached: null,
  buffers: null,
  swapTotal: null,
  swapUsed: null,
};
