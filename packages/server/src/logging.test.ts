import { describe, expect, it } from 'vitest';
import { redactUrl, toLogRow } from './logging.js';

describe('toLogRow', () => {
  it('maps pino levels to the four levels of the logs screen and keeps the component', () => {
    const row = (level: number) =>
      toLogRow(JSON.stringify({ level, time: 0, msg: 'm', component: 'auth' }));
    expect(row(20)?.level).toBe('debug');
    expect(row(30)?.level).toBe('info');
    expect(row(40)?.level).toBe('warning');
    expect(row(50)?.level).toBe('error');
    expect(row(60)?.level).toBe('error');
    expect(row(30)).toEqual({
      timestamp: '1970-01-01T00:00:00.000Z',
      level: 'info',
      component: 'auth',
      message: 'm',
    });
  });

  it('appends the error message and defaults the component', () => {
    const r = toLogRow(
      JSON.stringify({ level: 50, time: 0, msg: 'save failed', err: { message: 'disk full' } }),
    );
    expect(r).toMatchObject({ component: 'server', message: 'save failed: disk full' });
    expect(toLogRow('not json')).toBeNull();
  });
});

describe('redactUrl', () => {
  it('hides api_key wherever it stands in the query', () => {
    expect(redactUrl('/api/v1/ws?api_key=abc')).toBe('/api/v1/ws?api_key=[REDACTED]');
    expect(redactUrl('/x?a=1&API_KEY=abc&b=2')).toBe('/x?a=1&API_KEY=[REDACTED]&b=2');
    expect(redactUrl('/x?my_api_key=1')).toBe('/x?my_api_key=1');
  });
});
