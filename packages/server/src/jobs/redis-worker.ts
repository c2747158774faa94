import os from 'node:os';
import { Worker, type Job as BullJob } from 'bullmq';
import { Redis } from 'ioredis';
import type { Config } from '../config.js';
import { Engine } from '../engine/engine.js';
import { readActiveSpace } from '../services/embedding-switch.service.js';
import { SafeFetcher } from '../scraping/safe-fetcher.js';
import {
  cancelKey,
  CONTROL_CHANNEL,
  doneKey,
  QUEUE_NAME,
  RESULTS,
  WORKER_HEARTBEAT_MS,
  WORKERS_HASH,
  type RemoteJobData,
  type WorkerInfoWire,
  type WorkerMessage,
} from './redis-protocol.js';
import { jobDefinition } from './registry.js';
import { jobAbortController } from './job-signal.js';

interface RunningWorker {
  id: string;
  close(): Promise<void>;
  /** Resolves when the worker has stopped (asked to, or by close()). */
  stopped: Promise<void>;
}

/**
 * An `adam worker` process: takes jobs from the BullMQ queue, does their working half (fetch,
 * extract, analyse, embed) with its own engine, and sends the results to the server through
 * Redis. It never touches the store. A URL it finished is remembered in Redis, so when it dies
 * mid-job, BullMQ's stalled-job check hands the job to another worker that goes on from there.
 */
export async function startRedisWorker(
  config: Config,
  log: (line: string) => void = (l) => console.log(l),
): Promise<RunningWorker> {
  if (!config.redisUrl) throw new Error('REDIS_URL is not set: `adam worker` needs Redis');
  const id = `${os.hostname()}-${process.pid}-${Math.random().toString(36).slice(2, 6)}`;
  const redis = new Redis(config.redisUrl, { maxRetriesPerRequest: null });
  const sub = redis.duplicate();
  const engine = new Engine({
    dataDir: config.dataDir,
    threads: Math.max(1, config.workers),
    onTimeout: (e) => {
      log(`worker ${id}: ${e.message}`);
      info.task_timeouts++;
      void beat();
      // The server logs it and counts it, as it does its own engine's timeouts.
      if (current)
        void send({
          kind: 'task_timeout',
          job_id: current.jobId,
          worker_id: id,
          message: e.message,
        }).catch(() => undefined);
    },
  });
  // Warm before the first job arrives; a failure here is retried by that job's first call.
  engine.start().catch((e: unknown) => log(`engine start failed: ${(e as Error).message}`));
  const fetcher = new SafeFetcher({ allow: config.fetchAllow });
  const info: WorkerInfoWire = {
    id,
    status: 'idle',
    current_job: null,
    started_at: new Date().toISOString(),
    processed: 0,
    failed: 0,
    task_timeouts: 0,
    host: os.hostname(),
    pid: process.pid,
    seen_at: Date.now(),
  };
  let stopping = false;
  /** The running job's: aborted on its cancel or this worker's stop (see WorkContext.signal). */
  let current: { jobId: number; abort: AbortController } | null = null;
  const send = (m: WorkerMessage) => redis.rpush(RESULTS, JSON.stringify(m));
  const beat = async () => {
    info.seen_at = Date.now();
    await redis.hset(WORKERS_HASH, id, JSON.stringify(info)).catch(() => undefined);
  };

  async function processor(job: BullJob<RemoteJobData>): Promise<string> {
    const data = job.data;
    const jobId = data.job_id;
    info.status = 'busy';
    info.current_job = jobId;
    await beat();
    await send({ kind: 'started', job_id: jobId, worker_id: id });
    let cancelled = false;
    const abort = jobAbortController();
    current = { jobId, abort };
    const isCancelled = async () => {
      cancelled ||= (await redis.exists(cancelKey(jobId))) === 1;
      if (cancelled) abort.abort();
      return cancelled;
    };
    const ticker = setInterval(() => {
      void send({ kind: 'progress', job_id: jobId, worker_id: id, stage: 'working' });
    }, 10_000);
    // The server also announces a cancel on the control channel; this catches one it missed.
    const cancelWatch = setInterval(() => void isCancelled().catch(() => undefined), 2_000);
    try {
      const def = jobDefinition(data.type);
      if (def?.runsOn !== 'any') throw new Error(`Job type ${data.type} does not run on workers`);
      const input: unknown = def.input.parse(data.input);
      // The server's active embedding model, as its last switch recorded it: a worker on the
      // server's data directory embeds in the same space (elsewhere, the built-in one; the
      // server then re-embeds those rows itself).
      engine.useSpace(readActiveSpace(config.dataDir, { error: (_o, message) => log(message) }));
      await def.work(input, {
        engine,
        fetcher,
        jobId,
        urls: data.urls,
        done: new Set(await redis.smembers(doneKey(jobId))),
        resume: data.resume,
        settings: data.settings,
        rules: data.rules,
        signal: abort.signal,
        shouldStop: async () => stopping || (await isCancelled()),
        emit: async (result) => {
          if (stopping || (await isCancelled())) return;
          await send({ kind: 'result', job_id: jobId, worker_id: id, result: def.encode(result) });
          // On its way to the server: a worker that takes the job over goes on after it.
          const key = def.resumeKey?.(result);
          if (key) await redis.sadd(doneKey(jobId), key);
        },
      });
      const outcome = (await isCancelled()) ? 'cancelled' : stopping ? 'interrupted' : 'finished';
      await send({ kind: 'done', job_id: jobId, worker_id: id, outcome });
      info.processed++;
      return outcome;
    } catch (e) {
      info.failed++;
      await send({
        kind: 'done',
        job_id: jobId,
        worker_id: id,
        outcome: 'error',
        error: (e as Error).message,
      });
      return 'error';
    } finally {
      clearInterval(ticker);
      clearInterval(cancelWatch);
      current = null;
      info.status = stopping ? 'stopping' : 'idle';
      info.current_job = null;
      await beat();
    }
  }

  const worker = new Worker<RemoteJobData, string>(QUEUE_NAME, processor, {
    connection: { url: config.redisUrl, maxRetriesPerRequest: null },
    concurrency: 1,
    lockDuration: config.workerLockMs,
    stalledInterval: Math.max(1000, Math.floor(config.workerLockMs / 2)),
    maxStalledCount: 5,
  });
  worker.on('error', (e) => log(`worker ${id}: ${e.message}`));
  const heartbeat = setInterval(() => void beat(), WORKER_HEARTBEAT_MS);
  await beat();

  let resolveStopped!: () => void;
  const stopped = new Promise<void>((r) => (resolveStopped = r));
  let closing: Promise<void> | null = null;
  const close = () =>
    (closing ??= (async () => {
      stopping = true;
      info.status = 'stopping';
      // Its job's tasks are dropped (the job resumes elsewhere): a stuck thread holds no stop up.
      current?.abort.abort();
      await worker.close();
      clearInterval(heartbeat);
      await redis.hdel(WORKERS_HASH, id).catch(() => undefined);
      await engine.close();
      await fetcher.close();
      sub.disconnect();
      redis.disconnect();
      log(`worker ${id} stopped`);
      resolveStopped();
    })());

  await sub.subscribe(CONTROL_CHANNEL);
  sub.on('message', (_channel, message) => {
    if (message === 'stop' || message === `stop:${id}`) void close();
    if (current && message === `cancel:${current.jobId}`) current.abort.abort();
  });
  log(`worker ${id} waiting for jobs on ${QUEUE_NAME}`);
  return { id, close, stopped };
}
