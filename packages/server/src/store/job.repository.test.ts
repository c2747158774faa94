import Database from 'better-sqlite3';
import { beforeEach, describe, expect, it } from 'vitest';
import { migrate, type Db } from './db.js';
import { JobRepository } from './job.repository.js';
import { migrations } from './migrations/index.js';

let db: Db;
let jobs: JobRepository;

beforeEach(() => {
  db = new Database(':memory:');
  migrate(db, migrations);
  jobs = new JobRepository(db);
});

const add = (priority: 'high' | 'normal' | 'low', type = 'process_urls', createdAt?: string) => {
  const id = jobs.insert({ type, priority, urls: [], input: {}, filters: {}, metadata: {} });
  if (createdAt) db.prepare('UPDATE jobs SET created_at = ? WHERE id = ?').run(createdAt, id);
  return id;
};
const NOW = '2026-03-01T12:00:00.000Z';
const claimAll = (types?: string[]) => {
  const ids: number[] = [];
  for (let row = jobs.claimNext('w1', NOW, types); row; row = jobs.claimNext('w1', NOW, types)) {
    ids.push(row.id);
  }
  return ids;
};

describe('JobRepository.claimNext', () => {
  it('takes the highest priority first, then the oldest, whatever the insertion order', () => {
    const low = add('low', 'process_urls', '2026-01-01T00:00:00.000Z');
    const newer = add('normal', 'process_urls', '2026-01-03T00:00:00.000Z');
    const older = add('normal', 'process_urls', '2026-01-02T00:00:00.000Z');
    const high = add('high', 'process_urls', '2026-01-04T00:00:00.000Z');
    expect(claimAll()).toEqual([high, older, newer, low]);
  });

  it('marks the claimed job processing for its worker, started once and counted per attempt', () => {
    const id = add('normal');
    const row = jobs.claimNext('embedded-1', NOW)!;
    expect(row).toMatchObject({
      id,
      status: 'processing',
      worker_id: 'embedded-1',
      started_at: NOW,
      heartbeat_at: NOW,
      attempts: 1,
    });
    jobs.requeueProcessing();
    const again = jobs.claimNext('embedded-2', '2026-03-01T13:00:00.000Z')!;
    expect(again).toMatchObject({ worker_id: 'embedded-2', started_at: NOW, attempts: 2 });
  });

  it('takes only the given types, leaving a higher-priority job of another type pending', () => {
    const rebuild = add('high', 'rebuild_index');
    const save = add('low', 'save_segments');
    const urls = add('normal', 'process_urls');
    expect(claimAll(['save_segments', 'process_urls'])).toEqual([urls, save]);
    expect(jobs.findById(rebuild)!.status).toBe('pending');
  });

  it('answers nothing when no job is pending', () => {
    add('normal');
    jobs.claimNext('w1', NOW);
    expect(jobs.claimNext('w1', NOW)).toBeUndefined();
  });
});

describe('JobRepository.countPending', () => {
  it('counts only pending jobs', () => {
    const claimed = add('high');
    const completed = add('normal');
    const cancelled = add('normal');
    add('normal');
    add('low');
    expect(jobs.claimNext('w1', NOW)!.id).toBe(claimed);
    jobs.update(completed, { status: 'completed' });
    jobs.update(cancelled, { status: 'cancelled' });
    expect(jobs.countPending()).toBe(2);
  });
});

describe('JobRepository.requeueProcessing', () => {
  it('puts processing jobs back to pending, only for the given workers and types', () => {
    const mine = add('normal', 'process_urls');
    const other = add('normal', 'process_urls');
    const server = add('normal', 'rebuild_index');
    const done = add('normal', 'process_urls');
    jobs.claimNext('w1', NOW, ['process_urls']); // mine
    jobs.claimNext('w2', NOW, ['process_urls']); // other
    jobs.claimNext('w1', NOW, ['rebuild_index']); // server
    jobs.update(done, { status: 'completed' });

    expect(jobs.requeueProcessing(['w1'], ['process_urls'])).toEqual([mine]);
    expect(jobs.findById(mine)).toMatchObject({
      status: 'pending',
      worker_id: null,
      heartbeat_at: null,
      stage: 'requeued',
    });
    expect(jobs.findById(other)!.status).toBe('processing');
    expect(jobs.findById(server)!.status).toBe('processing');

    expect(jobs.requeueProcessing().sort()).toEqual([other, server].sort());
    expect(jobs.findById(done)!.status).toBe('completed');
  });
});

describe('JobRepository.update', () => {
  it('changes a job only while it is in one of the given statuses', () => {
    const id = add('normal');
    expect(jobs.update(id, { stage: 'x' }, ['processing'])).toBe(false);
    expect(jobs.findById(id)!.stage).toBeNull();
    expect(jobs.update(id, { stage: 'y' }, ['pending', 'processing'])).toBe(true);
    expect(jobs.findById(id)!.stage).toBe('y');
  });
});
