import type { ChildProcess } from 'node:child_process';
import { Queue } from 'bullmq';
import { Redis } from 'ioredis';
import type { WorkersStatus } from '@adam/contracts';
import type { Logger } from '../logging.js';
import type { EventBus } from '../lib/event-bus.js';
import type { JobRepository, JobRow } from '../store/job.repository.js';
import type { JobRuntime } from './define-job.js';
import type { EmbeddedQueue } from './embedded-queue.js';
import { createJobContext, finishJob, parseJson, type LiveJob } from './job-context.js';
import type { QueueDriver } from './queue-driver.js';
import {
  BULL_PRIORITY,
  cancelKey,
  CONTROL_CHANNEL,
  doneKey,
  QUEUE_NAME,
  RESULTS,
  RESULTS_PROCESSING,
  WORKER_STALE_MS,
  WORKERS_HASH,
  type RemoteJobData,
  type WorkerInfoWire,
  type WorkerMessage,
} from './redis-protocol.js';
import { DISTRIBUTED_JOB_TYPES, jobDefinition, SERVER_ONLY_JOB_TYPES } from './registry.js';

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
      redisUrl: string;
      jobs: JobRepository;
      bus: EventBus;
      log: Logger;
      local: EmbeddedQueue;
      runtime: JobRuntime;
      /** Starts one local `adam worker` process (the composition root knows how). */
      spawnWorker: () => ChildProcess;
    },
  ) {
    const url = deps.redisUrl;
    this.redis = new Redis(url, { maxRetriesPerRequest: null });
    this.blocking = this.redis.duplicate();
    this.queue = new Queue<RemoteJobData>(QUEUE_NAME, {
      connection: { url, maxRetriesPerRequest: null },
    });
    for (const r of [this.redis, this.blocking])
      r.on('error', (e) => this.warn(`Redis: ${e.message}`));
    // Without a listener BullMQ prints every failed reconnect to stderr with its stack.
    this.queue.on('error', (e) => this.warn(`Redis queue: ${e.message}`));
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
    for (const row of this.deps.jobs.listByStatusAndType(
      ['pending', 'processing'],
      DISTRIBUTED_JOB_TYPES,
    )) {
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
    if (SERVER_ONLY_JOB_TYPES.some((t) => t === row.type)) this.deps.local.notify();
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
      type: row.type as RemoteJobData['type'], // a distributed type: server-only ones stay local
      urls: parseJson<string[]>(row.urls, []),
      input: parseJson<Record<string, unknown>>(row.input, {}),
      rules: this.deps.runtime.rules(),
      settings: this.deps.runtime.settings(),
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
    const def = jobDefinition(row.type);
    if (def?.runsOn !== 'any') return; // never sent to workers
    const input: unknown = def.input.parse(parseJson(row.input, {}));
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
        def.begin(input, this.context(jobs.findById(row.id)!, m.worker_id));
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
      case 'result':
        def.record(def.decode(m.result), input, ctx, this.deps.runtime.record);
        return;
      case 'done': {
        // The job ends once its rows are saved in the index and marked indexed.
        await this.deps.runtime.record.index.flush().catch(() => undefined);
        const job = { id: row.id, type: row.type, errors: ctx.errors };
        if (m.outcome === 'interrupted') {
          if (finishJob(this.deps, job, { status: 'interrupted' }) === 'requeued') {
            await this.enqueue(row.id);
          }
          this.forget(row.id, false);
          return;
        }
        const outcome =
          m.outcome === 'error'
            ? ({ status: 'failed', error: m.error ?? 'the worker failed' } as const)
            : def.end(input, ctx);
        finishJob(this.deps, job, outcome);
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

  /** Starts the embedded slot beside it that runs the server-only jobs (index rebuilds). */
  startServerSlot(): void {
    this.deps.local.start(1);
  }

  /** Starts `count` local `adam worker` processes; workers on other machines start themselves. */
  async start(count: number): Promise<void> {
    const before = (await this.status()).running;
    for (let i = 0; i < count; i++) {
      const child = this.deps.spawnWorker();
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
