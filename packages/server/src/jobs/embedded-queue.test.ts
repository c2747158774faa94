import Database from 'better-sqlite3';
import pino from 'pino';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { until } from '../../test/until.js';
import { EventBus } from '../lib/event-bus.js';
import { migrate } from '../store/db.js';
import { JobRepository } from '../store/job.repository.js';
import { migrations } from '../store/migrations/index.js';
import { FakeRecord, fakeRuntime, FakeWork, gate } from './__fixtures__/fakes.js';
import { EmbeddedQueue } from './embedded-queue.js';

const A = 'https://a.example/1';
const B = 'https://b.example/2';
const C = 'https://c.example/3';

let db: Database.Database;
let jobs: JobRepository;
let bus: EventBus;
let work: FakeWork;
let record: FakeRecord;
let queue: EmbeddedQueue;

function makeQueue(types?: readonly string[]) {
  queue = new EmbeddedQueue({
    jobs,
    runtime: fakeRuntime(work, record, { max_concurrent_scrapes: 1 }),
    types,
    bus,
    log: pino({ level: 'silent' }),
  });
  return queue;
}

const add = (
  type: string,
  opts: { priority?: 'high' | 'normal' | 'low'; urls?: string[]; input?: unknown } = {},
) =>
  jobs.insert({
    type,
    priority: opts.priority ?? 'normal',
    urls: opts.urls ?? [],
    input: opts.input ?? {},
    filters: {},
    metadata: {},
  });
const status = (id: number) => jobs.findById(id)?.status;
const ended = (id: number) =>
  until(() => ['completed', 'failed', 'cancelled'].includes(status(id)!), {
    what: () => `job ${id} to end (${status(id)})`,
  });

beforeEach(() => {
  db = new Database(':memory:');
  migrate(db, migrations);
  jobs = new JobRepository(db);
  bus = new EventBus();
  work = new FakeWork();
  record = new FakeRecord();
});
afterEach(async () => {
  vi.useRealTimers();
  await queue?.close();
});

describe('EmbeddedQueue', () => {
  it('runs jobs by priority, then age', async () => {
    const save = (text: string, priority: 'high' | 'normal' | 'low', createdAt: string) => {
      const id = add('save_segments', { priority, input: { text } });
      db.prepare('UPDATE jobs SET created_at = ? WHERE id = ?').run(createdAt, id);
      return id;
    };
    save('low', 'low', '2026-01-01T00:00:00.000Z');
    save('normal, newer', 'normal', '2026-01-03T00:00:00.000Z');
    save('normal, older', 'normal', '2026-01-02T00:00:00.000Z');
    const last = save('high', 'high', '2026-01-04T00:00:00.000Z');
    makeQueue().start(1);
    await until(() => work.analyzed.length === 4, { what: 'four jobs analysed' });
    await ended(last);
    expect(work.analyzed).toEqual(['high', 'normal, older', 'normal, newer', 'low']);
  });

  it('wakes an idle worker when a job is submitted, without waiting for its next poll', async () => {
    // With setTimeout faked the idle poll never fires: only submit() can start the job.
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    makeQueue().start(1);
    const completed = new Promise((resolve) => bus.on('job_completed', resolve));
    const id = add('save_segments', { input: { text: 'late' } });
    queue.submit();
    expect(await completed).toEqual({ job_id: id, segments_created: 1 });
  });

  it('puts a running job back to pending when stopped, and a restart resumes after its finished URLs', async () => {
    const atB = gate();
    const releaseB = gate();
    work.hold = async (url) => {
      if (url === B) {
        atB.open();
        await releaseB.wait;
      }
    };
    const id = add('process_urls', { urls: [A, B, C] });
    makeQueue().start(1);
    await atB.wait;
    const stopping = queue.stop();
    releaseB.open();
    await stopping;

    expect(jobs.findById(id)).toMatchObject({
      status: 'pending',
      stage: 'requeued',
      worker_id: null,
      done_urls: JSON.stringify([A]),
    });
    expect(work.fetched).toEqual([A, B]);
    expect(record.stored.map((s) => s.url)).toEqual([A]);

    work.hold = async () => {};
    queue.start(1);
    await ended(id);
    expect(status(id)).toBe('completed');
    expect(work.fetched).toEqual([A, B, B, C]);
    expect(record.stored.map((s) => s.url)).toEqual([A, B, C]);
    expect(jobs.findById(id)!.attempts).toBe(2);
  });

  it('keeps nothing more of a job cancelled while it runs, and leaves it cancelled', async () => {
    const id = add('process_urls', { urls: [A, B, C] });
    work.hold = async (url) => {
      // As JobService.cancel does it: the row, then the event the running job listens to.
      if (url === B) {
        jobs.update(id, { status: 'cancelled' });
        bus.emit('job_cancelled', { job_id: id });
      }
    };
    makeQueue().start(1);
    await until(() => queue.status().workers[0]?.status === 'idle' && work.fetched.length > 0, {
      what: 'the worker to let go of the job',
    });
    expect(status(id)).toBe('cancelled');
    expect(work.fetched).toEqual([A, B]);
    expect(record.stored.map((s) => s.url)).toEqual([A]);
    expect(queue.status().workers[0]).toMatchObject({ processed: 0, failed: 0 });
  });

  it('fails a job of an unknown type, saying so', async () => {
    const failed = new Promise((resolve) => bus.on('job_failed', resolve));
    const id = add('mystery');
    makeQueue().start(1);
    expect(await failed).toEqual({ job_id: id, error: 'No handler for job type mystery' });
    const row = jobs.findById(id)!;
    expect(row.status).toBe('failed');
    expect(JSON.parse(row.errors)).toEqual([
      expect.objectContaining({ type: 'job', message: 'No handler for job type mystery' }),
    ]);
    expect(queue.status().workers[0]).toMatchObject({ failed: 1 });
  });

  it('requeues on recover() what a crash left processing, of its own types only, and resumes it', async () => {
    const crashed = add('process_urls', { urls: [A, B] });
    const serverOnly = add('rebuild_index');
    jobs.claimNext('embedded-1', new Date().toISOString());
    jobs.claimNext('embedded-1', new Date().toISOString());
    jobs.update(crashed, { done_urls: JSON.stringify([A]) });

    makeQueue(['process_urls', 'save_segments']);
    expect(queue.recover()).toEqual([crashed]);
    expect(jobs.findById(crashed)).toMatchObject({ status: 'pending', stage: 'requeued' });
    expect(status(serverOnly)).toBe('processing');

    queue.start(1);
    await ended(crashed);
    expect(status(crashed)).toBe('completed');
    expect(work.fetched).toEqual([B]);
  });
});
