import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import {
  ProcSource,
  findCpuTemperatureFiles,
  findDisks,
  parseDiskstats,
  parseLoadavgThreads,
  parseMeminfo,
  parseNetDev,
  parseProcStat,
  parseSockstat,
} from './proc-source.js';

const dirs: string[] = [];
afterAll(() => dirs.forEach((d) => fs.rmSync(d, { recursive: true, force: true })));

/** A directory tree from { 'a/b': 'text' }; a value of null makes an empty directory. */
function tree(files: Record<string, string | null>): string {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'adam-proc-'));
  dirs.push(root);
  for (const [rel, text] of Object.entries(files)) {
    const p = path.join(root, rel);
    if (text === null) fs.mkdirSync(p, { recursive: true });
    else {
      fs.mkdirSync(path.dirname(p), { recursive: true });
      fs.writeFileSync(p, text);
    }
  }
  return root;
}

describe('/proc parsers', () => {
  it('reads per-core busy and total ticks, iowait as idle', () => {
    const stat = [
      'cpu  300 0 100 1000 50 0 10 0 0 0',
      'cpu0 100 0 50 500 50 0 0 0 0 0',
      'cpu1 200 0 50 500 0 0 10 0 0 0',
      'intr 1 2 3',
    ].join('\n');
    expect(parseProcStat(stat)).toEqual([
      { busy: 150, total: 700 },
      { busy: 260, total: 760 },
    ]);
  });

  it('reads memory in bytes, in use as total minus available', () => {
    const m = parseMeminfo(
      'MemTotal: 1000 kB\nMemFree: 100 kB\nMemAvailable: 600 kB\nBuffers: 20 kB\nCached: 300 kB\nSwapCached: 0 kB\nSwapTotal: 2000 kB\nSwapFree: 1500 kB\n',
    );
    expect(m).toEqual({
      total: 1024_000,
      used: 409_600,
      cached: 307_200,
      buffers: 20_480,
      swapTotal: 2_048_000,
      swapUsed: 512_000,
    });
  });

  it('sums the listed disks only, in bytes of 512-byte sectors', () => {
    const text = [
      ' 254 0 vda 10 0 8 40 20 0 16 60 0 0 0',
      ' 254 1 vda1 10 0 8 40 20 0 16 60 0 0 0',
      '   7 0 loop0 99 0 99 99 99 0 99 99 0 0 0',
    ].join('\n');
    expect(parseDiskstats(text, new Set(['vda']))).toEqual({
      readBytes: 4096,
      writtenBytes: 8192,
      ops: 30,
      opsMs: 100,
    });
    expect(parseDiskstats(text, new Set(['sda']))).toBeNull();
  });

  it('reads bytes, packets and losses per interface', () => {
    const text = [
      'Inter-|   Receive                                                |  Transmit',
      ' face |bytes    packets errs drop fifo frame compressed multicast|bytes    packets errs drop fifo colls carrier compressed',
      '    lo: 500 5 0 0 0 0 0 0 500 5 0 0 0 0 0 0',
      '  eth0: 1000 10 1 2 0 0 0 0 2000 20 3 4 0 0 0 0',
    ].join('\n');
    expect(parseNetDev(text)).toEqual([
      { name: 'lo', rxBytes: 500, rxPackets: 5, txBytes: 500, txPackets: 5, lost: 0 },
      { name: 'eth0', rxBytes: 1000, rxPackets: 10, txBytes: 2000, txPackets: 20, lost: 10 },
    ]);
  });

  it('counts TCP sockets of both IP versions, and threads from loadavg', () => {
    expect(parseSockstat('TCP: inuse 7 orphan 0 tw 2 alloc 9 mem 1\n', 'TCP6: inuse 3\n')).toBe(10);
    expect(parseSockstat(null, null)).toBeNull();
    expect(parseLoadavgThreads('0.35 0.59 0.28 1/90 26608\n')).toBe(90);
    expect(parseLoadavgThreads('')).toBeNull();
  });
});

describe('/sys discovery', () => {
  it('prefers the package sensor, then the cores, then a CPU thermal zone', () => {
    const sys = tree({
      'class/hwmon/hwmon0/name': 'nvme\n',
      'class/hwmon/hwmon0/temp1_label': 'Composite\n',
      'class/hwmon/hwmon1/name': 'coretemp\n',
      'class/hwmon/hwmon1/temp1_label': 'Package id 0\n',
      'class/hwmon/hwmon1/temp2_label': 'Core 0\n',
      'class/thermal/thermal_zone0/type': 'x86_pkg_temp\n',
    });
    expect(findCpuTemperatureFiles(sys)).toEqual([
      path.join(sys, 'class/hwmon/hwmon1/temp1_input'),
    ]);
    const zoneOnly = tree({
      'class/thermal/thermal_zone0/type': 'acpitz\n',
      'class/thermal/thermal_zone1/type': 'cpu-thermal\n',
    });
    expect(findCpuTemperatureFiles(zoneOnly)).toEqual([
      path.join(zoneOnly, 'class/thermal/thermal_zone1/temp'),
    ]);
    expect(findCpuTemperatureFiles(tree({}))).toEqual([]);
  });

  it('counts hardware-backed disks, not loops, partitions or device-mapper volumes', () => {
    const sys = tree({ 'block/sda/device': null, 'block/loop0': null, 'block/dm-0': null });
    expect([...findDisks(sys)]).toEqual(['sda']);
    const virtualOnly = tree({ 'block/vdb': null, 'block/loop0': null, 'block/zram0': null });
    expect([...findDisks(virtualOnly)]).toEqual(['vdb']);
  });

  it('reads temperature, frequency and link speed from the files it found', async () => {
    const proc = tree({
      stat: 'cpu  2 0 0 2 0 0 0 0\ncpu0 1 0 0 1 0 0 0 0\ncpu1 1 0 0 1 0 0 0 0\n',
      loadavg: '0.00 0.00 0.00 1/12 99\n',
      '42/status': '',
      '43/status': '',
      'self/status': '',
      'net/dev':
        'h|\nh|\n  lo: 1 1 0 0 0 0 0 0 1 1 0 0 0 0 0 0\n eth0: 100 1 0 0 0 0 0 0 200 2 0 0 0 0 0 0\n br0: 100 1 0 0 0 0 0 0 200 2 0 0 0 0 0 0\n',
    });
    const sys = tree({
      'class/hwmon/hwmon0/name': 'k10temp\n',
      'class/hwmon/hwmon0/temp1_label': 'Tctl\n',
      'class/hwmon/hwmon0/temp1_input': '52500\n',
      'devices/system/cpu/cpu0/cpufreq/scaling_cur_freq': '2000000\n',
      'devices/system/cpu/cpu1/cpufreq/scaling_cur_freq': '3000000\n',
      'class/net/eth0/device': null,
      'class/net/eth0/speed': '1000\n',
      'class/net/br0/speed': '10000\n',
    });
    const r = await new ProcSource({ proc, sys }).read();
    expect(r.temperatureC).toBe(52.5);
    expect(r.frequencyMhz).toBe(2500);
    expect(r.processes).toBe(2);
    expect(r.threads).toBe(12);
    // The bridge carries eth0's bytes again: only the device counts.
    expect(r.net).toMatchObject({ rxBytes: 100, txBytes: 200, linkMbps: 1000 });
    expect(r.memory.total).toBeNull();
    expect(r.disk).toBeNull();
    expect(r.connections).toBeNull();
  });
});
