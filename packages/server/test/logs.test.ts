import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { LogEntry } from '@adam/contracts';
import { LogRepository, type LogRow } from '../src/store/log.repository.js';
import { startServer, type TestServer } from './helpers.js';

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;

describe('GET /admin/logs', () => {
  let s: TestServer;
  let key: string;
  let repo: LogRepository;

  // Errors only: the server's own lines stay out of the table these tests fill.
  beforeAll(async () => {
    s = await startServer({ env: { ADAM_LOG_LEVEL: 'error' } });
    key = await s.login();
    repo = new LogRepository(s.adam.db);
  });
  afterAll(() => s.close());
  beforeEach(() => {
    s.adam.db.exec('DELETE FROM logs');
  });

  /** Lines at `ago` ms before the server's clock (which stands still in tests). */
  const at = (ago: number) => new Date(s.clock.now() - ago).toISOString();
  const line = (ago: number, level: LogRow['level'], component: string, message: string) => ({
    timestamp: at(ago),
    level,
    component,
    message,
  });
  const get = (query: string) => s.api(`/api/v1/admin/logs?${query}`, { key });
  const messages = (logs: LogEntry[]) => logs.map((l) => l.message);

  it('answers 401 without a key', async () => {
    expect((await s.api('/api/v1/admin/logs')).status).toBe(401);
  });

  describe('filters', () => {
    beforeEach(() => {
      repo.insertMany([
        line(30 * 24 * HOUR, 'info', 'server', 'a month ago'),
        line(2 * 24 * HOUR, 'debug', 'engine', 'Engine warmed up'),
        line(2 * HOUR, 'warning', 'index', 'Vector index slow'),
        line(20 * MINUTE, 'error', 'queue', 'Job 7 failed: boom'),
        line(10 * MINUTE, 'info', 'http', 'GET /a answered 200'),
        line(5 * MINUTE, 'info', 'backup', 'Backup 100% written'),
      ]);
    });

    it('answers the range newest first, 1h by default', async () => {
      const r = await get('');
      expect(r.status).toBe(200);
      expect(messages(r.body.logs)).toEqual([
        'Backup 100% written',
        'GET /a answered 200',
        'Job 7 failed: boom',
      ]);
      expect(r.body.logs[2]).toEqual({
        timestamp: at(20 * MINUTE),
        level: 'error',
        component: 'queue',
        message: 'Job 7 failed: boom',
      });
      expect(r.body).toMatchObject({ page: 1, page_size: 20, has_more: false });
      expect(messages((await get('range=24h')).body.logs)).toEqual([
        'Backup 100% written',
        'GET /a answered 200',
        'Job 7 failed: boom',
        'Vector index slow',
      ]);
      expect(messages((await get('range=7d')).body.logs)).toHaveLength(5);
    });

    it('keeps one level, or every level for all', async () => {
      expect(messages((await get('range=7d&level=error')).body.logs)).toEqual([
        'Job 7 failed: boom',
      ]);
      expect(messages((await get('range=7d&level=debug')).body.logs)).toEqual(['Engine warmed up']);
      expect((await get('range=7d&level=all')).body.logs).toHaveLength(5);
    });

    it('searches message and component, ignoring case, wildcards taken literally', async () => {
      expect(messages((await get('range=7d&q=JOB%207')).body.logs)).toEqual(['Job 7 failed: boom']);
      expect(messages((await get('range=7d&q=ENGINE')).body.logs)).toEqual(['Engine warmed up']);
      expect(messages((await get('range=7d&q=http')).body.logs)).toEqual(['GET /a answered 200']);
      expect(messages((await get('range=7d&q=%25')).body.logs)).toEqual(['Backup 100% written']);
      expect((await get('range=7d&q=absent')).body.logs).toEqual([]);
      expect(messages((await get('range=7d&level=info&q=a')).body.logs)).toEqual([
        'Backup 100% written',
        'GET /a answered 200',
      ]);
    });
  });

  it('pages through the lines with has_more, each line once, duplicates dropped across pages', async () => {
    // 45 lines a minute apart, newest is "line 0"; some stored twice or three times, with the
    // copies placed on both sides of the page boundaries (20 and 40) in id order.
    const rows: LogRow[] = [];
    for (let i = 44; i >= 0; i--) rows.push(line(i * MINUTE, 'info', 'jobs', `line ${i}`));
    const again = (i: number, level: LogRow['level'] = 'info') =>
      line(i * MINUTE, level, 'jobs', `line ${i}`);
    repo.insertMany([again(19), again(20), again(0)]);
    repo.insertMany(rows);
    repo.insertMany([again(20, 'warning'), again(39), again(40), again(40)]);
    // Same timestamp, other message; same message, other timestamp: not duplicates.
    repo.insertMany([line(10 * MINUTE, 'info', 'jobs', 'line 10 bis')]);
    repo.insertMany([line(50 * MINUTE, 'info', 'jobs', 'line 0')]);

    const seen: LogEntry[] = [];
    const more: boolean[] = [];
    for (let page = 1; page <= 3; page++) {
      const r = await get(`page=${page}&page_size=20&tail=${20 * page}`);
      expect(r.status).toBe(200);
      seen.push(...r.body.logs);
      more.push(r.body.has_more);
    }
    const expected = Array.from({ length: 45 }, (_, i) => `line ${i}`);
    // Same timestamp as line 10, stored after it: first.
    expected.splice(10, 0, 'line 10 bis');
    expected.push('line 0');
    expect(messages(seen)).toEqual(expected);
    expect(more).toEqual([true, true, false]);
    // The copy kept is the last stored: line 20's at warning.
    expect(seen.find((l) => l.message === 'line 20')!.level).toBe('warning');
    expect(messages((await get('page=4&page_size=20')).body.logs)).toEqual([]);
    // Only the warning copy at level warning; the info copies at level info.
    expect(messages((await get('level=warning')).body.logs)).toEqual(['line 20']);
    expect(messages((await get('level=info&page_size=200')).body.logs)).toHaveLength(47);
  });

  it('shows only the newest `tail` lines, and has_more still says a next page exists', async () => {
    repo.insertMany(Array.from({ length: 8 }, (_, i) => line(i * MINUTE, 'info', 'x', `n${i}`)));
    let r = await get('page_size=5&tail=3');
    expect(messages(r.body.logs)).toEqual(['n0', 'n1', 'n2']);
    expect(r.body.has_more).toBe(true);
    r = await get('page=2&page_size=5&tail=10');
    expect(messages(r.body.logs)).toEqual(['n5', 'n6', 'n7']);
    expect(r.body.has_more).toBe(false);
  });

  it.each([
    ['range=2h', 'range'],
    ['page=0', 'page'],
    ['page_size=100000', 'page_size'],
    ['level=fatal', 'level'],
    ['tail=0', 'tail'],
    ['page=abc', 'page'],
  ])('answers 422 with a detail for %s', async (query, field) => {
    const r = await s.api(`/api/v1/admin/logs?${query}`, { key });
    expect(r.status).toBe(422);
    expect(typeof r.body.detail).toBe('string');
    expect(r.body.detail).toContain(field);
  });
});
