import type { ChildProcess } from 'node:child_process';
import { Queue, QueueEvents } from 'bullmq';
import { Redis } from 'ioredis';
import type { JobError, JobStats, WorkersStatus } from '@adam/contracts';
import { AppError } from '../lib/errors.js';
import type { Logger } from '../logging.js';
import type { EventBus } from '../lib/event-bus.js';
import type { JobRepository, JobRow } from '../store/job.repository.js';
import type { JobRuntime } from './define-job.js';
import type { EmbeddedQueue } from './embedded-queue.js';
import { createJobContext, finishJob, parseJson, type LiveJob } from '../queue/job-context.js';
import type { QueueConnection, QueueDriver } from '../queue/queue-driver.js';
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
  /** BullMQ's global events: how the server hears of a job that stalled or failed in Redis. */
  private readonly events: QueueEvents;
  private consuming: Promise<void> | null = null;
  /** The worker result being stored now (a restore waits for it). */
  private handling: Promise<void> = Promise.resolve();
  /** While a restore runs: results wait on their list until `resume` is called. */
  private paused: { resumed: Promise<void>; resume: () => void } | null = null;
  private closing = false;
  /** When the connection to Redis was lost (null while connected). */
  private lostAt: number | null = null;
  private persistence: QueueConnection['persistence'] = 'unknown';

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
      /** How long a worker's lock on a job lasts (ADAM_WORKER_LOCK_MS), for the stall report. */
      lockMs?: number;
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
    this.events = new QueueEvents(QUEUE_NAME, {
      connection: { url, maxRetriesPerRequest: null },
    });
    this.events.on('error', (e) => this.warn(`Redis queue events: ${e.message}`));
    this.events.on('stalled', ({ jobId }) => this.stalled(jobId));
    this.events.on('failed', ({ jobId, failedReason }) => this.failedInRedis(jobId, failedReason));
    // ioredis reconnects on its own; the server says so, and requeues what a Redis restart lost.
    this.redis.on('close', () => {
      if (this.closing || this.lostAt !== null) return;
      this.lostAt = Date.now();
      this.warn('Lost the connection to Redis: jobs wait in the database until it is back');
    });
    this.redis.on('ready', () => {
      void this.checkPersistence();
      if (this.lostAt === null || this.closing) return;
      const downS = ((Date.now() - this.lostAt) / 1000).toFixed(1);
      this.lostAt = null;
      this.deps.log.info({ component: 'queue' }, `Reconnected to Redis after ${downS} s`);
      void this.requeueLost().catch((e: unknown) =>
        this.warn(`Requeueing after the Redis reconnect failed: ${(e as Error).message}`),
      );
    });
  }

  /** Whether Redis answers now, and whether it keeps the queue across its own restart. */
  connection(): QueueConnection {
    return {
      connected: this.redis.status === 'ready',
      since: this.lostAt === null ? null : new Date(this.lostAt).toISOString(),
      persistence: this.persistence,
    };
  }

  /**
   * A Redis without AOF or RDB snapshots forgets the queue when it restarts. The database still
   * holds every job (requeueLost puts them back), but results in flight are lost: say so once.
   */
  private async checkPersistence(): Promise<void> {
    try {
      const [, aof] = (await this.redis.config('GET', 'appendonly')) as [string, string];
      const [, save] = (await this.redis.config('GET', 'save')) as [string, string];
      const p = [aof === 'yes' ? 'aof' : '', save.trim() ? 'rdb' : ''].filter(Boolean).join('+');
      const next = (p || 'none') as QueueConnection['persistence'];
      if (next === 'none' && this.persistence !== 'none') {
        this.warn(
          'Redis has no persistence (appendonly no, no save points): a Redis restart loses the ' +
            'results in flight; set appendonly yes in redis.conf',
        );
      }
      this.persistence = next;
    } catch {
      this.persistence = 'unknown'; // CONFIG is often disabled on managed Redis
    }
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
    await this.requeueLost();
    this.consuming ??= this.consume();
  }

  /**
   * Every pending or processing remote job whose BullMQ job is gone (a Redis restart without
   * persistence, a crash) goes back to the queue: the database, not Redis, is the record.
   */
  private async requeueLost(): Promise<void> {
    for (const row of this.deps.jobs.listByStatusAndType(
      ['pending', 'processing'],
      DISTRIBUTED_JOB_TYPES,
    )) {
      const bullId = parseJson<Record<string, unknown>>(row.metadata, {}).bull_job_id as
        string | undefined;
      const state = bullId ? await this.queue.getJobState(bullId) : 'unknown';
      // Completed: its results and end are on the results list, on their way.
      if (
        ['waiting', 'active', 'delayed', 'prioritized', 'waiting-children', 'completed'].includes(
          state,
        )
      )
        continue;
      if (state === 'failed' && bullId) {
        const bull = await this.queue.getJob(bullId);
        this.failedInRedis(bullId, bull?.failedReason ?? 'failed in Redis');
        continue;
      }
      if (row.status === 'processing') {
        this.deps.jobs.update(row.id, { status: 'pending', worker_id: null, stage: 'requeued' }, [
          'processing',
        ]);
      }
      await this.enqueue(row.id);
    }
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
    const def = jobDefinition(row.type);
    const input = parseJson<Record<string, unknown>>(row.input, {});
    const data: RemoteJobData = {
      job_id: row.id,
      type: row.type as RemoteJobData['type'], // a distributed type: server-only ones stay local
      urls: parseJson<string[]>(row.urls, []),
      input,
      rules: this.deps.runtime.rules(),
      settings: this.deps.runtime.settings(),
      // Read from the store now: a run handed out later (a restart, a stop) reads it again.
      ...(def?.runsOn === 'any' &&
        def.resumeState && {
          resume: def.resumeState(def.input.parse(input), row.id, this.deps.runtime.record),
        }),
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
      // The worker running it drops its tasks now, freeing a thread stuck on a hostile page.
      await this.redis.publish(CONTROL_CHANNEL, `cancel:${jobId}`);
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

  /** The job row a BullMQ job id names, while that BullMQ job is still the row's current one. */
  private rowOfBullJob(bullId: string): JobRow | undefined {
    const id = Number(/^job-(\d+)-/.exec(bullId)?.[1]);
    const row = Number.isInteger(id) ? this.deps.jobs.findById(id) : undefined;
    if (!row || !['pending', 'processing'].includes(row.status)) return undefined;
    const current = parseJson<Record<string, unknown>>(row.metadata, {}).bull_job_id;
    return current === bullId ? row : undefined;
  }

  /**
   * BullMQ found the job's lock expired (its worker died, hung or was paused past the lock) and
   * put it back in the queue for another worker. Said on the job (an error entry, its stage, an
   * event) and in the log; the status stays as it is, since the next 'started' may already be
   * on its way.
   */
  private stalled(bullId: string): void {
    const row = this.rowOfBullJob(bullId);
    if (!row) return;
    const lock = this.deps.lockMs ? ` (${this.deps.lockMs} ms)` : '';
    const message =
      `Worker ${row.worker_id ?? '(none)'} held the job past its lock${lock} without renewing ` +
      'it: the job went back to the queue and resumes on the next worker after the URLs already done';
    const errors = parseJson<JobError[]>(row.errors, []);
    errors.push({
      type: 'worker_stalled',
      error: 'stalled',
      message,
      url: null,
      at: new Date().toISOString(),
    });
    const stage = 'Stalled: back in the queue for another worker';
    // A context kept for the stalled worker would write its older error list over this one.
    this.contexts.delete(row.id);
    if (
      !this.deps.jobs.update(row.id, { errors: JSON.stringify(errors), stage }, [
        'pending',
        'processing',
      ])
    )
      return;
    this.warn(`Job ${row.id} stalled: ${message}`);
    const stats = parseJson<JobStats>(row.stats, {});
    this.deps.bus.emit('job_progress', {
      job_id: row.id,
      progress: row.progress,
      stage,
      stats,
      segmentation_method: stats.segmentation_method ?? null,
      last_fallback_reason: stats.last_fallback_reason ?? null,
    });
  }

  /** BullMQ gave up on the job (stalled more than its limit): the job fails, with the reason. */
  private failedInRedis(bullId: string, reason: string): void {
    const row = this.rowOfBullJob(bullId);
    if (!row) return;
    // finishJob ends processing jobs: a pending one (stalled, back in the queue) is moved first.
    this.deps.jobs.update(row.id, { status: 'processing' }, ['pending']);
    const errors = parseJson<JobError[]>(row.errors, []);
    this.contexts.delete(row.id);
    finishJob(
      this.deps,
      { id: row.id, type: row.type, errors },
      { status: 'failed', error: `The queue gave up on the job: ${reason}` },
    );
    this.forget(row.id, true);
  }

  /**
   * No worker, here or elsewhere, takes a job (BullMQ's global pause) and no result is stored
   * (they wait on their list) until `resume`. The pause of BullMQ is bounded: with Redis down no
   * worker takes a job either, and results are held here all the same.
   */
  async pause(): Promise<void> {
    if (!this.paused) {
      let resume!: () => void;
      const resumed = new Promise<void>((r) => (resume = r));
      this.paused = { resumed, resume };
    }
    const local = this.deps.local.pause();
    await settles(this.queue.pause(), 3000);
    await this.handling.catch(() => undefined);
    await local;
  }

  /**
   * Takes jobs again. After a restore, what waits in BullMQ was queued from the replaced rows:
   * it is drained and the restored pending jobs are queued anew, each with the URLs its restored
   * row has done (a worker's list from after the backup would skip URLs the restore took away).
   */
  async resume(restored: boolean): Promise<void> {
    try {
      if (restored) {
        await this.queue.drain(true);
        for (const row of this.deps.jobs.listByStatusAndType(['pending'], DISTRIBUTED_JOB_TYPES)) {
          const done = parseJson<string[]>(row.done_urls, []);
          await this.redis.del(doneKey(row.id));
          if (done.length) await this.redis.sadd(doneKey(row.id), ...done);
          await this.enqueue(row.id);
        }
      }
      await settles(this.queue.resume(), 3000);
    } finally {
      this.paused?.resume();
      this.paused = null;
      await this.deps.local.resume();
    }
  }

  private async consume(): Promise<void> {
    while (!this.closing) {
      if (this.paused) await this.paused.resumed;
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
      // Taken as a restore began: stored after it, against the restored rows.
      if (this.paused) await this.paused.resumed;
      try {
        this.handling = this.handle(JSON.parse(raw) as WorkerMessage);
        await this.handling;
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
    if (m.kind === 'task_timeout') {
      // As the server's own engine reports it, with whose thread it was: the URL's error says
      // the rest, and the job goes on with its next URL.
      log.warn(
        { component: 'engine', worker_id: m.worker_id, job_id: m.job_id },
        `Worker ${m.worker_id}, job ${m.job_id}: ${m.message}; the job goes on with its next URL`,
      );
      return;
    }
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
    // A worker that lost the job (it stalled and another took it over) may still finish its
    // run: its results count once each (record skips done URLs), its end does not.
    if (m.kind !== 'result' && row.worker_id && m.worker_id !== row.worker_id) {
      if (m.kind === 'done')
        this.warn(`Job ${row.id}: ignored the end sent by ${m.worker_id}, which lost the job`);
      return;
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
    // Commands would wait for the reconnect: a caller (health, the console) hears it at once.
    if (this.redis.status !== 'ready') throw new RedisUnreachable();
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
        task_timeouts: w.task_timeouts ?? 0,
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
    this.paused?.resume(); // the consumer loop ends rather than wait for a resume
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
    await settles(this.events.close(), 3000);
    this.blocking.disconnect();
    this.redis.disconnect();
  }
}

/** Redis does not answer: the workers' state is unknown until it is back. */
class RedisUnreachable extends AppError {
  constructor() {
    super(503, 'Redis is unreachable: the workers cannot be listed until it is back');
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
