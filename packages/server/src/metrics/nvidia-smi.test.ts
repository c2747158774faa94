import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { NO_GPU, NVIDIA_SMI_ARGS, NvidiaSmi, parseNvidiaSmi, type ExecFile } from './nvidia-smi.js';

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
  it('answers no GPU when nvidia-smi is not on the PATH, and stops looking', async () => {
    let calls = 0;
    const exec: ExecFile = async () => {
      calls++;
      throw Object.assign(new Error('spawn nvidia-smi ENOENT'), { code: 'ENOENT' });
    };
    const gpu = new NvidiaSmi({ exec });
    expect(await gpu.read()).toEqual(NO_GPU);
    expect(await gpu.read()).toEqual(NO_GPU);
    expect(calls).toBe(1);

    expect(await new NvidiaSmi({ searchPath: pathWith() }).read()).toEqual(NO_GPU);
  });

  it('runs the nvidia-smi found on the PATH with the query', async () => {
    const dir = pathWith('echo "$@" > "${0%/*}/args"; echo "12, 300, 4096, 55, 31.20"');
    expect(await new NvidiaSmi({ searchPath: dir }).read()).toEqual({
      gpu_usage: 12,
      gpu_memory: 300,
      gpu_memory_total: 4096,
      gpu_temperature: 55,
      gpu_power: 31.2,
    });
    expect(fs.readFileSync(path.join(dir, 'args'), 'utf8').trim()).toBe(NVIDIA_SMI_ARGS.join(' '));
  });

  it('answers no GPU for a sample where nvidia-smi hangs or fails, and asks again next time', async () => {
    const dir = pathWith(
      '[ -f "${0%/*}/ok" ] && echo "1, 2, 3, 4, 5" && exit 0; exec /bin/sleep 5',
    );
    const gpu = new NvidiaSmi({ searchPath: dir, timeoutMs: 200 });
    expect(await gpu.read()).toEqual(NO_GPU);
    fs.writeFileSync(path.join(dir, 'ok'), '');
    expect((await gpu.read()).gpu_usage).toBe(1);
  });
});
