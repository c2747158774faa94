import fs from 'node:fs';
import path from 'node:path';
import type {
  CpuTicks,
  DiskCounters,
  MemoryReading,
  NetCounters,
  Reading,
  ReadingSource,
} from './reading.js';

/** Bytes per sector in /proc/diskstats, whatever the device's own sector size. */
const DISKSTATS_SECTOR = 512;

/**
 * Linux readings straight from /proc and /sys: a dozen small reads, well under a millisecond,
 * where systeminformation spawns a shell per figure (cat, df, ps, netstat, sensors). The files to
 * read (sensors, frequency, disks) are found once, on the first reading.
 */
export class ProcSource implements ReadingSource {
  private readonly proc: string;
  private readonly sys: string;
  private found: {
    temperatures: string[];
    frequencies: string[] | 'cpuinfo' | null;
    disks: Set<string>;
  } | null = null;
  /** Whether each interface seen so far is backed by a device (a NIC, not a bridge or veth). */
  private readonly physical = new Map<string, boolean>();

  /** `roots` point the reads at a copy of /proc and /sys (tests). */
  constructor(roots: { proc?: string; sys?: string } = {}) {
    this.proc = roots.proc ?? '/proc';
    this.sys = roots.sys ?? '/sys';
  }

  async read(): Promise<Reading> {
    const cores = parseProcStat(this.text('stat') ?? '');
    const found = (this.found ??= this.discover(cores.length));
    return {
      cores,
      frequencyMhz: this.frequency(found.frequencies),
      temperatureC: mean(found.temperatures.map((f) => milli(readText(f)))),
      processes: this.processCount(),
      threads: parseLoadavgThreads(this.text('loadavg') ?? ''),
      memory: parseMeminfo(this.text('meminfo') ?? ''),
      disk: parseDiskstats(this.text('diskstats') ?? '', found.disks),
      net: this.net(),
      connections: parseSockstat(this.text('net/sockstat'), this.text('net/sockstat6')),
    };
  }

  private text(name: string): string | null {
    return readText(path.join(this.proc, name));
  }

  private discover(coreCount: number) {
    const cpuDir = path.join(this.sys, 'devices/system/cpu');
    const freqFile = (i: number) => path.join(cpuDir, `cpu${i}`, 'cpufreq/scaling_cur_freq');
    let frequencies: string[] | 'cpuinfo' | null = null;
    if (coreCount > 0 && fs.existsSync(freqFile(0))) {
      frequencies = Array.from({ length: coreCount }, (_, i) => freqFile(i)).filter((f) =>
        fs.existsSync(f),
      );
    } else if (/^cpu MHz/m.test(this.text('cpuinfo') ?? '')) {
      // Virtual machines often have no cpufreq: the kernel's own figure, per core.
      frequencies = 'cpuinfo';
    }
    return {
      temperatures: findCpuTemperatureFiles(this.sys),
      frequencies,
      disks: findDisks(this.sys),
    };
  }

  private frequency(source: string[] | 'cpuinfo' | null): number | null {
    if (source === 'cpuinfo') {
      const mhz = [...(this.text('cpuinfo') ?? '').matchAll(/^cpu MHz\s*:\s*([\d.]+)/gm)];
      return mean(mhz.map((m) => Number(m[1])));
    }
    if (!source) return null;
    const khz = mean(source.map((f) => num(readText(f))));
    return khz === null ? null : khz / 1000;
  }

  private processCount(): number | null {
    try {
      let n = 0;
      for (const name of fs.readdirSync(this.proc)) {
        const c = name.charCodeAt(0);
        if (c >= 48 && c <= 57) n++;
      }
      return n;
    } catch {
      return null;
    }
  }

  /**
   * Devices' interfaces only when there are any: a bridge or a veth carries the same bytes again.
   * In a container, whose eth0 is a veth, every interface but the loopback.
   */
  private net(): NetCounters | null {
    const all = parseNetDev(this.text('net/dev') ?? '');
    if (all.length === 0) return null;
    const isPhysical = (name: string) => {
      let p = this.physical.get(name);
      if (p === undefined) {
        p = fs.existsSync(path.join(this.sys, 'class/net', name, 'device'));
        this.physical.set(name, p);
      }
      return p;
    };
    const physical = all.filter((i) => isPhysical(i.name));
    const counted = physical.length > 0 ? physical : all.filter((i) => i.name !== 'lo');
    const speeds = counted
      .map((i) => num(readText(path.join(this.sys, 'class/net', i.name, 'speed'))))
      .filter((s): s is number => s !== null && s > 0);
    const sum = (pick: (i: NetDevLine) => number) => counted.reduce((s, i) => s + pick(i), 0);
    return {
      rxBytes: sum((i) => i.rxBytes),
      txBytes: sum((i) => i.txBytes),
      rxPackets: sum((i) => i.rxPackets),
      txPackets: sum((i) => i.txPackets),
      lostPackets: sum((i) => i.lost),
      linkMbps: speeds.length > 0 ? speeds.reduce((s, x) => s + x, 0) : null,
    };
  }
}

/** Per-core busy and total ticks from /proc/stat (`cpuN` lines; iowait counts as idle). */
export function parseProcStat(text: string): CpuTicks[] {
  const cores: CpuTicks[] = [];
  for (const line of text.split('\n')) {
    if (!/^cpu\d/.test(line)) continue;
    // user nice system idle iowait irq softirq steal (guest time is already in user and nice)
    const f = line.trim().split(/\s+/).slice(1, 9).map(Number);
    const total = f.reduce((s, x) => s + (Number.isFinite(x) ? x : 0), 0);
    const idle = (f[3] ?? 0) + (f[4] ?? 0);
    cores.push({ busy: total - idle, total });
  }
  return cores;
}

export function parseMeminfo(text: string): MemoryReading {
  const kb = (name: string) => {
    const m = new RegExp(`^${name}:\\s+(\\d+)`, 'm').exec(text);
    return m ? Number(m[1]) * 1024 : null;
  };
  const total = kb('MemTotal');
  const available = kb('MemAvailable');
  const swapTotal = kb('SwapTotal');
  const swapFree = kb('SwapFree');
  return {
    total,
    used: total !== null && available !== null ? total - available : null,
    cached: kb('Cached'),
    buffers: kb('Buffers'),
    swapTotal,
    swapUsed: swapTotal !== null && swapFree !== null ? swapTotal - swapFree : null,
  };
}

/** The listed devices' counters from /proc/diskstats, summed; null when none is there. */
export function parseDiskstats(text: string, disks: ReadonlySet<string>): DiskCounters | null {
  let seen = false;
  const c: DiskCounters = { readBytes: 0, writtenBytes: 0, ops: 0, opsMs: 0 };
  for (const line of text.split('\n')) {
    // major minor name reads merged sectors ms writes merged sectors ms ...
    const f = line.trim().split(/\s+/);
    if (f.length < 11 || !disks.has(f[2]!)) continue;
    seen = true;
    c.ops += Number(f[3]) + Number(f[7]);
    c.readBytes += Number(f[5]) * DISKSTATS_SECTOR;
    c.writtenBytes += Number(f[9]) * DISKSTATS_SECTOR;
    c.opsMs = (c.opsMs ?? 0) + Number(f[6]) + Number(f[10]);
  }
  return seen ? c : null;
}

export interface NetDevLine {
  name: string;
  rxBytes: number;
  rxPackets: number;
  txBytes: number;
  txPackets: number;
  /** Errors and drops, both directions. */
  lost: number;
}

export function parseNetDev(text: string): NetDevLine[] {
  const out: NetDevLine[] = [];
  for (const line of text.split('\n')) {
    const colon = line.indexOf(':');
    if (colon < 0) continue;
    const name = line.slice(0, colon).trim();
    // rx: bytes packets errs drop fifo frame compressed multicast, then tx: bytes packets errs drop
    const f = line
      .slice(colon + 1)
      .trim()
      .split(/\s+/)
      .map(Number);
    if (f.length < 12 || f.some((x) => !Number.isFinite(x))) continue;
    out.push({
      name,
      rxBytes: f[0]!,
      rxPackets: f[1]!,
      txBytes: f[8]!,
      txPackets: f[9]!,
      lost: f[2]! + f[3]! + f[10]! + f[11]!,
    });
  }
  return out;
}

/** TCP sockets in use (IPv4 and IPv6, listening ones included) from /proc/net/sockstat{,6}. */
export function parseSockstat(v4: string | null, v6: string | null): number | null {
  const inuse = (text: string | null, proto: string) => {
    const m = text && new RegExp(`^${proto}: inuse (\\d+)`, 'm').exec(text);
    return m ? Number(m[1]) : null;
  };
  const a = inuse(v4, 'TCP');
  const b = inuse(v6, 'TCP6');
  return a === null && b === null ? null : (a ?? 0) + (b ?? 0);
}

/** Threads on the machine: /proc/loadavg's "running/total" counts every scheduling entity. */
export function parseLoadavgThreads(text: string): number | null {
  const m = /^\S+ \S+ \S+ \d+\/(\d+)/.exec(text);
  return m ? Number(m[1]) : null;
}

/**
 * The CPU's temperature sensors, best first: hwmon's package sensor (Intel "Package id",
 * AMD "Tctl"/"Tdie"), else its per-core sensors, else a thermal zone named for the CPU.
 */
export function findCpuTemperatureFiles(sys: string): string[] {
  const hwmon = path.join(sys, 'class/hwmon');
  const packages: string[] = [];
  const cores: string[] = [];
  const unlabelled: string[] = [];
  for (const dir of list(hwmon)) {
    const base = path.join(hwmon, dir);
    const name = readText(path.join(base, 'name'))?.trim() ?? '';
    const labels = list(base).filter((f) => /^temp\d+_label$/.test(f));
    for (const l of labels) {
      const label = readText(path.join(base, l))?.trim() ?? '';
      const input = path.join(base, l.replace('_label', '_input'));
      if (/^(package id|physical id|tdie|tctl)/i.test(label)) packages.push(input);
      else if (/^core /i.test(label)) cores.push(input);
    }
    if (labels.length === 0 && /^(k10temp|coretemp|zenpower|cpu_thermal)$/.test(name)) {
      unlabelled.push(path.join(base, 'temp1_input'));
    }
  }
  for (const found of [packages, cores, unlabelled]) if (found.length > 0) return found;
  const zones = path.join(sys, 'class/thermal');
  return list(zones)
    .filter((z) => z.startsWith('thermal_zone'))
    .filter((z) => /cpu|x86_pkg_temp|soc/i.test(readText(path.join(zones, z, 'type')) ?? ''))
    .map((z) => path.join(zones, z, 'temp'));
}

/**
 * Block devices backed by hardware (/sys/block/X/device), so partitions, device-mapper and RAID
 * volumes do not count the same bytes twice; every non-virtual one when none says.
 */
export function findDisks(sys: string): Set<string> {
  const names = list(path.join(sys, 'block'));
  const withDevice = names.filter((n) => fs.existsSync(path.join(sys, 'block', n, 'device')));
  if (withDevice.length > 0) return new Set(withDevice);
  return new Set(names.filter((n) => !/^(loop|ram|zram|dm-|md|sr|fd)/.test(n)));
}

function list(dir: string): string[] {
  try {
    return fs.readdirSync(dir);
  } catch {
    return [];
  }
}

function readText(file: string): string | null {
  try {
    return fs.readFileSync(file, 'latin1');
  } catch {
    return null;
  }
}

function num(text: string | null): number | null {
  if (text === null) return null;
  const n = Number(text.trim());
  return text.trim() !== '' && Number.isFinite(n) ? n : null;
}

function milli(text: string | null): number | null {
  const n = num(text);
  return n === null ? null : n / 1000;
}

function mean(values: (number | null)[]): number | null {
  const ok = values.filter((v): v is number => v !== null);
  return ok.length > 0 ? ok.reduce((s, x) => s + x, 0) / ok.length : null;
}
