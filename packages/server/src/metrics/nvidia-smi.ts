import { execFile } from 'node:child_process';

export interface GpuFigures {
  gpu_usage: number | null;
  gpu_memory: number | null;
  gpu_memory_total: number | null;
  gpu_temperature: number | null;
  gpu_power: number | null;
}

export const NO_GPU: GpuFigures = {
  gpu_usage: null,
  gpu_memory: null,
  gpu_memory_total: null,
  gpu_temperature: null,
  gpu_power: null,
};

/** In this order, one line per GPU: %, MiB, MiB, °C, W. */
export const NVIDIA_SMI_ARGS = [
  '--query-gpu=utilization.gpu,memory.used,memory.total,temperature.gpu,power.draw',
  '--format=csv,noheader,nounits',
];

/** nvidia-smi can hang on a wedged driver: a sample never waits longer than this. */
const NVIDIA_SMI_TIMEOUT_MS = 2000;

/** Runs a command and answers its stdout; rejects with the spawn error (code ENOENT when absent). */
export type ExecFile = (
  file: string,
  args: string[],
  opts: { timeout: number; env?: NodeJS.ProcessEnv },
) => Promise<string>;

const execFileText: ExecFile = (file, args, opts) =>
  new Promise((resolve, reject) => {
    execFile(file, args, { ...opts, encoding: 'utf8', windowsHide: true }, (err, stdout) =>
      err ? reject(err) : resolve(stdout),
    );
  });

/**
 * The NVIDIA GPUs' figures from nvidia-smi, when it is on the PATH: usage is their mean,
 * memory and power their sums, temperature the hottest. Absent once (ENOENT), never asked again.
 */
export class NvidiaSmi {
  private absent = false;

  constructor(
    private readonly opts: {
      exec?: ExecFile;
      /** The PATH to look for nvidia-smi in (default: the server's own). */
      searchPath?: string;
      timeoutMs?: number;
    } = {},
  ) {}

  async read(): Promise<GpuFigures> {
    if (this.absent) return NO_GPU;
    const exec = this.opts.exec ?? execFileText;
    try {
      const out = await exec('nvidia-smi', NVIDIA_SMI_ARGS, {
        timeout: this.opts.timeoutMs ?? NVIDIA_SMI_TIMEOUT_MS,
        ...(this.opts.searchPath !== undefined && { env: { PATH: this.opts.searchPath } }),
      });
      return parseNvidiaSmi(out);
    } catch (e) {
      if ((e as { code?: unknown }).code === 'ENOENT') this.absent = true;
      return NO_GPU;
    }
  }
}

/** Parses `--format=csv,noheader,nounits` lines; "[N/A]" or "[Not Supported]" is null. */
export function parseNvidiaSmi(csv: string): GpuFigures {
  const gpus = csv
    .split('\n')
    .map((l) => l.trim())
    .filter(Boolean)
    .map((l) =>
      l.split(',').map((cell) => {
        const n = Number(cell.trim());
        return cell.trim() !== '' && Number.isFinite(n) ? n : null;
      }),
    );
  if (gpus.length === 0) return NO_GPU;
  const column = (i: number) =>
    gpus.map((g) => g[i] ?? null).filter((v): v is number => v !== null);
  const sum = (i: number) => (column(i).length ? column(i).reduce((a, b) => a + b, 0) : null);
  const usage = column(0);
  const temps = column(3);
  return {
    gpu_usage: usage.length ? usage.reduce((a, b) => a + b, 0) / usage.length : null,
    gpu_memory: sum(1),
    gpu_memory_total: sum(2),
    gpu_temperature: temps.length ? Math.max(...temps) : null,
    gpu_power: sum(4),
  };
}
