import Database from 'better-sqlite3';
import pino from 'pino';
import { beforeEach, describe, expect, it } from 'vitest';
import { EventBus } from '../lib/event-bus.js';
import { JobService } from '../services/job.service.js';
import { migrate, type Db } from '../store/db.js';
import { JobRepository } from '../store/job.repository.js';
import { migrations } from '../store/migrations/index.js';
import { CANCEL_RECHECK_MS, createJobContext, finishJob } from './job-context.js';
import type { QueueDriver } from './queue-driver.js';

const log = pino({ level: 'silent' });
const queue = { cancel: () => undefined, submit: () => undefined } as unknown as QueueDriver;

let db: Db;
let jobs: JobRepository;
let bus: EventBus;
let service: JobService;
/** Reads of a job row by id (what a cancel check costs). */
let reads: number;
let clock: number;

beforeEach(() => {
  db = new Database(':memory:');
  migrate(db, migrations);
  jobs = new JobRepository(db);
  const findById = jobs.findById.bind(jobs);
  reads = 0;
  jobs.findById = (id) => {
    reads++;
    return findById(id);
  };
  bus = new EventBus();
  service = new JobService({ jobs, queue, bus, log });
  clock = 0;
});

function running() {
  const id = service.create({ type: 'process_urls', urls: ['https://a.example/'] }).id;
  jobs.update(id, { status: 'processing' });
  const row = jobs.findById(id)!;
  reads = 0;
  const ctx = createJobContext({
    jobs,
    bus,
    row,
    workerId: 'w',
    stopping: () => false,
    now: () => clock,
  });
  return { id, ctx };
}

describe('a running job noticing its cancel', () => {
  it('reads its row at most once per CANCEL_RECHECK_MS, not once per check', () => {
    const { ctx } = running();
    for (let i = 0; i < 1_000; i++) expect(ctx.shouldStop()).toBe(false);
    expect(reads).toBe(1);
    clock += CANCEL_RECHECK_MS;
    for (let i = 0; i < 1_000; i++) expect(ctx.cancelled()).toBe(false);
    expect(reads).toBe(2);
  });

  it('sees a cancel made in this process at its next check, with no read', () => {
    const { id, ctx } = running();
    expect(ctx.shouldStop()).toBe(false);
    service.cancel(id);
    reads = 0;
    expect(ctx.shouldStop()).toBe(true);
    expect(ctx.cancelled()).toBe(true);
    expect(reads).toBe(0);
  });

  it('sees a deleted job as cancelled at once', () => {
    const { id, ctx } = running();
    expect(ctx.cancelled()).toBe(false);
    service.delete(id);
    expect(ctx.cancelled()).toBe(true);
  });

  it('sees a cancel written by another process once CANCEL_RECHECK_MS passed', () => {
    const { id, ctx } = running();
    expect(ctx.cancelled()).toBe(false);
    // Straight to the row, as another process's JobService would: no event here.
    jobs.update(id, { status: 'cancelled' });
    clock += CANCEL_RECHECK_MS - 1;
    expect(ctx.cancelled()).toBe(false);
    clock += 1;
    expect(ctx.cancelled()).toBe(true);
  });

  it('reads again when its clock went back', () => {
    const { id, ctx } = running();
    clock = 5_000;
    expect(ctx.cancelled()).toBe(false);
    jobs.update(id, { status: 'cancelled' });
    clock = 4_000;
    expect(ctx.cancelled()).toBe(true);
  });

  it('stops listening for the cancel once the job ended', () => {
    const { id, ctx } = running();
    finishJob(
      { jobs, bus, log },
      { id, type: 'process_urls', errors: [] },
      {
        status: 'completed',
        segments_created: 0,
      },
    );
    // A late event for the ended job changes nothing (its listener is gone).
    bus.emit('job_cancelled', { job_id: id });
    expect(ctx.cancelled()).toBe(false);
  });
});

describe('record and flush', () => {
  it('record keeps the figures without writing; flush writes the row and sends them', () => {
    const { id, ctx } = running();
    const sent: unknown[] = [];
    bus.on('job_progress', (e) => sent.push(e));
    ctx.record({ stage: 'Syncing: 3 pages done', stats: { urls_done: 3 } });
    ctx.record({ stats: { urls_failed: 1 } });
    expect(ctx.stats).toMatchObject({ urls_done: 3, urls_failed: 1 });
    expect(JSON.parse(jobs.findById(id)!.stats)).toEqual({});
    expect(sent).toEqual([]);
    ctx.flush();
    const row = jobs.findById(id)!;
    expect(JSON.parse(row.stats)).toEqual({ urls_done: 3, urls_failed: 1 });
    expect(row.stage).toBe('Syncing: 3 pages done');
    expect(sent).toEqual([
      expect.objectContaining({
        job_id: id,
        stage: 'Syncing: 3 pages done',
        stats: { urls_done: 3, urls_failed: 1 },
      }),
    ]);
  });
});
