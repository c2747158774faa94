import fs from 'node:fs';
import path from 'node:path';
import type { Engine } from '../engine/engine.js';
import type { QueueDriver } from '../queue/queue-driver.js';
import { notWritableMessage } from '../lib/data-dir-lock.js';
import { redisPing } from '../lib/redis-ping.js';
import type { Db } from '../store/db.js';
import type { JobRepository } from '../store/job.repository.js';
import type { ComponentHealth } from '@adam/contracts';
import type { HealthProbe, HealthService } from './health.service.js';

/** What /health checks: the parts of the system, each reporting how it is. */
export function registerHealthChecks(
  health: HealthService,
  deps: {
    db: Db;
    dataDir: string;
    redisUrl: string | undefined;
    backups: { health: HealthProbe };
    index: { health: HealthProbe };
    jobs: Pick<JobRepository, 'countByStatus'>;
    queue: Pick<QueueDriver, 'mode' | 'status' | 'connection'>;
    engine: Pick<Engine, 'stats' | 'threadsReplaced'>;
    /** The engine's start (threads and models) is under way: workers say "starting". */
    engineStarting?: () => boolean;
  },
): void {
  const { db, redisUrl, queue, jobs } = deps;
  health.register('database', () => {
    db.prepare('SELECT 1').get();
    const file = path.join(deps.dataDir, 'adam.db');
    return {
      status: 'healthy',
      details: {
        path: file,
        size_mb: round2(fs.statSync(file).size / 1048576),
        journal_mode: db.pragma('journal_mode', { simple: true }),
      },
    };
  });
  health.register('redis', async () => {
    if (!redisUrl) {
      return { status: 'disabled', details: { reason: 'REDIS_URL is not set: embedded queue' } };
    }
    const conn = queue.connection?.();
    const state = conn ? { persistence: conn.persistence } : {};
    try {
      const ms = await redisPing(redisUrl);
      return { status: 'healthy', details: { latency_ms: ms, ...state } };
    } catch (e) {
      // Down is an answer, not an error of /health: the component says so, /health stays 200.
      return {
        status: 'unhealthy',
        error: `Redis is unreachable: ${(e as Error).message}`,
        details: { ...state, ...(conn?.since ? { down_since: conn.since } : {}) },
      };
    }
  });
  const writable = new WritableProbe(deps.dataDir);
  health.register('data_dir', () => writable.health());
  health.register('backups', () => deps.backups.health());
  health.register('index', () => deps.index.health());
  health.register('queue', async () => {
    const c = jobs.countByStatus();
    const pending = c.pending ?? 0;
    const details = { mode: queue.mode, pending, processing: c.processing ?? 0 };
    let running: number;
    try {
      ({ running } = await queue.status());
    } catch (e) {
      // The jobs are safe in the database; they wait for Redis.
      return { status: 'unhealthy', error: (e as Error).message, details };
    }
    // Work waiting with nobody to do it is worth a look, not an outage.
    const status = pending > 0 && running === 0 ? 'degraded' : 'healthy';
    return { status, details };
  });
  health.register('workers', async () => {
    const { running, workers } = await queue.status();
    // Tasks stopped past their budget since start: the server's engine threads (the embedded
    // workers' and the playground's) and those each Redis worker reports.
    const remote = workers.reduce((n, w) => n + (w.task_timeouts ?? 0), 0);
    // Jobs queued meanwhile wait for the engine's threads and then run.
    const starting = deps.engineStarting?.() ?? false;
    return {
      status: starting ? 'starting' : running > 0 ? 'healthy' : 'degraded',
      details: {
        mode: queue.mode,
        running,
        task_timeouts: deps.engine.threadsReplaced + remote,
        engine: deps.engine.stats(),
      },
    };
  });
}

/** How long a write probe's answer is kept: /health never writes more than this often. */
const WRITE_PROBE_MAX_AGE_MS = 10_000;

/**
 * Whether the data directory takes writes: a small file written, synced and removed, at most
 * every WRITE_PROBE_MAX_AGE_MS (a read-only remount or lost permissions show here, with the
 * errno and the path, instead of as opaque failures of every write).
 */
class WritableProbe {
  private last: { at: number; error: NodeJS.ErrnoException | null } | null = null;
  private running: Promise<void> | null = null;

  constructor(
    private readonly dir: string,
    private readonly maxAgeMs = WRITE_PROBE_MAX_AGE_MS,
  ) {}

  async health(): Promise<ComponentHealth> {
    if (!this.last || Date.now() - this.last.at > this.maxAgeMs) {
      this.running ??= this.probe().finally(() => (this.running = null));
      await this.running;
    }
    const error = this.last!.error;
    if (!error) return { status: 'healthy', details: { path: this.dir, writable: true } };
    return {
      status: 'degraded',
      error: notWritableMessage(this.dir, error),
      details: { path: this.dir, writable: false, errno: error.code ?? 'unknown' },
    };
  }

  private async probe(): Promise<void> {
    const file = path.join(this.dir, `.write-probe-${process.pid}`);
    let error: NodeJS.ErrnoException | null = null;
    try {
      const fh = await fs.promises.open(file, 'w');
      try {
        await fh.writeFile('probe');
        await fh.sync();
      } finally {
        await fh.close();
      }
    } catch (e) {
      error = e as NodeJS.ErrnoException;
    } finally {
      await fs.promises.rm(file, { force: true }).catch(() => undefined);
    }
    this.last = { at: Date.now(), error };
  }
}

const round2 = (n: number) => Math.round(n * 100) / 100;
