import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { createLogger, LogSink } from '../logging.js';
import { EventBus } from '../lib/event-bus.js';
import { ActivityRepository } from '../store/activity.repository.js';
import { migrate } from '../store/db.js';
import { migrations } from '../store/migrations/index.js';
import { ActivityService } from './activity.service.js';

function setup(keep: number) {
  const db = new Database(':memory:');
  migrate(db, migrations);
  const bus = new EventBus();
  const log = createLogger({ level: 'error', sink: new LogSink(), stdout: false });
  const make = () => new ActivityService({ activity: new ActivityRepository(db), bus, log, keep });
  return { db, bus, make };
}

const created = (bus: EventBus, n: number) => {
  for (let i = 1; i <= n; i++) {
    bus.emit('job_created', {
      job_id: i,
      type: 'save_segments',
      status: 'pending',
      priority: 'normal',
    });
  }
};

describe('ActivityService', () => {
  it('writes one line per event, newest first, with its kind, level and job', () => {
    const { bus, make } = setup(100);
    const feed = make();
    feed.start();
    created(bus, 1);
    bus.emit('job_completed', { job_id: 1, segments_created: 1 });
    bus.emit('snippets.deleted', { ids: [4, 5] });
    bus.emit('auth.login', { user_id: 1, email: 'admin@example.com' });
    expect(
      feed
        .recent(10)
        .items.map(({ kind, level, job_id, message }) => ({ kind, level, job_id, message })),
    ).toEqual([
      { kind: 'login', level: 'info', job_id: null, message: 'admin@example.com logged in' },
      { kind: 'snippets_deleted', level: 'warning', job_id: null, message: '2 snippets deleted' },
      { kind: 'job_completed', level: 'success', job_id: 1, message: 'Job 1 completed: 1 segment' },
      {
        kind: 'job_created',
        level: 'info',
        job_id: 1,
        message: 'Job 1 queued (save_segments, normal priority)',
      },
    ]);
    feed.stop();
    created(bus, 1);
    expect(feed.recent(10).items).toHaveLength(4);
  });

  it('keeps the newest rows: pruned every 100 writes and at start', () => {
    const { db, bus, make } = setup(30);
    const count = () => db.prepare('SELECT COUNT(*) FROM activity').pluck().get();
    const feed = make();
    feed.start();
    created(bus, 120);
    expect(count()).toBe(30 + 20); // pruned at the 100th write, 20 written since
    expect(feed.recent(1).items[0]!.job_id).toBe(120);
    feed.stop();
    make().start();
    expect(count()).toBe(30);
    expect(db.prepare('SELECT MIN(job_id) FROM activity').pluck().get()).toBe(91);
  });

  it('never fails the action that reported the event', () => {
    const { db, bus, make } = setup(10);
    make().start();
    db.close();
    expect(() => created(bus, 1)).not.toThrow();
  });
});
