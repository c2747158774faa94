import { describe, expect, it } from 'vitest';
import { RealtimeMetrics } from '@adam/contracts';
import { EventBus } from '../lib/event-bus.js';
import { JOB_RATE_WINDOW_S, MetricsService } from './metrics.service.js';

describe('MetricsService.realtime', () => {
  it('counts jobs that ended completed or failed, per minute over five minutes', () => {
    let t = 1_000_000;
    const bus = new EventBus();
    const m = new MetricsService({ bus, now: () => t });
    for (let i = 0; i < 3; i++) bus.emit('job_completed', { job_id: i, segments_created: 1 });
    bus.emit('job_failed', { job_id: 3, error: 'boom' });
    // Cancelled: it did not run to its end.
    bus.emit('job_cancelled', { job_id: 4 });
    t += 2 * 60_000;
    bus.emit('job_completed', { job_id: 5, segments_created: 0 });
    expect(m.realtime().jobsPerMinute).toBe(1); // 5 jobs / 5 minutes
    t += JOB_RATE_WINDOW_S * 1000 - 2 * 60_000;
    expect(m.realtime().jobsPerMinute).toBe(0.2); // the first four are a window old
    t += 2 * 60_000;
    expect(m.realtime().jobsPerMinute).toBe(0);
  });

  it('passes on the running jobs and the search and segment rates, rounded, as the contract has them', () => {
    const m = new MetricsService({
      activeJobs: () => 2,
      searchesPerSecond: () => 7 / 60,
      segmentsPerSecond: () => 0.5,
    });
    const r = RealtimeMetrics.parse(m.realtime());
    expect(r).toMatchObject({
      activeJobs: 2,
      searchesPerSecond: 0.117,
      segmentsPerSecond: 0.5,
      jobsPerMinute: 0,
    });
    expect(r.cpuUsage).toBeGreaterThanOrEqual(0);
    expect(r.memoryUsage).toBeGreaterThan(0);
  });

  it('stops counting once stopped', () => {
    const bus = new EventBus();
    const m = new MetricsService({ bus });
    bus.emit('job_completed', { job_id: 1, segments_created: 1 });
    m.stop();
    bus.emit('job_completed', { job_id: 2, segments_created: 1 });
    expect(m.realtime().jobsPerMinute).toBe(0.2);
  });
});
