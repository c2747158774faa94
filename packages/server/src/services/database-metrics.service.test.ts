import { describe, expect, it } from 'vitest';
import { parseRedisInfo } from './database-metrics.service.js';

const info = (fields: Record<string, string | number>) =>
  ['# Server', ...Object.entries(fields).map(([k, v]) => `${k}:${v}`), ''].join('\r\n');

describe('parseRedisInfo', () => {
  it('reads the panel from INFO, memory in MB', () => {
    expect(
      parseRedisInfo(
        info({
          redis_version: '7.0.15',
          used_memory: 3 * 1048576,
          maxmemory: 512 * 1048576,
          total_system_memory: 8192 * 1048576,
          connected_clients: 4,
          instantaneous_ops_per_sec: 12,
          keyspace_hits: 3,
          keyspace_misses: 1,
          evicted_keys: 2,
          expired_keys: 5,
        }),
      ),
    ).toEqual({
      engine: 'redis 7.0.15',
      memory_usage_mb: 3,
      max_memory_mb: 512,
      connections: 4,
      ops_per_sec: 12,
      hit_rate: 0.75,
      evicted_keys: 2,
      expired_keys: 5,
    });
  });

  it('takes the machine memory when Redis has no limit, and no hit rate before any lookup', () => {
    const m = parseRedisInfo(
      info({
        maxmemory: 0,
        total_system_memory: 2048 * 1048576,
        keyspace_hits: 0,
        keyspace_misses: 0,
      }),
    );
    expect(m).toMatchObject({ engine: 'redis', max_memory_mb: 2048, hit_rate: null });
  });

  it('leaves a field INFO does not give as null', () => {
    expect(parseRedisInfo(info({ redis_version: '2.8.0', maxmemory: 0 }))).toMatchObject({
      max_memory_mb: null,
      memory_usage_mb: null,
      hit_rate: null,
      connections: null,
    });
  });
});
