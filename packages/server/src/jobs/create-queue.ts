import type { ChildProcess } from 'node:child_process';
import type { Logger } from '../logging.js';
import type { EventBus } from '../lib/event-bus.js';
import type { JobRepository } from '../store/job.repository.js';
import type { JobRuntime } from './define-job.js';
import { EmbeddedQueue } from './embedded-queue.js';
import type { QueueDriver } from '../queue/queue-driver.js';
import type { RedisQueue } from './redis-queue.js';
import { SERVER_ONLY_JOB_TYPES } from './registry.js';

interface QueueOptions {
  /** Unset: the embedded queue; set: BullMQ on this Redis. */
  redisUrl: string | undefined;
  jobs: JobRepository;
  bus: EventBus;
  log: Logger;
  runtime: JobRuntime;
  /** Starts one local `adam worker` process (Redis mode). */
  spawnWorker: () => ChildProcess;
  /** Redis mode: ADAM_WORKER_LOCK_MS, named when a job stalls. */
  lockMs?: number;
}

/**
 * The queue driver of this configuration. The Redis driver (BullMQ and ioredis, ~0.4 s of
 * CPU to import) is imported only when REDIS_URL is set: the embedded mode starts without it.
 */
export async function createQueue(opts: QueueOptions): Promise<QueueDriver> {
  const { redisUrl, jobs, bus, log, runtime } = opts;
  // With Redis, the embedded queue keeps only what the server alone may run (index rebuilds).
  const local = new EmbeddedQueue({
    jobs,
    runtime,
    bus,
    log,
    types: redisUrl ? SERVER_ONLY_JOB_TYPES : undefined,
  });
  if (!redisUrl) return local;
  const { RedisQueue } = await import('./redis-queue.js');
  return new RedisQueue({
    redisUrl,
    jobs,
    bus,
    log,
    local,
    runtime,
    spawnWorker: opts.spawnWorker,
    lockMs: opts.lockMs,
  });
}

/**
 * Takes over the queued jobs and starts the workers. Embedded: before the server answers. Redis:
 * the server-only slot at once and the rest in the background, since Redis may come up after
 * the server (health shows what is missing). Answers that background start (in an object: a
 * promise returned from an async function would be awaited with it).
 */
export async function startQueue(
  queue: QueueDriver,
  workers: number,
  log: Logger,
): Promise<{ started: Promise<void> }> {
  const start = async () => {
    await queue.recover();
    await queue.start(workers);
  };
  if (queue.mode !== 'redis') {
    await start();
    return { started: Promise.resolve() };
  }
  (queue as RedisQueue).startServerSlot();
  return {
    started: start().catch((e: unknown) =>
      log.error({ component: 'queue', err: e }, 'Starting the Redis queue failed'),
    ),
  };
}
