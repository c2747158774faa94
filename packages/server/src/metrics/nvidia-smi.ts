import { spawn, type ChildProcess } from 'node:child_process';

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

/** In this order, one line per GPU: its index, then %, MiB, MiB, °C, W. */
export const NVIDIA_SMI_ARGS = [
  '--query-gpu=index,utilization.gpu,memory.used,memory.total,temperature.gpu,power.draw',
  '--format=csv,noheader,nounits',
];

/** How often the running nvidia-smi prints its lines (the sampler's period is 5 s). */
const NVIDIA_SMI_LOOP_MS = 1000;
/** The first lines are waited for at most this long (nvidia-smi can hang on a wedged driver). */
const NVIDIA_SMI_TIMEOUT_MS = 2000;
/** A line longer than this is no nvidia-smi line: it is dropped. */
const MAX_LINE_CHARS = 4096;

/**
 * The NVIDIA GPUs' figures from one nvidia-smi started at the first read and kept running
 * (`--loop-ms`): a read answers the latest line of each GPU. Spawning it for every sample forked
 * the whole server each time, and fork copies the page tables of a process of several GB (tens of
 * ms with the event loop stopped, at a million snippets). Usage is the GPUs' mean, memory and power
 * their sums, temperature the hottest. Absent (ENOENT): never asked again. Lines older than three
 * periods are stale (a wedged driver, a dead process): no GPU figures then, and a process that
 * stopped printing is replaced at the next read.
 */
export class NvidiaSmi {
  private absent = false;
  private child: ChildProcess | null = null;
  /** The latest line of each GPU (by its index), and when it came. */
  private readonly latest = new Map<string, { cells: string; at: number }>();
  private partial = '';
  private startedAt = 0;
  private readonly lineWaiters: (() => void)[] = [];
  private readonly loopMs: number;

  constructor(
    private readonly opts: {
      /** The PATH to look for nvidia-smi in (default: the server's own). */
      searchPath?: string;
      /** The first lines' wait (default 2 s). */
      timeoutMs?: number;
      loopMs?: number;
      /** Monotonic ms (tests move it). */
      clock?: () => number;
    } = {},
  ) {
    this.loopMs = opts.loopMs ?? NVIDIA_SMI_LOOP_MS;
  }

  private now(): number {
    return this.opts.clock ? this.opts.clock() : performance.now();
  }

  async read(): Promise<GpuFigures> {
    if (this.absent) return NO_GPU;
    const staleMs = 3 * this.loopMs;
    const fresh = () => [...this.latest.values()].filter((l) => this.now() - l.at <= staleMs);
    if (this.child && fresh().length === 0 && this.now() - this.startedAt > staleMs) this.stop();
    if (!this.child) this.start();
    if (fresh().length === 0) await this.nextLine(this.opts.timeoutMs ?? NVIDIA_SMI_TIMEOUT_MS);
    return parseNvidiaSmi(
      fresh()
        .map((l) => l.cells)
        .join('\n'),
    );
  }

  /** Stops the running nvidia-smi (the server's close); a later read starts one again. */
  stop(): void {
    this.child?.kill('SIGKILL');
    this.child = null;
    this.partial = '';
  }

  private start(): void {
    const env = this.opts.searchPath !== undefined ? { PATH: this.opts.searchPath } : undefined;
    const child = spawn('nvidia-smi', [...NVIDIA_SMI_ARGS, `--loop-ms=${this.loopMs}`], {
      stdio: ['ignore', 'pipe', 'ignore'],
      windowsHide: true,
      ...(env && { env }),
    });
    this.child = child;
    this.startedAt = this.now();
    // The end of a process already replaced (stop, staleness) says nothing of the running one.
    const ended = () => {
      if (this.child !== child) return;
      this.child = null;
      this.wakeLineWaiters();
    };
    child.on('error', (e: NodeJS.ErrnoException) => {
      if (e.code === 'ENOENT') this.absent = true;
      ended();
    });
    child.on('exit', ended);
    child.stdout!.setEncoding('utf8');
    child.stdout!.on('data', (chunk: string) => {
      if (this.child === child) this.take(chunk);
    });
    // Never what keeps the server's process alive.
    child.unref();
    (child.stdout as unknown as { unref?: () => void }).unref?.();
  }

  private take(chunk: string): void {
    const lines = (this.partial + chunk).split('\n');
    this.partial = lines.pop()!;
    if (this.partial.length > MAX_LINE_CHARS) this.partial = '';
    const at = this.now();
    for (const line of lines) {
      const comma = line.indexOf(',');
      if (comma < 0 || line.length > MAX_LINE_CHARS) continue;
      this.latest.set(line.slice(0, comma).trim(), { cells: line.slice(comma + 1), at });
    }
    // A GPU that left (a reset, a hot unplug) goes stale; the map stays the GPUs' size.
    if (this.latest.size > 64) this.latest.clear();
    this.wakeLineWaiters();
  }

  private wakeLineWaiters(): void {
    for (const wake of [...this.lineWaiters]) wake();
  }

  /** Resolves at the next line (or the process's end), or after `ms`. */
  private nextLine(ms: number): Promise<void> {
    return new Promise((resolve) => {
      // Out of the list either way: a wedged nvidia-smi that never prints nor ends would keep a
      // waiter per read otherwise.
      const done = () => {
        clearTimeout(timer);
        const i = this.lineWaiters.indexOf(done);
        if (i >= 0) this.lineWaiters.splice(i, 1);
        resolve();
      };
      const timer = setTimeout(done, ms);
      this.lineWaiters.push(done);
    });
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
