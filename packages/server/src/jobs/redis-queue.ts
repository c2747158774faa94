import { spawn, type ChildProcess } from 'node:child_process';
import { createRequire } from 'node:module';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { Queue } from 'bullmq';
import { Redis } from 'ioredis';
import type { WorkersStatus } from '@adam/contracts';
import { workerChildEnv, type Config } from '../config.js';
import type { Logger } from '../logging.js';
import type { EventBus } from '../realtime/event-bus.js';
import type { RuleService } from '../services/rule.service.js';
import type { SettingsService } from '../services/settings.service.js';
import type { JobRepository, JobRow } from '../store/job.repository.js';
import type { EmbeddedQueue } from './embedded-queue.js';
import {
  ProcessUrlsInput,
  processUrlsOutcome,
  recordSaveSegments,
  recordUrl,
  SaveSegmentsInput,
  SERVER_ONLY_JOB_TYPES,
  type RecordDeps,
} from './handlers.js';
import { createJobContext, finishJob, parseJson, type LiveJob } from './job-context.js';
import type { QueueDriver } from './queue-driver.js';
import {
  analysisFromWire,
  BULL_PRIORITY,
  cancelKey,
  CONTROL_CHANNEL,
  doneKey,
  QUEUE_NAME,
  RESULTS,
  RESULTS_PROCESSING,
  urlWorkFromWire,
  WORKER_STALE_MS,
  WORKERS_HASH,
  type RemoteJobData,
  type WorkerInfoWire,
  type WorkerMessage,
} from './redis-protocol.js';

const SELF = import.meta.url;
const SOURCE_MODE = SELF.endsWith('.ts');

/**
 * The Redis mode: jobs go to BullMQ for `adam worker` processes (here or elsewhere) and their
 * results come back on a Redis list that this server, the single writer, stores. Server-only
 * job types (index rebuilds) still run on the embedded queue beside it.
 */
export class RedisQueue implements QueueDriver {
  readonly mode = 'redis' as const;
  private readonly queue: Queue<RemoteJobData>;
  private readonly redis: Redis;
  private readonly blocking: Redis;
  private readonly contexts = new Map<number, LiveJob>();
  private readonly children = new Set<ChildProcess>();
  private consuming: Promise<void> | null = null;
  private closing = false;

  constructor(
    private readonly deps: {
      config: Config;
      jobs: JobRepository;
      bus: EventBus;
      log: Logger;
      local: EmbeddedQueue;
      record: RecordDeps;
      rules: RuleService;
      settings: SettingsService;
    },
  ) {
    const url = deps.config.redisUrl!;
    this.redis = new Redis(url, { maxRetriesPerRequest: null });
    this.blocking = this.redis.duplicate();
    this.queue = new Queue<RemoteJobData>(QUEUE_NAME, {
      connection: { url, maxRetriesPerRequest: null },
    });
    for (const r of [this.redis, this.blocking])
      r.on('error', (e) => this.warn(`Redis: ${e.message}`));
  }

  private warn(line: string) {
    this.deps.log.warn({ component: 'queue' }, line);
  }

  /** Results a crash left half-handled go back to the list; every pending remote job is (re)queued. */
  async recover(): Promise<void> {
    while (await this.redis.rpoplpush(RESULTS_PROCESSING, RESULTS)) {
      // moved back one at a time
    }
    this.deps.local.recover();
    const remoteTypes = ['process_urls', 'save_segments'];
    for (const row of this.deps.jobs.listByStatusAndType(['pending', 'processing'], remoteTypes)) {
      const bullId = parseJson<Record<string, unknown>>(row.metadata, {}).bull_job_id as
        string | undefined;
      const state = bullId ? await this.queue.getJobState(bullId) : 'unknown';
      if (['waiting', 'active', 'delayed', 'prioritized', 'waiting-children'].includes(state))
        continue;
      if (row.status === 'processing') {
        this.deps.jobs.update(row.id, { status: 'pending', worker_id: null, stage: 'requeued' }, [
          'processing',
        ]);
      }
      await this.enqueue(row.id);
    }
    this.consuming ??= this.consume();
  }

  submit(jobId: number): void {
    const row = this.deps.jobs.findById(jobId);
    if (!row) return;
    if (SERVER_ONLY_JOB_TYPES.has(row.type)) this.deps.local.notify();
    else
      void this.enqueue(jobId).catch((e: unknown) =>
        this.warn(`Could not queue job ${jobId}: ${(e as Error).message}`),
      );
  }

  private async enqueue(jobId: number): Promise<void> {
    const row = this.deps.jobs.findById(jobId);
    if (!row || row.status !== 'pending') return;
    const bullId = `job-${row.id}-${Date.now().toString(36)}`;
    const metadata = {
      ...parseJson<Record<string, unknown>>(row.metadata, {}),
      bull_job_id: bullId,
    };
    this.deps.jobs.update(row.id, { metadata: JSON.stringify(metadata) });
    const data: RemoteJobData = {
      job_id: row.id,
      type: row.type as RemoteJobData['type'],
      urls: parseJson<string[]>(row.urls, []),
      input: parseJson<Record<string, unknown>>(row.input, {}),
      rules: this.deps.rules.forMatching(),
      settings: this.deps.settings.get('processing'),
    };
    await this.queue.add(row.type, data, {
      jobId: bullId,
      priority: BULL_PRIORITY[row.priority],
      removeOnComplete: 1000,
      removeOnFail: 1000,
    });
  }

  cancel(jobId: number): void {
    void (async () => {
      await this.redis.set(cancelKey(jobId), '1', 'EX', 86400);
      const row = this.deps.jobs.findById(jobId);
      const bullId = row
        ? (parseJson<Record<string, unknown>>(row.metadata, {}).bull_job_id as string | undefined)
        : undefined;
      // A job no worker took yet leaves the queue; a running one stops at its next URL.
      if (bullId && (await this.queue.getJobState(bullId)) !== 'active')
        await this.queue.remove(bullId);
    })().catch((e: unknown) =>
      this.warn(`Could not cancel job ${jobId} in Redis: ${(e as Error).message}`),
    );
  }

  private async consume(): Promise<void> {
    while (!this.closing) {
      let raw: string | null = null;
      try {
        raw = await this.blocking.blmove(RESULTS, RESULTS_PROCESSING, 'LEFT', 'RIGHT', 1);
      } catch (e) {
        if (this.closing) break;
        this.warn(`Reading worker results failed: ${(e as Error).message}`);
        await new Promise((r) => setTimeout(r, 500));
        continue;
      }
      if (!raw) continue;
      try {
        await this.handle(JSON.parse(raw) as WorkerMessage);
      } catch (e) {
        this.deps.log.error({ component: 'queue', err: e }, 'A worker result could not be stored');
      }
      await this.redis.lrem(RESULTS_PROCESSING, 1, raw).catch(() => undefined);
    }
  }

  private context(row: JobRow, workerId: string): LiveJob {
    let ctx = this.contexts.get(row.id);
    if (!ctx) {
      ctx = createJobContext({
        jobs: this.deps.jobs,
        bus: this.deps.bus,
        row,
        workerId,
        stopping: () => false,
      });
      this.contexts.set(row.id, ctx);
    }
    return ctx;
  }

  private async handle(m: WorkerMessage): Promise<void> {
    const { jobs, log } = this.deps;
    const row = jobs.findById(m.job_id);
    if (!row) return;
    const now = new Date().toISOString();
    if (m.kind === 'started') {
      if (row.status === 'cancelled') await this.redis.set(cancelKey(row.id), '1', 'EX', 86400);
      const moved = jobs.update(
        row.id,
        {
          status: 'processing',
          worker_id: m.worker_id,
          started_at: row.started_at ?? now,
          heartbeat_at: now,
          attempts: row.attempts + 1,
          stage: `Started on ${m.worker_id}`,
        },
        ['pending', 'processing'],
      );
      if (moved) {
        this.contexts.delete(row.id);
        log.info({ component: 'queue' }, `Job ${row.id} taken by worker ${m.worker_id}`);
        this.context(jobs.findById(row.id)!, m.worker_id).progress({
          stage: `Started on ${m.worker_id}`,
        });
      }
      return;
    }
    if (row.status !== 'processing') {
      if (m.kind === 'done') this.forget(row.id, row.status !== 'pending');
      return; // cancelled or deleted meanwhile: what arrives now is not kept
    }
    const ctx = this.context(row, m.worker_id);
    switch (m.kind) {
      case 'progress':
        jobs.update(row.id, { heartbeat_at: now }, ['processing']);
        return;
      case 'url':
        recordUrl(
          this.deps.record,
          ctx,
          urlWorkFromWire(m.work),
          ProcessUrlsInput.parse(parseJson(row.input, {})),
        );
        return;
      case 'analysis': {
        const outcome = recordSaveSegments(
          this.deps.record,
          ctx,
          analysisFromWire(m.analysis),
          SaveSegmentsInput.parse(parseJson(row.input, {})),
        );
        await this.deps.record.index.flush().catch(() => undefined);
        finishJob(this.deps, { id: row.id, type: row.type, errors: ctx.errors }, outcome);
        this.forget(row.id, true);
        return;
      }
      case 'done': {
        // The job ends once its rows are saved in the index and marked indexed.
        await this.deps.record.index.flush().catch(() => undefined);
        if (m.outcome === 'interrupted') {
          if (
            finishJob(
              this.deps,
              { id: row.id, type: row.type, errors: ctx.errors },
              { status: 'interrupted' },
            ) === 'requeued'
          ) {
            await this.enqueue(row.id);
          }
          this.forget(row.id, false);
          return;
        }
        const outcome =
          m.outcome === 'error'
            ? ({ status: 'failed', error: m.error ?? 'the worker failed' } as const)
            : row.type === 'process_urls'
              ? processUrlsOutcome(ctx, this.deps.record)
              : ({ status: 'failed', error: 'the worker finished without a result' } as const);
        finishJob(this.deps, { id: row.id, type: row.type, errors: ctx.errors }, outcome);
        this.forget(row.id, true);
      }
    }
  }

  private forget(jobId: number, final: boolean): void {
    this.contexts.delete(jobId);
    if (final) void this.redis.del(doneKey(jobId), cancelKey(jobId)).catch(() => undefined);
  }

  async status(): Promise<Pick<WorkersStatus, 'workers' | 'running'>> {
    const all = await this.redis.hgetall(WORKERS_HASH);
    const workers: WorkerInfoWire[] = [];
    for (const [id, json] of Object.entries(all)) {
      const w = parseJson<WorkerInfoWire | null>(json, null);
      if (w && Date.now() - w.seen_at < WORKER_STALE_MS) workers.push(w);
      else await this.redis.hdel(WORKERS_HASH, id);
    }
    workers.sort((a, b) => a.started_at.localeCompare(b.started_at));
    return {
      running: workers.length,
      workers: workers.map((w) => ({
        id: w.id,
        status: w.status,
        current_job: w.current_job,
        started_at: w.started_at,
        processed: w.processed,
        failed: w.failed,
      })),
    };
  }

  /** Starts `count` local `adam worker` processes; workers on other machines start themselves. */
  async start(count: number): Promise<void> {
    const cli = fileURLToPath(new URL(SOURCE_MODE ? '../cli.ts' : '../cli.js', SELF));
    const args = SOURCE_MODE
      ? [
          '--conditions=adam-source',
          '--import',
          pathToFileURL(createRequire(SELF).resolve('tsx')).href,
          cli,
          'worker',
        ]
      : [cli, 'worker'];
    const before = (await this.status()).running;
    for (let i = 0; i < count; i++) {
      const child = spawn(process.execPath, args, {
        env: workerChildEnv(this.deps.config),
        stdio: ['ignore', 'ignore', 'pipe'],
      });
      this.children.add(child);
      child.stderr?.on('data', (d: Buffer) =>
        this.warn(`worker ${child.pid}: ${d.toString().trim().slice(0, 500)}`),
      );
      child.on('exit', () => this.children.delete(child));
    }
    // Answer once they are registered, so the status the caller sees includes them.
    for (let t = 0; t < 100 && (await this.status()).running < before + count; t++) {
      await new Promise((r) => setTimeout(r, 100));
    }
    this.deps.bus.emit('workers.changed', { running: (await this.status()).running });
  }

  /** Asks every worker, here or elsewhere, to stop; their jobs go back to the queue. */
  async stop(): Promise<void> {
    await this.redis.publish(CONTROL_CHANNEL, 'stop');
    await Promise.all(
      [...this.children].map(
        (c) => new Promise<void>((r) => (c.exitCode !== null ? r() : c.once('exit', () => r()))),
      ),
    );
    for (let t = 0; t < 100 && (await this.status()).running > 0; t++) {
      await new Promise((r) => setTimeout(r, 100));
    }
    this.deps.bus.emit('workers.changed', { running: (await this.status()).running });
  }

  async close(): Promise<void> {
    this.closing = true;
    for (const c of this.children) c.kill('SIGTERM');
    const exits = [...this.children].map(
      (c) => new Promise<void>((r) => (c.exitCode !== null ? r() : c.once('exit', () => r()))),
    );
    // A worker that cannot reach Redis may never finish closing: it gets 5 s.
    if (!(await settles(Promise.all(exits), 5000)))
      for (const c of this.children) c.kill('SIGKILL');
    await settles(this.consuming ?? Promise.resolve(), 3000);
    await this.deps.local.close();
    await settles(this.queue.close(), 3000);
    this.blocking.disconnect();
    this.redis.disconnect();
  }
}

/** Waits for `p` at most `ms`; true when it settled in time. */
function settles(p: Promise<unknown>, ms: number): Promise<boolean> {
  return new Promise((resolve) => {
    const t = setTimeout(() => resolve(false), ms);
    p.then(
      () => (clearTimeout(t), resolve(true)),
      () => (clearTimeout(t), resolve(true)),
    );
  });
}
