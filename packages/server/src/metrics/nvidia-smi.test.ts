import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { NO_GPU, NVIDIA_SMI_ARGS, NvidiaSmi, parseNvidiaSmi } from './nvidia-smi.js';

const dirs: string[] = [];
afterAll(() => dirs.forEach((d) => fs.rmSync(d, { recursive: true, force: true })));

/** A directory to use as the whole PATH, with a fake nvidia-smi running `script` when given. */
function pathWith(script?: string): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'adam-nvsmi-'));
  dirs.push(dir);
  if (script) {
    const file = path.join(dir, 'nvidia-smi');
    fs.writeFileSync(file, `#!/bin/sh\n${script}\n`);
    fs.chmodSync(file, 0o755);
  }
  return dir;
}

describe('parseNvidiaSmi', () => {
  it('reads one GPU line of --format=csv,noheader,nounits', () => {
    expect(parseNvidiaSmi('45, 1024, 8192, 60, 75.50\n')).toEqual({
      gpu_usage: 45,
      gpu_memory: 1024,
      gpu_memory_total: 8192,
      gpu_temperature: 60,
      gpu_power: 75.5,
    });
  });

  it('averages the usage of several GPUs, sums memory and power, keeps the hottest', () => {
    expect(parseNvidiaSmi('20, 1000, 8000, 50, 100\n60, 3000, 8000, 70, 200\n')).toEqual({
      gpu_usage: 40,
      gpu_memory: 4000,
      gpu_memory_total: 16000,
      gpu_temperature: 70,
      gpu_power: 300,
    });
  });

  it('answers null for what the card does not report', () => {
    expect(parseNvidiaSmi('[N/A], 512, 4096, 40, [Not Supported]\n')).toEqual({
      gpu_usage: null,
      gpu_memory: 512,
      gpu_memory_total: 4096,
      gpu_temperature: 40,
      gpu_power: null,
    });
    expect(parseNvidiaSmi('')).toEqual(NO_GPU);
  });
});

describe.runIf(process.platform !== 'win32')('NvidiaSmi', () => {
  const running: NvidiaSmi[] = [];
  afterAll(() => running.forEach((g) => g.stop()));
  const gpuOn = (opts: ConstructorParameters<typeof NvidiaSmi>[0]) => {
    const g = new NvidiaSmi(opts);
    running.push(g);
    return g;
  };
  /** Lines of the fake's starts, one per process started. */
  const starts = (dir: string) =>
    fs.existsSync(path.join(dir, 'starts'))
      ? fs.readFileSync(path.join(dir, 'starts'), 'utf8').trim().split('\n')
      : [];
  const LOOP = 'echo "$@" >> "${0%/*}/starts"; while :; do';

  it('answers no GPU when nvidia-smi is not on the PATH, and stops looking', async () => {
    const dir = pathWith();
    const gpu = gpuOn({ searchPath: dir });
    expect(await gpu.read()).toEqual(NO_GPU);
    // Put there now: not looked for again.
    fs.writeFileSync(
      path.join(dir, 'nvidia-smi'),
      `#!/bin/sh\n${LOOP} echo "0, 1, 2, 3, 4, 5"; /bin/sleep 0.05; done\n`,
    );
    fs.chmodSync(path.join(dir, 'nvidia-smi'), 0o755);
    expect(await gpu.read()).toEqual(NO_GPU);
    expect(starts(dir)).toEqual([]);
  });

  it('starts one nvidia-smi looping over the query, and answers its latest line per GPU', async () => {
    // Two GPUs; the second one's figures change at every loop.
    const dir = pathWith(
      `n=0; ${LOOP} n=$((n+1)); echo "0, 10, 100, 4096, 50, 30.5"; echo "1, 30, $n, 4096, 70, 9.5"; /bin/sleep 0.02; done`,
    );
    const gpu = gpuOn({ searchPath: dir, loopMs: 20 });
    // The first read may come between the two GPUs' lines of the first loop: wait for both.
    let first = await gpu.read();
    await vi.waitFor(async () => {
      first = await gpu.read();
      expect(first).toMatchObject({
        gpu_usage: 20,
        gpu_memory_total: 8192,
        gpu_temperature: 70,
        gpu_power: 40,
      });
    });
    // Later reads see newer lines from the same process.
    let later = first;
    await vi.waitFor(async () => {
      later = await gpu.read();
      expect(later.gpu_memory).toBeGreaterThan(first.gpu_memory!);
    });
    expect(starts(dir)).toEqual([[...NVIDIA_SMI_ARGS, '--loop-ms=20'].join(' ')]);
  });

  it('answers no GPU while nvidia-smi hangs, and replaces a process that stopped printing', async () => {
    // The first process prints one line and hangs; the next ones loop.
    const dir = pathWith(
      `[ -f "\${0%/*}/hung" ] || { : > "\${0%/*}/hung"; echo "x" >> "\${0%/*}/starts"; echo "0, 7, 1, 2, 3, 4"; exec /bin/sleep 30; }
${LOOP} echo "0, 9, 1, 2, 3, 4"; /bin/sleep 0.02; done`,
    );
    let t = 0;
    const gpu = gpuOn({ searchPath: dir, loopMs: 100, timeoutMs: 2000, clock: () => t });
    expect((await gpu.read()).gpu_usage).toBe(7);
    t = 250; // within three periods: the last line still stands
    expect((await gpu.read()).gpu_usage).toBe(7);
    t = 1000; // stale: the hung process is replaced, and the new one answers
    expect((await gpu.read()).gpu_usage).toBe(9);
    expect(starts(dir)).toHaveLength(2);
  });

  it('answers no GPU after the first wait when nvidia-smi never prints, holding no waiter', async () => {
    const dir = pathWith('exec /bin/sleep 30');
    const gpu = gpuOn({ searchPath: dir, timeoutMs: 100 });
    expect(await gpu.read()).toEqual(NO_GPU);
    expect(await gpu.read()).toEqual(NO_GPU);
    expect((gpu as unknown as { lineWaiters: unknown[] }).lineWaiters).toHaveLength(0);
  });

  it('starts again after stop, and after nvidia-smi exits', async () => {
    const dir = pathWith(`echo "$@" >> "\${0%/*}/starts"; echo "0, 5, 1, 2, 3, 4"`);
    const gpu = gpuOn({ searchPath: dir, loopMs: 20 });
    expect((await gpu.read()).gpu_usage).toBe(5);
    await vi.waitFor(() => expect(starts(dir)).toHaveLength(1));
    // The process exited after its line: the next stale read starts another.
    await vi.waitFor(async () => {
      await gpu.read();
      expect(starts(dir).length).toBeGreaterThanOrEqual(2);
    });
    gpu.stop();
    const before = starts(dir).length;
    expect((await gpu.read()).gpu_usage).toBe(5);
    await vi.waitFor(() => expect(starts(dir).length).toBe(before + 1));
  });
});
