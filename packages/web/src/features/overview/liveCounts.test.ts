import { describe, expect, it } from 'vitest';
import type { LiveStats, OverviewStats } from '@adam/contracts';
import { overviewCounts } from './liveCounts';

const stats: OverviewStats = {
  total_snippets: 100,
  total_segments: 120,
  total_sources: 3,
  sources_with_content: 3,
  sources_failed: 0,
  total_vectors: 90,
  index_size_mb: 1,
  active_jobs: 2,
  pending_jobs: 1,
  throughput_last_hour: 4,
  cache_hit_rate: null,
  segments_per_second: 0.5,
  themes: {},
  average_quality: 0.6,
  generated_at: '2026-03-01T10:00:00.000Z',
};

const live = (timestamp: string): LiveStats => ({
  total_snippets: 150,
  total_vectors: 140,
  pending_index: 10,
  jobs: { pending: 0, processing: 1, completed: 5, failed: 0, cancelled: 0 },
  workers: { mode: 'embedded', running: 1 },
  metrics: {
    cpuUsage: 1,
    memoryUsage: 2,
    segmentsPerSecond: 2.5,
    activeJobs: 0,
    jobsPerMinute: 0,
    searchesPerSecond: 0,
    timestamp,
  },
  uptime_s: 5,
});

describe('overviewCounts', () => {
  it('uses the overview answer until the channel pushes', () => {
    expect(overviewCounts(stats, undefined)).toMatchObject({
      totalSnippets: 100,
      activeJobs: 2,
      pendingJobs: 1,
      pendingIndex: null,
      jobs: null,
      source: 'overview',
    });
  });

  it('a newer push wins for the shared figures', () => {
    expect(overviewCounts(stats, live('2026-03-01T10:00:05.000Z'))).toMatchObject({
      totalSnippets: 150,
      totalVectors: 140,
      activeJobs: 1,
      pendingJobs: 0,
      segmentsPerSecond: 2.5,
      pendingIndex: 10,
      source: 'live',
    });
  });

  it('an older push does not hide a fresher overview answer, but still gives the channel-only figures', () => {
    expect(overviewCounts(stats, live('2026-03-01T09:59:00.000Z'))).toMatchObject({
      totalSnippets: 100,
      activeJobs: 2,
      pendingIndex: 10,
      jobs: { completed: 5 },
      source: 'overview',
    });
  });

  it('uses the push alone before the overview answers', () => {
    expect(overviewCounts(undefined, live('x'))).toMatchObject({
      totalSnippets: 150,
      source: 'live',
    });
    expect(overviewCounts(undefined, undefined)).toMatchObject({
      totalSnippets: null,
      source: null,
    });
  });
});
