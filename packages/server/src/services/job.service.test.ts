import { QUEUE_FULL_RETRY_AFTER_SECONDS } from '@adam/contracts';
import Database from 'better-sqlite3';
import pino from 'pino';
import { beforeEach, describe, expect, it } from 'vitest';
import type { QueueDriver } from '../queue/queue-driver.js';
import { AppError, Conflict, NotFound, TooManyRequests } from '../lib/errors.js';
import { EventBus } from '../lib/event-bus.js';
import { migrate, type Db } from '../store/db.js';
import { JobRepository } from '../store/job.repository.js';
import { migrations } from '../store/migrations/index.js';
import { JobService } from './job.service.js';

/** A queue that only remembers what it was told. */
class FakeQueue implements QueueDriver {
  readonly mode = 'embedded' as const;
  readonly submitted: number[] = [];
  readonly cancelled: number[] = [];
  recover() {}
  submit(id: number) {
    this.submitted.push(id);
  }
  cancel(id: number) {
    this.cancelled.push(id);
  }
  async pause() {}
  async resume() {}
  start() {}
  async stop() {}
  status() {
    return { workers: [], running: 0 };
  }
  async close() {}
}

let db: Db;
let jobs: JobRepository;
let queue: FakeQueue;
let bus: EventBus;
let events: { type: string; payload: unknown }[];

function service(over: { jobs?: JobRepository; maxQueued?: number } = {}) {
  return new JobService({
    jobs: over.jobs ?? jobs,
    queue,
    bus,
    log: pino({ level: 'silent' }),
    maxQueued: over.maxQueued,
  });
}

beforeEach(() => {
  db = new Database(':memory:');
  migrate(db, migrations);
  jobs = new JobRepository(db);
  queue = new FakeQueue();
  bus = new EventBus();
  events = [];
  bus.onAny((e) => events.push(e));
});

const setStatus = (id: number, status: 'processing' | 'completed' | 'failed' | 'cancelled') =>
  jobs.update(id, { status });
const status = (id: number) => jobs.findById(id)?.status;
const thrown = (fn: () => unknown): AppError => {
  try {
    fn();
  } catch (e) {
    return e as AppError;
  }
  throw new Error('expected an error');
};

describe('JobService.create', () => {
  it('queues a pending job, announces it and hands it to the queue', () => {
    const job = service().create({ type: 'process_urls', urls: ['https://a.example/'] });
    expect(job).toMatchObject({ type: 'process_urls', status: 'pending', priority: 'normal' });
    expect(job.urls).toEqual(['https://a.example/']);
    expect(queue.submitted).toEqual([job.id]);
    expect(events).toEqual([
      {
        type: 'job_created',
        payload: { job_id: job.id, type: 'process_urls', status: 'pending', priority: 'normal' },
      },
    ]);
  });

  it('refuses with 429 and Retry-After once maxQueued jobs are pending, adding nothing', () => {
    const jobsService = service({ maxQueued: 2 });
    jobsService.create({ type: 'save_segments' });
    jobsService.create({ type: 'save_segments' });
    const e = thrown(() => jobsService.create({ type: 'save_segments' }));
    expect(e).toBeInstanceOf(TooManyRequests);
    expect(e.status).toBe(429);
    expect(e.headers).toEqual({ 'retry-after': String(QUEUE_FULL_RETRY_AFTER_SECONDS) });
    expect(e.message).toMatch(/^The job queue is full: 2 jobs are waiting to run/);
    expect(jobs.countPending()).toBe(2);
    expect(queue.submitted).toHaveLength(2);
  });

  it('counts only pending jobs against the bound', () => {
    const jobsService = service({ maxQueued: 1 });
    const first = jobsService.create({ type: 'save_segments' });
    setStatus(first.id, 'processing');
    expect(jobsService.create({ type: 'save_segments' }).status).toBe('pending');
  });

  it('lets an internal job past the bound', () => {
    const jobsService = service({ maxQueued: 1 });
    jobsService.create({ type: 'save_segments' });
    const internal = jobsService.create({ type: 'rebuild_index' }, { internal: true });
    expect(internal.status).toBe('pending');
    expect(jobs.countPending()).toBe(2);
    expect(queue.submitted).toContain(internal.id);
  });
});

describe('JobService.cancel', () => {
  it('cancels a pending or processing job, tells the queue and announces it', () => {
    const s = service();
    const pending = s.create({ type: 'save_segments' }).id;
    const processing = s.create({ type: 'save_segments' }).id;
    setStatus(processing, 'processing');
    for (const id of [pending, processing]) {
      expect(s.cancel(id)).toMatchObject({ status: 'cancelled', stage: 'cancelled' });
      expect(jobs.findById(id)!.cancelled_at).not.toBeNull();
    }
    expect(queue.cancelled).toEqual([pending, processing]);
    expect(events.filter((e) => e.type === 'job_cancelled').map((e) => e.payload)).toEqual([
      { job_id: pending },
      { job_id: processing },
    ]);
  });

  it('answers 409 for a finished job and 404 for an unknown one', () => {
    const s = service();
    const id = s.create({ type: 'save_segments' }).id;
    setStatus(id, 'completed');
    const e = thrown(() => s.cancel(id));
    expect(e).toBeInstanceOf(Conflict);
    expect(e.message).toBe(
      `Job ${id} is completed: only pending or processing jobs can be cancelled`,
    );
    expect(thrown(() => s.cancel(999))).toBeInstanceOf(NotFound);
  });

  /** The repository, with `between` run right after the service's first read of the job. */
  function racing(between: () => void): JobRepository {
    let first = true;
    return new Proxy(jobs, {
      get(target, prop, receiver) {
        if (prop !== 'findById') return Reflect.get(target, prop, receiver);
        return (id: number) => {
          const row = target.findById(id);
          if (first) {
            first = false;
            between();
          }
          return row;
        };
      },
    });
  }

  it('does not overwrite a job that finished between its read and its write, and answers 409', () => {
    const id = service().create({ type: 'save_segments' }).id;
    setStatus(id, 'processing');
    const s = service({ jobs: racing(() => setStatus(id, 'completed')) });
    const e = thrown(() => s.cancel(id));
    expect(e).toBeInstanceOf(Conflict);
    expect(e.message).toMatch(/is completed/);
    expect(jobs.findById(id)!.status).toBe('completed');
    expect(queue.cancelled).toEqual([]);
    expect(events.some((e) => e.type === 'job_cancelled')).toBe(false);
  });

  it('decides again when a pending job was taken between its read and its write', () => {
    const id = service().create({ type: 'save_segments' }).id;
    const s = service({ jobs: racing(() => setStatus(id, 'processing')) });
    expect(s.cancel(id).status).toBe('cancelled');
    expect(queue.cancelled).toEqual([id]);
  });
});

describe('JobService.relaunch', () => {
  it('queues a finished job again as a new job with its URLs, input and filters', () => {
    const s = service();
    const old = s.create({
      type: 'process_urls',
      urls: ['https://a.example/'],
      input: { language: 'fr' },
      filters: { min_quality: 0.5 },
    }).id;
    setStatus(old, 'failed');
    const r = s.relaunch(old, 'high');
    expect(r.relaunched_from).toBe(old);
    expect(r.job_id).not.toBe(old);
    expect(r.job).toMatchObject({
      id: r.job_id,
      type: 'process_urls',
      status: 'pending',
      priority: 'high',
      urls: ['https://a.example/'],
      filters: { min_quality: 0.5 },
      metadata: { relaunched_from: old },
    });
    expect(JSON.parse(jobs.findById(r.job_id)!.input)).toEqual({ language: 'fr' });
    expect(status(old)).toBe('failed');
  });

  it('relaunches completed, failed and cancelled jobs only', () => {
    const s = service();
    for (const st of ['completed', 'failed', 'cancelled'] as const) {
      const id = s.create({ type: 'save_segments' }).id;
      setStatus(id, st);
      expect(s.relaunch(id, 'normal').job.status).toBe('pending');
    }
    const pending = s.create({ type: 'save_segments' }).id;
    const processing = s.create({ type: 'save_segments' }).id;
    setStatus(processing, 'processing');
    for (const [id, st] of [
      [pending, 'pending'],
      [processing, 'processing'],
    ] as const) {
      const e = thrown(() => s.relaunch(id, 'normal'));
      expect(e.status).toBe(409);
      expect(e.message).toBe(
        `Job ${id} is ${st}: only completed, failed or cancelled jobs can be relaunched`,
      );
    }
    expect(thrown(() => s.relaunch(999, 'normal')).status).toBe(404);
  });

  it('is refused like any new job once the queue is full', () => {
    const s = service({ maxQueued: 1 });
    const old = s.create({ type: 'save_segments' }).id;
    setStatus(old, 'completed');
    s.create({ type: 'save_segments' });
    expect(thrown(() => s.relaunch(old, 'normal')).status).toBe(429);
  });
});

describe('JobService.delete', () => {
  it('cancels a pending or processing job before deleting it', () => {
    const s = service();
    const id = s.create({ type: 'save_segments' }).id;
    setStatus(id, 'processing');
    expect(s.delete(id)).toEqual({ id, deleted: true });
    expect(jobs.findById(id)).toBeUndefined();
    expect(queue.cancelled).toEqual([id]);
    expect(events.map((e) => e.type)).toEqual(['job_created', 'job_cancelled', 'job_deleted']);
  });

  it('deletes a finished job without cancelling it, and answers 404 for an unknown one', () => {
    const s = service();
    const id = s.create({ type: 'save_segments' }).id;
    setStatus(id, 'completed');
    s.delete(id);
    expect(jobs.findById(id)).toBeUndefined();
    expect(queue.cancelled).toEqual([]);
    expect(events.map((e) => e.type)).toEqual(['job_created', 'job_deleted']);
    expect(thrown(() => s.delete(id))).toBeInstanceOf(NotFound);
  });
});
