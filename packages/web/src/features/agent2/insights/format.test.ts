import { describe, expect, it } from 'vitest';
import { niceAxis, signed, simClock } from './format';

describe('insight formatters', () => {
  it('rounds a count axis up to round steps', () => {
    expect(niceAxis(36)).toEqual({ max: 40, ticks: [0, 10, 20, 30, 40] });
    expect(niceAxis(43.2)).toEqual({ max: 50, ticks: [0, 10, 20, 30, 40, 50] });
    expect(niceAxis(7)).toEqual({ max: 8, ticks: [0, 2, 4, 6, 8] });
    expect(niceAxis(0)).toEqual({ max: 1, ticks: [0, 1] });
    expect(niceAxis(1234).ticks).toEqual([0, 500, 1000, 1500]);
  });

  it('writes simulation time as a clock and differences with their sign', () => {
    expect([0, 45_000, 725_000, 3_725_000].map(simClock)).toEqual([
      '0:00',
      '0:45',
      '12:05',
      '1:02:05',
    ]);
    expect([signed(0.1234, 3), signed(-0.05), signed(0.0001)]).toEqual(['+0.123', '-0.05', '0.00']);
  });
});
