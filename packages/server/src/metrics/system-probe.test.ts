import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it, onTestFinished } from 'vitest';
import { SystemMetrics } from '@adam/contracts';
import { NO_GPU, NvidiaSmi } from './nvidia-smi.js';
import { EMPTY_MEMORY, type Reading } from './reading.js';
import { SiSource } from './si-source.js';
import { MIN_WINDOW_MS, SystemProbe } from './system-probe.js';

const linux = process.platform === 'linux';
const dataDir = os.tmpdir();
const RATES = [
  'cpu_usage',
  'disk_read',
  'disk_write',
  'disk_iops',
  'network_in',
  'network_out',
  'network_packets_in',
  'network_packets_out',
  'network_packets_lost',
  'network_bandwidth_used',
] as const;

/** The machine's own figures, read the same way as the probe but without it. */
function expectPlausible(m: SystemMetrics) {
  expect(() => SystemMetrics.parse(m)).not.toThrow();
  expect(m.cpu_per_core).toHaveLength(os.cpus().length);
  for (const c of m.cpu_per_core) {
    expect(c).toBeGreaterThanOrEqual(0);
    expect(c).toBeLessThanOrEqual(100);
  }
  expect(m.cpu_usage).toBeGreaterThanOrEqual(0);
  expect(m.cpu_usage).toBeLessThanOrEqual(100);
  expect(Math.abs(m.memory_total! - os.totalmem()) / os.totalmem()).toBeLessThan(0.01);
  expect(m.memory_used).toBeGreaterThan(0);
  expect(m.memory_used).toBeLessThanOrEqual(m.memory_total!);
  expect(m.memory_usage).toBeCloseTo((m.memory_used! / m.memory_total!) * 100, 0);
  const fsStat = fs.statfsSync(dataDir);
  expect(m.disk_total).toBe(fsStat.blocks * fsStat.bsize);
  expect(m.disk_used).toBeGreaterThan(0);
  expect(m.disk_used).toBeLessThanOrEqual(m.disk_total!);
  expect(m.disk_usage).toBeGreaterThan(0);
  expect(m.disk_usage).toBeLessThanOrEqual(100);
  expect(m.cpu_processes).toBeGreaterThan(0);
  expect(Date.parse(m.timestamp)).toBeGreaterThan(Date.now() - 60_000);
}

describe.runIf(linux)('SystemProbe on this Linux machine', () => {
  it('reads every figure the machine has, rates included from the first sample', async () => {
    const probe = new SystemProbe(dataDir, { gpu: { read: async () => NO_GPU } });
    const m = await probe.sample();
    expectPlausible(m);
    // A thread is at least its process's main thread.
    expect(m.cpu_threads).toBeGreaterThanOrEqual(m.cpu_processes!);
    expect(m.memory_cached).toBeGreaterThanOrEqual(0);
    expect(m.memory_buffers).toBeGreaterThanOrEqual(0);
    expect(m.swap_total_gb).toBeGreaterThanOrEqual(0);
    expect(m.network_connections).toBeGreaterThanOrEqual(0);
    for (const k of RATES) expect(m[k], k).toBeGreaterThanOrEqual(0);
    if (m.cpu_frequency !== null) expect(m.cpu_frequency).toBeGreaterThan(100);
  });

  it('answers null rates on a first sample without a baseline, numbers on the next', async () => {
    const probe = new SystemProbe(dataDir, {
      minWindowMs: 0,
      gpu: { read: async () => NO_GPU },
    });
    const first = await probe.sample();
    for (const k of RATES) expect(first[k], k).toBeNull();
    expect(first.cpu_per_core).toEqual([]);
    expect(first.memory_total).toBeGreaterThan(0);

    const second = await probe.sample();
    for (const k of RATES.filter((r) => r !== 'cpu_usage')) {
      expect(second[k], k).toBeGreaterThanOrEqual(0);
    }
  });

  it('reads the same figures through systeminformation, the portable source', async () => {
    const probe = new SystemProbe(dataDir, {
      source: new SiSource(),
      gpu: { read: async () => NO_GPU },
    });
    const m = await probe.sample();
    expectPlausible(m);
    expect(m.disk_read).toBeGreaterThanOrEqual(0);
    expect(m.network_in).toBeGreaterThanOrEqual(0);
  });
});

describe('SystemProbe', () => {
  /** A source answering the given readings in turn, on a clock the test moves. */
  function scripted(...readings: Partial<Reading>[]) {
    let t = 0;
    const slept: number[] = [];
    const queue = readings.map((r): Reading => ({
      cores: [],
      frequencyMhz: null,
      temperatureC: null,
      processes: null,
      threads: null,
      memory: EMPTY_MEMORY,
      disk: null,
      net: null,
      connections: null,
      ...r,
    }));
    const probe = new SystemProbe(dataDir, {
      source: { read: async () => queue.shift()! },
      gpu: { read: async () => NO_GPU },
      clock: () => t,
      sleep: async (ms) => void (slept.push(ms), (t += ms)),
      minWindowMs: 0,
    });
    return { probe, advance: (ms: number) => void (t += ms), slept };
  }

  it('turns the counters of two samples into per-second rates', async () => {
    const { probe, advance } = scripted(
      {
        cores: [
          { busy: 100, total: 1000 },
          { busy: 500, total: 1000 },
        ],
        disk: { readBytes: 0, writtenBytes: 1e6, ops: 100, opsMs: 1000 },
        net: {
          rxBytes: 0,
          txBytes: 0,
          rxPackets: 10,
          txPackets: 10,
          lostPackets: 0,
          linkMbps: 1000,
        },
      },
      {
        cores: [
          { busy: 150, total: 1200 },
          { busy: 650, total: 1200 },
        ],
        disk: { readBytes: 4e6, writtenBytes: 3e6, ops: 300, opsMs: 1500 },
        net: {
          rxBytes: 2e6,
          txBytes: 0.5e6,
          rxPackets: 410,
          txPackets: 110,
          lostPackets: 6,
          linkMbps: 1000,
        },
      },
    );
    await probe.sample();
    advance(2000);
    const m = await probe.sample();
    expect(m).toMatchObject({
      cpu_per_core: [25, 75],
      cpu_usage: 50,
      disk_read: 2,
      disk_write: 1,
      disk_iops: 100,
      disk_latency: 2.5,
      network_in: 1,
      network_out: 0.25,
      network_packets_in: 200,
      network_packets_out: 50,
      network_packets_lost: 3,
      network_bandwidth_used: 10,
      network_bandwidth_total: 1000,
    });
  });

  it('answers null, not 0, for what the machine does not report', async () => {
    const { probe, advance } = scripted(
      { disk: { readBytes: 0, writtenBytes: 0, ops: 5, opsMs: 10 } },
      {
        memory: { ...EMPTY_MEMORY, total: 1000, used: 250, swapTotal: 0, swapUsed: 0 },
        disk: { readBytes: 0, writtenBytes: 0, ops: 5, opsMs: 10 },
      },
    );
    await probe.sample();
    advance(1000);
    const m = await probe.sample();
    expect(m).toMatchObject({
      cpu_usage: null,
      cpu_per_core: [],
      cpu_temperature: null,
      memory_usage: 25,
      memory_cached: null,
      // No swap: a size of 0, no usage.
      swap_total_gb: 0,
      swap_usage: null,
      disk_iops: 0,
      // No operation in the window: no time per operation to tell.
      disk_latency: null,
      network_in: null,
      gpu_usage: null,
    });
  });

  it('answers a null rate when a counter went back (an interface or disk gone)', async () => {
    const net = (rxBytes: number) => ({
      rxBytes,
      txBytes: 0,
      rxPackets: 0,
      txPackets: 0,
      lostPackets: 0,
      linkMbps: null,
    });
    const { probe, advance } = scripted({ net: net(5000) }, { net: net(1000) });
    await probe.sample();
    advance(1000);
    expect((await probe.sample()).network_in).toBeNull();
  });

  it('waits out the minimum window after a baseline or a sample asked too soon', async () => {
    let t = 0;
    const slept: number[] = [];
    const reading: Reading = {
      cores: [{ busy: 0, total: 0 }],
      frequencyMhz: null,
      temperatureC: null,
      processes: null,
      threads: null,
      memory: EMPTY_MEMORY,
      disk: null,
      net: null,
      connections: null,
    };
    const probe = new SystemProbe(dataDir, {
      source: { read: async () => reading },
      gpu: { read: async () => NO_GPU },
      clock: () => t,
      sleep: async (ms) => void (slept.push(ms), (t += ms)),
    });
    await probe.sample();
    expect(slept).toEqual([MIN_WINDOW_MS]);
    t += 100;
    await probe.sample();
    expect(slept).toEqual([MIN_WINDOW_MS, MIN_WINDOW_MS - 100]);
    t += 5000;
    await probe.sample();
    expect(slept).toHaveLength(2);
  });

  it.runIf(process.platform !== 'win32')('carries the GPU figures nvidia-smi gives', async () => {
    const bin = fs.mkdtempSync(path.join(os.tmpdir(), 'adam-nvsmi-'));
    onTestFinished(() => fs.rmSync(bin, { recursive: true, force: true }));
    fs.writeFileSync(
      path.join(bin, 'nvidia-smi'),
      '#!/bin/sh\nwhile :; do echo "0, 37, 2048, 8192, 61, 70.25"; /bin/sleep 0.05; done\n',
    );
    fs.chmodSync(path.join(bin, 'nvidia-smi'), 0o755);
    const probe = new SystemProbe(dataDir, { gpu: new NvidiaSmi({ searchPath: bin }) });
    onTestFinished(() => probe.close());
    expect(await probe.sample()).toMatchObject({
      gpu_usage: 37,
      gpu_memory: 2048,
      gpu_memory_total: 8192,
      gpu_temperature: 61,
      gpu_power: 70.3,
    });
  });

  it('answers null disk figures when the data directory cannot be read', async () => {
    const probe = new SystemProbe(path.join(dataDir, 'adam-no-such-dir-' + process.pid), {
      minWindowMs: 0,
      gpu: { read: async () => NO_GPU },
    });
    expect(await probe.sample()).toMatchObject({
      disk_used: null,
      disk_total: null,
      disk_usage: null,
    });
  });
});
